"""The words of passwords in prose and the reading of the clause around them (``data/credential_words.toml``).

Shared by ``credentials.py`` and ``credential_values.py`` (passwords) and ``codes.py`` (numeric codes): the lexicon per language and
kind of word, finding its phrases in a text (one Aho-Corasick pass), and the clause helpers: where a
clause starts and ends, its tokens, a value's quotes and brackets trimmed, the links between a word and
its value. Pure functions; offsets are in the text given.
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data" / "credential_words.toml"
NOT_PASSWORDS = DATA.with_name("not_passwords.toml")
NUMBER_WORDS = DATA.with_name("number_words.toml")
DESCRIBING = DATA.with_name("describing.toml")

_MAX_GAP_TOKENS = 6  # qualifier words between the credential word and its link

_CLAUSE_END = re.compile(r"[\n\r]|[.;?!](?=\s|$)")

# CJK full-width punctuation ends a token: "qingshan2024!，别外传", "sakura-tokyo-5521（大文字なし）"
_TOKEN = re.compile(r"[^\s，。、；！？（）]+")

_OPEN = "(\"'«「（“‘`„"

_CLOSE = ".,;:)]}\"'»」）”’`“،؛，。、"

_QUOTES = {'"': '"', "'": "'", "“": "”", "‘": "’", "«": "»", "「": "」", "`": "`"}


def talk_words() -> frozenset[str]:
    """The words of talk about passwords ("required", "expired", "wrong"): never a password's value."""
    return _stopwords()


@functools.cache
def _describing() -> frozenset[str]:
    return frozenset(_lexicon()["en"]["describing"])


@functools.cache
def _stopwords() -> frozenset[str]:
    """Words never in an English passphrase and everywhere in talk about passwords ("too short to be")."""
    return frozenset(_lexicon()["en"]["stopwords"])


@functools.cache
def not_passwords(kind: str) -> frozenset[str]:
    """A list of ``data/not_passwords.toml``: words around a value that say it is no password."""
    with NOT_PASSWORDS.open("rb") as handle:
        return frozenset(tomllib.load(handle)[kind])


@functools.cache
def _number_file() -> dict[str, Any]:
    with NUMBER_WORDS.open("rb") as handle:
        return tomllib.load(handle)


def _number_tables() -> dict[str, Any]:
    """Each language's digits table (``[numbers.*]``, the numbers of two digits, apart)."""
    return {language: table for language, table in _number_file().items() if language != "numbers"}


@functools.cache
def _two_digit_numbers(language: str) -> tuple[str, ...]:
    """A language's numbers of two digits in words (its ``[numbers.<language>]`` table), longest first: its
    ``teens`` and ``tens``, and each ten joined to each of its digits ("twenty-eight", "treinta y dos",
    "achtundzwanzig", "ventotto")."""
    spec = _number_file()["numbers"][language]
    units = [w for words in _number_tables()[language]["digits"][1:] for w in words]
    built: list[str] = []
    for ten in spec["tens"]:
        for unit in units:
            for join in spec["join"]:
                if spec.get("unit_first"):
                    built.append(unit + join + ten)
                elif spec.get("elide") and unit[:1] in "aeiou" and ten[-1:] in "aeiou":
                    built.append(ten[:-1] + join + unit)  # "venti" + "otto": "ventotto"
                else:
                    built.append(ten + join + unit)
    return tuple(sorted({*built, *spec["teens"], *spec["tens"]}, key=len, reverse=True))


@functools.cache
def spoken_number_patterns() -> dict[str, re.Pattern[str]]:
    """Per language of ``[numbers.*]``: two to four numbers said in words in a row, one of two digits or more,
    apart by spaces, commas or dashes ("twelve twenty-eight", "treinta y dos, catorce, nueve",
    "fünfzehn, dreißig, fünfundvierzig"); each number 10-99 (``_two_digit_numbers``), or one of its digits."""
    out: dict[str, re.Pattern[str]] = {}
    for language in _number_file().get("numbers", {}):
        two = _two_digit_numbers(language)
        one = sorted(
            {w for words in _number_tables()[language]["digits"] for w in words}, key=len, reverse=True
        )
        two_digits = "(?:" + "|".join(re.escape(w) for w in two) + ")"
        number = "(?:" + "|".join(re.escape(w) for w in [*two, *one]) + ")"
        gap = r"(?:[ \t]*[,;][ \t]*|[ \t]+[–—-][ \t]+|[ \t]+)"
        # one number of two digits among two to four (a lookahead over the run, then the run itself)
        run = rf"{number}(?:{gap}{number}){{1,3}}"
        out[language] = re.compile(
            rf"(?<![\w-])(?=(?:{number}{gap}){{0,3}}{two_digits}(?![\w-]))(?:{run})(?![\w-])", re.IGNORECASE
        )
    return out


