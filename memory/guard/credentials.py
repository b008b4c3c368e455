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
decides (``credential_values.py`` judges it): the nearer it is to the word, the less it must look like a
secret.

- after a link (``is``, ``:``, ``lautet``): anything but an ordinary word, a short number, a version, a
  ticket id, an address or a placeholder (``password is expired`` and ``password: see the vault`` pass);
- right after the word, with no link: letters with digits or symbols, six characters or more
  (``password rotation`` passes, ``password hunter22`` does not);
- an account's value, or a value somewhere in a sign-in clause: as above, and mixed case or a symbol
  beyond ``-_.`` as well (``ssh to web-prod-03`` passes).

Pure functions, linear regexes; offsets are in the text given.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator

from .accounts import _DEFAULT_ACCOUNTS, account_values
from .codes import (
    _HHMM,
    ALARM_WORDS,
    _a_secret_code,
    _numeric_code,
    _shape,
    code_named_otherwise,
    dial_turns,
    door_code,
    keyed_codes,
    keyed_dials,
    keyed_digits,
    lock_code,
    lock_combinations,
    phone_shaped,
    spoken_digits,
    spoken_numbers,
)
from .credential_values import (
    _BRAND,
    _KEY_COMBO,
    _a_name,
    _cjk_numbered,
    _lettered,
    _passphrase,
    described_value,
    find_password_shaped,
    given_before,
    given_value,
    joined_words,
    named_before,
    plausible,
    strong,
    stronger,
)
from .headings import heading_value
from .lexicon import (
    _CLAUSE_MAX,
    _CLOSE,
    _MAX_GAP_TOKENS,
    _SINGLE_END,
    _TOKEN,
    _clause_end,
    _clause_start,
    _english_links,
    _english_qualifiers,
    _lexicon_index,
    _link_at,
    _quoted,
    _stopwords,
    _tokens,
    _trim,
    english_phrasal,
    errands,
    foreign_talk,
    glued_qualifier,
    link_languages,
    own_links,
    phrasal,
    phrases_in,
    talk_endings,
    talk_known,
    word_links,
)
from .listed import _KEY_WORDS, _a_network_key, _listed_value, _network_before
from .pronouns import antecedents, told
from .remarks import spelled_values
from .spans import Found, Vetoed, overlap_test
from .tables import table_values
from .typed import typed_values
from .values_before import digits_before, value_before

RULE = "password-in-prose"

SHAPED_RULE = "password-shaped"  # a token shaped as a password, whatever the words around it

PRIORITY = 2  # as the assignment rules: where both see one password, the longer span wins

_MAX_SIGNIN_TOKENS = 8  # tokens of a sign-in clause searched for a value

# tokens after a credential word searched for a secret-shaped value (12 before session 47)
_MAX_CLAUSE_TOKENS = 24

# Tokens of an aside in brackets before the link: "verbal password (if ADT calls, they ask for it): X"
_ASIDE_TOKENS = 14

# Tokens of what a password is for before its link ("palavra-passe da caixa de correio partilhada da
# contabilidade: ...", "root password on the Raspberry Pi running the greenhouse sensors is X")
_DESCRIBED_TOKENS = _MAX_GAP_TOKENS + 2

