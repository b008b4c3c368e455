"""Whether a value near a credential word is a password: the nearer the word, the less it must look like one.

``credentials.py`` finds where a value stands in prose (after the word, after an account, in a sign-in
clause); the value itself is judged here, by one of three degrees::

    plausible    after a link ("is", ":", "lautet"): anything but an ordinary word, a short number, a
                 version, a ticket id, a date, an address, a path, a network's name, a placeholder or a
                 reference in code          password is expired · password: see the vault · pw: ${PASS}
    strong       right after the word: plausible, and letters with digits or symbols, six characters or
                 more                       password rotation passes, password hunter22 does not
    stronger     among other words (an account's value, a sign-in clause): strong, and mixed case or a
                 symbol beyond ``-_.``      ssh to web-prod-03 passes, login admin Hunter22! does not

and the special cases: three to six ordinary words (``_passphrase``: "my password is correct horse battery
staple"), one lower-case word named in English talk (``_a_name``: "the password is pineconebeach."), a name
rather than a password after a naming word (``named_before``: "Wifi name: Maple2026", "the printer is
called HP4729x"), and a token that meets a password policy whatever the words around it
(``find_password_shaped``: "Use Bl4ckb1rd! to log in").

Pure functions, linear regexes; offsets are in the text given.
"""

from __future__ import annotations

import functools
import re

from .entropy import is_placeholder
from .lexicon import (
    _CJK_CHAR,
    _CLOSE,
    _TOKEN,
    _clause_start,
    _describing,
    _stopwords,
    _trim,
    credential_words,
    errands,
    foreign_stopwords,
    not_passwords,
)

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

_LETTER_DIGIT = re.compile(r"[^\W\d_][\W_]?\d")
_SIGN = re.compile(r"[!@#$%^&*~]")
_HAN_KANA = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")


# A Wi-Fi network's name by its band or role: "Hendersons_5G", "BTHub-5GHz", "BeanThere_Guest"; never a password.
NETWORK_NAME = re.compile(
    r"[\w-]+[-_ ](?:5G|5g|2G|2g|2\.4G|5GHz|2\.4GHz|EXT|Ext|Guest|guest|GUEST)|[A-Za-z][\w-]*[a-z](?:5G|2G|5GHz|2\.4G)"
)
# A router's or a provider's default network name: "Livebox-8A2F", "TP-Link_3C5E" (``not_passwords``' ``routers``),
# its suffix four to eight hexadecimal digits with a letter and a digit ("Orange-1234", "sky12345" may be passwords).
DEFAULT_SSID = re.compile(
    r"(?i:"
    + "|".join(map(re.escape, sorted(not_passwords("routers"), key=len, reverse=True)))
    + r")[-_ ]?(?=[0-9A-Fa-f]*\d)(?=[0-9A-Fa-f]*[A-Fa-f])[0-9A-Fa-f]{4,8}"
)
# A network card's address: "00:1B:44:11:3A:B7".
MAC_ADDRESS = re.compile(r"[0-9A-Fa-f]{2}(?:([:-])[0-9A-Fa-f]{2})(?:\1[0-9A-Fa-f]{2}){4}")


@functools.cache
def _named_before() -> re.Pattern[str]:
    """One of ``data/not_passwords.toml``'s naming words, and at most a link, right before a position."""
    naming = sorted(not_passwords("naming"), key=len, reverse=True)
    return re.compile(
        r"(?<![A-Za-zÀ-ɏЀ-ӿ])(?:"
        + "|".join(re.escape(w) for w in naming)
        + r")[\s:：=は是为는은이가'\"«“„]{0,4}$",
        re.IGNORECASE,
    )


def named_before(text: str, start: int) -> bool:
    """Whether a naming word stands right before ``start``: a network's or a device's name follows ("is
    called", "SSIDは", "síť se jmenuje", "Wifi name:")."""
    m = _named_before().search(text, max(0, start - 24), start)
    # "the password is the dog's name: Waffles2020": a pet's or a person's name told as the value, not a device's
    return m is not None and not (
        m.group()[:4].lower() == "name" and text[m.start() - 3 : m.start()] in ("'s ", "’s ")
    )


