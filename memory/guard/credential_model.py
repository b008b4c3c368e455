"""The learned password tagger: passwords in prose that no phrasing rule names.

The rules of ``credentials.py`` and ``codes.py`` read the phrasings someone wrote down; sets written by
people who never read them (bench/guard/HELDOUT.md) showed how many phrasings there are. This tagger
reads the words around a candidate instead of a fixed phrasing::

    text ──> the lexicon's phrases (credential, sign-in, code, lock words, and what a password opens:
             "Netflix", "router", "Plex": ``[thing]``, read by this tagger only; ``lexicon._phrases``)
         ──> candidates: each token within 6 before or 12 after the nearest phrase (a thing's only where no
             other phrase is in reach; digits said one by one or in pairs, "7 3 9 1", are one token), the
             phrase itself left out
         ──> per candidate: hashed features of its shape ("Aa9!"), its length, what the rules think of
             it (plausible, strong), the three words before and two after, the nearest phrase's kind and
             distance
         ──> score = sigmoid(bias + Σ weight[crc32(feature) mod 2^18] / √(features))
         ──> a candidate at or above the threshold is redacted (rule ``password-learned``)

A note with no credential, sign-in, code, lock or thing word has no candidate: conversation pays one pass of
the phrase automaton the rules make anyway. The weights (``data/credential_model.npz``) and their card
(``data/credential_model.json``: data, provenance, the threshold chosen by leaving each set out) are
written by ``bench/guard/train_credentials.py``; the features are defined here only.
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .codes import _HHMM, ALARM_WORDS, _a_quantity, _a_secret_code, _not_secret, a_count, phone_shaped
from .credential_values import (
    _BRAND,
    _DATE,
    _DESCRIBING,
    _TICKET,
    _VERSION,
    DEFAULT_SSID,
    MAC_ADDRESS,
    NETWORK_NAME,
    named_before,
    plausible,
    strong,
    stronger,
)
from .credentials import _NETWORK_WORDS, _named_apart
from .lexicon import (
    _CJK_CHAR,
    _CLOSE,
    _OPEN,
    _describing,
    _stopwords,
    _trim,
    not_passwords,
    phrases_in,
    thing_number,
)
from .model import logit, read_weights, sigmoid
from .spans import Found, Vetoed, overlap_test

RULE = "password-learned"
PRIORITY = 1  # below the phrasing rules: where both see a value, theirs (the longer, surer span) wins
DATA = Path(__file__).resolve().parent / "data"
WEIGHTS = DATA / "credential_model.npz"
CARD = DATA / "credential_model.json"

DIMENSIONS = 1 << 18
BEFORE, AFTER = 6, 12  # tokens around a phrase that are candidates
MAX_CANDIDATES = 400  # distinct contexts scored in one text (a note's first 400); the rules read all of it
MAX_CHARACTERS = 32_000  # of a text the tagger reads; the rules read all of it
# A candidate: digits said one by one or in pairs, or what stands between spaces and CJK punctuation (a full-width
# colon, bracket or quote ends a token as a space does: "仮パスワード「Fuji#Yama3776」を発行", "口令：熊猫在竹林里睡觉").
_CANDIDATE = re.compile(
    r"\d(?: \d){3,7}(?! ?\d)|\d\d(?: \d\d){2,3}(?! ?\d)|[^\s，。、；！？：「」『』（）【】]+"
)
_OTHER_TICKET = re.compile(r"[A-Z]{1,5}(?:-[A-Z0-9]{1,8}){1,4}")
# Shapes of what is rarely a password, each a feature of its own name
_NAMED_SHAPES = {
    "hex": re.compile(r"0x[0-9a-fA-F]+"),
    "upper_snake": re.compile(r"[A-Z0-9]+(?:_[A-Z0-9]+)+"),
    "word_num": re.compile(r"[A-Za-z]+\d{1,2}"),
}


def _shape(value: str) -> str:
    """Runs of upper, lower, digit and other collapsed: "Tango2021!" -> "Aa9!"."""
    out: list[str] = []
    for c in value[:40]:
        kind = "A" if c.isupper() else "a" if c.islower() else "9" if c.isdigit() else "!"
        if not out or out[-1] != kind:
            out.append(kind)
    return "".join(out)[:12]


def _length(n: int) -> str:
    return "1-3" if n < 4 else "4-5" if n < 6 else "6-8" if n < 9 else "9-12" if n < 13 else "13+"


@functools.lru_cache(maxsize=1 << 16)
def _hash(feature: str) -> int:
    return zlib.crc32(feature.encode("utf-8", "surrogatepass")) % DIMENSIONS


def _word(text: str, span: tuple[int, int]) -> str:
    return text[span[0] : span[1]].lower().strip(_CLOSE + _OPEN)


def candidates(text: str) -> Iterator[tuple[int, list[tuple[int, int]], tuple[int, str, str]]]:
    """(index, tokens, (distance, phrase, kind)) for each token near the nearest lexicon phrase."""
    every = list(phrases_in(text))
    # "login_not_required": code; a door's or a gate's noun is the rules' only (flight numbers near "gate")
    phrases = [p for p in every if text[p[1] : p[1] + 1] != "_" and p[3] != "door"]
    if not phrases:
        return
    tokens = [m.span() for m in _CANDIDATE.finditer(text)]
    starts = [s for s, _ in tokens]
    placed = []
    for start, end, phrase, kind in phrases:
        first = max(0, bisect.bisect_right(starts, start) - 1)
        last = max(0, bisect.bisect_left(starts, end) - 1)
        placed.append((first, last, phrase, kind, start, end))
    placed.sort()
    firsts = [p[0] for p in placed]
    reach: list[int] = []  # the token indices within reach of a phrase, each once, in order
    for first, last, *_ in placed:
        lo = max(first - BEFORE, reach[-1] + 1 if reach else 0)
        reach.extend(range(lo, min(len(tokens), last + AFTER + 1)))
    for i in reach:
        s, e = tokens[i]
        ts, te = _trim(text, s, e)
        value = text[ts:te]
        if value.isalpha() and value.islower() and text[s] not in _OPEN:
            # a plain lower-case word unquoted, most of a note's words, the cheapest test first: the rules'
            # passphrases and lone words decide those ("is easier")
            continue
        # the nearest phrase, a thing's only where no credential, sign-in, code or lock word is in reach:
        # "the password for the router: X" is read after "password"
        nearest: dict[bool, tuple[tuple[int, str, str], tuple[int, int], int]] = {}
        own = False
        lo = bisect.bisect_left(firsts, i - AFTER - 8)  # phrases that could be in reach
        for first, last, phrase, kind, p_start, p_end in placed[lo:]:
            if first > i + BEFORE:
                break
            if p_start < e and s < p_end:
                own = True  # the phrase's own word
                break
            distance = i - last if i > last else i - first
            thing = kind == "thing"
            if (0 < distance <= AFTER or -BEFORE <= distance < 0) and (
                thing not in nearest or abs(distance) < abs(nearest[thing][0][0])
            ):
                between = (p_end, s) if distance > 0 else (e, p_start)
                nearest[thing] = ((distance, phrase, kind), between, p_start)
        chosen = None if own else nearest.get(False) or nearest.get(True)
        if chosen is None:
            continue
        best, between, phrase_start = chosen
        if best[2] == "thing" and (len(value) < 4 or value.isalpha()):
            # near a thing alone, four characters or more with a digit or a sign: "Netflix: bluejay4471", not
            # "Monday" nor "Server 12"
            continue
        if "\n\n" not in text[slice(*between)] and _eligible(text, tokens, i, best, phrase_start, every):
            yield i, tokens, best


_ASSIGNED = re.compile(r"[=()\[\]{}]")  # an assignment or a call in code: "max_length=128)", "f(x)"
# A name in code ("login_not_required") or a password of words joined ("sparrow_in_the_rain", "zayka_lisa_2020"):
# a feature, where the tagger's neighbours tell the two apart (session 44: an exclusion until then).
_SNAKE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")
_TIME = re.compile(_HHMM.pattern + r"|\d{1,2}[:.h][0-5]\d")  # "0800", "8:00", "8h00"
_TIME_BEFORE = frozenset({"from", "at", "until", "till", "by", "before", "after", "since", "around", "um", "ab",
                          "bis", "à", "dès", "jusqu'à", "a", "às", "alle", "om", "kl", "kl."})  # fmt: skip


@functools.cache
def _phone_before() -> re.Pattern[str]:
    """A telephone's, an extension's or a card's word right before a number ("内線 2214", "ext. 4410", "Card
    ends 4417", "내선번호는 4471"; ``data/not_passwords.toml``'s ``phone``), a colon, Japanese "は" or a Korean
    topic or subject particle between them."""
    words = sorted(not_passwords("phone"), key=len, reverse=True)
    return re.compile(
        r"(?:" + "|".join(re.escape(w) for w in words) + r")\s*(?:[:：は]|번호[는은가]?|[는은이가])?\s*$",
        re.IGNORECASE,
    )


# A number in groups that runs on before or after the candidate, or after a trunk prefix's 0: "07700 900461",
# "+44 7700 900 655", "06 12 34 56 78", "DE12 5001 0517 0648", "1800 889 9999".
_GROUPED_NUMBER = re.compile(
    r"(?:\+|\d[ .-])\d{2,5}[ .-]\d{2,5}[ .-]\d{2,5}|(?<!\d)0\d{2,5}[ .-]\d{3,8}(?!\d)"
)

_YEAR = re.compile(r"(?:19|20)\d\d[.,;:)]?")
# A file's name: "Q3-Audit_7741.zip", "Dogovor-2024-Mart.pdf" (the password sent for it is elsewhere).
_FILE_NAME = re.compile(
    r".+\.(?:zip|7z|rar|tar|gz|tgz|bz2|xz|pdf|docx?|xlsx?|pptx?|od[tsp]|csv|tsv|txt|rtf|json|xml|ya?ml|html?|png|"
    r"jpe?g|gif|svg|webp|heic|mp[34]|mov|avi|wav|log|md|iso|dmg|exe|msi|apk|ipa|bak|sql|kdbx|pst|eml)",
    re.IGNORECASE,
)
_TIME_RANGE = re.compile(r"\d{1,2}[:.h]\d\d(?:\s*[-–]\s*\d{1,2}(?:[:.h]\d\d)?)?")


def _eligible(
    text: str,
    tokens: list[tuple[int, int]],
    i: int,
    best: tuple[int, str, str],
    phrase_start: int,
    phrases: list[tuple[int, int, str, str]],
) -> bool:
    """What the rules know is no password stays out of the tagger's reach: a brand ("1Password", "Disney+"),
    an address ("http://..."), a file's name ("Q3-Audit_7741.zip"), an assignment or a call in code
    ("max_length=128)"), a plain lower-case word not in quotes, a time after its preposition or an alarm's
    word ("on duty from 0800", "alarm: 0630"), a telephone's, an account's or a thing's number ("内線 2214",
    "+44 7700 900 655", "account 55779911", "saksnr. 662871"), a number to call, a network's or a device's
    name ("SSIDは Buffalo-G-4F2A", "xiaomi_5G"), a time range, a year after "in", and what follows a lone
    "code" that its neighbours call another kind ("the zip code is 02108"). The words are
    ``data/not_passwords.toml``'s. (Nor, in ``candidates``, a token a blank line away from its phrase.)"""
    s, e = _trim(text, *tokens[i])
    value = text[s:e]
    previous = _word(text, tokens[i - 1]) if i > 0 else ""
    if (
        _BRAND.fullmatch(value)
        or "://" in value
        or _ASSIGNED.search(value)
        or _VERSION.fullmatch(value)  # a version, an IP address: "v3.2.0", "10.0.8.21"
        or MAC_ADDRESS.fullmatch(value)  # a network card's address: "00:1B:44:11:3A:B7"
        or DEFAULT_SSID.fullmatch(value)  # a router's default network name: "Livebox-8A2F"
        or _FILE_NAME.fullmatch(value)
    ):
        return False  # a brand, an address, an assignment or a call in code ("max_length=128)"), a file
    if _TIME.fullmatch(value) and (previous in _TIME_BEFORE or best[1] in ALARM_WORDS):
        return False  # "on duty from 0800", "alarm: 0630"
    if (
        _phone_before().search(text, max(0, s - 16), s)
        or _GROUPED_NUMBER.search(text, max(0, s - 14), min(len(text), e + 14))
        or (not value.isdigit() and phone_shaped(value))  # "ring the monitoring line: 312-555-0147"
    ):
        return False  # a telephone's, an account's or a customer's number: groups of digits in a row
    if thing_number([_word(text, tokens[k]) for k in range(max(0, i - 2), i)]):
        return False  # "locker is number 3192", "saksnr. 662871"; not "PIN number 4412"
    if best[1] in _NETWORK_WORDS and _named_apart(phrases, e):
        return False  # "Our Wi-Fi is Livebox-8A2F ... Password is on the back of the router": its name
    if named_before(text, s) or NETWORK_NAME.fullmatch(value):
        return False  # a network's or a device's name: "the Wi-Fi is called 'Oakbarn_Events'", "xiaomi_5G"
    if previous in _not_secret()[0]:
        return False  # what names another kind of number: "PO 4500182233", "order 88123"
    if value.isdigit() and previous in not_passwords("accounts"):
        return False  # an account's or a case's number: "account 55779911", "case 102345678901"
    if value.isdigit() and _a_quantity(text, e):
        return False  # "the padlock is 250 kg rated": a quantity and its unit
    if _TIME_RANGE.fullmatch(value) or a_count(value):
        return False  # "breakfast 6:30-10"; "a combination of 2-3-4 factors": a count
    if value.isdigit() and any(
        _word(text, tokens[k]) in not_passwords("calling") for k in range(max(0, i - 4), i)
    ):
        return False  # a number to call
    if _YEAR.fullmatch(value) and previous in not_passwords("year_before"):
        return False  # "replaced in 2024", "since 1998"
    if best[2] == "thing" and best[0] < 0:
        return True  # a value before what it opens: "PurpleGiraffe9 on the Xbox"
    # after a lone code word or a thing, what its neighbours call another kind of number: "the zip code is
    # 02108", "the new build is safe: 2024 tests passed"
    return best[2] not in ("code", "thing") or _a_secret_code(
        text, phrase_start, phrase_start + len(best[1]), e
    )


