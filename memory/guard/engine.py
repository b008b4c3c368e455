"""The rule engine of the poisoning guard: detectors, weights, reasons, lexicons, and the anchor-driven scan.

A detector only runs where its *anchors* occur -- words every match contains, found with one tokenising pass --
either as one match attempt at (or a few words before) each anchor (``lead``), or in a window around it.
"""

from __future__ import annotations

import bisect
import contextvars
import functools
import itertools
import re
import tomllib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

# What a check may keep for the rest of one scan (gatekeeping_gate.py's orders, found once per view): a fresh
# dict for each ``Scanner.scan``, so nothing outlives the view it was computed for.
_SCAN_MEMO: contextvars.ContextVar[dict[str, object] | None] = contextvars.ContextVar(
    "scan_memo", default=None
)


def scan_memo() -> dict[str, object]:
    """The memo of the scan running now; outside a scan (a check called directly), a throwaway dict."""
    memo = _SCAN_MEMO.get()
    return memo if memo is not None else {}


# --------------------------------------------------------------------------------------------------
# reasons (what the caller sees after "Memory rejected by Security Guard: ")
# --------------------------------------------------------------------------------------------------

R_OVERRIDE = "instruction to ignore previous instructions"
R_ROLE = "attempt to override the system prompt or the assistant's role"
R_TURN = "fake system, assistant or tool turn"
R_EXFIL = "instruction to the reader to leak data or call tools"
R_SECRET = "attempt to extract secrets or the system prompt"
R_OUTPUT = "instruction to manipulate the reader's response"
R_CODE = "instruction to insert malicious code"
R_SPLIT = "instruction split into parts to evade filters"
R_PRESSURE = "false authority or pressure aimed at the assistant"
R_ADDRESS = "instruction addressed to an AI reader"
R_HIDDEN = "hidden characters smuggling instructions"
R_INTERLEAVED = "text hidden behind a mark between every character"
R_HARMFUL = "instruction to produce phishing or fraud content"
R_TASK = "task for the reader hidden in a document"

STRONG = 2
WEAK = 1
_PAIR_DISTANCE = 400  # weak signals combine only when this close to each other
_WINDOW = 400  # characters scanned on each side of an anchor

# the more specific reason wins when two weak signals combine: pressure and modes are the framing
_COMBINE_ORDER = (R_SECRET, R_EXFIL, R_OUTPUT, R_CODE, R_ROLE, R_PRESSURE)

_F = re.UNICODE
_ML = re.UNICODE | re.MULTILINE


def _c(pattern: str, flags: int = _F) -> re.Pattern[str]:
    return re.compile(pattern, flags)


Check = Callable[[str, "re.Match[str]"], int]


@dataclass(frozen=True)
class Detector:
    """One technique.  ``anchors``: words (or, for anything but Latin/Greek/Cyrillic letters, substrings) at least
    one of which every match contains; ``word*`` is a prefix.  With ``lead`` every match *starts* at an anchor,
    so the regex is only tried there; otherwise it runs in windows around the anchors."""

    reason: str
    pattern: re.Pattern[str]
    anchors: tuple[str, ...]
    weight: int = STRONG
    check: Check | None = None  # returns the weight of this match (0: discard)
    lead: bool = False
    back: int = 0  # with lead: the match may also start up to this many words before the anchor
    # characters scanned on each side of an anchor where a match is no longer than this (gatekeeping.py's claim
    # that a check passed: ~40 anchors in 100 kB of conversation, each window scanned by a long alternation)
    reach: int = 0
    # substrings one of which every match contains beside its anchor (the start of each order word), looked for in
    # a window before the pattern is tried there: 100 kB of "ignore the previous instructions on the whiteboard"
    # gave Portuguese's override pattern 1,389 tries, each backtracking through 40 characters for an order word
    # the window never held (265 ms; session 54)
    needs: tuple[str, ...] = ()


def _a(spec: str | Iterable[str], sep: str = "|") -> tuple[str, ...]:
    parts = spec.split(sep) if isinstance(spec, str) else spec
    return tuple(part for part in parts if part)


def _words(spec: str | Iterable[str]) -> frozenset[str]:
    return frozenset(spec.split() if isinstance(spec, str) else spec)


# --------------------------------------------------------------------------------------------------
# lexicons: memory/guard/data/lexicons/<language>.toml
# --------------------------------------------------------------------------------------------------

DATA = Path(__file__).resolve().parent / "data"
Lexicon = dict[str, dict[str, list[str]]]


def _load_lexicons() -> dict[str, Lexicon]:
    out: dict[str, Lexicon] = {}
    for path in sorted((DATA / "lexicons").glob("*.toml")):
        with path.open("rb") as f:
            out[path.stem] = tomllib.load(f)
    return out


