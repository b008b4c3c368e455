"""Credentials written in prose: a password after the word that names it, in any common phrasing.

What the assignment rules (``password = x``, ``"password": "x"``) do not see, because people write::

    <word> <value>                       guest wifi password Maple2026! · with pass Shadow#2023
    <word> [for <what>] <link> <value>   the password for the router is Falcon!2019 · Passwort lautet X
    <word> <link> "<quoted>"             my password is 'open sesame 42'
    <word> is <three to six words>       her password is correct horse battery staple   (English)
    <account> / <value> · <account>:<v>  admin / Summit2020@ · root:Winter99!
    <sign-in word> ... <value>           login admin Hunter22! · ssh as ubuntu, pass was X
    mysql ... -p<value>

``<word>``, ``<link>`` and the qualifiers come from ``data/credential_words.toml``, per language. The value
decides: the nearer it is to the word, the less it must look like a secret.

- after a link (``is``, ``:``, ``lautet``): anything but an ordinary word, a short number, a version, a
  ticket id, an address or a placeholder (``password is expired`` and ``password: see the vault`` pass);
- right after the word, with no link: letters with digits or symbols, six characters or more
  (``password rotation`` passes, ``password hunter22`` does not);
- an account's value, or a value somewhere in a sign-in clause: as above, and mixed case or a symbol
  beyond ``-_.`` as well (``ssh to web-prod-03`` passes).

Pure functions, linear regexes; offsets are in the text given.
"""

from __future__ import annotations

import bisect
import functools
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .entropy import is_placeholder
from .spans import Found, Vetoed, overlap_test

RULE = "password-in-prose"
PRIORITY = 2  # as the assignment rules: where both see one password, the longer span wins
DATA = Path(__file__).resolve().parent / "data" / "credential_words.toml"

_MAX_GAP_TOKENS = 6  # qualifier words between the credential word and its link
_MAX_SIGNIN_TOKENS = 8  # tokens of a sign-in clause searched for a value
_MAX_CLAUSE_TOKENS = 12  # tokens after a credential word searched for a secret-shaped value
_MAX_BEFORE_TOKENS = 6  # tokens before a sign-in word ("use admin and Bl4ckb1rd! to log in")
_CLAUSE_END = re.compile(r"[\n\r]|[.;?!](?=\s|$)")
_TOKEN = re.compile(r"[^\s，。、；！？]+")  # CJK full-width punctuation ends a token: "qingshan2024!，别外传"
_OPEN = "(\"'«「（“‘`"
_CLOSE = ".,;:)]}\"'»」）”’`"
_QUOTES = {'"': '"', "'": "'", "“": "”", "‘": "’", "«": "»", "「": "」", "`": "`"}

# An English passphrase is a run of ordinary words; these never appear in one but are everywhere in
# ordinary talk about passwords ("the password is too short to be accepted").


@functools.cache
def _stopwords() -> frozenset[str]:
    """Words never in an English passphrase and everywhere in talk about passwords ("too short to be")."""
    return frozenset(_lexicon()["en"]["stopwords"])


@functools.cache
def _lexicon() -> dict[str, dict[str, list[str]]]:
    with DATA.open("rb") as handle:
        return tomllib.load(handle)


# Tables of the data file that are kinds of word, not languages: a sign-in ("login", "ssh"), a numeric
# code ("pin", "alarm code"), a word that names a credential only before a secret-shaped value ("key"), a
# lone code word that names a code only beside a lock's noun ("code", "koden": ``_names_a_lock``).
_KINDS = ("signin", "numeric", "weak", "code")


@functools.cache
def _english_links() -> frozenset[str]:
    """A passphrase of plain words is taken only after an English link ("la password è salvata nel
    gestore" is Italian talk about a password, not a passphrase)."""
    return frozenset(_lexicon()["en"]["links"]) | {"set", "reset", "changed"}


