"""The periods a query names (memory.timewords), read as the search's named-time boost reads them."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.timewords import REPORTED_WITHIN, Window, named_windows


@pytest.mark.parametrize(
    "text, windows",
    [
        ("When did Melanie go camping in June?", [Window(None, 6, None)]),
        ("What did Mel paint in July 2023?", [Window(2023, 7, None)]),
        ("Which painting did she show on October 13, 2023?", [Window(2023, 10, 13)]),
        ("What did Gina find on 1 February, 2023?", [Window(2023, 2, 1)]),
        ("the 3rd of March 2022", [Window(2022, 3, 3)]),
        ("the deploy of 2023-05-07 and the one of 2023-06", [Window(2023, 5, 7), Window(2023, 6, None)]),
        ("Who did Maria meet in 2021?", [Window(2021, None, None)]),
        ("What happened during the last week of August 2023?", [Window(2023, 8, None)]),
        ("Sept. 4 release", [Window(None, 9, 4)]),
        ("in June and in July", [Window(None, 6, None), Window(None, 7, None)]),
    ],
)
def test_a_named_period_is_read(text, windows):
    assert list(named_windows(text)) == windows


@pytest.mark.parametrize(
    "text",
    [
        "May I ask what the deploy broke?",  # "May" is a verb here
        "they may 3 times retry",
        "What did we decide last week?",  # relative: no reference time in the query
        "Meet at 10:30 in room 2023",  # a time and a room number
        "Who won 3-2?",
        "The March of the Penguins",  # a month's name with nothing that makes it a date
        "order 2023-13-40",  # no such month or day
        "",
    ],
)
def test_what_names_no_period_reads_none(text):
    assert named_windows(text) == ()


def _at(year: int, month: int, day: int, hour: int = 0) -> datetime:
    return datetime(year, month, day, hour, tzinfo=UTC)


def test_a_window_holds_its_period_and_the_days_after_it_when_events_are_told():
    july = Window(2023, 7, None)
    assert july.holds(_at(2023, 7, 1)) and july.holds(_at(2023, 7, 31, 23))
    assert july.holds(_at(2023, 8, REPORTED_WITHIN)) and not july.holds(_at(2023, 8, REPORTED_WITHIN + 1))
    assert not july.holds(_at(2023, 6, 30)) and not july.holds(_at(2022, 7, 15))
    day = Window(2022, 3, 16)
    assert day.holds(_at(2022, 3, 17)) and not day.holds(_at(2022, 3, 15))
    year = Window(2021, None, None)
    assert year.holds(_at(2021, 1, 1)) and year.holds(_at(2022, 1, 10)) and not year.holds(_at(2020, 12, 31))


def test_a_month_without_a_year_holds_in_any_year():
    june = Window(None, 6, None)
    assert june.holds(_at(2019, 6, 2)) and june.holds(_at(2031, 6, 30))
    december = Window(None, 12, None)
    assert december.holds(_at(2024, 1, 5))  # early January tells of the December just gone
    assert not june.holds(_at(2023, 5, 31))


def test_a_day_that_does_not_exist_in_a_year_holds_nothing():
    leap = Window(None, 2, 29)
    assert leap.holds(_at(2024, 2, 29)) and not leap.holds(_at(2023, 3, 1))
    assert named_windows("on February 30") == (Window(None, 2, 30),)
    assert not Window(None, 2, 30).holds(_at(2023, 3, 1))
