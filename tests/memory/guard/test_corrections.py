"""A secret said again after a correction (``corrections.corrected_values``), session 48: the second value is of
the first's kind (digits, or letters with digits or signs) and follows a correction's word within two lines.
Sentences written for these tests."""

from __future__ import annotations

import pytest

from memory.guard import guard_redact


@pytest.mark.parametrize(
    "text, secret",
    [
        (
            "Mo: the guest wifi is pear2019\nMo: wait no, I reset it on Monday, it's quincejam2024",
            "quincejam2024",
        ),
        ("locker combo is 12-40-31\noh no sorry, 12-31-40, I swapped them", "12-31-40"),
        ("Anna: koden till förrådet är 6610\nAnna: nej förlåt, 6601", "6601"),
        ("Der Tresor-Code ist 4471 — nein, falsch: 4417", "4417"),
    ],
)
def test_a_corrected_value_is_redacted(text: str, secret: str) -> None:
    stored = guard_redact(text)[0]
    assert secret not in stored, stored


@pytest.mark.parametrize(
    "text, kept",
    [
        # a correction about something else: a place's number, a time, a plain word
        ("the door code is 4471, no wait, the meeting is in room 2204 tomorrow", "2204"),
        ("the password is Tango2021!, sorry, the meeting is in room B12 now", "room B12"),
        ("wifi password is pear2019, no, the other network is for guests", "the other network is for guests"),
        ("gate code 5512, sorry, call me on 0161 496 0000 if it sticks", "0161 496 0000"),
        ("le code du portail est 5512, je ne sais pas s'il marche depuis 2023", "2023"),
    ],
)
def test_other_values_after_a_correction_stay(text: str, kept: str) -> None:
    stored = guard_redact(text)[0]
    assert kept in stored, stored


def test_a_correction_reads_the_corrections_words_once_a_note():
    # 5,000 found passwords and no correction's word: no value is read again (the words are found in one pass
    # before any value's kind is computed); 3,000 corrections in a note are each found
    many = "password Hunter22! " * 5000
    assert "Hunter22" not in guard_redact(many)[0]
    corrected = "the gate code is 4471, no wait, 4417. " * 300
    stored = guard_redact(corrected)[0]
    assert "4471" not in stored and "4417" not in stored