@functools.cache
def _lexicon_index() -> tuple[
    dict[str, list[tuple[str, str]]], list[tuple[str, str]], frozenset[str], frozenset[str], frozenset[str]
]:
    """Phrases by their first word (``kind``: "credential" or one of ``_KINDS``), phrases written without spaces
    (CJK), the links, the qualifiers, and the English credential words."""
    lexicon = _lexicon()
    languages = [v for k, v in lexicon.items() if k not in _KINDS]
    by_first: dict[str, list[tuple[str, str]]] = {}
    dense: list[tuple[str, str]] = []
    entries = [(w, "credential") for lang in languages for w in lang["words"]]
    entries += [(w, kind) for kind in _KINDS for w in lexicon[kind]["words"]]
    for phrase, kind in sorted(set(entries), key=lambda e: -len(e[0])):
        first = _WORD.match(phrase)
        if first is None or first.end() == 0 or (not phrase.isascii() and not _SPACED.search(phrase)):
            dense.append((phrase, kind))
        else:
            by_first.setdefault(first.group(), []).append((phrase, kind))
    links = frozenset(w for lang in languages for w in lang["links"])
    qualifiers = frozenset(w for lang in languages for w in lang.get("qualifiers", []))
    return by_first, dense, links, qualifiers, frozenset(lexicon["en"]["words"])


_WORD = re.compile(r"[^\W_]+")
_SPACED = re.compile(r"[a-zà-ÿß\u0400-\u04ff]")  # Latin and Cyrillic are written with spaces between words


def _lower(text: str) -> str:
    """Lower case with the text's own offsets (a few characters lower to two, "İ" among them)."""
    low = text.lower()
    return low if len(low) == len(text) else "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


_INSIDE = ":/=._-@$"  # before a word: it is inside a path, a key or a value ("user:pass", "db_password")


@functools.cache
def _automaton() -> Any:
    """Every lexicon phrase in one Aho-Corasick automaton (pyahocorasick: one pass in C over the text,
    where a pass over its words in Python took ~20 ms on 100 kB of JSON); None without the package."""
    try:
        import ahocorasick  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    by_first, dense, _, _, _ = _lexicon_index()
    automaton = ahocorasick.Automaton()
    for entries, spaced in ((by_first.values(), True), ([dense], False)):
        for group in entries:
            for phrase, kind in group:
                automaton.add_word(phrase, (phrase, kind, spaced))
    automaton.make_automaton()
    return automaton


def _bounded(low: str, start: int, end: int) -> bool:
    before_ok = start == 0 or not (low[start - 1].isalnum() or low[start - 1] in _INSIDE)
    return before_ok and (end == len(low) or not low[end].isalnum())


def _phrases(text: str) -> Iterator[tuple[int, int, str, str]]:
    """(start, end, phrase, kind) of every lexicon phrase in ``text``: a phrase of a spaced script only
    as whole words, not inside a key or a path; a CJK one anywhere."""
    low = _lower(text)
    automaton = _automaton()
    if automaton is not None:
        for last, (phrase, kind, spaced) in automaton.iter(low):
            start, end = last + 1 - len(phrase), last + 1
            if not spaced or _bounded(low, start, end):
                yield start, end, phrase, kind
        return
    by_first, dense, _, _, _ = _lexicon_index()
    for m in _WORD.finditer(low):
        for phrase, kind in by_first.get(m.group(), ()):
            end = m.start() + len(phrase)
            if low.startswith(phrase, m.start()) and _bounded(low, m.start(), end):
                yield m.start(), end, phrase, kind
    for phrase, kind in dense:
        at = low.find(phrase)
        while at != -1:
            yield at, at + len(phrase), phrase, kind
            at = low.find(phrase, at + len(phrase))


# ---------------------------------------------------------------------------------------- the value

_VERSION = re.compile(r"v?\d+(?:\.\d+)+[a-z]?", re.IGNORECASE)
_TICKET = re.compile(r"[A-Z][A-Z0-9]+-\d+")
_DATE = re.compile(r"\d{1,4}[-/.]\d{1,2}(?:[-/.]\d{1,4})?")
_SLUG = re.compile(r"[a-z0-9]+(?:[-_.][a-z0-9]+)+")
_PLACEHOLDER = re.compile(r"[<{\[$%*•#x.…]|.*redacted", re.IGNORECASE)
_SAME = re.compile(r"(.)\1*")