def features(text: str, i: int, tokens: list[tuple[int, int]], nearest: tuple[int, str, str]) -> list[int]:
    """The hashed features of candidate ``tokens[i]`` (see the module's docstring), sorted, distinct."""
    s, e = _trim(text, *tokens[i])
    value = text[s:e]
    names = ["bias"]
    if value:
        distance, phrase, kind = nearest
        reach = str(abs(distance)) if abs(distance) <= 3 else "4-6" if abs(distance) <= 6 else "7+"
        where = ("+" if distance > 0 else "-") + reach
        shape = _shape(value)
        low = value.lower()
        names += [f"sh:{shape}", f"len:{_length(len(value))}", f"k:{kind}:{where}", f"ph:{phrase}"]
        names.append(f"kd:{kind}:{shape[:6]}")
        likely = plausible(value)
        shaped = strong(value, likely)
        flags = {
            "dig": any(c.isdigit() for c in value),
            f"alldig:{_length(len(value))}": value.isdigit(),
            "up": any(c.isupper() for c in value),
            "sym": any(not c.isalnum() for c in value),
            "nonascii": not value.isascii(),
            "cjk": _CJK_CHAR.search(value) is not None,
            "pl": likely,
            "st": shaped,
            "sr": stronger(value, shaped),
            "stop": low in _stopwords(),
            "desc": low in _describing() or _DESCRIBING.match(low) is not None,
            "ticket": bool(_TICKET.fullmatch(value) or _OTHER_TICKET.fullmatch(value)),
            "lowerword": value.isalpha() and value.islower(),
            "snake": _SNAKE.fullmatch(value) is not None,
            "version_date": bool(_VERSION.fullmatch(value) or _DATE.fullmatch(value)),
            "q": text[tokens[i][0] : tokens[i][0] + 1] in "\"'“‘«`",
        }
        flags.update((name, shape.fullmatch(value) is not None) for name, shape in _NAMED_SHAPES.items())
        names += [name for name, on in flags.items() if on]
        for k in (1, 2, 3):
            if i - k >= 0:
                names.append(f"p{k}:{_word(text, tokens[i - k])}")
                if k == 1:
                    names.append(f"p1c:{text[tokens[i - 1][1] - 1]}")
            else:
                names.append(f"p{k}:^")
        for k in (1, 2):
            names.append(f"n{k}:{_word(text, tokens[i + k])}" if i + k < len(tokens) else f"n{k}:$")
        # a name in code among others ("call send_reset_email then mark_token_used"), where a password of words
        # joined stands alone ("пароль от роутера kotik_murzik_2019")
        if any(
            _SNAKE.fullmatch(_word(text, tokens[k]))
            for k in (i - 2, i - 1, i + 1, i + 2)
            if 0 <= k < len(tokens)
        ):
            names.append("snake_near")
        after = text[e : e + 1]
        names.append("nx:" + ("end" if not text[e:].strip() else after))
    return sorted({_hash(name) for name in names})