# Two words joined by a capital, the first in lower case: "mapleSyrup!!" (not "iPhone", "eBay": a capital
# second; not "LinkedIn", "PayPal": a brand's first capital); three or more capitalised words run together.
_JOINED = re.compile(r"[a-z]{2,}[A-Z][a-z]{2,}[!?]*|(?:[A-Z][a-z]{2,}){3,6}[!?]*")  # or "ThreeLittleBirds"


def plausible(value: str) -> bool:
    """Could be a password where the text says so: anything but an ordinary word, a known shape, a
    placeholder or a reference in code (``os.environ['X']``, ``settings.DB_PASSWORD``, ``${PASS}``)."""
    if len(value) < 4 or len(value) > 128:
        return False
    if _ascii_share(value) < 0.8 and not (
        len(value) >= 6
        and _LETTER_DIGIT.search(value)
        and (not _CJK_CHAR.search(value) or (_SIGN.search(value) and not _HAN_KANA.search(value)))
    ):
        # a word of another script, unless letters run into digits ("Соняшник2025"); in Korean only with a sign
        # as well ("한강@서울2024"): a word and a number run together there in talk. Chinese and Japanese write
        # no spaces, so a "token" there runs on into the sentence ("「Sakura#Hana2024」を発行しました").
        return False
    if is_placeholder(value) or _CODE.search(value) or NETWORK_NAME.fullmatch(value):
        return False
    if DEFAULT_SSID.fullmatch(value) or MAC_ADDRESS.fullmatch(value):
        return False  # a router's default network name, a network card's address
    if value.lower() in not_passwords("brands") or _KEY_COMBO.search(value):  # "FRITZ!Box", "Ctrl+Alt+Del"
        return False
    if _PLACEHOLDER.match(value) and not re.search(r"[A-Za-z]\d|\d[A-Za-z]", value):
        return False
    if (
        re.sub(r"['’]", "", value).rstrip("!?").isalpha() and not _JOINED.fullmatch(value)
    ) or _SAME.fullmatch(value):
        return False  # a word ("life's" too), with its sentence's "!" or "?"; not "mapleSyrup!!"
    if value.isdigit():
        return len(value) >= 6
    if "/" in value or "\\" in value or ("@" in value[1:-1] and "." in value.rsplit("@", 1)[-1]):
        return False  # a path, an address
    if _VERSION.fullmatch(value) or _TICKET.fullmatch(value) or _DATE.fullmatch(value):
        return False
    parts = value.split("-")  # joined by an underscore, two words are a value: "kanelbulle_sommar"
    # "re-used", "self-service", a name with its case ending after an apostrophe ("e-Devlet'ten", Turkish)
    return not (len(parts) == 2 and all(re.sub(r"['’]", "", p).isalpha() for p in parts))


def strong(value: str, known: bool | None = None) -> bool:
    """Looks like a password without being told: letters with digits or symbols, six characters or more.
    ``known``: ``plausible(value)`` where the caller has it already."""
    if len(value) < 6 or value[0] == "-" or not (plausible(value) if known is None else known):
        return False  # "--digest": an option on a command line
    letters = any(c.isalpha() for c in value)
    others = any(not c.isalpha() for c in value)
    return letters and others


# "ACH|EMAIL_FROM", "ACH|CONTENT": a record's fields joined by pipes, the next field's capital label after one
_RECORD_JOIN = re.compile(r"\|[A-Z][A-Z0-9]*_[A-Z0-9_]+|\|[A-Z][A-Z_]{2,}$")

_WORDS_COMMA = re.compile(r"[^\W\d_]+,[^\W\d_]+")  # "Hi David,Your company's ...": a missing space

# "noreply@hrportal": an address, its ".com" cut off
_ADDRESS_CUT = re.compile(r"[a-z][a-z.-]{2,}@[a-z][a-z-]{2,}")

_VARIABLE = re.compile(r"\$[\w{(]")  # "$HOME", "${PASS}", "$(cat f)"; "Ledger88$" is a password

_KEY_COMBO = re.compile(r"(?:ctrl|alt|shift|cmd|command|option|meta|super|fn|win)\+", re.IGNORECASE)