def _ascii_share(value: str) -> float:
    return sum(c.isascii() and c.isprintable() for c in value) / len(value)


_CODE = re.compile(
    r"[()\[\]{}]|^[a-z_]\w*(?:\.[a-z_]\w*)+$|^(?:os|env|process|settings|config|self)\b", re.IGNORECASE
)


_LETTER_DIGIT = re.compile(r"[^\W\d_]\W?\d")


def plausible(value: str) -> bool:
    """Could be a password where the text says so: anything but an ordinary word, a known shape, a
    placeholder or a reference in code (``os.environ['X']``, ``settings.DB_PASSWORD``, ``${PASS}``)."""
    if len(value) < 4 or len(value) > 128:
        return False
    if _ascii_share(value) < 0.8 and not (len(value) >= 6 and _LETTER_DIGIT.search(value)):
        return False  # a word of another script, unless letters run into digits ("Соняшник2025")
    if is_placeholder(value) or _CODE.search(value):
        return False
    if _PLACEHOLDER.match(value) and not re.search(r"[A-Za-z]\d|\d[A-Za-z]", value):
        return False
    if re.sub(r"['’]", "", value).rstrip("!?").isalpha() or _SAME.fullmatch(value):
        return False  # a word ("life's" too), with its sentence's "!" or "?"
    if value.isdigit():
        return len(value) >= 6
    if "/" in value or "\\" in value or ("@" in value[1:-1] and "." in value.rsplit("@", 1)[-1]):
        return False  # a path, an address
    if _VERSION.fullmatch(value) or _TICKET.fullmatch(value) or _DATE.fullmatch(value):
        return False
    parts = re.split(r"[-_]", value)
    return not (len(parts) == 2 and all(p.isalpha() for p in parts))  # "re-used", "self-service"


def strong(value: str) -> bool:
    """Looks like a password without being told: letters with digits or symbols, six characters or more."""
    if len(value) < 6 or value[0] == "-" or not plausible(value):
        return False  # "--digest": an option on a command line
    letters = any(c.isalpha() for c in value)
    others = any(not c.isalpha() for c in value)
    return letters and others


# "ACH|EMAIL_FROM", "ACH|CONTENT": a record's fields joined by pipes, the next field's capital label after one
_RECORD_JOIN = re.compile(r"\|[A-Z][A-Z0-9]*_[A-Z0-9_]+|\|[A-Z][A-Z_]{2,}$")
_WORDS_COMMA = re.compile(r"[^\W\d_]+,[^\W\d_]+")  # "Hi David,Your company's ...": a missing space
_VARIABLE = re.compile(r"\$[\w{(]")  # "$HOME", "${PASS}", "$(cat f)"; "Ledger88$" is a password
_KEY_COMBO = re.compile(r"(?:ctrl|alt|shift|cmd|command|option|meta|super|fn|win)\+", re.IGNORECASE)


def stronger(value: str) -> bool:
    """A password among other words: strong, and mixed case or a symbol beyond ``-_.`` (not a host name)."""
    if not strong(value):
        return False
    if not value[0].isalnum() or any(c in value for c in ":=%") or _VARIABLE.search(value):
        return False  # "key:value", "name=value", "$VAR", ":token": config and code, the other layers' share
    if _RECORD_JOIN.search(value) or _WORDS_COMMA.fullmatch(value):
        return False  # a record's fields joined by pipes; two words and a comma with its space missing
    mixed = any(c.isupper() for c in value) and any(c.islower() for c in value)
    symbol = any(not c.isalnum() and c not in "-_." for c in value)
    return (mixed or symbol) and not _SLUG.fullmatch(value)


# ---------------------------------------------------------------------------------------- scanning


_CLAUSE_MAX = 240  # characters a clause is followed for; keeps a long text without full stops linear


def _clause_end(text: str, start: int) -> int:
    limit = min(len(text), start + _CLAUSE_MAX)
    m = _CLAUSE_END.search(text, start, limit)
    return m.start() if m else limit