@functools.cache
def spoken_number_words() -> dict[str, frozenset[str]]:
    """Per language of ``[numbers.*]``: the word each of its numbers of two digits opens with, letters only
    ("twenty", "treinta", "fünfundvierzig", "quatre"): a text with none of them holds none of its numbers."""
    return {
        language: frozenset(m.group() for w in _two_digit_numbers(language) if (m := _LETTER_RUN.search(w)))
        for language in spoken_number_patterns()
    }


@functools.cache
def every_spoken_number_word() -> frozenset[str]:
    """``spoken_number_words`` of every language, in one set."""
    return frozenset().union(*spoken_number_words().values())


_LETTER_RUN = re.compile(r"[^\W\d_]+")


@functools.cache
def number_words() -> dict[str, int]:
    """Each language's words for the digits (``data/number_words.toml``), word -> digit."""
    return {
        word: digit
        for table in _number_tables().values()
        for digit, words in enumerate(table["digits"])
        for word in words
    }


@functools.cache
def number_word_languages() -> dict[str, frozenset[str]]:
    """Word -> the languages (``data/number_words.toml``'s tables) whose word for a digit it is: "to" is
    Norwegian's two, "do" Hindi's typed in Latin letters, "one" English's."""
    languages: dict[str, set[str]] = {}
    for language, table in _number_tables().items():
        for words in table["digits"]:
            for word in words:
                languages.setdefault(word, set()).add(language)
    return {word: frozenset(found) for word, found in languages.items()}


@functools.cache
def glued_digits() -> re.Pattern[str]:
    """Four to eight digits of one character each, ideographs or Hangul, in a row ("五三九二零一", "칠사공일"); not
    kana ("に", "ご" are particles and words as often)."""
    chars = "".join(
        sorted(
            w
            for w in number_words()
            if len(w) == 1 and ("\u4e00" <= w <= "\u9fff" or "\uac00" <= w <= "\ud7a3" or w == "〇")
        )
    )
    return re.compile(f"[{re.escape(chars)}]{{4,8}}")


def thing_number(words: list[str]) -> bool:
    """Whether the last of ``words`` names a thing's number ("number", "saksnr", "Kundennummer") and the one
    before is no code's word ("PIN number 4412" is a PIN)."""
    if not words:
        return False
    last = words[-1].rstrip(".")
    named = last in not_passwords("number_words") or (
        last.endswith(tuple(not_passwords("number_endings")))
        and not any(p in last for p in _credential_parts())
    )  # "受付番号" is a receipt's number, "暗証番号" and "비밀번호" a PIN and a password
    return named and not (len(words) > 1 and words[-2] in not_passwords("code_words"))


@functools.cache
def _credential_parts() -> tuple[str, ...]:
    """The credential and code words written without spaces (CJK): "暗証番号", "비밀번호", "密碼"."""
    lexicon = _lexicon()
    words = [w for k, v in lexicon.items() if k not in _KINDS for w in v.get("words", [])]
    words += lexicon["numeric"]["words"]
    return tuple(w for w in words if not w.isascii() and not _SPACED.search(w))


@functools.cache
def _lexicon() -> dict[str, dict[str, list[str]]]:
    with DATA.open("rb") as handle:
        return tomllib.load(handle)


# Tables of the data file that are kinds of word, not languages: a sign-in ("login", "ssh"), a numeric
# code ("pin", "alarm code"), a word that names a credential only before a secret-shaped value ("key"), a
# lone code word whose number is a code unless its neighbours name another kind ("code", "koden":
# ``codes._a_secret_code``), a lock whose number after a link is its code ("bike lock: 0385"), a thing a
# password opens, named alone ("Netflix", "router", "Plex": the tagger's anchors only).
_KINDS = ("signin", "numeric", "weak", "code", "lock", "thing")

# The lists of ``[numeric]`` whose words' codes have another shape than four to twelve digits: a code shape of
# ``codes`` -> its list ("combination": "combo is 08-15-29", "grouped": "7QX4-M2PL-9KD3", "otp": "418 207").
SHAPES = {"combination": "combination", "grouped": "recovery", "otp": "one_time"}


@functools.cache
def _english_links() -> frozenset[str]:
    """A passphrase of plain words is taken only after an English link ("la password è salvata nel
    gestore" is Italian talk about a password, not a passphrase)."""
    return frozenset(_lexicon()["en"]["links"]) | {"set", "reset", "changed"}


