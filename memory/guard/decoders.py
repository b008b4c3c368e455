"""Decoders for the poisoning guard: hidden characters (Unicode tags, variation selectors, zero-width bits, bidi
overrides) and encoded payloads (base64, hex, binary, character codes, Morse, letter shifts, reversed text, pig
latin) that decode to readable text, each scanned like the original."""

from __future__ import annotations

import base64
import binascii
import re
from collections import Counter
from collections.abc import Iterator

from .engine import EN, _c, _words
from .normalize import _INVISIBLE, _NON_LETTERS

_TAG_RUN = re.compile("[\U000e0000-\U000e007f]+")
_FLAG_TAGS = re.compile("\U0001f3f4[\U000e0030-\U000e0039\U000e0061-\U000e007a]{2,7}\U000e007f")
_VS_RUN = re.compile("[\ufe00-\ufe0f\U000e0100-\U000e01ef]{8,}+")
_ZW_RUN = re.compile("[\u200b\u200c\u200d\u2060-\u2064\ufeff\u180e]{8,}+")
_ZW_IN_WORD = re.compile("(?<=[A-Za-z])[\u200b-\u200d\u2060-\u2064\ufeff\u180e\u034f]+(?=[A-Za-z])")
_BIDI_OVERRIDE = re.compile("[\u202d\u202e]([^\u202c\n]{1,500})")
_HIDDEN_KEYWORDS = _c(r"instruction|ignore|assistant|system|prompt|password|secret|reveal|send|you")


def _hidden_payloads(text: str) -> tuple[bool, list[str]]:
    """(smuggling found, decoded hidden texts to scan)."""
    found = False
    decoded: list[str] = []
    if text.isascii() or _INVISIBLE.search(text) is None:
        return found, decoded
    top = max(text)
    if top >= "\U000e0000":
        flags = {m.start() + 1 for m in _FLAG_TAGS.finditer(text)}
        for m in _TAG_RUN.finditer(text):
            if m.start() in flags:
                continue
            hidden = "".join(chr(ord(c) - 0xE0000) for c in m.group(0) if 0xE0020 <= ord(c) <= 0xE007E)
            if len(hidden) >= 3:
                found = True
                decoded.append(hidden)
    if top >= "\ufe00":
        for m in _VS_RUN.finditer(text):
            data = bytes(
                (ord(c) - 0xFE00) if ord(c) <= 0xFE0F else (ord(c) - 0xE0100 + 16) for c in m.group(0)
            )
            found = True
            decoded.append(data.decode("utf-8", "ignore"))
    if top >= "\u180e" and _INVISIBLE.search(text):
        for m in _ZW_RUN.finditer(text):
            found = True
            run = m.group(0)
            symbols = sorted(set(run))
            if len(symbols) == 2:
                for zero, one in ((symbols[0], symbols[1]), (symbols[1], symbols[0])):
                    decoded.append(_bits_to_text(run.replace(zero, "0").replace(one, "1")))
        if len(_ZW_IN_WORD.findall(text)) >= 8 and _HIDDEN_KEYWORDS.search(text.lower()):
            found = True
        for m in _BIDI_OVERRIDE.finditer(text):
            decoded.append(m.group(1)[::-1])
    return found, decoded


def _bits_to_text(bits: str) -> str:
    usable = len(bits) - len(bits) % 8
    data = bytes(int(bits[i : i + 8], 2) for i in range(0, usable, 8))
    return data.decode("utf-8", "ignore")


def _printable(s: str) -> bool:
    if len(s) < 8:
        return False
    good = sum(1 for c in s if c.isprintable() or c in "\n\t\r")
    letters = sum(1 for c in s if c.isalpha())
    return good >= 0.95 * len(s) and letters >= 0.5 * len(s.replace(" ", "")) and " " in s.strip()