def _tokens(text: str, start: int, end: int, limit: int) -> list[tuple[int, int]]:
    out = []
    for m in _TOKEN.finditer(text, start, end):
        out.append((m.start(), m.end()))
        if len(out) >= limit:
            break
    return out


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start] in _OPEN:
        start += 1
    while end > start and text[end - 1] in _CLOSE:
        end -= 1
    return start, end


def _quoted(text: str, start: int) -> tuple[int, int] | None:
    close = _QUOTES.get(text[start : start + 1])
    if close is None:
        return None
    end = text.find(close, start + 1, start + 66)
    return (start + 1, end) if end > start + 4 else None


def _link_at(text: str, tokens: list[tuple[int, int]], i: int, links: frozenset[str]) -> int:
    """How many tokens from ``tokens[i]`` make a link ("is", "set to", "is now"), 0 if none."""
    for width in (3, 2, 1):
        if i + width <= len(tokens):
            phrase = " ".join(text[s:e] for s, e in tokens[i : i + width]).lower()
            if phrase in links:
                return width
    return 0


_PHRASE_DASH = re.compile(r"\s[-–—]\s")
_PHRASE_END = tuple(",\"”’'»")
# A first word that points elsewhere ("passphrase: in the drawer", "same as before"), not a phrase's own
_POINTERS = frozenset({"in", "on", "at", "under", "from", "with", "by", "see", "ask", "same", "not", "no",
                       "still", "stored", "saved", "kept", "written", "inside", "behind"})  # fmt: skip


def _passphrase(text: str, start: int, end: int, phrasal: bool = False) -> tuple[int, int] | None:
    """Three to six ordinary lower-case words, to the end of the clause or to a comma, a closing quote or
    a dash ("the password is marmalade sunset river — she wants it reset"). None of them a word of talk
    about passwords (``_stopwords``), except after a passphrase's own word and a colon, which name a phrase:
    there a third may be ("my dog eats purple socks", "moose tracks at dawn"), the first not a pointer;
    "a long passphrase is easier to remember" is talk."""
    dash = _PHRASE_DASH.search(text, start, end)
    end = dash.start() if dash else end
    words: list[re.Match[str]] = []
    for w in re.finditer(r"\S+", text[start:end]):
        words.append(w)
        if w.group().endswith(_PHRASE_END):
            break
    if not 3 <= len(words) <= 6:
        return None
    stops = 0
    for w in words:
        word = w.group().rstrip(_CLOSE)
        if not (word.isalpha() and word.islower()):
            return None
        stops += word in _stopwords()
    named = phrasal and text[:start].rstrip().endswith((":", "："))  # "passphrase: my dog eats purple socks"
    if stops and not (named and 3 * stops <= len(words) and words[0].group() not in _POINTERS):
        return None
    last = words[-1]
    return start + words[0].start(), start + last.start() + len(last.group().rstrip(_CLOSE))


@functools.cache
def _glued_link(links: frozenset[str]) -> re.Pattern[str]:
    """The links a value may be glued to ("密码是X", "pwd:x"), longest first, as one pattern."""
    return re.compile("|".join(re.escape(link) for link in sorted(links, key=lambda w: (-len(w), w))))


