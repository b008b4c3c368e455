"""Numeric codes written in prose: PINs, door, alarm and safe codes, combinations, backup codes.

After a code's word (``[numeric]``: "pin", "alarm code", "keypad"), a lone code word that its neighbours
call no other kind of code (``[code]``: "Koden til alarmen er 6392"; not "the zip code is 02108"), or a
lock's own noun and a link (``[lock]``: "Bike lock: 0385"), a value of a code's shape::

    <word> <digits>                       garage code 8123 · keypad 2580
    <word> ... <link> <digits>            il PIN della carta è 4471 · PIN for the reception iPad: 8080
    <combination word> <groups>           padlock combo is 08-15-29 · combination 24 07 31
    <backup-code word> ... <groups>       recovery codes: 7QX4-M2PL-9KD3
    <lock> <link> <digits>                the cabin's key safe is 9950
    <code> ... <link> <digits>            Till code for Saturday staff is 2719   (not "zip code 02108")
    <digits keyed one by one>             type 6 0 2 8 and press OFF · door is 3-8-0-4

Pure functions, linear regexes; offsets are in the text given.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from collections.abc import Callable, Iterator

from .lexicon import (
    _CLAUSE_MAX,
    _LETTER_RUN,
    _MAX_GAP_TOKENS,
    SHAPES,
    _clause_end,
    _clause_start,
    _lexicon,
    _link_at,
    _lower,
    _tokens,
    _trim,
    every_spoken_number_word,
    glued_digits,
    not_passwords,
    number_word_languages,
    number_words,
    spoken_number_patterns,
    spoken_number_words,
    thing_number,
)
from .spans import lowered

_LEAD = r"[\s,:=-]*(?:(?:is|was|is now|it's|its|ist|lautet|est|es|é|è|er|är|je|to|это|הוא|היא|είναι|on|คือ)[\s:]+|(?:は|是|为|為|：|는|은|가)\s*)?"

# Four to twelve digits, a door code's letter after them ("4729B") but not a word ("1234Main")
# ... or digit by digit, or in pairs: "7 3 9 1", "80 19 44"
# ... or a door code with one or two capitals anywhere, three digits or more, four to eight characters in all: a
# French digicode ("A4512", "2B47A"), a Russian intercom's ("58В1734")
_LETTERED_CODE = r"(?=[0-9A-ZА-Я]{4,8}(?!\w))(?=[0-9]*[A-ZА-Я])(?=(?:[A-ZА-Я]*[0-9]){3})(?!(?:[0-9]*[A-ZА-Я]){3})[0-9A-ZА-Я]{4,8}"
_CODE_VALUE = (
    r"[#*]?\d{4,12}(?:[A-Z](?![A-Za-z]))?|\d(?: \d){3,7}(?! ?\d)|\d\d(?: \d\d){2,3}(?! ?\d)|" + _LETTERED_CODE
)

# A lock's combination is often numbers apart: "combo: 14-32-07", "combination 24 07 31" (its word only).
_COMBINATION_VALUE = r"\d{1,2}(?: ?[-–] ?\d{1,2}){2,3}|\d\d(?: \d\d){2,3}"  # "24 - 61 - 08" too

# Backup and recovery codes come in groups: "7QX4-M2PL-9KD3", "52918 30467" (their words only).
_GROUPED_VALUE = (
    r"(?=[A-Za-z0-9-]*\d)[A-Za-z0-9]{4,6}(?:-[A-Za-z0-9]{4,6}){1,7}|\d{4,6}(?: \d{4,6}){1,7}"
    r"|(?=[A-Za-z]*\d)[A-Za-z0-9]{4,6}(?: (?=[A-Za-z]*\d)[A-Za-z0-9]{4,6}){2,7}"  # "kd83 ms02 pq71 zz49"
)

# A one-time code is six digits, often in two threes: "verification code 418 207".
_OTP_VALUE = r"\d{3}[ -]\d{3}"

_SHAPES = {
    "digits": re.compile(f"(?:{_CODE_VALUE})" + r"(?![\w.,/-]\d)"),
    # a one-time code's groups whole: "020 794" of "020 7946 0018" is a telephone number's part
    "otp": re.compile(f"(?:{_OTP_VALUE}|{_CODE_VALUE})" + r"(?![\w.,/-]\d)(?!\d)"),
    "combination": re.compile(f"(?:{_COMBINATION_VALUE}|{_CODE_VALUE})" + r"(?![\w.,/-]\d)"),
    "grouped": re.compile(f"(?:{_GROUPED_VALUE}|{_CODE_VALUE})" + r"(?![\w-])"),
}

# A safe's or a PIN's numbers apart, after a code's word and a link; not a date in any order.
_GROUPS = re.compile(r"\d{1,2}(?:[-–]\d{1,2}){2,3}(?![\w.,/-]\d)")


def _a_date(value: str) -> bool:
    """Whether three numbers could be a date: day-month-year, month-day-year or year-month-day; a year of one
    digit is none ("6-2-8" is a padlock's dials)."""
    parts = re.split(r"\s*[-–]\s*|\s+", value.strip())[:3]
    if len(parts[2]) == 1:
        return False
    a, b, c = (int(n) for n in parts)
    return (a <= 31 and 1 <= b <= 12) or (1 <= a <= 12 and b <= 31) or (1 <= b <= 12 and c <= 31)


_LEADING = {shape: re.compile(f"(?i:{_LEAD})({pattern.pattern})") for shape, pattern in _SHAPES.items()}


@functools.cache
def _shapes() -> dict[str, str]:
    """Each word of ``[numeric]``'s shape lists -> its code's shape (``lexicon.SHAPES``)."""
    numeric = _lexicon()["numeric"]
    return {word: shape for shape, key in SHAPES.items() for word in numeric[key]}


def _shape(phrase: str) -> str:
    """The shape of the code after ``phrase``: four to twelve digits ("digits") unless a shape list names it."""
    return _shapes().get(phrase, "digits")


@functools.cache
def _locks() -> re.Pattern[str]:
    nouns = sorted(_lexicon()["code"]["locks"], key=lambda w: (-len(w), w))
    return re.compile(r"(?<![^\W_])(?:" + "|".join(re.escape(n) for n in nouns) + r")(?![^\W_])")


def _numeric_code(
    text: str, word_end: int, links: frozenset[str], shape: str = "digits", lock_links: bool = False
) -> tuple[int, int] | None:
    """Four to twelve digits right after a numeric code's word, or after it and a link ("PIN is 8842",
    "alarm panel code 5813", "tablet code, it's 40417733"), or after a link later in its clause ("il PIN
    della carta è 4471", "PIN for the reception iPad: 8080"); not a date, a decimal nor a phone number's
    part (a year is read: "kod do furtki: 1956", a birth year is a common PIN). ``shape``: "combination" takes "14-32-07" too, "grouped" a backup
    code's groups ("7QX4-M2PL-9KD3"). ``lock_links``: a lock's noun links a lone code word to its value
    ("Код від домофону 0731")."""
    found = _numeric_value(text, word_end, links, shape, lock_links)
    return None if found is None or _a_phone_part(text, *found) else found


# Digits in groups, nine or more in all: a telephone's number ("0800 123 4567", "020 7946 0018")
_DIGIT_RUN = re.compile(r"\+?\d[\d \-–]{7,18}\d")


def _a_phone_part(text: str, start: int, end: int) -> bool:
    """Whether a code read at ``start``-``end`` is a part of a longer run of grouped digits that reads as a
    telephone's number (``phone_shaped``) after a code's word ("Alarm code problems out of hours, the monitoring
    line: 0800 123 4567"), not a code."""
    run = _DIGIT_RUN.match(text, start)
    return run is not None and run.end() > end and phone_shaped(run.group())


_LAST_GROUP_OF_FOUR = re.compile(r"\D\d{4}\Z")


def phone_shaped(value: str) -> bool:
    """Grouped digits, nine or more, that read as a telephone's number: a trunk's 0 or a country's + first, or
    ten digits or more ending in a group of four ("312-555-0147"); a meeting's passcode reads in threes ("884 216
    793"), a card's PIN in pairs."""
    digits = sum(c.isdigit() for c in value)
    return digits >= 9 and (
        value[:1] in ("+", "0") or (digits >= 10 and _LAST_GROUP_OF_FOUR.search(value) is not None)
    )


_COPULAS = frozenset(
    {"is", "was", "are", "were"}
)  # English's own, not another language's ("on" is Finnish's "is")


def _numeric_value(
    text: str, word_end: int, links: frozenset[str], shape: str, lock_links: bool
) -> tuple[int, int] | None:
    window = text[word_end : word_end + 60]  # not the whole text, at every numeric word
    m = _LEADING[shape].match(window)
    if m:
        return word_end + m.start(1), word_end + m.end(1)
    end = _clause_end(text, word_end)
    tokens = _tokens(text, word_end, end + 1 if end < len(text) else end, _MAX_GAP_TOKENS + 4)
    said = False  # "is" came first, its value no code: "PIN reset for the branch is scheduled: 2025"
    for i in range(len(tokens) - 1):
        linked = _link_at(text, tokens, i, links)
        width = linked or int(text[tokens[i][1] - 1] == ":" and not said)
        lock = not width and lock_links and _locks().fullmatch(_lower(text[slice(*_trim(text, *tokens[i]))]))
        if lock and i + 1 < len(tokens):  # the value right after the lock, else read on: "porten er 5531"
            value = _SHAPES[shape].match(text, _trim(text, *tokens[i + 1])[0], end)
            if value is not None:
                return value.span()
        if width and i + width < len(tokens):
            s = _trim(text, *tokens[i + width])[0]
            # a combination's groups right after its word only: "a combination of 2-3-4 factors" is talk
            value = _SHAPES["digits" if shape == "combination" else shape].match(text, s, end)
            if value is not None:
                return s, value.end()
            groups = _GROUPS.match(text, s, end) if shape == "digits" else None
            if groups is not None and not _a_date(groups.group()):  # "safe code (server room): 59-71-08"
                return groups.span()
            said = said or (linked == 1 and _lower(text[slice(*tokens[i])]) in _COPULAS)
    return None


@functools.cache
def _not_secret() -> tuple[frozenset[str], frozenset[str]]:
    code = _lexicon()["code"]
    return frozenset(code["not_secret"]), frozenset(code["units"])


_WORDS = re.compile(r"[^\s\d.,;:!?()\[\]{}\"'«»“”‘’/\\|<>=#*–—-]+")  # words, marks and all ("पिन")
_NEXT = re.compile(r"\s*(%|[^\W\d_]+)")


def _a_secret_code(text: str, word_start: int, word_end: int, value_end: int) -> bool:
    """A lone code word's number is a secret code unless the words beside the code word say what other kind
    of code it is, or a unit follows the number: "Till code for Saturday staff is 2719", "printer code is
    4481", "Koden til alarmen er 6392" are codes; "the zip code is 02108", "error code: 5012", "Code postal :
    69003", "kargo takip kodu 7250183349" and "the code is 1500 lines" are not (``[code]``'s ``not_secret``,
    three words before the code word or two after it, and ``units``). A number before the word is none."""
    if value_end <= word_start:
        return False
    if code_named_otherwise(text, word_start, word_end, value_end):
        return False
    return not _a_quantity(text, value_end)


def code_named_otherwise(text: str, word_start: int, word_end: int, value_end: int) -> bool:
    """Whether a word of ``[code]``'s ``not_secret`` stands among the three before the code word or the two after
    it (up to ``value_end``, or the next 80 characters when the value stands before the word): "the zip code",
    "error code", "Code postal"."""
    words = _not_secret()[0]
    before = _WORDS.findall(_lower(text[_clause_start(text, word_start) : word_start]))[-3:]
    if before and (before[-1] in _lexicon()["code"]["kinds"] or _locks().fullmatch(before[-1])):
        before = []  # the kind named right before the code word decides: "Phone voicemail code 4590"
    stop = value_end if value_end > word_end else word_end + 80
    after = _WORDS.findall(_lower(text[word_end : min(stop, word_end + 80)]))[:2]
    return any(w in words for w in (*before, *after))


# After a lock's own noun a code needs a link: "Bike lock: 0385", "the cabin's key safe is 9950".
_SET_TO = r"(?:(?:i|we)\s+)?(?:set|changed|reset)\s+(?:it\s+)?to\s+"  # "set to", "I set it to"
_LOCK_LINK_TO = (
    r"(?i:(?:['’]s\s+|\s*[:=]\s*|\s+(?:is|was|is now|ist|est|es|é|è|er|är|je|это|—|-)\s+)"
    + rf"(?:{_SET_TO})?|\s+{_SET_TO})"  # "Hotel room safe set to 4826", "room safe: I set it to 3141"
)
# A lock's code, or a safe's combination in numbers apart: "Kassaskåpet på lagret: 11-04-62"
_LOCK_LINK = re.compile(_LOCK_LINK_TO + f"({_CODE_VALUE}|{_COMBINATION_VALUE})" + r"(?![\w.,/-]\d)")
# A padlock's or a suitcase's dials (``[lock]``'s ``short``): three digits too, no unit after them.
_SHORT_LOCK_LINK = re.compile(_LOCK_LINK_TO + r"(\d{3})(?![\w/°-]|[.,]\d)")


def lock_code(text: str, end: int, phrase: str) -> tuple[int, int] | None:
    """The code after a lock's noun and a link, which ends at ``end`` (``_LOCK_LINK``); three digits only
    after a padlock's or a suitcase's."""
    link = _LOCK_LINK.match(text, end) or _DOOR_LINK.match(text, end)
    if link is not None and (_A_YEAR.fullmatch(link.group(1)) or _a_quantity(text, link.end(1))):
        link = None  # "the safe in the office is 2024 model", "the lockbox by the shed is 300 m away"
    if link is None and phrase in _lexicon()["lock"]["short"]:
        link = _SHORT_LOCK_LINK.match(text, end)
        if link and _a_quantity(text, link.end()):
            link = None  # "the bike lock is 300 m away"
    return link.span(1) if link else None


def door_code(text: str, end: int) -> tuple[int, int] | None:
    """The code after a door's or a gate's noun and a link ("the side gate is 4471", "front door's 2290",
    ``[lock]``'s ``doors``): four digits or more, not a year ("Door: 2024 model"), not a quantity ("the entrance
    is 1200 m from the station")."""
    link = _LOCK_LINK.match(text, end) or _DOOR_LINK.match(text, end)
    if link is None or _A_YEAR.fullmatch(link.group(1)) or _a_quantity(text, link.end(1)):
        return None
    return link.span(1)


# Where a door leads, after its noun, then the lock's link: a preposition and one to four words of letters,
# fewest first, each word whole ("Door to the roof terrace is 2468", "the gate at the back is 4471"; not "to room
# 2210", nor "to the gate's 4471" read as "gate" and "'s"); other languages' prepositions of place and purpose
# alike ("Kassaskåpet på lagret: 11-04-62", "Tresor im Büro: 19-04-33", "le coffre du bureau est 4471"): ``[lock]``'s
# ``places``.
_DOOR_LINK = re.compile(
    r"(?i:[ \t]+(?:"
    + "|".join(map(re.escape, sorted(_lexicon()["lock"]["places"], key=len, reverse=True)))
    + r")(?:[ \t]+[^\W\d_][\w'’-]*+){1,4}?)"
    + _LOCK_LINK.pattern
)


# An alarm's number after a link is its code unless it reads as a time: "apartment alarm is 7214", not
# "alarm: 0630" (``_HHMM``).
ALARM_WORDS = frozenset(
    {"alarm", "apartment alarm", "house alarm", "burglar alarm", "alarme", "alarma", "allarme"}
)
_HHMM = re.compile(r"(?:[01]\d|2[0-3])[0-5]\d")


# Four to eight single digits apart, by spaces or by hyphens alike: "type 6 0 2 8 and press OFF", "door is
# 3-8-0-4 then hash", "Nils: 6 4 2 9". Said or typed one by one, digits are a code; no ordinary text of
# bench/guard's (48,000 texts: conversation, notes, mail, code, interface text, requests) holds such a run.
# Not a matrix's row ("[1 0 0 1]"), nor a count ("1 2 3 4 5"), nor zeros.
_KEYED = re.compile(r"(?<![\w.,:/\[-])(?<!\d )(?<!\d-)\d([ -])\d(?:\1\d){2,6}(?![ -]?\d)(?![\w\]])")


def _named_otherwise(text: str, start: int) -> bool:
    """Whether the words before ``start`` name another kind of number: one of the two last is in ``[code]``'s
    ``not_secret`` ("job reference four four one nine", "order 4 4 1 9"), or one of the three last names a
    thing's number ("the ticket number is four four nine one"), and no code's word stands among the seven
    last ("the PIN for the work phone is zero three one zero")."""
    words, _ = _not_secret()
    before = _WORDS.findall(_lower(text[max(0, start - 80) : start]))[-7:]
    if any(
        w in not_passwords("code_words") for w in before
    ):  # "the PIN for the work phone is zero three one zero"
        return False
    # "the ticket number is four four nine one": a thing's number
    return any(w in words for w in before[-2:]) or any(thing_number([w]) for w in before[-3:])


# A padlock's or a suitcase's three dials, keyed apart: "Luggage lock combo: 4 7 2", "cadenas de la valise ? —
# Oui, 9-7-4", "행李箱密码锁 0 7 1": three digits apart after a short lock's noun (``[lock]``'s ``short``) or a
# combination's word in the 50 characters before, on the same line.
_DIALS = re.compile(r"(?<![\w.,:/\[-])(?<!\d )\d( ?[-–] ?| )\d\1\d(?![ -]?\d)(?![\w\]])")


@functools.cache
def _dial_words() -> re.Pattern[str]:
    lexicon = _lexicon()
    words = sorted({*lexicon["lock"]["short"], *lexicon["numeric"]["combination"]}, key=len, reverse=True)
    return re.compile("(?i)" + "|".join(re.escape(w) for w in words))


_DIGITS_APART = re.compile(r"\d(?:(?: ?[-–] ?| )\d){2,}")


def _counting(digits: list[int]) -> bool:
    """Digits that run up, down or stay ("1 2 3 4", "5 4 3", "0 0 0 0"): a count, not a code."""
    return {b - a for a, b in itertools.pairwise(digits)} in ({1}, {-1}, {0})


def a_count(value: str) -> bool:
    """Single digits apart that run up, down or stay ("2-3-4", "5 5 5"): a count, not a lock's dials ("a
    combination of 2-3-4 factors"). The dials' rule and the learned tagger's candidates alike."""
    return _DIGITS_APART.fullmatch(value) is not None and _counting([int(c) for c in value if c.isdigit()])


def keyed_dials(text: str) -> list[tuple[int, int]]:
    """Spans of a short lock's three dials keyed apart (``_DIALS``)."""
    spans = []
    for m in _DIALS.finditer(text):
        line_start = text.rfind("\n", 0, max(0, m.start() - 50)) + 1
        if a_count(m.group()):
            continue  # "a combination of 2-3-4 factors": a count
        if _dial_words().search(text, max(line_start, m.start() - 50), m.start()):
            spans.append(m.span())
    return spans


# A combination lock's turns: three or four numbers, each with its direction ("left 24, right 7, left 31",
# "36 left, 12 right, 48 left", "R 12 then L 30 then R 5", "右に27、左に13、右に51"). The directions make it
# a dial's; a route ("turn left at 5th, right onto Main") puts words between a direction and its number.
_TURN = (
    r"(?:left|right|l|r|links|rechts|gauche|droite|izquierda|derecha|esquerda|direita|sinistra|destra|"
    r"v[äa]nster|h[öo]ger|venstre|h[øo]jre|h[øo]yre|w\s?lewo|w\s?prawo|влево|вправо|налево|направо|sola|"
    r"sa[ğg]a|vlevo|vpravo|balra|jobbra|αριστερά|δεξιά|שמאלה|ימינה|يسار|يمين|trái|phải|kiri|kanan|"
    r"左に?|右に?|왼쪽으로|오른쪽으로|왼쪽|오른쪽)"
)
_TURN_PAIR = rf"(?:{_TURN}[ \t]*:?[ \t]*\d{{1,2}}|\d{{1,2}}[ \t]*(?:to\s+the\s+)?{_TURN})"
_TURN_GAP = r"(?:[ \t]*[,;、，/–—-][ \t]*(?:then[ \t]+|dann[ \t]+|puis[ \t]+)?|[ \t]+(?:then|dann|puis|luego|depois|poi|потом|sonra)[ \t]+|[ \t]+)"
_DIAL_TURNS = re.compile(rf"(?<![\w]){_TURN_PAIR}(?:{_TURN_GAP}{_TURN_PAIR}){{2,3}}(?![\w])", re.IGNORECASE)


_SMALL_NUMBER = re.compile(r"(?<!\d)\d{1,2}(?!\d)")

# A combination's numbers with no code word: three or four of one or two digits apart by dashes, or of two digits
# apart by spaces ("Safe in the back office: 26-14-38", "dolap kilidi 15-30-45", "safe — 55 10 35")
_LOCK_NUMBERS = re.compile(
    r"(?<![\w.,/:-])(?<!\d )(?:\d{1,2}(?:[ \t]?[-–][ \t]?\d{1,2}){2,3}|\d\d(?:[ \t]\d\d){2})"
    r"(?![\w.,/:-]*\d)(?![\w-])(?![ \t]\d)"  # three pairs apart by spaces, not a telephone's four or five
)
_LOCK_NEAR = 80  # characters between a lock's noun and its numbers, in one clause
# A date's word or preposition right before the numbers: "serviced on 12-03-24", "am 03-11-09"
_ON_DATE = re.compile(
    r"(?<!\w)(?:on|dated?|since|from|until|am|le|du|el|del|il|dal|em|op|den|dne)\s+\Z", re.IGNORECASE
)


def lock_combinations(text: str) -> list[tuple[int, int]]:
    """Spans of a combination's numbers after a lock's noun (``[code]``'s ``locks``: "safe", "locker", "kilit")
    in their clause, no code word between: "Safe in the back office: 26-14-38", "Spor salonundaki dolap kilidi
    15-30-45", "Envelope in the drawer says: safe — 55 10 35". Not a date ("serviced on 12-03-24", or numbers
    that read as one), a count ("2-3-4") nor a number another word names."""
    spans = []
    for m in _LOCK_NUMBERS.finditer(text):
        value = m.group()
        if _a_date(value) or a_count(re.sub(r"\s", "", value)):
            continue
        at = m.start()
        lo = max(_clause_start(text, at), at - _LOCK_NEAR)
        if _locks().search(_lower(text[lo:at])) is None:
            continue
        if _ON_DATE.search(text, max(0, at - 8), at) or _named_otherwise(text, at):
            continue
        if any(
            w in not_passwords("calling") for w in _WORDS.findall(_lower(text[max(0, at - 40) : at]))[-4:]
        ):
            continue  # "ring Port-Service på 22 33 44": a number to call
        spans.append(m.span())
    return spans


def dial_turns(text: str) -> list[tuple[int, int]]:
    """Spans of a combination lock's turns (``_DIAL_TURNS``), looked for only where three numbers of one or
    two digits stand within 40 characters of each other (the regex at every position of 100 kB of notes cost
    16 ms)."""
    numbers = [m.start() for m in _SMALL_NUMBER.finditer(text)]
    spans: set[tuple[int, int]] = set()
    k = 0
    while k < len(numbers):
        j = k
        while j + 1 < len(numbers) and numbers[j + 1] - numbers[j] <= 40:
            j += 1
        if j - k >= 2:
            lo, hi = max(0, numbers[k] - 30), min(len(text), numbers[j] + 30)
            spans.update(m.span() for m in _DIAL_TURNS.finditer(text, lo, hi))
        k = j + 1
    return sorted(spans)


# Four to eight digits standing alone, a keypad's star or hash before or after them ("*0924#")
_KEY_DIGITS = re.compile(r"(?<![\w.,:/#*+-])[#*]?(\d{4,8})[#*]?(?![\w/-]|[.,]\d)")


@functools.cache
def _keying() -> frozenset[str]:
    """``[code]``'s ``keyed`` verbs, lower case."""
    return frozenset(v.lower() for v in _lexicon()["code"]["keyed"])


_FILLER = ("in", "code")  # "punch in", "then the code 29981"


def _keyed_before(text: str, at: int) -> bool:
    """Whether one of the keying verbs ends right before ``at`` (a space between), "in" or "the code" after it."""
    words = _lower(text[max(0, at - 24) : at]).split()[-4:]
    if words and words[-1] == "code" and len(words) > 1 and words[-2] == "the":
        words = words[:-2]
    verbs = _keying()
    return any(" ".join(words[-n:]) in verbs for n in (1, 2, 3) if len(words) >= n)


@functools.cache
def _keyed_after() -> re.Pattern[str]:
    """``[code]``'s ``keyed_after`` right after digits, a space or a comma between; or a keypad's "#" or "*"."""
    words = sorted(_lexicon()["code"]["keyed_after"], key=len, reverse=True)
    return re.compile(
        r"[ \t]*,?[ \t]+(?:" + "|".join(re.escape(w) for w in words) + r")(?!\w)", re.IGNORECASE
    )


# A year after a word of time ("fixed in 2019, then painted"): no code
_IN_YEAR = re.compile(
    r"(?<!\w)(?:in|since|from|until|by|of|around|before|after|early|late)\s+\Z", re.IGNORECASE
)
_A_YEAR = re.compile(r"(?:19|20)\d\d")


def _keyed(text: str, m: re.Match[str]) -> bool:
    """A keying verb right before the digits, or what follows keying right after them (``keyed_after``, a
    keypad's "#" or "*" glued to them); not a year after a word of time."""
    at = m.start()
    if at >= 2 and text[at - 1] in " \t" and text[at - 2].isalpha() and _keyed_before(text, at):
        return True  # a verb's last letter and a space before the digits, checked before the verbs
    if m.group().endswith(("#", "*")) or m.group().startswith("*"):
        return True  # a keypad's: "7734#", "*0924#" ("#1995" is a number: "unit #1995")
    if _A_YEAR.fullmatch(m.group(1)) and _IN_YEAR.search(text, max(0, at - 10), at):
        return False
    if _AT_TIME.search(text, max(0, at - 12), at):
        return False  # "opens at 0800 then closes at 1800"
    before = _WORDS.findall(_lower(text[max(0, at - 24) : at]))
    if before and before[-1] in _numbered():
        return False  # "Room 1204 then the lift": a place's number
    return _keyed_after().match(text, m.end()) is not None


@functools.cache
def _numbered() -> frozenset[str]:
    """``[code]``'s ``numbered``: a place's number stands after one of these."""
    return frozenset(_lexicon()["code"]["numbered"])


def keyed_codes(text: str) -> list[tuple[int, int]]:
    """Digits keyed in on a lock's keypad: a keying verb right before them (``[code]``'s ``keyed``: "punch in
    11964 at the door", "Para entrar al portal marca 4512", "press 12, then the key symbol, then 8086"), or what
    follows keying after them (``keyed_after``: "Side gate: 7734# then push hard", "door for April: 9031 then
    star"), and a lock's noun (``locks``) in their sentence. "dial 4409 from any internal line" names no lock."""
    keyed = [m for m in _KEY_DIGITS.finditer(text) if _keyed(text, m)]
    if not keyed:
        return []
    # the locks' nouns, found once over the stretch the candidates' sentences may cover (not once a sentence)
    first = max(0, keyed[0].start() - _CLAUSE_MAX)
    last = min(len(text), keyed[-1].end() + _CLAUSE_MAX)
    low = _lower(text[first:last])
    nouns = [(n.start() + first, n.group()) for n in _locks().finditer(low)]
    starts = [s for s, _ in nouns]
    spans = []
    for m in keyed:
        if not nouns:
            break
        lo, hi = _clause_start(text, m.start()), _clause_end(text, m.end())
        locks = {w for _, w in nouns[bisect.bisect_left(starts, lo) : bisect.bisect_left(starts, hi)]}
        if not locks or _named_otherwise(text, m.start()):
            continue
        if locks <= ALARM_WORDS and _HHMM.fullmatch(m.group(1)):
            continue  # "the alarm is set to 0630": a time
        spans.append(m.span(1))
    return spans


def keyed_digits(text: str) -> list[tuple[int, int]]:
    """Spans of codes written digit by digit (``_KEYED``)."""
    spans = []
    for m in _KEYED.finditer(text):
        if _named_otherwise(text, m.start()):
            continue
        if _counting([int(c) for c in m.group() if c.isdigit()]):  # "1 2 3 4 5", "5 4 3 2 1", "0 0 0 0"
            continue
        spans.append(m.span())
    return spans


_SPOKEN_TOKEN = re.compile(r"[^\s\d,،、。，：…–—.!?;:()\[\]{}\"“”«»/-]+")  # a word, its marks too ("सात")
_SPOKEN_GAP = re.compile(r"[\s,،、，…–—-]*")
_QUOTES = "'‘’`"
_SPOKEN_NEAR = 60  # characters before a run of three, or a glued run, where its word must end
_SPOKEN_KINDS = frozenset({"credential", "numeric", "code", "lock"})
_COUNTED = re.compile(r"[年月日号號番回次个個人元円岁歳位名件台条條]")  # "二〇二四年": a year, not a code


def spoken_digits(text: str, phrases: list[tuple[int, int, str, str]]) -> list[tuple[int, int]]:
    """Spans of codes said digit by digit in words (``data/number_words.toml``): four or more apart by spaces,
    commas or dashes only ("deux, huit, zéro, cinq", "four seven seven two", "सात, तीन, एक, नौ"); three of one
    language after a credential's, a code's or a lock's word ("Lucchetto armadietto palestra tre-sei-nove"); four
    or more glued, one character each, after such a word ("金庫の番号、五七二八", "비번 칠사공일"). Not a count
    ("one, two, three, four"), nor one digit repeated, nor a number another word names. ``phrases``: the text's
    lexicon phrases (``lexicon._phrases``), as the caller found them."""
    words = number_words()
    spans: list[tuple[int, int]] = []
    run: list[tuple[int, int, int, str]] = []  # (start, end, digit, word)
    ends = sorted(e for _, e, _, kind in phrases if kind in _SPOKEN_KINDS)  # where a code's word ends
    after_word = functools.partial(_after_code_word, text, ends)

    def close() -> None:
        # four words, or three of one language after a code's word
        enough = len(run) >= 4 or (
            len(run) == 3 and _one_language([w for *_, w in run]) and after_word(run[0][0])
        )
        if enough and not _counting([d for _, _, d, _ in run]) and not _named_otherwise(text, run[0][0]):
            spans.append((run[0][0], run[-1][1]))
        run.clear()

    for m in _SPOKEN_TOKEN.finditer(text):
        word = m.group().lower()
        digit = words.get(word)
        if digit is None and not run and word[0] not in _QUOTES:
            continue  # most of a text's words: no digit, no run to join or to close
        start, end = m.span()
        if word[0] in _QUOTES or word[-1] in _QUOTES:  # "'five five oh two'": the quotes are no part of it
            start += len(word) - len(word.lstrip(_QUOTES))
            word = word.strip(_QUOTES)
            end = start + len(word)
            digit = words.get(word)
        if not run:
            if digit is not None:
                run.append((start, end, digit, word))
            continue
        joined = _SPOKEN_GAP.fullmatch(text, run[-1][1], start) is not None
        if digit is None or not joined:
            close()
        if digit is not None:
            run.append((start, end, digit, word))
    close()
    if not text.isascii():  # glued digits are ideographs or Hangul
        spans.extend(_glued(text, after_word))
    return sorted(spans)


def spoken_numbers(text: str, phrases: list[tuple[int, int, str, str]]) -> list[tuple[int, int]]:
    """Spans of a combination's or a code's numbers said in words, two to four of them, one of two digits
    (``lexicon.spoken_number_patterns``: "twelve twenty-eight", "twenty-seven, fifteen, eight", "treinta y dos,
    catorce, nueve"), within ``_SPOKEN_NEAR`` characters after a credential's, a code's or a lock's word in its
    clause; not a number another word names ("ticket number twenty-two forty"). Read only in the window after
    such a word: most notes have none."""
    ends = sorted(e for _, e, _, kind in phrases if kind in _SPOKEN_KINDS)
    if not ends:
        return []
    # where a word of a number of two digits stands, in any language: a code word with none after it is passed
    own = spoken_number_words()
    every = every_spoken_number_word()
    numbers = [(m.start(), m.group()) for m in _LETTER_RUN.finditer(lowered(text)) if m.group() in every]
    if not numbers:
        return []
    starts = [at for at, _ in numbers]
    found = {word for _, word in numbers}
    patterns = [spoken_number_patterns()[lang] for lang, words in own.items() if not words.isdisjoint(found)]
    spans: set[tuple[int, int]] = set()
    runs: dict[str, list[tuple[int, int]]] = {}  # a window's runs, relative: a repeated line is searched once
    for end in ends:
        i = bisect.bisect_left(starts, end)
        if i == len(starts) or starts[i] > end + _SPOKEN_NEAR + _SPOKEN_RUN:
            continue
        window = text[end : end + _SPOKEN_NEAR + _SPOKEN_RUN]
        if window not in runs:
            runs[window] = [m.span() for p in patterns if (m := p.search(window)) is not None]
        for a, b in runs[window]:
            start = end + a
            if (
                a <= _SPOKEN_NEAR
                and _clause_start(text, start) <= end
                and not _named_otherwise(text, start)
                and not _AT_TIME.search(text, max(0, start - 12), start)
                and not _A_TIME_AFTER.match(text, end + b)
                and not _a_quantity(text, end + b)
            ):
                spans.add((start, end + b))
    return sorted(spans)


_SPOKEN_RUN = 120  # characters a run of numbers in words may take


def _a_quantity(text: str, end: int) -> bool:
    """A unit of ``[code]``'s ``units`` right after a number: "the code is 1500 lines", "the bike lock is 300 m
    away", "broken for twenty-two, twenty-three days"."""
    unit = _NEXT.match(text, end)
    return unit is not None and _lower(unit.group(1)) in _not_secret()[1]


# A time said in words: "at twelve thirty", "um halb", "a las doce", "twelve thirty pm"
_AT_TIME = re.compile(
    r"(?<!\w)(?:at|by|until|till|from|around|about|before|after|past|um|ab|bis|a las|à|alle|às|om|v|ve)\s+\Z",
    re.IGNORECASE,
)
_A_TIME_AFTER = re.compile(
    r"\s*(?:am|pm|a\.m\.|p\.m\.|o'clock|uhr|heures?|horas?|uur|hodin)\b", re.IGNORECASE
)


def _glued(text: str, after_word: Callable[[int], bool]) -> Iterator[tuple[int, int]]:
    """Runs of one-character digits ("番号、五七二八だよ", "비번 칠사공일이래"), after a code's word."""
    for m in glued_digits().finditer(text):
        digits = [number_words()[c] for c in m.group()]
        if _COUNTED.match(text, m.end()) or _counting(digits) or not after_word(m.start()):
            continue
        if not _named_otherwise(text, m.start()):
            yield m.span()


def _one_language(words: list[str]) -> bool:
    """Whether one language's table holds every word ("tre sei nove"; not "to do one": Norwegian, Hindi, English)."""
    return bool(functools.reduce(frozenset.intersection, (number_word_languages()[w] for w in words)))


def _after_code_word(text: str, ends: list[int], position: int) -> bool:
    """Whether a credential's, a code's or a lock's word ends (``ends``, sorted) within ``_SPOKEN_NEAR`` characters
    before ``position``, in its clause."""
    i = bisect.bisect_right(ends, position) - 1
    return i >= 0 and position - ends[i] <= _SPOKEN_NEAR and _clause_start(text, position) <= ends[i]