# "1Password", "7Zip", "Disney+", "DS920+", "Notepad++": a name, not a password further along a clause
_BRAND = re.compile(r"\d[A-Za-z]+|[A-Za-z0-9]+\+{1,2}")


def stronger(value: str, known: bool | None = None) -> bool:
    """A password among other words: strong, and mixed case or a symbol beyond ``-_.`` (not a host name).
    ``known``: ``strong(value)`` where the caller has it already."""
    if not (strong(value) if known is None else known):
        return False
    if not value[0].isalnum() or any(c in value for c in ":=%") or _VARIABLE.search(value):
        return False  # "key:value", "name=value", "$VAR", ":token": config and code, the other layers' share
    if (
        _RECORD_JOIN.search(value)
        or _WORDS_COMMA.fullmatch(value)
        or _BRAND.fullmatch(value)
        or _ADDRESS_CUT.fullmatch(value)
    ):
        # a record's fields joined by pipes; two words and a comma with its space missing; a brand; an address
        return False
    mixed = any(c.isupper() for c in value) and any(c.islower() for c in value)
    symbol = any(not c.isalnum() and c not in "-_." for c in value)
    return (mixed or symbol) and not _SLUG.fullmatch(value)


# A phrase by its own word (``lexicon.phrasal``): ``_passphrase`` lets a few stopwords in, and more words
# after its colon.

# A wallet's seed: 12 or 24 words ("Electrum seed", "frase semilla de la cartera", "助记词（12个）")
_SEED = re.compile(
    r"(?i)seed|semilla|semente|recovery phrase|mnemonic|助记词|wallet|cartera|carteira|portafoglio|portefeuille|"
    r"кошел|гаманц|πορτοφόλ|\b(?:12|24) (?:words|palabras|palavras|mots|wörter|parole|слов)|(?:12|24)个"
)

_PHRASE_DASH = re.compile(r"\s[-–—]\s")

_PHRASE_END = tuple(",\"”’'»")
_PHRASE_NUMBER = re.compile(r"\d{1,4}(?:am|pm)?")
# Words that point to a password told elsewhere, not a phrase's own: "the one we agreed on", "you know which"
# (no pronoun: "Passphrase: i love my dog at dawn" is a sentence of one's own)
_REFERRING = frozenset({"one", "ones", "agreed", "usual", "previous", "last", "told", "gave", "given", "know",
                        "remember"})  # fmt: skip

# A first word that points elsewhere ("passphrase: in the drawer", "same as before"), not a phrase's own
_POINTERS = frozenset({"in", "on", "at", "under", "from", "with", "by", "see", "ask", "same", "not", "no",
                       "still", "stored", "saved", "kept", "written", "inside", "behind", "use", "choose", "pick",
                       "make", "try", "avoid", "never", "always", "must", "should", "need", "needs", "minimum",
                       "maximum", "through", "via"})  # fmt: skip