def _after_word(
    text: str,
    word_end: int,
    english: bool,
    links: frozenset[str],
    qualifiers: frozenset[str],
    phrasal: bool = False,
) -> tuple[int, int] | None:
    end = _clause_end(text, word_end)
    tokens = _tokens(text, word_end, end + 1 if end < len(text) else end, _MAX_GAP_TOKENS + 4)
    if not tokens:
        return None
    if text[tokens[0][0] : tokens[0][1]] == "," and len(tokens) > 1:  # "the code, it's 4041": a pause
        tokens = tokens[1:]
    attached = text[word_end : tokens[0][0]].strip().lstrip(",").strip()  # "密码：X", "password:X"
    if attached in links or (text[word_end : word_end + 1] in links and tokens[0][0] == word_end + 1):
        return _value(text, tokens[0][0], tokens, 0, end, english, linked=True, phrasal=phrasal)
    if tokens[0][0] == word_end:  # glued to the word: "pwd:hunter22", "密码是X", "pw: x"
        s, e = tokens[0]
        if text[s:e] in links:
            return (
                _value(text, tokens[1][0], tokens, 1, end, english, linked=True, phrasal=phrasal)
                if len(tokens) > 1
                else None
            )
        glued = _glued_link(links).match(text, s, e - 1)
        return (
            _value(text, glued.end(), tokens, 0, end, english, linked=True, phrasal=phrasal)
            if glued
            else None
        )
    if text[tokens[0][0]] == "(":  # an aside before the link: "master password (don't lose it): X"
        close = next((k for k in range(min(len(tokens), 6)) if ")" in text[slice(*tokens[k])]), None)
        if close is None or close + 1 >= len(tokens):
            return None
        if text[tokens[close][1] - 1] == ":":
            return _value(
                text, tokens[close + 1][0], tokens, close + 1, end, english, linked=True, phrasal=phrasal
            )
        tokens = tokens[close + 1 :]
    quoted = _quoted(text, tokens[0][0])  # "use passphrase 'winter is coming to Oslo'"
    if quoted is not None and " " in text[quoted[0] : quoted[1]].strip():
        return quoted
    s, e = _trim(text, *tokens[0])
    if strong(text[s:e]):
        return s, e
    for i in range(min(len(tokens), _MAX_GAP_TOKENS)):
        token = text[tokens[i][0] : tokens[i][1]]
        if token.endswith(":") and (i == 0 or token[:-1].lower() not in _stopwords()):
            if i + 1 < len(tokens):
                return _value(
                    text, tokens[i + 1][0], tokens, i + 1, end, english, linked=True, phrasal=phrasal
                )
            return None
        width = _link_at(text, tokens, i, links)
        if width:
            j = i + width
            j += _link_at(text, tokens, j, links)  # "was" + "reset to": a link after a link
            if j < len(tokens):
                link = " ".join(text[a:b] for a, b in tokens[i:j]).lower()
                english = english and all(w in _english_links() for w in (link, link.split(" ")[0]))
                return _value(text, tokens[j][0], tokens, j, end, english, linked=True, phrasal=phrasal)
            return None
        if token.lower() == "to" and i + 1 < len(tokens):  # "set the password (at home) to X"
            s, e = _trim(text, *tokens[i + 1])
            if strong(text[s:e]):
                return s, e
        if i == 0 and token.lower() not in qualifiers:
            return None
    return None


def _value(
    text: str,
    start: int,
    tokens: list[tuple[int, int]],
    j: int,
    clause_end: int,
    english: bool,
    *,
    linked: bool,
    phrasal: bool = False,
) -> tuple[int, int] | None:
    quoted = _quoted(text, start)
    if quoted is not None:
        value = text[quoted[0] : quoted[1]]
        return quoted if " " in value.strip() or plausible(value) else None
    for k in range(j, len(tokens)):
        if tokens[k][1] > start:
            s, e = _trim(text, max(start, tokens[k][0]), tokens[k][1])
            break
    else:
        return None
    if plausible(text[s:e]):
        return s, e
    if english and linked:
        return _passphrase(text, s, clause_end, phrasal)
    return None