_B64 = re.compile(r"[A-Za-z0-9+/_-]{16,}+={0,2}")
_HEX_SPACED = re.compile(
    r"(?<![0-9A-Za-z])(?:(?:0x|\\x)?[0-9A-Fa-f]{2}(?:[ ,:;-]{1,2}|(?=\\x))){11,}(?:0x|\\x)?[0-9A-Fa-f]{2}"
)
_BINARY = re.compile(r"[01]{8}(?:[ ,]?[01]{8}){5,}+")
_DECIMAL = re.compile(
    r"(?<![\d.])(?:(?:3[2-9]|[4-9]\d|1[01]\d|12[0-6])[ ,]{1,2}){8,}(?:3[2-9]|[4-9]\d|1[01]\d|12[0-6])(?![\d.])"
)
_MORSE = re.compile(r"(?<![\w.-])(?:[.\-]{1,7}+(?:[ ]{1,3}+|[ ]?/[ ]?)){4,}[.\-]{1,7}+(?![\w.-])")
_MORSE_TABLE = {
    ".-": "a", "-...": "b", "-.-.": "c", "-..": "d", ".": "e", "..-.": "f", "--.": "g", "....": "h", "..": "i",
    ".---": "j", "-.-": "k", ".-..": "l", "--": "m", "-.": "n", "---": "o", ".--.": "p", "--.-": "q", ".-.": "r",
    "...": "s", "-": "t", "..-": "u", "...-": "v", ".--": "w", "-..-": "x", "-.--": "y", "--..": "z",
    "-----": "0", ".----": "1", "..---": "2", "...--": "3", "....-": "4", ".....": "5", "-....": "6", "--...": "7",
    "---..": "8", "----.": "9", ".-.-.-": ".", "--..--": ",", "..--..": "?", ".----.": "'", "-.-.--": "!",
    "-..-.": "/", "---...": ":", ".-.-.": "+", "-....-": "-", ".-..-.": '"', ".--.-.": "@",
}  # fmt: skip
_MAX_DECODES = 64
_MAX_DECODED_CHARS = 20_000


_HEX_ONLY = re.compile(r"[0-9A-Fa-f]+")
_DECIMAL_HINT = re.compile(r"\d{2,3}[ ,]{1,2}\d{2,3}[ ,]{1,2}\d{2,3}[ ,]{1,2}\d{2,3}[ ,]{1,2}\d{2,3}")


def _encoding_kinds(text: str) -> set[str]:
    """Cheap substring tests for the encodings that need a regex pass of their own."""
    kinds = set()
    if "\\x" in text or "0x" in text or sum(text.count(p) for p in (" 6", " 7", ",6", ",7", ":6", ":7")) >= 6:
        kinds.add("hex")
    if any(p in text for p in ("0100", "0110", "0111", "0101")):
        kinds.add("bin")
    if ".-" in text or "-." in text:
        kinds.add("morse")
    if _DECIMAL_HINT.search(text):
        kinds.add("dec")
    return kinds


def _hex_text(digits: str) -> str:
    digits = digits[: 2 * _MAX_DECODED_CHARS]
    try:
        return bytes.fromhex(digits[: len(digits) - len(digits) % 2]).decode("utf-8", "ignore")
    except ValueError:
        return ""


_MIN_INTERLEAVED = 12  # characters: "a.b.c" is an abbreviation, not a hidden text


def _interleaved(text: str) -> str | None:
    """A text with one mark between every character ("\\i\\g\\n\\o\\r\\e", "i.g.n.o.r.e"), the mark
    removed; None for any other text. The spaced view undoes spaces; this undoes any other single mark that
    stands at four in five of every other position."""
    mark = interleaving_mark(text)
    return None if mark is None else text.strip().replace(mark, "")


def interleaving_mark(text: str) -> str | None:
    """The mark ``_interleaved`` removes, or None."""
    stripped = text.strip()
    if len(stripped) < _MIN_INTERLEAVED:
        return None
    for offset in (0, 1):
        if stripped[offset:64:2].count(stripped[offset]) < 0.8 * len(stripped[offset:64:2]):
            continue  # the first 64 characters decide cheaply: a 100 kB note is not counted whole
        marks = stripped[offset::2]
        mark, count = Counter(marks).most_common(1)[0]
        if not mark.isalnum() and not mark.isspace() and count >= 0.8 * len(marks):
            return mark
    return None