def _passphrase(
    text: str,
    start: int,
    end: int,
    phrasal: bool = False,
    stops: frozenset[str] | None = None,
    signed: bool = False,
    pairs: bool = False,
    nouns: bool = False,
    endings: tuple[str, ...] = (),
    spoken: bool = False,
) -> tuple[int, int] | None:
    """Three to six ordinary lower-case words, to the end of the clause or to a comma, a closing quote, a
    dash or an aside ("the password is marmalade sunset river — she wants it reset"); the first never a
    pointer or advice ("in the drawer", "use four random words"). None of them a word of talk about
    passwords (``_stopwords``), except after a phrase's own word and a colon, which name a phrase: there a
    third may be, and up to eight words ("my dog eats purple socks", "moose tracks at dawn"; 24 for a
    wallet's seed); "a long passphrase is easier to remember" is talk. ``stops``: another language's
    stopwords (``lexicon.foreign_talk``), where none may be ("la password è salvata nel gestore"). Two words
    (``_a_pair``) in a title's capitals, or where ``pairs`` (the caller's: a link of the value's language, not a
    sign right after the word, where two plain words are an errand as often: "пароль — зроблю ввечері");
    ``endings``: a participle's or an adverb's in the value's language (``lexicon.talk_endings``). ``nouns``: a language that writes its nouns with a capital (German)."""
    dash = _PHRASE_DASH.search(text, start, end)
    end = dash.start() if dash else end
    words: list[re.Match[str]] = []
    for w in re.finditer(r"\S+", text[start:end]):
        if words and w.group().startswith(("(", "[")):  # an aside after it: "swims backwards (he said)"
            break
        words.append(w)
        if w.group().endswith(_PHRASE_END):
            break
    # "passphrase: my dog eats purple socks", "Electrum seed — rough toast bridge ..."
    named = phrasal and text[:start].rstrip().endswith((":", "：", "—", "–", "="))
    seed = named and _SEED.search(text, max(0, start - 60), start) is not None  # a wallet's: 12 or 24 words
    most = 24 if seed else 8 if named else 6
    # "Password: Quiet River Stone", "Hasło do wifi: Zielona Herbata", "Passordet ... er Fjellbekk Tur Ski": a
    # title's capitals
    titled = all(w.group()[:1].isupper() and w.group().rstrip(_CLOSE)[1:].islower() for w in words)
    # ... or with small words of three letters or fewer between capitalised ones: "Knedlík s Omáčkou", "Gandalf
    # the Grey" (a title's first and last words capitalised)
    capitals = [w.group()[:1].isupper() and w.group().rstrip(_CLOSE)[1:].islower() for w in words]
    joined = (
        len(words) >= 3
        and capitals[0]
        and capitals[-1]
        and all(
            c or (len(w.group()) <= 3 and w.group().islower()) for c, w in zip(capitals, words, strict=True)
        )
    )
    # two words where ``pairs`` ("è girasol amarillo"), or in a title's capitals
    least = 2 if (titled or pairs) and _a_pair(text, start, end, words, stops, endings) else 3
    if not least <= len(words) <= most or words[0].group().lower() in _POINTERS:
        return None  # "use four random words": advice, not a phrase
    stopped = 0
    for i, w in enumerate(words):
        word = w.group().rstrip(_CLOSE)
        # CJK: "湖 锋 扑 壮"; after a link of a language's own, Hebrew, Arabic, Persian too (Korean's talk is a
        # phrase of caseless words: "비밀번호는 보안팀에서 관리하기로 함")
        caseless = word == word.lower() == word.upper() and (stops is None or not _CJK_CHAR.search(word))
        # "Lighthouse keeper ...", "... jede do Brna"; German writes its nouns so: "blaue Katze tanzt"
        proper = (i == 0 or named or titled or joined or nouns) and word[1:].islower()
        if (
            (named or spoken)
            and i == len(words) - 1
            and i >= (3 if named else 2)
            and _PHRASE_NUMBER.fullmatch(word)
        ):
            # a named phrase's last word may be a number: "the quiet ferry leaves at dawn 1999", "... at 3am"; after
            # an English link too: "password is pancakes and syrup 88", "pw: Purple cactus drinks tea at 9"
            break
        if not (word.isalpha() and (word.islower() or caseless or proper)):
            return None  # the first word may open a sentence: "Lighthouse keeper sings at dawn"
        word = word.lower()
        stopped += word in (_stopwords() if stops is None else stops)
    # after a phrase's own word and a colon, a sentence: up to half its words small ("the quick trombone of the
    # north"), four words or more, none that points elsewhere or says what it is ("the one we agreed on")
    lowered = [w.group().rstrip(_CLOSE).lower() for w in words]
    if not seed and not credential_words().isdisjoint(lowered):
        return None  # "passwd: password updated successfully": talk about a password, not one
    if stops is None and not seed and not errands().isdisjoint(lowered):
        return None  # after a word English shares ("Password del Wi-Fi: chiedere alla reception"): an errand
    told = any(w in _REFERRING for w in lowered)
    sentence = 4 <= len(words) >= 2 * stopped and not any(w in _describing() for w in lowered)
    phrase_named = named and stops is None and not told and (3 * stopped <= len(words) or sentence)
    # after "password is" in English, a phrase of four words or more, a third of them small at most, that
    # neither opens nor ends on a small one ("the password is apple pie and cream")
    english = foreign_stopwords(frozenset({"en"})) if spoken else frozenset()  # stopwords-iso's, "you" too
    spoken_phrase = (
        spoken
        and stops is None
        and not told
        and len(words) >= 4
        and 3 * sum(w in english for w in lowered) <= len(words)
        and lowered[0] not in english
        and lowered[-1] not in english
        and not any(w in _describing() for w in lowered)
    )
    # a title of three words or more may hold a small word in three ("Fjellbekk Tur Ski", "Gandalf the Grey")
    title = (titled or joined) and len(words) >= 3 and 3 * stopped <= len(words) and not told
    if (
        stopped
        and not (phrase_named or title or spoken_phrase)
        and (stops is None or not _foreign_phrase(lowered, stops, signed))
    ):
        return None
    last = words[-1]
    return start + words[0].start(), start + last.start() + len(last.group().rstrip(_CLOSE))


