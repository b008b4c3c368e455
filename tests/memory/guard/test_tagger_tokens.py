"""What the learned tagger takes as one candidate (session 44): words joined by underscores ("zayka_lisa_2020")
are read as any value, their shape a feature beside their neighbours, no longer left out as a name in code; and a
full-width colon, bracket or quote ends a token as a space does ("仮パスワード「Fuji#Yama3776」を発行"). None of
these phrasings is in a prose set."""

from __future__ import annotations

import pytest

from memory.guard import guard_redact
from memory.guard.credential_model import candidates
from memory.guard.lexicon import _trim
from tests.memory.guard.helpers import assert_found_by_the_tagger_alone


@pytest.mark.parametrize(
    "text, secret",
    [
        ("Памятка для бабушки: пароль от роутера kotik_murzik_2019", "kotik_murzik_2019"),
        ("お問い合わせの件、仮パスワード「Sakura#Hana2024」を発行しました。", "Sakura#Hana2024"),
    ],
)
def test_a_joined_or_bracketed_password_is_found_by_the_tagger(text, secret):
    assert_found_by_the_tagger_alone(text, secret)


def test_a_full_width_bracket_ends_a_candidate():
    text = "仮パスワード「Sakura#Hana2024」を発行しました。"
    values = {text[slice(*_trim(text, *tokens[i]))] for i, tokens, _ in candidates(text)}
    assert "Sakura#Hana2024" in values


@pytest.mark.parametrize(
    "text",
    [
        "Set the password_reset_timeout to 3 days and login_not_required on the health view.",
        "The password field uses password_validators from settings; see auth_password_validators.",
        "Use login_required and password_change_done in the urls.",
        "The user_password column in the legacy table is hashed with bcrypt.",
        "pw reset flow: call send_reset_email then mark_token_used",
        "パスワード：（社内wikiを参照）",
    ],
)
def test_names_in_code_and_talk_in_brackets_stay(text):
    assert guard_redact(text) == (text, ())