_LEAD = r"[\s,:=-]*(?:(?:is|was|is now|it's|its|ist|lautet|est|es|é|è|er|je|to|это)[\s:]+)?"
# Four to twelve digits, a door code's letter after them ("4729B") but not a word ("1234Main")
_CODE_VALUE = r"\d{4,12}(?:[A-Z](?![A-Za-z]))?"
# A lock's combination is often numbers apart: "combo: 14-32-07", "combination 24 07 31" (its word only).
_COMBINATION_VALUE = r"\d{1,2}(?:[-–]\d{1,2}){2,3}|\d\d(?: \d\d){2,3}"
# Backup and recovery codes come in groups: "7QX4-M2PL-9KD3", "52918 30467" (their words only).
_GROUPED_VALUE = r"(?=[A-Z0-9 -]*\d)[A-Z0-9]{4,6}(?:[- ][A-Z0-9]{4,6}){1,7}"
_SHAPES = {
    "digits": re.compile(f"(?:{_CODE_VALUE})" + r"(?![\w.,/-]\d)"),
    "combination": re.compile(f"(?:{_COMBINATION_VALUE}|{_CODE_VALUE})" + r"(?![\w.,/-]\d)"),
    "grouped": re.compile(f"(?:{_GROUPED_VALUE}|{_CODE_VALUE})" + r"(?![\w-])"),
}
_LEADING = {shape: re.compile(f"(?i:{_LEAD})({pattern.pattern})") for shape, pattern in _SHAPES.items()}
COMBINATION_WORDS = frozenset(
    {"combination", "combo", "combinación", "combinaison", "kombination", "combinazione", "combinação"}
)
RECOVERY_WORDS = frozenset({"backup code", "backup codes", "recovery code", "recovery codes"})
_PHRASAL = frozenset(
    {"passphrase", "pass phrase"}
)  # a phrase by name: ``_passphrase`` lets a few stopwords in


def _shape(phrase: str) -> str:
    return (
        "combination" if phrase in COMBINATION_WORDS else "grouped" if phrase in RECOVERY_WORDS else "digits"
    )


@functools.cache
def _locks() -> re.Pattern[str]:
    nouns = sorted(_lexicon()["code"]["locks"], key=lambda w: (-len(w), w))
    return re.compile(r"(?<![^\W_])(?:" + "|".join(re.escape(n) for n in nouns) + r")(?![^\W_])")


_BRAND = re.compile(r"\d[A-Za-z]+")  # "1Password", "7Zip": a name, not a password further along a clause
_YEAR = re.compile(r"(?:19|20)\d\d")


def _numeric_code(
    text: str, word_end: int, links: frozenset[str], shape: str = "digits"
) -> tuple[int, int] | None:
    """Four to twelve digits right after a numeric code's word, or after it and a link ("PIN is 8842",
    "alarm panel code 5813", "tablet code, it's 40417733"), or after a link later in its clause ("il PIN
    della carta è 4471", "PIN for the reception iPad: 8080"); not a date, a decimal, a phone number's
    part, nor a year said further on. ``shape``: "combination" takes "14-32-07" too, "grouped" a backup
    code's groups ("7QX4-M2PL-9KD3")."""
    window = text[word_end : word_end + 60]  # not the whole text, at every numeric word
    m = _LEADING[shape].match(window)
    if m:
        return word_end + m.start(1), word_end + m.end(1)
    end = _clause_end(text, word_end)
    tokens = _tokens(text, word_end, end + 1 if end < len(text) else end, _MAX_GAP_TOKENS + 2)
    for i in range(len(tokens) - 1):
        width = _link_at(text, tokens, i, links) or int(text[tokens[i][1] - 1] == ":")
        if width and i + width < len(tokens):
            s = _trim(text, *tokens[i + width])[0]
            # a combination's groups right after its word only: "a combination of 2-3-4 factors" is talk
            value = _SHAPES["digits" if shape == "combination" else shape].match(text, s, end)
            if value is not None and not _YEAR.fullmatch(value.group()):
                return s, value.end()
            if text[slice(*tokens[i])].lower() != "to":  # Polish "to" is "is"; English "to the bike storage"
                return None
    return None


def _names_a_lock(text: str, word_start: int, value_end: int) -> bool:
    """A lock's noun ("door", "alarmen", "key safe") in the clause of a lone code word, before its value:
    "Key safe by the back entrance — code 3916", "Koden til alarmen er 6392"; a zip code names none."""
    return _locks().search(_lower(text[_clause_start(text, word_start) : value_end])) is not None