def _a_pair(
    text: str,
    start: int,
    end: int,
    words: list[re.Match[str]],
    stops: frozenset[str] | None,
    endings: tuple[str, ...] = (),
) -> bool:
    """Two words that end their clause (or stop at a comma), three letters or more each and neither a word of
    talk: its language's (``stops``, with what is said of a password there) or English's, with English's
    describing endings ("girasol amarillo", "simba jasiri", "Pelican Brief"; "is case sensitive", "è troppo
    corta" are talk)."""
    if len(words) != 2:
        return False
    last = words[-1]
    if not (last.group().endswith(",") or not text[start + last.end() : end].strip(" .!?;)")):
        return False
    for w in words:
        word = w.group().rstrip(_CLOSE).lower()
        if len(word) < 3 or not word.isalpha() or word in _stopwords() or word in _describing():
            return False
        if (word in stops or word.endswith(endings)) if stops is not None else _DESCRIBING.match(word):
            return False
    return True


def _foreign_phrase(words: list[str], stops: frozenset[str], signed: bool) -> bool:
    """A phrase of another language may hold its small words, as a sentence does, after its credential word
    and a sign (":", "—"): four words or more, at most half of them ``stops`` ("ww voor de mailbox: de koe
    staat in de wei"; "Contraseña: la tiene Marta" and "Senha: a mesma de antes" are talk). After a verb
    ("je", "είναι", "è") such words say where it is ("heslo je na nástěnce v kuchyni", "είναι κολλημένος πάνω
    στο κουτί"), and a phrase there holds none of them, as before."""
    return signed and len(words) >= 4 and 2 * sum(w in stops for w in words) <= len(words)


def _cjk_numbered(value: str) -> bool:
    """CJK letters with digits, quoted after a link: "パスワードは「さくら並木2023」です" (unquoted, "第3章" is talk)."""
    return len(value) >= 4 and _CJK_CHAR.search(value) is not None and any(c.isdigit() for c in value)


# A describing word, not a name: "the password is mandatory / compromised / predictable / secure"
_DESCRIBING = re.compile(r".*(?:ed|ing|ive|able|ible|ous|ful|less|al|ic|ary|ory|ent|ant|ure|ise|ize|ly|ty)$")


def _compound(value: str) -> list[str] | None:
    """The parts of two to four words of three letters or more joined by hyphens, in one case ("escape-hatch",
    "PINEAPPLE-EXPRESS", "Case-Sensitive"), lower-cased; None for any other value."""
    parts = value.split("-")
    if not 2 <= len(parts) <= 4 or not all(len(p) >= 3 and p.isalpha() for p in parts):
        return None
    if not (value.islower() or value.isupper() or all(p[1:].islower() for p in parts)):
        return None
    return [p.lower() for p in parts]


def compound_talk(value: str) -> bool:
    """Two words joined by a hyphen that talk about a password ("case-sensitive", "user-defined", "auto-generated",
    "self-service", "one-time"): a part that is a word of talk or of compound talk, or a describing ending last.
    Three words or four are a passphrase's ("correct-horse-battery-staple")."""
    low = _compound(value)
    if low is None or len(low) != 2:
        return False
    if any(p in _stopwords() or p in _describing() or p in _COMPOUND_TALK for p in low):
        return True
    return _DESCRIBING.match(low[-1]) is not None


