"""The dates a query names, as windows a memory's timestamp can fall in: "what did Maria do in December
2023", "where was James on July 12, 2022", "in 2021".

Pure functions (no models, no database). The search (``memory.selectors.search.hybrid_rank``) raises the
candidates whose ``timestamp`` falls in a window the query names. A window runs from the named day,
month or year to ``REPORTED_WITHIN`` days after its end, because a memory usually records an event after
it happened ("yesterday I went bowling" is saved the day after): on LoCoMo 90% of the gold turns of the
questions that name a date lie in such a window (bench.locomo.ablate, 2026-12-05).

Written by hand: ``dateutil``'s fuzzy parser reads one date out of a whole text and fills what is
missing from today, so "in June" would become one day of this year; ``dateparser``'s ``search_dates``
costs tens of milliseconds a query. What is read: English month names and their abbreviations with an
optional day and year, ISO dates (``2023-05-07``, ``2023-05``), and a year after a preposition ("in
2021"). Relative words ("last week") name no window: they need a reference time the query does not give.
A month without a year matches that month in any year.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

REPORTED_WITHIN = 14  # days after a named period in which a memory still counts as about it

_MONTHS = {name.casefold(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.casefold(): i for i, name in enumerate(calendar.month_abbr) if name})
_MONTHS["sept"] = 9
_MONTH = r"(?P<mon>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_PREPOSITION = r"(?:in|during|on|of|since|by|until|till|before|after|from|through)"
# Longest forms first: a span one pattern took is not read again by a later one.
_PATTERNS = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        rf"\b{_YEAR}-(?P<num>[01]\d)(?:-(?P<numday>[0-3]\d))?\b",
        rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b",
        rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b",
        rf"\b{_MONTH},?\s+{_YEAR}\b",
        rf"\b{_MONTH}\s+{_DAY}\b(?!:)",
        rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}\b",
        rf"\b{_PREPOSITION}\s+(?:the\s+)?(?:(?:early|late|mid|end of|beginning of|start of)\s+)?{_MONTH}\b",
        rf"\b{_PREPOSITION}\s+(?:(?:early|late|mid)\s+)?{_YEAR}\b",
    )
)
# "may" and "march" are also a verb; "sat", "sun", "jan" and the like are not read as months at all.
_VERB_MONTHS = {"may", "march"}


@dataclass(frozen=True)
class Window:
    """A named period: ``year`` None when the query gave none (the month in any year)."""

    year: int | None
    month: int | None  # None: the whole year
    day: int | None  # None: the whole month (or year)

    def span(self, year: int) -> tuple[date, date] | None:
        """The first and last day of the period in ``year``, None when that day does not exist."""
        if self.month is None:
            return date(year, 1, 1), date(year, 12, 31)
        if self.day is None:
            return date(year, self.month, 1), date(year, self.month, calendar.monthrange(year, self.month)[1])
        try:
            day = date(year, self.month, self.day)
        except ValueError:
            return None
        return day, day

    def holds(self, moment: datetime) -> bool:
        """Whether ``moment`` falls in the period or within ``REPORTED_WITHIN`` days after it."""
        when = moment.date()
        # A month without a year: that month of the memory's year, or of the year before (a memory of
        # early January may report the December just gone).
        for year in (self.year,) if self.year is not None else (when.year, when.year - 1):
            span = self.span(year)
            if span and span[0] <= when <= span[1] + timedelta(days=REPORTED_WITHIN):
                return True
        return False


def named_windows(text: str) -> tuple[Window, ...]:
    """The periods ``text`` names, in the order the patterns read them (none for most queries)."""
    if not any(ch.isdigit() for ch in text) and not _mentions_a_month(text):
        return ()
    found: list[Window] = []
    taken: list[tuple[int, int]] = []
    for pattern in _PATTERNS:
        for match in pattern.finditer(text):
            if any(a < match.end() and match.start() < b for a, b in taken):
                continue
            window = _window(match)
            if window is not None:
                taken.append(match.span())
                found.append(window)
    return tuple(dict.fromkeys(found))


def _mentions_a_month(text: str) -> bool:
    return any(word.casefold().rstrip(".") in _MONTHS for word in re.findall(r"[A-Za-z]+\.?", text))


def _window(match: re.Match[str]) -> Window | None:
    parts = match.groupdict()
    year = int(parts["year"]) if parts.get("year") else None
    if parts.get("num"):
        month = int(parts["num"])
        day = int(parts["numday"]) if parts.get("numday") else None
        return Window(year, month, day) if 1 <= month <= 12 and (day is None or 1 <= day <= 31) else None
    name = parts.get("mon")
    if name is None:
        return Window(year, None, None)
    day = int(parts["day"]) if parts.get("day") else None
    if day is not None and not 1 <= day <= 31:
        return None
    written = name.rstrip(".")
    if written.casefold() in _VERB_MONTHS and written.islower() and year is None:
        return None  # "you may 3 times", "in march order": a lower-case verb or noun, not the month
    return Window(year, _MONTHS[written.casefold()], day)