@functools.cache
def _languages_of() -> tuple[dict[str, frozenset[str]], dict[str, frozenset[str]]]:
    """Each credential word's languages and each link's (the language tables of the data file)."""
    words: dict[str, set[str]] = {}
    links: dict[str, set[str]] = {}
    for lang, table in _lexicon().items():
        if lang in _KINDS:
            continue
        for word in table["words"]:
            words.setdefault(word, set()).add(lang)
        for link in table["links"]:
            links.setdefault(link, set()).add(lang)
    return {k: frozenset(v) for k, v in words.items()}, {k: frozenset(v) for k, v in links.items()}


@functools.cache
def word_links(word: str) -> frozenset[str]:
    """The links a credential word's value may follow: its own languages' and English's ("senha" + "é", not
    Basque's "da" in "senha do wifi da casa da praia: ..."); every language's for a word English shares
    ("password", "pin"), which notes in any language borrow ("password ng wifi ay ...")."""
    languages = _languages_of()[0].get(word)
    return _lexicon_index()[2] if not languages or "en" in languages else own_links(word)


@functools.cache
def own_links(word: str) -> frozenset[str]:
    """The links of the languages a credential word is listed in, and English's: never another language's, even
    for a word English shares ("Ricordati che la password": Gujarati's "che" is no link for it)."""
    languages = _languages_of()[0].get(word, frozenset()) | {"en"}
    lexicon = _lexicon()
    return frozenset(link for lang in languages for link in lexicon[lang]["links"])


def link_languages(word: str, link: str) -> frozenset[str]:
    """The languages other than English a credential word and its link are written in: those both are words
    of ("password" + "è": Italian), or the word's after a sign ("пароль" + ":": Russian, Ukrainian); none
    where the link is another language's word ("password ... to": Polish "to", English talk)."""
    words, links = _languages_of()
    mine = words.get(word, frozenset()) - {"en"}
    return mine & links.get(link, frozenset()) if any(c.isalpha() for c in link) else mine


@functools.cache
def foreign_stopwords(languages: frozenset[str]) -> frozenset[str]:
    """Words never in a passphrase of these languages, as ``_stopwords`` for English: the stopwords-iso lists
    (the ``stopwordsiso`` package, MIT; articles, prepositions, pronouns, auxiliaries, common adverbs), so
    "la password è salvata nel gestore" is talk and "la password è luna piena mare" a phrase."""
    import stopwordsiso

    return frozenset(w for lang in languages for w in stopwordsiso.stopwords(lang)) | _stopwords()


@functools.cache
def _describing_tables() -> dict[str, Any]:
    with DESCRIBING.open("rb") as handle:
        return tomllib.load(handle)


@functools.cache
def foreign_talk(languages: frozenset[str]) -> frozenset[str]:
    """``foreign_stopwords`` and what is said of a password in any language (``data/describing.toml``:
    "abgelaufen", "cambiata", "vaihdettu"; every language's, as notes mix them: "Das Passwort der Freigabe ist
    hoofdlettergevoelig"): words of talk, never a value of one or two words after a link."""
    return foreign_stopwords(languages) | _said_of_passwords()


@functools.cache
def _said_of_passwords() -> frozenset[str]:
    """Every language's ``words`` and ``errands`` of ``data/describing.toml``."""
    return frozenset(
        w for table in _describing_tables().values() for w in (*table["words"], *table.get("errands", ()))
    )


@functools.cache
def every_stopword() -> frozenset[str]:
    """Every language's stopwords (stopwords-iso) and English's own."""
    import stopwordsiso

    return foreign_stopwords(frozenset(stopwordsiso.langs()))


@functools.cache
def errands() -> frozenset[str]:
    """Every language's ``errands`` of ``data/describing.toml`` ("chiedere", "спроси", "siehe"): a phrase that holds
    one points elsewhere, whatever the language of the word before it. Not a word that any language's stopwords
    hold (Spanish's envelope, "sobre", is Portuguese's "about"; Czech's "les" is French's article)."""
    small = every_stopword()
    return frozenset(
        w for table in _describing_tables().values() for w in table.get("errands", ()) if w not in small
    )


@functools.cache
def credential_words() -> frozenset[str]:
    """Every language's single words for a password ("password", "passwort", "contraseña", "пароль"): a
    phrase that holds one talks about a password ("passwd: password updated successfully")."""
    lexicon = _lexicon()
    return frozenset(
        w for k, v in lexicon.items() if k not in _KINDS for w in v["words"] if " " not in w and w.isalpha()
    )