def _signin_values(text: str, start: int, limit: int = _MAX_SIGNIN_TOKENS) -> Iterator[tuple[int, int]]:
    """Secret-shaped tokens (``stronger``) in the ``limit`` tokens after ``start``, within its clause."""
    end = _clause_end(text, start)
    for s, e in _tokens(text, start, end + 1 if end < len(text) else end, limit):
        s, e = _trim(text, s, e)
        if stronger(text[s:e]):
            yield s, e


# Looking back, "!" ends a clause only before a capital: passwords end in "!" ("use Bl4ckb1rd! to log in").
_CLAUSE_START = re.compile(r"[\n\r]|[.;?](?=\s|$)|!(?=\s+[A-ZÀ-Ý])")


def _clause_start(text: str, end: int) -> int:
    floor = max(0, end - _CLAUSE_MAX)
    last = None
    for m in _CLAUSE_START.finditer(text, floor, end):
        last = m
    return last.end() if last else floor


def _values_before(text: str, word_start: int) -> Iterator[tuple[int, int]]:
    """Secret-shaped tokens in the few tokens before a sign-in word, within its clause."""
    tokens = list(_TOKEN.finditer(text, _clause_start(text, word_start), word_start))[-_MAX_BEFORE_TOKENS:]
    for m in tokens:
        s, e = _trim(text, m.start(), m.end())
        if stronger(text[s:e]):
            yield s, e


_VALUE = re.compile(r"\S{1,129}")
# "admin / X", "admin/X" (two name characters before a glued slash), "root:X"
_ACCOUNT_SEPARATOR = re.compile(r"[ \t]+/[ \t]*(?=\S)|(?<=\w\w)/(?=[^\s/])|:(?=[^\s/])")
# The account before it: a plain name ("root", "svc_backup"); "event-bus-api:rc0.15" is a coordinate.
_ACCOUNT = re.compile(r"(?<![\w/:.@-])[a-z_][a-z0-9_]{1,31}\Z", re.IGNORECASE)
_MYSQL_P = re.compile(r"\b(?:mysql|mariadb|mysqldump|mysqladmin)\b[^\n]{0,120}?(?<!\S)-p(?=\S)")


def _named_account(text: str, account_start: int, word_ends: list[int]) -> bool:
    """A sign-in or credential word ends in the account's clause, before it ("login: bob / hunter22");
    ``word_ends`` sorted."""
    clause = _clause_start(text, account_start)
    i = bisect.bisect_left(word_ends, clause)
    return i < len(word_ends) and word_ends[i] <= account_start


def _lettered(value: str) -> bool:
    """``strong`` with a digit: letters and digits, six characters or more ("hunter22", "harbour2027")."""
    return strong(value) and any(c.isdigit() for c in value)


