"""A password written before its credential word, in any language.

    "<value>" as the password · X is the password      'I went with "purple elephant" as the passphrase'
    <value> — <small words> <word>                     "Kotik2021 — это пароль", "cajueiro123 — essa é a senha"
    <plain word> <link> ... <word>                     "blueberry is the password for the guest network"
    <4-8 digits> <small words, a link> <code word>     "8306 ist der Code für den Schlüsselkasten" (digits_before)

``credentials.find_prose_credentials`` asks here when nothing follows the word. Split from credentials.py
(session 46) to keep each module under 700 lines. Pure functions, linear regexes; offsets are in the text given.
"""

from __future__ import annotations

import functools
import re

from .credential_values import _BRAND, _DESCRIBING, _VERSION, _a_name, _lettered, plausible, strong, stronger
from .lexicon import (
    _TOKEN,
    _clause_start,
    _describing,
    _lexicon_index,
    _said_of_passwords,
    _stopwords,
    _trim,
    every_stopword,
)

# A value before "as the password" or "is the password": 'I went with "purple elephant dances slowly" as the
# passphrase', "J'ai mis Château-Lune84 comme mot de passe", "Marzipan77 is the password for the guest account".
_BEFORE_AS = re.compile(
    r"""(?:["“‘']([^"”’'\n]{3,64})["”’']|(?<!\S)(\S{6,64}))\s+(?:as|comme|como|als|come|is|was|er|är|on|ist|est|è|é|es)\s+"""
    r"(?:(?:the|my|our|a|his|her|their|its|new|le|la|mon|ma|son|el|mi|su|o|meu|minha|das|mein|meine|il|"
    r"mio|mia|het|mijn|nuova|nuovo|nouveau|nouvelle|nueva|nuevo|neue|neues|nieuwe|nya|nye|nova|novo)\s+){0,2}\Z",
    re.IGNORECASE,
)


def value_before(text: str, word_start: int, word_end: int, links: frozenset[str]) -> tuple[int, int] | None:
    """A value before its credential word; ``links``: its languages' (``lexicon.own_links``)."""
    chosen = _chosen_as(text, word_start, word_end)
    if chosen is not None:
        return chosen
    m = _BEFORE_AS.search(text, max(0, word_start - 100), word_start)
    if m is None:
        return _value_opening(text, word_start, word_end, links)
    if m.group(1) is not None:
        value = m.group(1)
        return m.span(1) if " " in value.strip() or plausible(value) else None
    s, e = _trim(text, *m.span(2))
    if strong(text[s:e]):
        return None if _BRAND.fullmatch(text[s:e]) else (s, e)  # "1Password as the password manager"
    return _value_opening(
        text, word_start, word_end, links
    )  # "pumpkin is the password for the guest network"


# A value chosen "as the password" (English): "Use frostbite as the password for the test VM", "I picked
# cinnamon swirl lighthouse as the password", "the band's account uses stairway.to.nowhere as password"
_CHOSEN_AS = re.compile(
    r"(?i)\b(?<!not )(?:use|uses|used|using|picked|pick|picks|chose|choose|chooses|chosen|set|went with|go with|"
    r"going with|agreed on|agreed upon|settled on|typed|entered|put|put in|have|has|had|registered|selected)\s+"
    r"([^\s\n][^\n]{1,62}?)\s+as\s+(?:(?:the|my|our|a|an|his|her|their|its|new|shared|default|admin|master|"
    r"wifi|wi-fi|account|login|guest|root)\s+){0,3}\Z"
)
# What a password is made of, not a password: "use pet names as the password", "dictionary words as passwords"
_KINDS = frozenset({"word", "words", "phrase", "phrases", "name", "names", "number", "numbers", "date", "dates",
                    "birthday", "birthdays", "letters", "characters", "digits", "sentence", "sentences", "initials",
                    "code", "codes", "string", "strings", "value", "values", "one", "ones", "thing", "things",
                    "something", "anything", "whatever", "same", "default", "pin", "email", "address", "username",
                    "login", "id", "sso", "token", "key", "hash", "manager", "vault", "hint"})  # fmt: skip
_NEGATED = re.compile(
    r"(?i)\b(?:not|never|don'?t|do not|doesn'?t|didn'?t|avoid|stop|no one|nobody|shouldn'?t|can'?t|cannot|won'?t)\b"
)


def _chosen_as(text: str, word_start: int, word_end: int) -> tuple[int, int] | None:
    """A value between a verb of choosing and "as the password" (``_CHOSEN_AS``), the credential word singular
    and ending its clause or followed by what it is for ("as the password manager" is a tool's name): one word
    that could be a password, or two to six words none of them a determiner first or a kind of value ("your
    employee number", "pet names"); never after a negation ("never use dictionary words as the password")."""
    word = text[word_start:word_end].lower()
    if word.endswith("s") and not word.endswith("ss"):
        return None  # "use pet names as passwords": advice
    clause = _clause_start(text, word_start)
    m = _CHOSEN_AS.search(text, max(clause, word_start - 100), word_start)
    if m is None or _NEGATED.search(text, clause, m.start()):
        return None
    after = _WORD_AFTER.match(text, word_end)
    if after is not None and (after.group(1) is None or after.group(1).lower() not in _lexicon_index()[3]):
        return None  # "as the password manager", "as the password's hint"
    s, e = m.span(1)
    if text[s] in "'\"‘“" and text[e - 1] in "'\"’”":
        return s + 1, e - 1  # quoted: "agreed on 'Congrats Lena & Tom' as the password"
    value = text[s:e]
    words = value.split()
    low = [w.lower() for w in words]
    if len(words) == 1:
        named = _a_name(value) or (value[:1].isupper() and value[1:].islower() and _a_name(value.lower()))
        return (s, e) if named or plausible(value) or _JOINED_WORDS.fullmatch(value) else None
    small = _stopwords()
    if not 2 <= len(words) <= 6 or low[0] in small or any(w in _KINDS for w in low):
        return None
    if 2 * sum(w in small for w in low) > len(words) or not all(w.isalnum() or w == "&" for w in words):
        return None
    return s, e