_MAX_BEFORE_TOKENS = 6  # tokens before a sign-in word ("use admin and Bl4ckb1rd! to log in")


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
    word: str = "",
    word_start: int = -1,
) -> tuple[int, int] | None:
    end = _clause_end(text, word_end)
    tokens = _tokens(text, word_end, end + 1 if end < len(text) else end, _MAX_GAP_TOKENS + 4)
    if not tokens:
        return None

    def linked(j: int, after: int, link: str, bare: bool, english: bool = english) -> tuple[int, int] | None:
        """The value after ``link`` (of the word's language, or English), from token ``j`` on, or alone on
        the next line when the link ends the clause (at ``after``)."""
        langs = frozenset() if english else link_languages(word, link)
        if j < len(tokens):
            return _value(
                text,
                tokens[j][0],
                tokens,
                j,
                end,
                english,
                linked=True,
                phrasal=phrasal,
                languages=langs,
                bare=bare,
            )
        return _next_line(text, after, english, phrasal, langs)

    if text[tokens[0][0] : tokens[0][1]] == "," and len(tokens) > 1:  # "the code, it's 4041": a pause
        tokens = tokens[1:]
    attached = text[word_end : tokens[0][0]].strip().lstrip(",").strip()  # "密码：X", "password:X"
    if attached in links or (text[word_end : word_end + 1] in links and tokens[0][0] == word_end + 1):
        return linked(0, word_end, attached or text[word_end], bare=True)
    if tokens[0][0] == word_end:  # glued to the word: "pwd:hunter22", "密码是X", "pw: x"
        s, e = tokens[0]
        if text[s:e] in links:  # "password's now X", "it's now X": the link may go on
            width = max(1, _link_at(text, tokens, 0, links))
            link = " ".join(text[a:b] for a, b in tokens[:width]).lower()
            return linked(width, tokens[width - 1][1], link, bare=True)
        glued = _glued_link(links).match(text, s, e - 1)
        if glued is None:
            return None
        # "路由器管理密码：xiaolongbao": the glued link's languages judge a Latin word, as after a spaced one (their
        # phrases glued to the link are talk as often: "パスワードは受付で確認してください")
        latin = (
            text[glued.end() : glued.end() + 1].isascii() and text[glued.end() : glued.end() + 1].isalpha()
        )
        langs = link_languages(word, glued.group()) if latin and not english else frozenset()
        return _value(
            text, glued.end(), tokens, 0, end, english, linked=True, phrasal=phrasal, languages=langs
        )
    if text[tokens[0][0]] == "(":  # an aside before the link: "master password (don't lose it): X"
        close = next(
            (k for k in range(min(len(tokens), _ASIDE_TOKENS)) if ")" in text[slice(*tokens[k])]), None
        )
        if close is not None and close + 1 >= len(tokens) and text[tokens[close][1] - 1] == ":":
            return _next_line(text, tokens[close][1], english, phrasal)  # "wifi pwd (all lower):\nX"
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
    # "the guest account has password 'popcorn'": quotes make a word a value, as after a link
    if quoted is not None and english and _a_name(text[quoted[0] : quoted[1]]):
        return quoted
    s, e = _trim(text, *tokens[0])
    if strong(text[s:e]):
        return s, e
    described = False  # words of what it is for, no qualifier first: only a colon may link them
    for i in range(min(len(tokens), _DESCRIBED_TOKENS)):
        token = text[tokens[i][0] : tokens[i][1]]
        if token.endswith(":") and (i == 0 or token[:-1].lower() not in _stopwords()):
            return linked(i + 1, tokens[i][1], ":", bare=i == 0 and token == ":")  # "Mot de passe : ..."
        if (
            i == 0
            and english
            and token.lower() == "to"
            and len(tokens) > 1
            and given_before(text, word_start)
        ):
            # "I changed the password to winterapples": read as "the password was changed to"
            return given_value(text, linked(1, tokens[0][1], "changed to", bare=False))
        width = 0 if described else _link_at(text, tokens, i, links)
        if width:
            j = i + width
            j += _link_at(text, tokens, j, links)  # "was" + "reset to": a link after a link
            link = " ".join(text[a:b] for a, b in tokens[i:j]).lower()
            # a value on this line is read as English only after English links ("— it's": a dash and a link)
            english_link = english and (
                j >= len(tokens)
                or all(w in _english_links() for w in (link, link.split(" ")[0]))
                or all(w in _english_links() for w in link.split(" "))
            )
            quoted = _quoted(text, tokens[j][0]) if english and j < len(tokens) else None
            if quoted is not None and _a_name(text[quoted[0] : quoted[1]]):
                return quoted  # "reset the web password to 'tomatoes'": an English word's, whatever the link's language
            # "пароль — спроси у админа": the sign right after the word
            found = linked(j, tokens[j - 1][1], link, bare=i == 0, english=english_link)
            if found is None and english_link and j < len(tokens):
                found = described_value(text, tokens[j][0])  # "the password is my dog's name, Biscuit"
            english_word = english or word in english_phrasal()
            if found is not None or not (
                english_word and width == 1 and token.lower() in _english_qualifiers()
            ):
                return found
            # an English word's qualifier that another language reads as a link, no value after it: read on
            # ("the passphrase on the offline backup disk is: ...", Finnish's "on")
            continue
        if token.lower() == "to" and i + 1 < len(tokens):  # "set the password (at home) to X"
            s, e = _trim(text, *tokens[i + 1])
            if strong(text[s:e]):
                return s, e
        if (
            i == 0 and token.lower() not in qualifiers and not glued_qualifier(token) and not phrasal
        ):  # "passphrase I picked: ..."
            if english:
                return None
            described = True  # "parola căsuței comune de la contabilitate: ...": a colon only
    return None