LEXICONS = _load_lexicons()
EN = LEXICONS["en"]


def _alt(items: Iterable[str]) -> str:
    """A lexicon list as one regex group: ``(?:a|b|c)``."""
    return "(?:" + "|".join(items) + ")"


def _words_of(ref: str) -> list[str]:
    """``"ru.override.verbs"`` -> that list of ``data/lexicons/ru.toml``."""
    lang, table, key = ref.split(".")
    return LEXICONS[lang][table][key]


_PLACEHOLDER = re.compile(r"\{([a-z]+\.[a-z_]+\.[a-z_]+)\}")


def _fill(template: str) -> str:
    """Replace every ``{lang.table.key}`` in a regex template with that lexicon list, joined with ``|``."""
    return _PLACEHOLDER.sub(lambda m: "|".join(_words_of(m.group(1))), template)


def _anchor_list(refs: Iterable[str]) -> tuple[str, ...]:
    return tuple(a for ref in refs for a in _words_of(ref))


def _unused_tables(table: str, templates: Iterable[str]) -> list[str]:
    """Languages that have ``[table]`` but no template of their own: they get the generic template."""
    used = {m.group(1).split(".")[0] for t in templates for m in _PLACEHOLDER.finditer(t)}
    return [lang for lang, lex in LEXICONS.items() if table in lex and lang not in used and lang != "en"]


def _all_languages(table: str, key: str) -> list[str]:
    """One list gathered from every language (first occurrence kept)."""
    seen: dict[str, None] = {}
    for lang, lex in LEXICONS.items():
        if lang != "en":
            seen.update(dict.fromkeys(lex.get(table, {}).get(key, ())))
    return list(seen)


# --------------------------------------------------------------------------------------------------
# the scan: anchors -> (lead: a match attempt at each anchor | otherwise: windows around anchors)
# --------------------------------------------------------------------------------------------------


def _is_word_anchor(anchor: str) -> bool:
    core = anchor.rstrip("*")
    return bool(core) and core.isalpha() and all(ord(c) < 0x0530 for c in core)


_NON_LATIN_SCRIPT = re.compile(  # Arabic, Hebrew (its prefixes join the word: "לדלג"), Devanagari, Bengali, Thai, CJK
    "[\u0590-\u05ff\u0600-\u06ff\u0900-\u09ff\u0e00-\u0e7f\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]"
)
_TOKEN_SPLIT = re.compile(r"([^\W\d_]+)")


@functools.lru_cache(maxsize=512)
def _substring_finder(sub: str) -> re.Pattern[str]:
    return re.compile(re.escape(sub))


def windows(positions: list[int], size: int, reach: int = _WINDOW) -> Iterator[tuple[int, int]]:
    """Merged windows of ``reach`` characters on each side of ``positions`` in a text of ``size``."""
    lo = hi = -1
    for p in sorted(positions):
        a, b = max(0, p - reach), min(size, p + reach)
        if lo < 0:
            lo, hi = a, b
        elif a <= hi:
            hi = max(hi, b)
        else:
            yield lo, hi
            lo, hi = a, b
    if lo >= 0:
        yield lo, hi


def _starts(positions: list[int], back: int, word_starts: list[int]) -> list[int]:
    if not back:
        return sorted(set(positions))
    out: set[int] = set()
    for p in positions:
        k = bisect.bisect_left(word_starts, p)
        out.update(word_starts[max(0, k - back) : k + 1])
        out.add(p)
    return sorted(out)


def _matches(
    det: Detector, view: str, positions: list[int], word_starts: list[int]
) -> Iterator[re.Match[str]]:
    if det.lead:
        starts = _starts(positions, det.back, word_starts)
        if len(starts) * 40 <= len(view):
            for p in starts:
                m = det.pattern.match(view, p)
                if m is not None:
                    yield m
            return
        # anchors everywhere (a long, repetitive text): one pass over the text is cheaper than many attempts
    seen: set[int] = set()
    for lo, hi in windows(positions, len(view), det.reach or _WINDOW):
        if det.needs and all(view.find(sub, lo, hi) < 0 for sub in det.needs):
            continue
        for m in det.pattern.finditer(view, lo, hi):
            if m.start() not in seen:
                seen.add(m.start())
                yield m


@dataclass(frozen=True)
class _Hit:
    reason: str
    weight: int
    start: int


def _combine(hits: list[_Hit]) -> str | None:
    """Two weak signals close to each other make a strong one."""
    weak = sorted((h for h in hits if h.weight == WEAK), key=lambda h: h.start)
    order = _COMBINE_ORDER
    for a, b in itertools.pairwise(weak):
        if b.start - a.start <= _PAIR_DISTANCE and (a.start != b.start or a.reason != b.reason):
            return min((a.reason, b.reason), key=lambda r: order.index(r) if r in order else len(order))
    return None