_MAX_SMALL_WORDS = 5  # small words between a value that opens its clause and the credential word
# A dash between them; a comma is none: "MOVISTAR_5A2C, la clave está en el router" names a network.
_PAUSE = frozenset({"—", "–", "-"})
_CODE_DIGITS = re.compile(r"\d{4,8}")


def digits_before(text: str, word_start: int, word_end: int, links: frozenset[str]) -> tuple[int, int] | None:
    """Four to eight digits that open their clause before a code's or a PIN's word, only small words between
    and among them a link or a dash: "8306 ist der Code für den Schlüsselkasten", "3524 — ПИН-кодът на новата ти
    карта". The caller judges the code word's own words ("02108 is the zip code")."""
    return _value_opening(text, word_start, word_end, links, digits=True)


def _value_opening(
    text: str, word_start: int, word_end: int, links: frozenset[str], digits: bool = False
) -> tuple[int, int] | None:
    """A value that opens its clause, then only small words (any language's stopwords and links, a dash) before
    the credential word: "Kotik2021 — это пароль от дачи", "cajueiro123 — essa é a senha do wi-fi",
    "Übrigens, Sonnenblume2022 — so lautet das WLAN-Passwort". Only a value that looks like a secret on its own
    (letters with a digit, or ``stronger``): "Reset your password" and "Office_5G, the password is at the desk"
    are talk; or a plain word (``_plain_opening``: "pumpkin is the password for the guest network")."""
    clause = _clause_start(text, word_start)
    tokens = list(_TOKEN.finditer(text, max(clause, word_start - 100), word_start))
    small = _small_words()
    k = len(tokens) - 1
    while k >= 0 and len(tokens) - 1 - k < _MAX_SMALL_WORDS:
        word = tokens[k].group().lower()
        if word not in small and word not in _PAUSE:
            break
        k -= 1
    if k < 0 or k == len(tokens) - 1:
        return None  # nothing before the small words, or no small word at all
    opening = (k == 0 and tokens[0].start() - clause < 3) or (
        k > 0 and (tokens[k - 1].group()[-1:] in ",:" or tokens[k - 1].group() in _PAUSE)
    )
    s, e = _trim(text, *tokens[k].span())
    value = text[s:e]
    if not opening or tokens[k].group()[-1] in ",،，、;" or not value[:1].isalnum():
        return None  # an item of a list, or a question ("¿Olvidaste tu contraseña?")
    between = [t.group().lower() for t in tokens[k + 1 :]]
    if digits:
        linked = any(w in links or w in _PAUSE for w in between)
        return (s, e) if _CODE_DIGITS.fullmatch(value) and linked else None
    if _lettered(value) or stronger(value):
        return None if _BRAND.fullmatch(value) or _VERSION.fullmatch(value) else (s, e)
    if tokens[k].group()[-1] in ":：":
        return None  # a heading: "vraag: wat is het ww van de gedeelde Gmail?"
    return (s, e) if _plain_opening(text, value, between, word_end, links) else None


def _plain_opening(text: str, value: str, between: list[str], word_end: int, links: frozenset[str]) -> bool:
    """A plain word that opens its clause before a link and its credential word ("pumpkin is the password for
    the guest network", "kanelbulle är lösenordet till gäst-wifin", "ромашка — это пароль от вайфая"): five
    letters or more, lower case (a capital first only as the clause's first letter), no word of talk in any
    language; a link of the word's own languages or English's among the small words (``links``: "Sarah has the
    password" names who holds it; Basque's "da" is no link in "Confirmação da palavra-passe"), and
    the credential word ends its clause or a qualifier follows it ("Rotation is the password policy" is talk)."""
    low = value.lower()
    joined = _JOINED_WORDS.fullmatch(value) is not None
    if not (len(value) >= 5 and (value.isalpha() or joined) and value[1:].islower()):
        return False
    parts = re.split(r"[-_]", low) if joined else [low]
    if any(p in _stopwords() or p in _describing() or p in _said_of_passwords() for p in (low, parts[-1])):
        return False
    if value.isascii() and _DESCRIBING.match(parts[-1]):
        return False
    if not any(w in links for w in between if w.isalpha()):
        return False
    qualifiers = _lexicon_index()[3]
    after = _WORD_AFTER.match(text, word_end)
    if after is None:
        return True  # the clause's end, a mark or a line's end
    return (
        after.group(1) is not None and after.group(1).lower() in qualifiers
    )  # not "the password's strength"


# Plain words joined by hyphens or underscores, the way a passphrase is typed without spaces: three words or more
# ("fritule-i-kava", "kanelbulle_med_kaffe"), or two of four letters or more ("blue-falcon"); not "follow-up",
# "e-mail", "wi-fi"
_JOINED_WORDS = re.compile(r"[^\W\d_]{2,}(?:[-_][^\W\d_]+){2,5}|[^\W\d_]{4,}[-_][^\W\d_]{4,}")

# What follows a credential word: a word after a space or two, or a possessive's "'s"
_WORD_AFTER = re.compile(r"[ \t]{1,2}([^\W\d_]+)|['’]s\b")


@functools.cache
def _small_words() -> frozenset[str]:
    """Every language's stopwords (stopwords-iso) and the lexicon's links: what may stand between a value and its
    word ("это", "essa é a", "so lautet das")."""
    return every_stopword() | _lexicon_index()[2]