# A line's end, at most two blank lines, and the next line's indent: "the password is\n\n   X"
_NEXT_LINE = re.compile(r"[ \t]*\r?\n(?:[ \t]*\r?\n){0,2}[ \t]*")


def _next_line(
    text: str, pos: int, english: bool, phrasal: bool, languages: frozenset[str] = frozenset()
) -> tuple[int, int] | None:
    """A value alone on the line after a link that ends its line ("The password for the display is\n
    boardroom2024", "Passphrase for the GPG key:\nmarble-harbor-thistle-nine"): the whole line, judged as
    after the link ("Password:\nSee the vault" is talk)."""
    m = _NEXT_LINE.match(text, pos)
    if m is None:
        return None
    line_end = text.find("\n", m.end(), m.end() + 81)
    line_end = len(text) if line_end < 0 and len(text) - m.end() <= 80 else line_end
    if line_end <= m.end():
        return None
    tokens = _tokens(text, m.end(), line_end, 9)
    found = _value(
        text, m.end(), tokens, 0, line_end, english, linked=True, phrasal=phrasal, languages=languages
    )
    rest = text[found[1] : line_end] if found else ""
    return found if found and not rest.strip(" \t\r" + _CLOSE) else None


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
    languages: frozenset[str] = frozenset(),
    bare: bool = False,
) -> tuple[int, int] | None:
    """The value at ``start``; ``languages``: the link's other languages, whose passphrases a stopword ends;
    ``bare``: the link right after the word, no word of what the password is for between ("Hasło: ...")."""
    quoted = _quoted(text, start)
    if quoted is not None:
        value = text[quoted[0] : quoted[1]]
        if " " in value.strip() or plausible(value) or (english and _a_name(value)) or _cjk_numbered(value):
            return quoted  # "the password is 'bluefalcon'": quotes make a word a value
        return None
    for k in range(j, len(tokens)):
        if tokens[k][1] > start:
            s, e = _trim(text, max(start, tokens[k][0]), tokens[k][1])
            break
    else:
        return None
    if plausible(text[s:e]) or (linked and _NATIVE_JOINED.fullmatch(text[s:e])):
        return (
            s,
            e,
        )  # "공유기 비번: 호랑이_곶감", "كلمة المرور للراوتر: قهوة_بالهيل": words joined as no talk is
    word = text[s:e]
    bare_word = word.rstrip("!")  # "pw = livingroomjams!": a mark a password ends in as often as talk
    named = _a_name(bare_word) or (
        # a capital first, or all capitals ("is BLUEFOX"; "is EXPIRED" is talk, ``_a_name``'s)
        (bare_word[1:].islower() or bare_word.isupper())
        and bare_word[:1].isupper()
        and _a_name(bare_word.lower())
    )
    if english and linked and joined_words(word) and _SINGLE_END.match(text, e):
        return s, e  # "Kiosk exit password for the lobby tablet: escape-hatch", "Wi-Fi key: ESPRESSO-MACHINE"
    if english and linked and named and (_SINGLE_END.match(text, e) or _GOES_ON.match(text, e)):
        return (
            s,
            e,
        )  # "the password is pineconebeach." ("... is Pomegranate, capital P"): one word, clause ends
    if linked and (english or phrasal):  # a phrase's own word names it in any language
        before = text[max(0, start - 4) : start].rstrip()
        sign = bool(before) and before[-1] in ":：—–-="
        # a phrase's own word and an English verb: "the VPN passphrase is moonlight sonata", "... is purple walrus
        # sings at dawn", as after "password is"
        said = english or (phrasal and _ENGLISH_IS.search(text, max(0, start - 10), start) is not None)
        return _passphrase(
            text,
            s,
            clause_end,
            phrasal,
            pairs=said and not (sign and bare),
            spoken=said,
        )
    if linked and languages:  # "la sua password è luna piena mare": no word of its language's talk
        before = text[max(0, start - 4) : start].rstrip()
        # "hasło do serwera: ...", "пароль от почты — ..."; a bare heading's talk is an errand ("Hasło: zapytaj
        # w dziale kadr", "Mot de passe : demande à la réception demain")
        after_sign = bool(before) and not before[-1].isalnum()
        signed = after_sign and not bare
        stops, endings = foreign_talk(languages), talk_endings(languages)
        known = talk_known(languages)  # a language whose talk about passwords the lexicon holds
        if known and _SINGLE_END.match(text, e) and _a_word_named(word, stops, endings, after_sign, bare):
            # "Wifi-kode i sommerhuset: rødgrødmedfløde", "la password del wifi al mare è conchiglia"
            return s, e
        return _passphrase(
            text,
            s,
            clause_end,
            stops=stops,
            signed=signed,
            pairs=known and not (after_sign and bare),
            nouns="de" in languages,
            endings=endings,
        )
    return None