def joined_words(value: str) -> bool:
    """Words joined by hyphens that may be a password named in English talk ("the kiosk's exit password:
    escape-hatch", "Wi-Fi key: ESPRESSO-MACHINE"): ``_compound``, and no compound talk."""
    return _compound(value) is not None and not compound_talk(value)


# Parts of the compounds that talk about passwords and logins ("self-service", "one-time", "two-factor")
_COMPOUND_TALK = frozenset({"self", "one", "two", "multi", "single", "auto", "non", "user", "system", "time",
                            "factor", "service", "case", "pass", "word", "pin", "code", "sign", "log", "read",
                            "write", "only", "open", "source", "third", "party", "high", "low", "end", "day",
                            "week", "month", "year", "hour", "well"})  # fmt: skip


def _a_name(word: str) -> bool:
    """A single lower-case word that could be a password named in English talk ("bluefalcon",
    "pineconebeach"): six to twenty-four letters, no word of talk about passwords, no describing ending."""
    return (
        6 <= len(word) <= 24
        and word.isascii()
        and word.isalpha()
        and word.islower()
        and word not in _stopwords()
        and word not in _describing()
        and not _DESCRIBING.match(word)
    )


def _lettered(value: str) -> bool:
    """``strong`` with a digit: letters and digits, six characters or more ("hunter22", "harbour2027")."""
    return strong(value) and any(c.isdigit() for c in value)


# A token that meets a password policy on its own: upper and lower case, a digit and a symbol, 8 to 40
# characters of what passwords are made of, standing alone in prose. People write those only as passwords;
# a name ("iPhone15"), a hashtag, a mention, an address, a path, a dotted name or a call ("f(x)") lacks a
# class or has a character passwords rarely do.
# Letters of any script ("Mökki2023!", "Xəzər!2024"): the policy's classes are what shapes it (session 49)
_SHAPED = re.compile(r"[^\W_][\w!@#$%^&*?~+.-]{6,38}(?:[^\W_]|[!#$%^&*?~])")

_SHAPED_SYMBOL = re.compile(r"[!@#$%^&*?~]")

_DOTTED = re.compile(r"[A-Za-z]\.[A-Za-z*]")  # "Build.HF*.Linux64", "settings.Secret1!"


def _policy_shaped(value: str) -> bool:
    """Upper and lower case, a digit and a symbol: what a password policy asks for (the symbol first: the
    rarest in prose, and one search in C)."""
    return (
        _SHAPED_SYMBOL.search(value) is not None
        and any(c.isdigit() for c in value)
        and any(c.isupper() for c in value)
        and any(c.islower() for c in value)
    )


def find_password_shaped(text: str) -> list[tuple[int, int]]:
    """Tokens that look like a password whatever the words around them ("Use Bl4ckb1rd! to log in"):
    each whitespace-separated token, its quotes, brackets and sentence punctuation trimmed, checked whole."""
    spans = []
    for m in _TOKEN.finditer(text):
        if m.end() - m.start() < 8:
            continue  # most words; trimming only shortens a token
        s, e = _trim(text, m.start(), m.end())
        if e - s < 8 or e - s > 40 or not _SHAPED.fullmatch(text, s, e):
            continue
        value = text[s:e]
        if not _policy_shaped(value) or _HAN_KANA.search(value):
            continue  # Chinese and Japanese run on unspaced: the token would be the sentence
        if ("@" in value[1:] and "." in value.rsplit("@", 1)[-1]) or _DOTTED.search(value):
            continue  # an address, a dotted name
        spans.append((s, e))
    return spans


# What a password is made of, said before the value itself: "the password is my dog's name, Biscuit", "... is the
# company name backwards, emca", "... is the invoice date: 14.02.2024"
_DESCRIBED = re.compile(
    r"(?i)(?:the|my|his|her|our|their|your|its|[a-z]+['’]s)\s+(?P<what>(?:[\w'’-]+\s+){0,6}?[\w'’-]+)"
    r"\s*(?:,|:|\s[-–—])\s*(?=\S)"
)
# The words that say what a value is made of
_KIND_WORDS = frozenset({"name", "names", "nickname", "surname", "date", "birthday", "birthdate", "year", "number",
                         "numbers", "initials", "word", "street", "town", "city", "place", "team", "club", "song",
                         "band", "movie", "film", "book", "pet", "dog", "cat", "maiden", "plate", "postcode", "zip",
                         "anniversary", "model", "colour", "color", "food", "dish", "hero", "character", "backwards",
                         "reversed", "capitals", "plus", "digits", "letters", "code", "address", "school"})  # fmt: skip
