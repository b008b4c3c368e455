"""Session 51: a passphrase typed as words joined by hyphens or underscores before its credential word, and a
lock's code after where the lock is ("Tresor im Büro: 19-04-33"). Sentences written for these tests, in no
bench set."""

from __future__ import annotations

import pytest

from memory.guard import guard_redact


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("fritule-i-kava je nova lozinka za wifi", "fritule-i-kava"),
        ("blue-falcon is the password for the guest wifi", "blue-falcon"),
        ("kanelbulle_med_kaffe är lösenordet till gäst-wifit", "kanelbulle_med_kaffe"),
        ("Tresor im Büro: 19-04-33", "19-04-33"),
        ("Kassaskåp på lagret: 11-04-62, vänster först.", "11-04-62"),
    ],
)
def test_joined_words_and_a_placed_locks_code_are_redacted(text, secret):
    stored, redactions = guard_redact(text)
    assert secret not in stored
    assert redactions


@pytest.mark.parametrize(
    "text",
    [
        "self-service is the password reset portal",  # a qualifier follows the credential word
        "follow-up is the password reset ticket",
        "e-mail is the password recovery channel",
        "the safe in the office is 2024 model",  # a year
        "the lockbox by the shed is 300 m away",  # a quantity
        "the padlock is 250 kg rated, the code lives in the vault",
    ],
)
def test_compounds_years_and_quantities_are_left_alone(text):
    assert guard_redact(text) == (text, ())