def _a_word_named(
    word: str, talk: frozenset[str], endings: tuple[str, ...], after_sign: bool, bare: bool
) -> bool:
    """One word of letters that ends its clause after a link of its language, none of the language's talk
    (``lexicon.foreign_talk``: its stopwords and what is said of a password; ``endings``, a participle's or an
    adverb's, ``lexicon.talk_endings``): "la password del wifi al mare è
    conchiglia", "Kennwort fürs Gäste-WLAN ist jetzt Apfelstrudel"; "la password è cambiata" is talk. Five
    letters or more after a verb; after a sign, six or more and no errand of any language ("Пароль от вайфая —
    ромашка", session 48; "Hasło: nieznane", "Hasło: zapytać" are talk and an errand), where before session 48
    only words run together were taken ("rødgrødmedfløde", ten letters or more, lower case, not right after the
    word). Lower case or a capital first (German's nouns, a name)."""
    low = word.lower()
    if after_sign and (bare or len(word) < 10 or not word.islower()) and (len(word) < 6 or low in errands()):
        return False
    return (
        len(word) >= 5
        and word.isalpha()
        and (word.islower() or word[1:].islower() or word == low == word.upper())
        and low not in talk
        and not low.endswith(endings)
    )


# A key printed in groups of digits (a FRITZ!Box's twenty): four groups or more of four or five digits
_YEARS = re.compile(r"(?:(?:19|20)\d\d ?)+")  # "the key years 2024 2025 2026 2027"
_KEY_GROUPS = re.compile(r"[ \t]*[:=]?[ \t]*(\d{4,5}(?: \d{4,5}){3,7})(?![\w.,/-]?\d)")

# Words of another script than Latin joined by underscores: a value typed without spaces, never talk
_NATIVE_JOINED = re.compile(r"(?=[^_]*[^\x00-\x7f])[^\W\d_]{2,}(?:_[^\W\d_]{2,})+(?:_?\d{1,4})?")

_ENGLISH_IS = re.compile(r"\b(?:is|was|is now|it's)\s+\Z")