def talk_known(languages: frozenset[str]) -> bool:
    """Whether ``data/describing.toml`` holds what is said of a password in one of these languages: only then
    is a lone word or a pair of words after their link read as a value."""
    return not languages.isdisjoint(_describing_tables())


@functools.cache
def talk_endings(languages: frozenset[str]) -> tuple[str, ...]:
    """What ends a word of these languages that is no noun in its base form (``data/describing.toml``'s
    ``endings``: "iert", "mente", "ssä", "습니다"), for ``str.endswith``."""
    tables = _describing_tables()
    return tuple(sorted({e for lang in languages for e in tables.get(lang, {}).get("endings", ())}))


@functools.cache
def _glued_prepositions() -> tuple[str, ...]:
    """Prepositions written glued to their noun (``credential_words.toml``'s ``glued``: Hebrew "ל", Arabic "لل"),
    for ``str.startswith``."""
    lexicon = _lexicon()
    return tuple(sorted({p for k, v in lexicon.items() if k not in _KINDS for p in v.get("glued", ())}))


@functools.cache
def _english_qualifiers() -> frozenset[str]:
    """English's qualifiers ("for", "on", "the"): read as such after an English word where another language's
    link would lead to no value."""
    return frozenset(_lexicon()["en"]["qualifiers"])


@functools.cache
def english_phrasal() -> frozenset[str]:
    """English's words that name a phrase ("passphrase", "recovery phrase"; ``phrasal``'s English part)."""
    return frozenset(_lexicon()["en"].get("phrases", []))


def glued_qualifier(token: str) -> bool:
    """A word that opens with a preposition glued to it ("לוויפי", "للواي"): a qualifier, as "for the" is."""
    prefixes = _glued_prepositions()
    return any(token.startswith(p) and len(token) > len(p) + 1 for p in prefixes)


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
    entries = [(w, "credential") for lang in languages for w in [*lang["words"], *lang.get("phrases", [])]]
    entries += [(w, kind) for kind in _KINDS if kind != "thing" for w in lexicon[kind]["words"]]
    named = {w for w, _ in entries}  # a shape's word is a numeric word unless another table has it
    # a door's noun that no other table names: the rules' only (codes.door_code)
    entries += [(w, "door") for w in lexicon["lock"]["doors"] if w not in named]
    entries += [
        (w, "numeric") for shape in SHAPES.values() for w in lexicon["numeric"][shape] if w not in named
    ]
    named.update(w for w, _ in entries)  # a thing is one no other table names (one kind a phrase)
    entries += [(w, "thing") for w in dict.fromkeys(lexicon["thing"]["words"]) if w not in named]
    for phrase, kind in sorted(set(entries), key=lambda e: -len(e[0])):
        first = _WORD.match(phrase)
        if first is None or first.end() == 0 or (not phrase.isascii() and not _SPACED.search(phrase)):
            dense.append((phrase, kind))
        else:
            by_first.setdefault(first.group(), []).append((phrase, kind))
    links = frozenset(w for lang in languages for w in lang["links"])
    qualifiers = frozenset(
        w for lang in languages for w in [*lang.get("qualifiers", []), *lang.get("relative", [])]
    )
    return by_first, dense, links, qualifiers, frozenset(lexicon["en"]["words"])


@functools.cache
def phrasal() -> frozenset[str]:
    """The credential words that name a phrase ("passphrase", "frase semilla", "助记词"; each language's
    ``phrases``): after one of them and its colon, a phrase of plain words in any language is the value."""
    return frozenset(w for k, v in _lexicon().items() if k not in _KINDS for w in v.get("phrases", []))


_WORD = re.compile(r"[^\W_]+")

_SPACED = re.compile(r"[a-zà-ÿß\u0400-\u04ff]")  # Latin and Cyrillic are written with spaces between words


_HYPHENS = str.maketrans({"\u2010": "-", "\u2011": "-"})  # word processors' hyphens (U+2010, U+2011)


def _lower(text: str) -> str:
    """Lower case with the text's own offsets (a few characters lower to two, "İ" among them), a word
    processor's hyphen and non-breaking hyphen read as "-" ("Wi-Fi key" with U+2011, pasted from a document)."""
    low = text.lower()
    if len(low) != len(text):
        low = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    return low.translate(_HYPHENS) if "\u2010" in low or "\u2011" in low else low


_INSIDE = ":/=._-@$"  # before a word: it is inside a path, a key or a value ("user:pass", "db_password")