_DESCRIBED_VALUE = re.compile(r"(?:[A-Z][a-z]{0,2}\.\s)?[^\s,;()]*[^\s,;().!?:'\"’”](?:\s[A-Z][\w'’-]*\w)*")


def described_value(text: str, start: int) -> tuple[int, int] | None:
    """The value after what it is made of, in English, at ``start`` (after a link): ``_DESCRIBED``, its words naming
    a kind of value (``_KIND_WORDS``), then one token or a name of up to three capitalised words that ends its
    clause ("Mr. Whiskers", "Pelican Brief"): a word that could be a password, a name, three digits or more, a
    date. "the password is the name of the street, not the number" and "my cat's name, which you know" are talk."""
    m = _DESCRIBED.match(text, start)
    if m is None or _KIND_WORDS.isdisjoint(m.group("what").lower().split()):
        return None
    v = _DESCRIBED_VALUE.match(text, m.end())
    if v is None:
        return None
    s, e = v.span()
    value = text[s:e]
    after = text[e : e + 2]
    if not (after == "" or after[0] in ",;()\n" or after in (". ", ".\n", "! ", "!\n") or e == len(text) - 1):
        return None  # the clause goes on: not a value of its own
    first = value.split()[0].rstrip(".").lower()
    if first in _stopwords() or first in _describing():
        return None
    if " " in value:  # "Mr Whiskers", "Pelican Brief": a name's capitals
        return (s, e) if all(w[:1].isupper() for w in value.split()) else None
    digits = sum(c.isdigit() for c in value)
    if digits >= 3 and (value.isdigit() or _DATE.fullmatch(value) or plausible(value)):
        return s, e
    named = (
        value.isalpha() and value[1:].islower() and len(value) >= 3 + value.islower()
    ) and value.isascii()
    mixed = value.isalnum() and len(value) >= 4 and not value.isalpha() and not value.isdigit()  # "MJTA42"
    return (s, e) if named or mixed or (plausible(value) and len(value) >= 4) else None


# A verb that gives a password its value, a few words before the credential word: "I changed the (wifi)
# password to X", "set the BIOS supervisor password to X" (English: the "to" is)
_SET_BEFORE = re.compile(
    r"(?i)\b(?:set|reset|changed?|changing|updated?|updating|switched|rotated|made)(?:\s+[\w'’-]+){0,5}\s+\Z"
)

# The verb of a purpose after "to" ("we reset the password to continue"), not a password's value
_PURPOSE = frozenset({"continue", "proceed", "unlock", "login", "logon", "signin", "access", "recover", "reconnect",
                      "reenter", "confirm", "verify", "finish", "complete", "comply", "match", "prevent", "protect",
                      "avoid", "regain", "restore", "secure", "resolve", "test", "retry", "expire", "enter",
                      "authenticate", "reactivate", "activate", "enable", "disable", "rotate", "update", "change",
                      "reset", "save", "sync", "synchronize", "synchronise", "decrypt", "encrypt"})  # fmt: skip
_QUOTES = "'\"‘“«「『"


def given_before(text: str, word_start: int) -> bool:
    """A verb that gives the credential word at ``word_start`` its value stands before it in its clause
    (``_SET_BEFORE``): "I changed the (garage keypad app) password to ..."."""
    return (
        word_start >= 0 and _SET_BEFORE.search(text, _clause_start(text, word_start), word_start) is not None
    )


def given_value(text: str, found: tuple[int, int] | None) -> tuple[int, int] | None:
    """The value read after "<verb> the password to" as after "was changed to", unless two words ("reset her password
    to regain access") or a purpose's verb ("... to continue"); quoted, one word or three and more."""
    if found is None:
        return None
    words = text[found[0] : found[1]].lower().split()
    in_quotes = text[found[0] - 1 : found[0]] in _QUOTES
    return found if in_quotes or len(words) >= 3 or (len(words) == 1 and words[0] not in _PURPOSE) else None