# An English clause that goes on after a lone word, another clause's subject or verb after the conjunction:
# "their Netflix password is marigoldsunday and asked me to ...", "... is bluebell but she changed it"; not a
# passphrase's words ("pancakes and syrup 88")
_GOES_ON = re.compile(
    r"[ \t]+(?:and|but|so)[ \t]+(?:i|we|you|he|she|they|it|asked|said|told|wants?|wanted|will|can|should|please"
    r"|then|don't|do|nobody|everyone)\b"
    # or says for how long: "the root password is tiramisu until I set up keys", "... is bluebell for now"
    r"|[ \t]+(?:until|till|for[ \t]+now|for[ \t]+today|for[ \t]+the[ \t]+(?:week|weekend|day|month)|while)\b"
    # a purpose after "so", an adverb that ends the clause: "... to Ironclad so students can't boot USB", "... is
    # raspberry still, change it"
    r"|[ \t]+so[ \t]+(?:that[ \t]+)?[a-z]+|[ \t]+(?:still|now|again|too|anyway|though)[ \t]*(?:$|[.,;!?)])",
    re.IGNORECASE,
)


# A network named for its password ("the wifi at grandma's is 'rosebush1947'") is a network named, when the note
# speaks of its password or key apart: "Our Wi-Fi is Livebox-8A2F. La clé est sur l'étiquette", "Wifi in the café
# is 'CafeLumen' — no password".
_NETWORK_WORDS = frozenset({"wifi", "wi-fi", "wlan"})


def _named_apart(phrases: Iterable[tuple[int, int, str, str]], after: int) -> bool:
    """Whether a credential word of the lexicon's ``phrases`` (``_phrases`` of the text) follows ``after``: the
    password spoken of after the network's name ("key" and "secret" too; "wifi" itself not)."""
    return any(
        start >= after and (kind == "credential" or (kind == "weak" and phrase not in _NETWORK_WORDS))
        for start, _, phrase, kind in phrases
    )


def _phrase_after_aside(text: str, end: int) -> tuple[int, int] | None:
    """A phrase's words after an aside and a colon on the phrase word's line: "Seed phrase for the cold wallet,
    typing it here because ...: orbit velvet ...", "Cụm từ khôi phục ví (12 từ): apple bridge ..."."""
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    colon = _ASIDE_COLON.search(text, end, min(line_end, end + 120))
    if colon is None:
        return None
    if colon.end() == line_end:  # "Passphrase for the GPG key used to sign releases:\nmarble-harbor-..."
        return _next_line(text, colon.end(), True, True)
    found = _passphrase(text, colon.end(), line_end, phrasal=True)
    if found is None:
        return None
    words = text[found[0] : found[1]].lower().split()
    # a seed's or a phrase's words, four or more, none of talk ("Explained: several random words, ...")
    return found if len(words) >= 4 and not any(w in _stopwords() for w in words) else None


_ASIDE_COLON = re.compile(r"[:：][ \t]*")


def _signin_values(
    text: str, start: int, limit: int = _MAX_SIGNIN_TOKENS, accounts: bool = False
) -> Iterator[tuple[int, int]]:
    """Secret-shaped tokens (``stronger``) in the ``limit`` tokens after ``start``, within its clause;
    ``accounts``: after a default account's name, strong is enough ("login admin hunter22", not "ssh root web01")."""
    end = _clause_end(text, start)
    after_account = False
    for s, e in _tokens(text, start, end + 1 if end < len(text) else end, limit):
        s, e = _trim(text, s, e)
        if stronger(text[s:e]) or (after_account and strong(text[s:e])):
            yield s, e
        elif (pair := _USER_PASS.fullmatch(text, s, e)) is not None and stronger(pair.group(1)):
            yield pair.start(1), pair.end(1)
        after_account = accounts and text[s:e].lower() in _DEFAULT_ACCOUNTS


_USER_PASS = re.compile(r"[\w.+-]{2,64}(?:@[\w.-]+)?:([^\s:]{6,64})")  # an account, a colon, its password