class Scanner:
    """The detectors indexed by their anchors; ``scan`` returns the reason one (folded) view is poisoning."""

    def __init__(self, detectors: tuple[Detector, ...]) -> None:
        self.detectors = detectors
        self.exact: dict[str, set[int]] = {}
        self.prefix: dict[
            int, dict[str, list[tuple[str, int]]]
        ] = {}  # size -> first letters -> (stem, detector)
        self.substring: dict[str, set[int]] = {}
        for i, det in enumerate(detectors):
            for anchor in det.anchors:
                if _is_word_anchor(anchor):
                    core = anchor.rstrip("*")
                    if anchor.endswith("*"):
                        size = min(len(core), 5)
                        self.prefix.setdefault(size, {}).setdefault(core[:size], []).append((core, i))
                    else:
                        self.exact.setdefault(core, set()).add(i)
                else:
                    self.substring.setdefault(anchor, set()).add(i)
        self._prefix_sizes = tuple(sorted(self.prefix))
        self._substring_groups = self._group_substrings()
        self._cache: dict[str, frozenset[int]] = {}

    def _group_substrings(self) -> tuple[tuple[re.Pattern[str] | str, tuple[str, ...]], ...]:
        """Substring anchors grouped behind one cheap test: their first character, or 'any non-Latin script'."""
        groups: dict[str, list[str]] = {}
        scripts: list[str] = []
        for sub in self.substring:
            if _NON_LATIN_SCRIPT.search(sub):
                scripts.append(sub)
            else:
                groups.setdefault(sub[0], []).append(sub)
        out: list[tuple[re.Pattern[str] | str, tuple[str, ...]]] = [(c, tuple(v)) for c, v in groups.items()]
        if scripts:
            out.append((_NON_LATIN_SCRIPT, tuple(scripts)))
        return tuple(out)

    def anchor_ids(self, word: str) -> set[int]:
        """The detectors one word is an anchor of."""
        ids = self.exact.get(word)
        hit: set[int] = set(ids) if ids else set()
        for size in self._prefix_sizes:
            if len(word) >= size:
                for stem, i in self.prefix[size].get(word[:size], ()):
                    if word.startswith(stem):
                        hit.add(i)
        return hit

    def anchor_positions(self, view: str, word_starts: list[int] | None = None) -> dict[int, list[int]]:
        """Detector index -> positions of its anchors in ``view`` (tokenised in C, looked up in a cache).
        ``word_starts``, when given, receives the start of every word (for matches that begin before their
        anchor)."""
        found: dict[int, list[int]] = {}
        cache = self._cache
        if len(cache) > 100_000:
            cache.clear()
        parts = _TOKEN_SPLIT.split(view)  # separator, token, separator, token, ..., separator
        tokens = parts[1::2]
        local: dict[str, frozenset[int]] = {}
        for word in set(tokens):
            ids = cache.get(word)
            if ids is None:
                ids = cache[word] = frozenset(self.anchor_ids(word))
            local[word] = ids
        hits = [k for k, ids in enumerate(map(local.__getitem__, tokens)) if ids]
        if hits:
            offsets = list(itertools.accumulate(map(len, parts)))
            if word_starts is not None:
                word_starts.extend(offsets[0::2][: len(tokens)])
            for k in hits:
                start = offsets[2 * k]
                for i in local[tokens[k]]:
                    found.setdefault(i, []).append(start)
        for gate, subs in self._substring_groups:
            if (gate.search(view) is None) if isinstance(gate, re.Pattern) else (gate not in view):
                continue
            for sub in subs:
                if sub not in view:
                    continue
                positions = [m.start() for m in _substring_finder(sub).finditer(view)]
                for i in self.substring[sub]:
                    found.setdefault(i, []).extend(positions)
        return found

    def scan(self, view: str) -> str | None:
        """The reason one (already folded) view is poisoning, or None."""
        hits: list[_Hit] = []
        word_starts: list[int] = []
        positions = self.anchor_positions(view, word_starts)
        detectors = self.detectors
        token = _SCAN_MEMO.set({})
        try:
            for i in sorted(positions):
                det = detectors[i]
                for m in _matches(det, view, positions[i], word_starts):
                    weight = det.check(view, m) if det.check is not None else det.weight
                    if weight >= STRONG:
                        return det.reason
                    if weight > 0:
                        hits.append(_Hit(det.reason, weight, m.start()))
        finally:
            _SCAN_MEMO.reset(token)
        return _combine(hits)
