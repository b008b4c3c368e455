"""A secret found once is redacted wherever else the note writes it (``redaction._copies``): a rule reads one
copy in its context, and the note would leak the secret through the others. None of these phrasings is in a
prose set."""

from __future__ import annotations

import pytest

from memory.guard import guard_redact
from memory.guard.redaction import find_secrets, fingerprint


@pytest.mark.parametrize(
    "text, secret, copies",
    [
        ("marmalade is the password for the shed laptop, yes really, marmalade", "marmalade", 2),
        ("The gate code is 8812. If it beeps twice, punch 8812 again.", "8812", 2),
        (
            "Garage door code 5524 — if the keypad light is red, wait and try 5524 once more, then 5524.",
            "5524",
            3,
        ),
        ("wifi password: Kettle-Moss-42 (Kettle-Moss-42 on the 5 GHz one too)", "Kettle-Moss-42", 2),
    ],
)
def test_every_copy_of_a_found_secret_is_redacted(text, secret, copies):
    stored, redactions = guard_redact(text)
    assert secret not in stored
    assert len(redactions) == copies
    assert stored.count(f":{fingerprint(secret)}]") == copies


def test_a_copy_takes_the_rule_of_the_copy_a_rule_found():
    stored, _ = guard_redact("marmalade is the password for the shed laptop, yes really, marmalade")
    assert stored.count("[REDACTED:password-in-prose:") == 2


def test_a_copy_inside_a_longer_word_or_number_is_left_alone():
    text = "Door code 4417. Order 44170 ships Monday; invoice INV4417 and 4417b are paid."
    stored, _ = guard_redact(text)
    assert "Door code [REDACTED:" in stored
    assert "Order 44170 ships Monday; invoice INV4417 and 4417b are paid." in stored


def test_a_note_without_a_secret_is_untouched_whatever_it_repeats():
    text = "pumpkin soup, pumpkin pie, and the password reset is due Friday. pumpkin again."
    assert guard_redact(text) == (text, ())


def test_a_dump_of_many_passwords_is_read_once_for_copies():
    lines = [f"user{i} password: Zq{i:04d}!vRx{i * 7 % 1000:03d}" for i in range(2000)]
    text = "\n".join(lines + lines[:10])  # the first ten written twice
    spans = find_secrets(text)
    assert len(spans) == 2010
    assert "Zq0003!vRx021" not in guard_redact(text)[0]