def _values_before(text: str, word_start: int) -> Iterator[tuple[int, int]]:
    """Secret-shaped tokens in the few tokens before a sign-in word, within its clause."""
    tokens = list(_TOKEN.finditer(text, _clause_start(text, word_start), word_start))[-_MAX_BEFORE_TOKENS:]
    for m in tokens:
        s, e = _trim(text, m.start(), m.end())
        if stronger(text[s:e]):
            yield s, e


def find_prose_credentials(text: str) -> list[tuple[int, int]]:
    """Spans of passwords written in prose, sorted, possibly overlapping each other (the caller merges)."""
    _, _, links, qualifiers, english_words = _lexicon_index()
    spans: list[tuple[int, int]] = []
    # A word's clause before it and what follows it decide, so a repeated line (a log, a JSON array) is judged
    # once; the key holds as much text before the word as any rule reads there (a clause, ``_CLAUSE_MAX``).
    memo: dict[tuple[str, str, str], tuple[int, int] | None] = {}
    along_memo: dict[tuple[str, bool, str], list[tuple[int, int]]] = {}
    signin_words: list[int] = []  # where sign-in and credential words end: an account after one is named
    phrases = list(phrases_in(text))
    for start, end, phrase, kind in phrases:
        if kind == "thing":
            continue  # the tagger's anchor only (credential_model.candidates)
        if kind in ("signin", "credential"):
            signin_words.append(end)
        if kind in ("signin", "credential"):
            # a sign-in clause's values; after a credential word, a value further along its clause ("password
            # for analytics changed yesterday, new one is Quokka_77_Sun"); a brand is none ("1Password")
            accounts = phrase.startswith(("log", "sign"))
            clause = (kind, accounts, text[end : end + _CLAUSE_MAX + 1])
            if clause not in along_memo:
                limit = _MAX_SIGNIN_TOKENS if kind == "signin" else _MAX_CLAUSE_TOKENS
                along_memo[clause] = [
                    (v[0] - end, v[1] - end)
                    for v in _signin_values(text, end, limit, accounts)
                    if not _BRAND.fullmatch(text[v[0] : v[1]])
                ]
            spans.extend((end + a, end + b) for a, b in along_memo[clause])
        if kind == "signin":
            spans.extend(_values_before(text, start))
            continue
        key = (phrase, text[max(0, start - _CLAUSE_MAX - 1) : start], text[end : end + _CLAUSE_MAX + 90])
        if key not in memo:
            english = phrase in english_words and kind == "credential"
            mine = word_links(phrase) if kind == "credential" else links
            found = None
            if kind == "door":
                found = door_code(text, end)
            elif kind == "lock":
                found = lock_code(text, end, phrase)
                if found and phrase in ALARM_WORDS and _HHMM.fullmatch(text[found[0] : found[1]]):
                    found = None  # "alarm: 0630" is a time
            elif kind != "code":
                found = _after_word(text, end, english, mine, qualifiers, phrase in phrasal(), phrase, start)
                if found is None and phrase in phrasal():
                    found = _phrase_after_aside(text, end)
                if (
                    kind == "numeric"
                    and found
                    and _shape(phrase) == "digits"
                    and phone_shaped(text[slice(*found)])
                ):
                    found = None  # "Door code problems out of hours, ring the monitoring line: 312-555-0147"
            if kind in ("numeric", "credential", "code") and found is None:
                found = _numeric_code(
                    text, end, mine, "otp" if kind == "code" else _shape(phrase), lock_links=kind == "code"
                )
                if kind == "code" and found is not None and not _a_secret_code(text, start, end, found[1]):
                    found = None
            if (
                kind == "credential"
                and (found is None or " " in text[found[0] : found[1]])
                and (before := value_before(text, start, end, own_links(phrase)))
                and (found is None or _lettered(text[before[0] : before[1]]))
            ):
                # a value that opens the clause before its word wins over words read as a phrase after it:
                # "Zugspitze2962 ist jetzt das Kennwort fürs NAS – das alte hat Jörg rausgeworfen"
                found = before
            if (
                kind in ("numeric", "code")
                and found is None
                and (before := digits_before(text, start, end, links))
                and not code_named_otherwise(text, start, end, end)
            ):
                found = before  # "8306 ist der Code für den Schlüsselkasten"
            if kind == "credential" and found is None:  # "user baker, pass crumbcake"
                found = _listed_value(text, start, end, phrases, english or phrase in phrasal(), links)
            elif (
                kind == "weak" and (keyed := _KEY_GROUPS.match(text, end)) and not _YEARS.fullmatch(keyed[1])
            ):
                # "WLAN ... Schlüssel 4719 2836 5501 9823 2210": a router's printed key
                found = keyed.span(1)
            elif (
                kind == "weak"
                and phrase in _KEY_WORDS
                and (
                    listed := _listed_value(text, start, end, phrases, phrase == "key", links, networked=True)
                )
            ):
                found = listed  # "Wifi at the cabin: SSID Kesaranta, key mossybirch": a key after its network
            elif (
                kind == "weak"
                and phrase in _KEY_WORDS
                and _network_before(text, start)
                and (after_key := _after_word(text, end, True, mine, qualifiers, False, phrase))
                and _a_network_key(text[after_key[0] : after_key[1]])
            ):
                found = after_key  # "ssid: FBI_Van_3 key: notreallyfbi!": a network's key, one plain word
            elif kind == "weak" and found is not None:
                value = text[found[0] : found[1]]
                # "key: mossyStone!river"; not code's "key, delta=1"
                ok = (_lettered(value) or stronger(value)) and "=" not in value
                if phrase in _NETWORK_WORDS and _named_apart(phrases, found[1]):
                    ok = False  # "Our Wi-Fi is Livebox-8A2F ... the password is on the router": its name
                found = found if ok and not _KEY_COMBO.search(value) else None
            if found is None and kind in (
                "numeric",
                "credential",
                "door",
                "lock",
            ):  # "Card PIN for ...: 58 31 90."
                found = heading_value(text, start, end, numeric=kind != "credential")
            memo[key] = None if found is None else (found[0] - end, found[1] - end)
        relative = memo[key]
        if relative is not None and relative[1] > relative[0]:
            spans.append((end + relative[0], end + relative[1]))
    signin_words.sort()
    spans.extend(account_values(text, signin_words))
    for it_start, it_end, phrase, kind in antecedents(text, phrases):  # "Router login changed. It's now X"
        if kind == "credential":
            found = _after_word(
                text, it_end, True, _english_links(), qualifiers, phrase in phrasal(), phrase, it_start
            )
        else:
            found = _numeric_code(text, it_end, _english_links(), "otp" if kind == "code" else _shape(phrase))
        if found and told(text, *found):
            spans.append(found)
    spans.extend(keyed_digits(text))
    spans.extend(keyed_codes(text))
    spans.extend(keyed_dials(text))
    spans.extend(dial_turns(text))
    spans.extend(lock_combinations(text))
    spans.extend(spelled_values(text, phrases))
    spans.extend(spoken_digits(text, phrases))
    spans.extend(spoken_numbers(text, phrases))
    spans.extend(table_values(text, phrases))
    spans.extend(typed_values(text, phrases))
    return sorted(set(spans))


def add_prose_spans(text: str, spans: list[tuple[int, int]], found: list[Found], vetoed: Vetoed) -> None:
    """Record ``spans`` as passwords in prose (``RULE``), but none judged "not secret" and none a name."""
    overlaps_vetoed = overlap_test(vetoed)
    for start, end in spans:
        if not overlaps_vetoed(start, end) and not named_before(text, start):
            found.append(Found(start, end, RULE, PRIORITY))


def scan_prose_credentials(text: str, low: str, found: list[Found], vetoed: Vetoed) -> None:
    """The redaction layer (``redaction.SCANNERS``): every prose credential not judged "not secret"."""
    add_prose_spans(text, find_prose_credentials(text), found, vetoed)
    overlaps_vetoed = overlap_test(vetoed)
    for start, end in find_password_shaped(text):
        if not overlaps_vetoed(start, end):
            found.append(Found(start, end, SHAPED_RULE, PRIORITY - 1))
