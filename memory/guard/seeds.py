"""A wallet's recovery phrase: twelve words or more of one BIP-39 word list in a row, whatever the words around it.

People copy a hardware wallet's seed into a note with any heading ("Ledger seed (DO NOT SHARE): ...", "Сид-фраза
(не терять!): ...", "found the metamask recovery phrase on the back of the notebook: ..."), or none. The words
themselves say what they are: BIP-39's lists hold 2,048 words each, chosen so that ordinary prose never strings
twelve of them together ("the", "a", "of", "is", "and" are in none of them)::

    text ──> a quick pass over its words (``_may_hold_one``): eleven of the lists' words among twelve in a row?
             No: done (conversation, notes, code; ~5 ms a 100 kB note)
         ──> tokens of letters (a numbering "1 pilot 2 ethics", "1. pilot" is skipped; a colon, a sentence's end or
             a bracket ends a run: "recovery phrase: ..." is a heading, not the phrase's first words)
         ──> runs of consecutive tokens that are words of one list (English, Spanish, French, Italian, Portuguese,
             Czech, Turkish: the lists of the ``mnemonic`` package, MIT, Trezor's reference implementation), one
             word of no list allowed inside (a phrase copied by hand has its typo)
         ──> a run of twelve words or more is redacted (rule ``seed-phrase``), from its first word to its last

Pure functions, offsets in the text given.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from importlib import resources

from .spans import Found, Vetoed, overlap_test

RULE = "seed-phrase"
PRIORITY = 4  # as a private key block: where another layer sees part of the phrase, the whole phrase wins
MIN_WORDS = 12  # the shortest BIP-39 phrase
LISTS = ("english", "spanish", "french", "italian", "portuguese", "czech", "turkish")

_TOKEN = re.compile(r"[^\W\d_]+|\d+[.)]?")
_BREAK = re.compile(
    r"[:;!?(\[{]|(?<!\d)\.|\n\s*\n"
)  # "1. pilot", "1) pilot": a numbering's dot or bracket is none
_LETTERS = re.compile(r"[^\W\d_]+")


def _may_hold_one(text: str) -> bool:
    """Eleven words of the lists among twelve in a row, counting the text's words only (a quick pass: 100 kB of
    conversation in a few ms; the exact reading, with offsets, numbering and breaks, runs only where this finds
    one)."""
    words = _words()
    row = since = 0  # words of the lists in the run; those after its one word of no list
    stray = False
    for word in _LETTERS.findall(text):
        if _fold(word) in words:
            row += 1
            since += 1
            if row >= MIN_WORDS - 1:
                return True
        elif stray:  # a second word of no list: a run can only start after the first
            row, since = since, 0
        else:
            stray, since = True, 0
    return False


@functools.lru_cache(maxsize=4096)
def _fold(word: str) -> str:
    if word.isascii():
        return word.lower()
    return unicodedata.normalize("NFKD", word.lower()).encode("ascii", "ignore").decode()


@functools.cache
def _words() -> dict[str, frozenset[int]]:
    """Each word (lower case, accents folded) -> the lists it is in (their index in ``LISTS``)."""
    out: dict[str, set[int]] = {}
    folder = resources.files("mnemonic") / "wordlist"
    for i, name in enumerate(LISTS):
        for line in (folder / f"{name}.txt").read_text(encoding="utf-8").split():
            out.setdefault(_fold(line), set()).add(i)
    return {word: frozenset(lists) for word, lists in out.items()}


def seed_phrases(text: str) -> list[tuple[int, int]]:
    """Spans of runs of ``MIN_WORDS`` or more words of one BIP-39 list (numbers between them allowed, and one
    word that is in no list inside the run: a phrase copied by hand has its typo, "amber" for "amateur")."""
    words = _words()
    spans: list[tuple[int, int]] = []
    run: list[re.Match[str]] = []
    lists: frozenset[int] = frozenset()
    stray = False  # the run holds its one word of no list

    def close() -> None:
        kept = run[:-1] if run and _fold(run[-1].group()) not in words else run
        # a phrase's words are drawn at random: few repeat ("detail detail detail ..." is padding, not a seed)
        if len(kept) >= MIN_WORDS and len({_fold(m.group()) for m in kept}) >= 0.75 * len(kept):
            spans.append((kept[0].start(), kept[-1].end()))

    if not _may_hold_one(text):
        return spans
    for m in _TOKEN.finditer(text):
        token = m.group()
        if token[0].isdigit():  # "1 pilot 2 ethics": the numbering, not a break
            continue
        mine = words.get(_fold(token), frozenset())
        # a heading's colon, a sentence's end or a bracket between two words ends the run ("recovery phrase: ...")
        paragraph = bool(run) and _BREAK.search(text, run[-1].end(), m.start()) is not None
        if run and not paragraph and (lists & mine or (not mine and not stray and len(token) <= 12)):
            run.append(m)
            lists = lists & mine or lists
            stray = stray or not mine
            continue
        close()
        run, lists, stray = ([m], mine, False) if mine else ([], frozenset(), False)
    close()
    return spans


def scan_seed_phrases(text: str, low: str, found: list[Found], vetoed: Vetoed) -> None:
    """The redaction layer (``redaction.SCANNERS``): every recovery phrase, at the private keys' priority (a
    seed is a wallet's private key), unless a span judged not secret overlaps it."""
    overlaps_vetoed = overlap_test(vetoed)
    for start, end in seed_phrases(text):
        if not overlaps_vetoed(start, end):
            found.append(Found(start, end, RULE, PRIORITY))