def word_automaton(words: Iterable[str]) -> Any:
    """``words`` in one Aho-Corasick automaton (pyahocorasick), each word's length its value, so ``iter`` yields
    (last index, length): one pass in C over a note, whatever the number of words; None without the package.
    The security questions' words (``answers``) and the spelling remarks (``remarks``) are found this way."""
    try:
        import ahocorasick  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    automaton = ahocorasick.Automaton()
    for word in words:
        automaton.add_word(word, len(word))
    automaton.make_automaton()
    return automaton


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


def _bounded(low: str, start: int, end: int, kind: str = "") -> bool:
    """A whole word, not inside a key or a path; a code's word may end a compound ("Vipps-PIN")."""
    after_ok = end == len(low) or not low[end].isalnum()
    if kind == "numeric" and start >= 2 and low[start - 1] == "-" and low[start - 2].isalpha():
        return after_ok
    before_ok = start == 0 or not (low[start - 1].isalnum() or low[start - 1] in _INSIDE)
    return before_ok and after_ok


@functools.lru_cache(maxsize=4)
def phrases_in(text: str) -> tuple[tuple[int, int, str, str], ...]:
    """``_phrases`` of ``text``, kept for the last few texts: the phrasing rules (``credentials``) and the
    learned tagger (``credential_model``) read the same note's phrases, found once (an automaton of 71
    languages' words takes ~45 us a 1 kB note)."""
    return tuple(_phrases(text))


def _phrases(text: str) -> Iterator[tuple[int, int, str, str]]:
    """(start, end, phrase, kind) of every lexicon phrase in ``text``: a phrase of a spaced script only
    as whole words, not inside a key or a path; a CJK one anywhere."""
    low = _lower(text)
    automaton = _automaton()
    if automaton is not None:
        for last, (phrase, kind, spaced) in automaton.iter(low):
            start, end = last + 1 - len(phrase), last + 1
            if not spaced or _bounded(low, start, end, kind):
                yield start, end, phrase, kind
        return
    by_first, dense, _, _, _ = _lexicon_index()
    for m in _WORD.finditer(low):
        for phrase, kind in by_first.get(m.group(), ()):
            end = m.start() + len(phrase)
            if low.startswith(phrase, m.start()) and _bounded(low, m.start(), end, kind):
                yield m.start(), end, phrase, kind
    for phrase, kind in dense:
        at = low.find(phrase)
        while at != -1:
            yield at, at + len(phrase), phrase, kind
            at = low.find(phrase, at + len(phrase))


_CLAUSE_MAX = 240  # characters a clause is followed for; keeps a long text without full stops linear
# A day's or a month's name, and today, tomorrow, yesterday: when, not what (a security question's answer, a value
# told by a pronoun). "May" is left out: it is English's modal verb as often.
CALENDAR_WORDS = frozenset({"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "today",
                            "tomorrow", "yesterday", "january", "february", "march", "april", "june", "july",
                            "august", "september", "october", "november", "december"})  # fmt: skip

# Where a value ends: the text's or a line's end, a mark, a bracket, a dash and a space
_SINGLE_END = re.compile(r"\s*(?:$|[.,;!?)(，。、；！？（）]|[-–—]\s|\n)")


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
    if (
        text[start : start + 1] == "*"
        and end - start > 4
        and text.startswith("**", start)
        and text.startswith("**", end - 2)
    ):
        start, end = start + 2, end - 2  # markdown's bold: "**Fjord-Lantern-88**"
    while start < end and text[start] in _OPEN:
        start += 1
    while end > start and text[end - 1] in _CLOSE:
        end -= 1
    if start < end and not (text[start].isascii() and text[end - 1].isascii()):
        # CJK glued to a Latin value: "在1Password里", "739204로" (a particle), "密码Sakura22!"
        core = _LATIN_CORE.search(text, start, end)
        if core is not None and _CJK_EDGE.fullmatch(text[start : core.start()] + text[core.end() : end]):
            return _trim(text, *core.span()) if core.span() != (start, end) else (start, end)
    return start, end


_CJK_CHAR = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")

_CJK_EDGE = re.compile(f"{_CJK_CHAR.pattern}*")

_LATIN_CORE = re.compile(r"[\x21-\x7e]+")


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


# Looking back, "!" ends a clause only before a capital: passwords end in "!" ("use Bl4ckb1rd! to log in").
_CLAUSE_START = re.compile(r"[\n\r]|[.;?](?=\s|$)|!(?=\s+[A-ZÀ-Ý])")


def _clause_start(text: str, end: int) -> int:
    floor = max(0, end - _CLAUSE_MAX)
    last = None
    for m in _CLAUSE_START.finditer(text, floor, end):
        last = m
    return last.end() if last else floor