def score(weights: Any, bias: float, feats: list[int]) -> float:
    return sigmoid(logit(weights, bias, feats))  # the poisoning model's scoring, on one candidate


@dataclass(frozen=True)
class Tagger:
    weights: Any  # numpy float32 array of DIMENSIONS
    bias: float
    threshold: float
    version: str

    def spans(self, text: str) -> list[tuple[int, int]]:
        """The candidates scored at or above the threshold, trimmed. A context seen before in the same
        text (a repeated line) is scored once."""
        out: list[tuple[int, int]] = []
        seen: dict[str, float] = {}
        for i, tokens, nearest in candidates(text[:MAX_CHARACTERS]):
            s, e = tokens[i]
            context = f"{nearest}\x00{text[max(0, s - 48) : e + 24]}"
            value = seen.get(context)
            if value is None:
                if len(seen) >= MAX_CANDIDATES:
                    break
                value = seen[context] = score(self.weights, self.bias, features(text, i, tokens, nearest))
            if value >= self.threshold:
                start, end = _trim(text, s, e)
                if end > start:
                    out.append((start, end))
        return out


@functools.cache
def load_tagger() -> Tagger | None:
    """The shipped tagger, or None where its files are missing (the rules still run)."""
    shipped = read_weights(WEIGHTS, CARD)
    if shipped is None:
        return None
    weights, bias, card = shipped
    return Tagger(weights, bias, float(card["threshold"]), str(card["version"]))


_OFF: list[bool] = []  # rules_only() holds the tagger off


@contextlib.contextmanager
def rules_only() -> Iterator[None]:
    """The rules alone inside the block (bench/guard: the tagger's training and its paired figures)."""
    _OFF.append(True)
    try:
        yield
    finally:
        _OFF.pop()


def scan_learned_credentials(text: str, low: str, found: list[Found], vetoed: Vetoed) -> None:
    """The redaction layer (``redaction.SCANNERS``): what the tagger finds, where no layer vetoed it."""
    tagger = None if _OFF else load_tagger()
    if tagger is None:
        return
    overlaps_vetoed = overlap_test(vetoed)
    for start, end in tagger.spans(text):
        if not overlaps_vetoed(start, end):
            found.append(Found(start, end, RULE, PRIORITY))