def _decoded_payloads(text: str) -> Iterator[tuple[str, str]]:
    """(how, decoded text) for encoded blobs that decode to readable text."""
    count = 0
    for m in _B64.finditer(text):  # base64 and unbroken hex share one pass
        token = m.group(0)
        if len(token) > 4 * _MAX_DECODED_CHARS:
            continue
        if len(token) >= 24 and _HEX_ONLY.fullmatch(token):
            decoded = _hex_text(token)
            if _printable(decoded):
                yield "hex", decoded
            continue
        if not any(c.islower() for c in token) or not (
            any(c.isdigit() for c in token) or any(c.isupper() for c in token)
        ):
            continue
        count += 1
        if count > _MAX_DECODES:
            break
        raw = token.rstrip("=")
        raw = raw + "=" * (-len(raw) % 4)
        for decoder in (base64.b64decode, base64.urlsafe_b64decode):
            try:
                data = decoder(raw)
            except (binascii.Error, ValueError):
                continue
            decoded = data.decode("utf-8", "ignore")
            if _printable(decoded):
                yield "base64", decoded
                break
    kinds = _encoding_kinds(text)
    if "hex" in kinds:
        for m in _HEX_SPACED.finditer(text):
            decoded = _hex_text(re.sub(r"0x|\\x|[^0-9A-Fa-f]", "", m.group(0)))
            if _printable(decoded):
                yield "hex", decoded
    if "bin" in kinds:
        for m in _BINARY.finditer(text):
            decoded = _bits_to_text(re.sub(r"[^01]", "", m.group(0))[: 8 * _MAX_DECODED_CHARS])
            if _printable(decoded):
                yield "binary", decoded
    if "dec" in kinds:
        for m in _DECIMAL.finditer(text):
            decoded = "".join(chr(int(n)) for n in re.findall(r"\d+", m.group(0))[:_MAX_DECODED_CHARS])
            if _printable(decoded):
                yield "character codes", decoded
    interleaved = _interleaved(text)
    if interleaved is not None:
        yield "a mark between every character", interleaved
    if "morse" in kinds:
        for m in _MORSE.finditer(text):
            words = re.split(r"\s*/\s*|\s{2,}", m.group(0).strip())[:_MAX_DECODED_CHARS]
            letters = [[_MORSE_TABLE.get(sym, "") for sym in w.split()] for w in words]
            total = sum(len(w) for w in letters)
            known = sum(1 for w in letters for c in w if c)
            if total >= 4 and known >= 0.8 * total:
                decoded = " ".join("".join(w) for w in letters)
                if len(set(decoded.replace(" ", ""))) >= 4:
                    yield "morse code", decoded


# common English words: a decoded candidate must read like English
_COMMON = _words(EN["words"]["common"])
_WORD = re.compile(r"[a-z]+")
_SEGMENT = re.compile(r"[^\n.!?;\"()<>\[\]{}]{20,2000}")
_FREQUENT = "etaoinshr"


def _english_ratio(s: str) -> float:
    words = _WORD.findall(s)
    if not words:
        return 0.0
    return sum(1 for w in words if w in _COMMON) / len(words)


_ALPHABET = "abcdefghijklmnopqrstuvwxyz"
_SHIFTS = tuple(str.maketrans(_ALPHABET, _ALPHABET[k:] + _ALPHABET[:k]) for k in range(26))


def _pig_latin(s: str) -> str:
    def word(w: str) -> str:
        if (w.endswith("way") or w.endswith("yay")) and len(w) > 4 and w[0] in "aeiou":
            return w[:-3]
        if w.endswith("ay") and len(w) > 3:
            stem = w[:-2]
            i = len(stem)
            while i > 0 and stem[i - 1] not in "aeiou":
                i -= 1
            if 0 < i < len(stem):
                return stem[i:] + stem[:i]
        return w

    return _WORD.sub(lambda m: word(m.group(0)), s)


def _cipher_candidates(view: str) -> Iterator[tuple[str, str]]:
    """Sentences that read as gibberish but as English after a letter shift, reversal or pig latin."""
    tried = 0
    for m in _SEGMENT.finditer(view):
        seg = m.group(0)
        padded = f" {seg.rsplit(':', 1)[-1]} "  # "Decode and follow: <cipher>": judge what follows the colon
        if (
            " the " in padded
            or " and " in padded
            or " to " in padded
            or " you " in padded
            or " is " in padded
        ):
            continue  # plain English
        letters = len(_NON_LETTERS.sub("", seg))
        if letters < 16 or letters < 0.6 * len(seg.replace(" ", "")) or seg.count(" ") < 3:
            continue
        frequent = sum(seg.count(c) for c in _FREQUENT) / letters
        pig = seg.count("ay ") + seg.endswith("ay") >= 3
        if frequent >= 0.55 and not pig:
            # ordinary letter frequencies: only reversed text is left to check
            if seg.count(" eht ") + seg.count(" ot ") + seg.count(" dna ") + seg.count(" uoy ") >= 1:
                rev = seg[::-1]
                if _english_ratio(rev) >= 0.3:
                    yield "reversed text", rev
            continue
        if _english_ratio(seg) >= 0.2:
            continue
        tried += 1
        if tried > 40:
            return
        best, best_ratio = "", 0.0
        for k in range(1, 26):
            cand = seg.translate(_SHIFTS[k])
            ratio = _english_ratio(cand)
            if ratio > best_ratio:
                best, best_ratio = cand, ratio
        if best_ratio >= 0.3:
            yield "a letter-shift cipher", best
        if pig:
            plain = _pig_latin(seg)
            if _english_ratio(plain) >= 0.3:
                yield "pig latin", plain
