"""A password that a remark on how to type it follows (``remarks.spelled_values``, ``data/spelling.toml``),
session 47. None of these phrasings is in a prose set; each is found by the rules alone, the learned tagger
held off."""

from __future__ import annotations

import pytest

from memory.guard import guard_redact
from tests.memory.guard.helpers import assert_found_by_the_rules_alone


@pytest.mark.parametrize(
    "text, secret",
    [
        ("The guest wifi at the cabin is huckleberry, all lowercase.", "huckleberry"),
        ("Password for the shared printer is blue moon river, no caps", "blue moon river"),
        ("wifi = pannenkoek (alles klein)", "pannenkoek"),
        ("La clave del wifi del taller es membrillo, todo en minúsculas.", "membrillo"),
        ("A senha do portátil da loja é castanha assada, sem acento.", "castanha assada"),
        ("Кодът на сейфа е — nevermind; пароль от роутера — подсолнух, маленькими буквами", "подсолнух"),
        ("הסיסמה של הנתב היא תפוחזהב, בלי רווח", "תפוחזהב"),
        # after a quoted value, a space is enough
        ("Le code du wifi c'est « mirabelle » sans accent", "mirabelle"),
        # one word and a space before the remark (session 48)
        ("pwd for the shared tablet is cloudberry all lowercase, Dad set it", "cloudberry"),
    ],
)
def test_a_value_a_spelling_remark_follows_is_redacted(text, secret):
    assert_found_by_the_rules_alone(text, secret)


@pytest.mark.parametrize(
    "text",
    [
        "The password policy is simple, all lowercase letters are fine",
        "The password is the one on the sticker, no spaces",
        "Passwords are case sensitive, no spaces allowed",
        "the login is jsmith, all lowercase",  # an account's name
        "Usernames are first.last, all lowercase, no spaces",
        "the password is usually all lowercase",
        "the password is stored in lowercase",
        "the password is simple all lowercase letters",
    ],
)
def test_talk_before_a_spelling_remark_is_left_alone(text):
    assert guard_redact(text)[0] == text


@pytest.mark.parametrize(
    "text",
    [
        "the password is huckleberry, all lowercase, no spaces",
        "wifi = pannenkoek (alles klein) en zonder spaties",
        "all lowercase lowercase alllowercase all lowercase_x",
        '{"api_key": "x", "password": "", "note": "all lowercase"}\n' * 50,
    ],
)
def test_the_remarks_automaton_finds_what_the_regex_finds(text):
    # remarks._remark_spans reads a note in one Aho-Corasick pass (a 100 kB note full of password words took
    # 65 ms with the regex of every language's remarks); leftmost, longest and whole words, as the regex
    from memory.guard.lexicon import _lower
    from memory.guard.remarks import _remark_spans, _remarks

    low = _lower(text)
    assert _remark_spans(low) == [m.span() for m in _remarks().finditer(low)]


@pytest.mark.parametrize(
    "text, secret",
    [
        ("For the shop iPad it's just marigold, all lowercase.", "marigold"),
        ("Disney+ : wolfberry (all lowercase).", "wolfberry"),
        ("Front desk tablet: it's juniperhill, lower case.", "juniperhill"),
    ],
)
def test_a_devices_or_services_value_a_remark_follows_is_redacted(text, secret):
    # session 50: a device or a service (the tagger's things) names what the value opens
    assert_found_by_the_rules_alone(text, secret)


@pytest.mark.parametrize(
    "text",
    [
        "the login for the supplier portal is jsmith, all lowercase",  # an account
        "The Netflix profile is kids, all lowercase",  # a name of something else
        "The laptop's hostname is devbox, all lowercase",
        "Our router is a Fritzbox, no caps",  # an article's noun
    ],
)
def test_a_devices_other_names_a_remark_follows_are_left_alone(text):
    assert guard_redact(text)[0] == text