def find_prose_credentials(text: str) -> list[tuple[int, int]]:
    """Spans of passwords written in prose, sorted, possibly overlapping each other (the caller merges)."""
    _, _, links, qualifiers, english_words = _lexicon_index()
    spans: list[tuple[int, int]] = []
    # What follows a word decides alone, so a repeated line (a log, a JSON array) is judged once.
    memo: dict[tuple[str, str], tuple[int, int] | None] = {}
    signin_words: list[int] = []  # where sign-in and credential words end: an account after one is named
    for start, end, phrase, kind in _phrases(text):
        if kind in ("signin", "credential"):
            signin_words.append(end)
        if kind == "signin":  # "login: jsmith (password managed in 1Password)": a brand, not a value
            spans.extend(v for v in _signin_values(text, end) if not _BRAND.fullmatch(text[v[0] : v[1]]))
            spans.extend(_values_before(text, start))
            continue
        if kind == "credential":  # "password for analytics changed yesterday, new one is Quokka_77_Sun"
            spans.extend(
                v
                for v in _signin_values(text, end, _MAX_CLAUSE_TOKENS)
                if not _BRAND.fullmatch(text[v[0] : v[1]])
            )
        key = (phrase, text[end : end + _CLAUSE_MAX + 90])
        if key not in memo:
            english = phrase in english_words and kind == "credential"
            found = None
            if kind != "code":
                found = _after_word(text, end, english, links, qualifiers, phrase in _PHRASAL)
            if kind in ("numeric", "credential", "code") and found is None:
                found = _numeric_code(text, end, links, _shape(phrase))
                if kind == "code" and found is not None and not _names_a_lock(text, start, found[1]):
                    found = None
            elif kind == "weak" and found is not None:
                value = text[found[0] : found[1]]
                found = found if _lettered(value) and not _KEY_COMBO.search(value) else None
            memo[key] = None if found is None else (found[0] - end, found[1] - end)
        relative = memo[key]
        if relative is not None and relative[1] > relative[0]:
            spans.append((end + relative[0], end + relative[1]))
    signin_words.sort()
    for m in _ACCOUNT_SEPARATOR.finditer(text):
        account = _ACCOUNT.search(text, max(0, m.start() - 33), m.start())
        # the value, read only after an account and at most 129 characters far: a 100 kB base64 blob has a
        # "/" every ~64 characters, and reading the rest of it at each one was quadratic
        token = _VALUE.match(text, m.end()) if account else None
        if account is not None and token is not None and len(token.group()) <= 128:
            s, e = _trim(text, token.start(), token.end())
            value = text[s:e]
            if m.group() == "/" and not (account.group().islower() and _policy_shaped(value)):
                continue  # glued: a path ("runbooks/backup.md#restore", "GnuPG/MacGPG2") unless "admin/S0nar!Qube"
            if stronger(value) or (_lettered(value) and _named_account(text, account.start(), signin_words)):
                spans.append((s, e))
    for m in _MYSQL_P.finditer(text):
        token = _TOKEN.match(text, m.end())
        if token and plausible(text[token.start() : token.end()]):
            spans.append((token.start(), token.end()))
    return sorted(set(spans))


# A token that meets a password policy on its own: upper and lower case, a digit and a symbol, 8 to 40
# characters of what passwords are made of, standing alone in prose. People write those only as passwords;
# a name ("iPhone15"), a hashtag, a mention, an address, a path, a dotted name or a call ("f(x)") lacks a
# class or has a character passwords rarely do.
_SHAPED = re.compile(r"[A-Za-z0-9][A-Za-z0-9!@#$%^&*?~_+.-]{6,38}[A-Za-z0-9!#$%^&*?~]")
_SHAPED_SYMBOL = re.compile(r"[!@#$%^&*?~]")
_DOTTED = re.compile(r"[A-Za-z]\.[A-Za-z*]")  # "Build.HF*.Linux64", "settings.Secret1!"
SHAPED_RULE = "password-shaped"


def _policy_shaped(value: str) -> bool:
    """Upper and lower case, a digit and a symbol: what a password policy asks for."""
    return (
        any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and any(c.isdigit() for c in value)
        and _SHAPED_SYMBOL.search(value) is not None
    )


def find_password_shaped(text: str) -> list[tuple[int, int]]:
    """Tokens that look like a password whatever the words around them ("Use Bl4ckb1rd! to log in"):
    each whitespace-separated token, its quotes, brackets and sentence punctuation trimmed, checked whole."""
    spans = []
    for m in _TOKEN.finditer(text):
        s, e = _trim(text, m.start(), m.end())
        if e - s < 8 or e - s > 40 or not _SHAPED.fullmatch(text, s, e):
            continue
        value = text[s:e]
        if not _policy_shaped(value):
            continue
        if ("@" in value[1:] and "." in value.rsplit("@", 1)[-1]) or _DOTTED.search(value):
            continue  # an address, a dotted name
        spans.append((s, e))
    return spans


def scan_prose_credentials(text: str, low: str, found: list[Found], vetoed: Vetoed) -> None:
    """The redaction layer (``redaction.SCANNERS``): every prose credential not judged "not secret"."""
    overlaps_vetoed = overlap_test(vetoed)
    for start, end in find_prose_credentials(text):
        if not overlaps_vetoed(start, end):
            found.append(Found(start, end, RULE, PRIORITY))
    for start, end in find_password_shaped(text):
        if not overlaps_vetoed(start, end):
            found.append(Found(start, end, SHAPED_RULE, PRIORITY - 1))
