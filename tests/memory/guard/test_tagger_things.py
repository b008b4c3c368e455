"""What a password opens, named with no credential word ("Netflix: bluejay4471"): the learned tagger's anchors
(``[thing]`` of data/credential_words.toml, session 43). None of these phrasings is in a prose set."""

from __future__ import annotations

import pytest

from memory.guard import guard_redact
from memory.guard.credential_model import candidates
from tests.memory.guard.helpers import assert_found_by_the_tagger_alone


@pytest.mark.parametrize(
    "text, secret",
    [
        ("Spotify: Marigold-Lane-77", "Marigold-Lane-77"),
        ("iCloud → Harbor.Light.2019", "Harbor.Light.2019"),
        ("Grafana on the lab box takes Tundra-Fox-48", "Tundra-Fox-48"),
        ("Xbox: Kelp_Forest_33 for the kids' profile", "Kelp_Forest_33"),
        ("PayPal nowadays: Copper.Kettle.88", "Copper.Kettle.88"),
    ],
)
def test_a_password_after_what_it_opens_is_found_by_the_tagger(text, secret):
    assert_found_by_the_tagger_alone(text, secret)  # no phrasing rule reads a service's name
    assert {kind for _, _, (_, _, kind) in candidates(text)} == {"thing"}


@pytest.mark.parametrize(
    "text",
    [
        "Netflix: 3 episodes left of season 2",
        "the router is on the second shelf, model AX3000",
        "printer 4 is out of toner again",
        "Server 12 rebooted at 14:05 after the patch",
        "PayPal fee was 3.4% on the invoice",
        "The NAS has 4 bays and 2x8TB drives",
        "Grafana v10.2.3 dashboards migrated",
        "Zoom meeting moved to 15:30, room B2",
        "Xbox Series X on sale for 449 EUR",
        "Jira ticket PROJ-1432 covers the kiosk bug",
        "The database holds 12M rows since 2023",
        "the new build is safe: 2024 tests passed",  # a lock's word and a count after it
    ],
)
def test_ordinary_notes_about_services_and_machines_are_left_alone(text):
    assert guard_redact(text) == (text, ())


def test_a_credential_word_in_reach_is_read_before_a_thing():
    """The tagger sees the nearest phrase only: a thing stands in for none where a password's word is near
    ("the password for the router: X" is read after "password"), and the rules never read a thing."""
    text = "the password for the router: Xk9#mm22"
    assert {kind for _, _, (_, _, kind) in candidates(text)} == {"credential"}
    stored, redactions = guard_redact(text)
    assert "Xk9#mm22" not in stored and [r.rule for r in redactions] == ["password-in-prose"]
