"""A value that opens its clause, with only small words between it and its credential word, in any language
(``values_before._value_opening``, session 45): "Kotik2021 — это пароль". None of these phrasings is in a prose
set; each is found by the rules alone, the learned tagger held off."""

from __future__ import annotations

import pytest

from memory.guard import guard_redact
from tests.memory.guard.helpers import assert_found_by_the_rules_alone


@pytest.mark.parametrize(
    "text, secret",
    [
        ("Kotik2021 — это пароль от почты мамы.", "Kotik2021"),
        ("Kirschbaum2024 — das ist das Passwort fürs Büro-WLAN.", "Kirschbaum2024"),
        ("lavanda88 — esta é a senha do computador da loja.", "lavanda88"),
        ("Note to self: Pelican_409 — c'est le mot de passe du NAS.", "Pelican_409"),
        ("Zapamiętaj, Sosna77 — to hasło do routera.", "Sosna77"),
    ],
)
def test_a_value_before_small_words_and_its_word_is_redacted(text, secret):
    assert_found_by_the_rules_alone(text, secret)


@pytest.mark.parametrize(
    "text",
    [
        # a network named, then its password spoken of apart
        "Office_5G, la contraseña está en la etiqueta del router.",
        "Red: Casa_2G, y la clave te la paso por WhatsApp.",
        # an order about a password, a question, a number that is no value
        "Reset your password before Friday, please.",
        "¿Olvidaste tu contraseña? Escríbenos.",
        "Sprint 42 — the password policy changes next week.",
        # a word with a digit in the middle of a sentence, not opening it
        "Please restart server01 and the password vault after lunch.",
    ],
)
def test_talk_before_a_credential_word_is_left_alone(text):
    assert guard_redact(text)[0] == text


@pytest.mark.parametrize(
    "text, secret",
    [
        # digits that open their clause before a code's or a PIN's word, a link or a dash between (session 47)
        ("6604 ist der Code für den Fahrradkeller.", "6604"),
        ("2291 — это ПИН-код от новой карты.", "2291"),
        ("4471 is the PIN for the shed", "4471"),
    ],
)
def test_digits_before_a_code_word_are_redacted(text, secret):
    assert_found_by_the_rules_alone(text, secret)


@pytest.mark.parametrize(
    "text",
    [
        "02108 is the zip code for the office",
        "1500 is the code length limit",
        "2024 — the code freeze starts Monday",
        "Ticket 4471: the PIN reset form is broken",
    ],
)
def test_numbers_before_another_kind_of_code_are_left_alone(text):
    assert guard_redact(text)[0] == text
