"""Partner link pages: both owners act from their own console and see the same state."""

from __future__ import annotations

import pytest

from accounts.models import AuditEvent
from tests.console.test_pages import _door_queries
from tests.memory.helpers import ctx


def _as_b(client, world):
    """bob is an auditor of A and an admin of B: he opens B's console."""
    client.force_login(world.bob.user)
    assert client.post("/console/enterprises/", {"enterprise": str(world.b.enterprise.pk)}).status_code == 302


def _request(client, console, direction="provide"):
    world = console.world
    client.force_login(world.alice.user)
    response = client.post(
        "/console/partners/", {"partner": str(world.b.enterprise.pk), "direction": direction}
    )
    assert response.status_code == 302, response.content
    return response.url


def test_request_and_consent_from_both_sides(client, console):
    world = console.world
    client.force_login(world.alice.user)
    empty = client.get("/console/partners/").content.decode()
    assert "No partner links yet." in empty and str(world.a.enterprise.pk) in empty
    url = _request(client, console)
    mine = client.get(url).content.decode()
    assert "We provide to Enterprise globex" in mine and "pending" in mine
    assert "Waiting for consent at contract version 1 from us and the partner." in mine
    client.post(url, {"action": "consent"})
    after = client.get(url).content.decode()
    assert "Waiting for consent at contract version 1 from the partner." in after
    _as_b(client, world)
    theirs = client.get(url).content.decode()
    assert "We consume from Enterprise acme" in theirs
    assert "Waiting for consent at contract version 1 from us." in theirs
    client.post(url, {"action": "consent"})
    active = client.get(url).content.decode()
    assert "Active: our agents read what the provider exposes." in active
    client.force_login(world.alice.user)
    assert (
        "Active: the partner&#x27;s agents read what the provider exposes."
        in client.get(url).content.decode()
    )
    for slug in ("a", "b"):
        with ctx(world, slug):
            actions = set(
                AuditEvent.objects.filter(action__startswith="partner.link.").values_list("action", flat=True)
            )
        assert actions == {"partner.link.request", "partner.link.consent"}


def test_request_errors_in_place(client, console):
    world = console.world
    client.force_login(world.alice.user)
    unknown = client.post(
        "/console/partners/", {"partner": "6f1c1c55-8e6b-4f77-9d59-0c2f5b1f4d11", "direction": "provide"}
    )
    assert unknown.status_code == 404 and b"partner enterprise not found" in unknown.content
    same = client.post("/console/partners/", {"partner": str(world.a.enterprise.pk), "direction": "consume"})
    assert same.status_code == 400 and b"a link joins two different enterprises" in same.content
    bad = client.post("/console/partners/", {"partner": "acme", "direction": "provide"})
    assert bad.status_code == 400 and b"Enter a valid UUID." in bad.content


def test_roles_on_partner_pages(client, console):
    world = console.world
    url = _request(client, console)
    client.force_login(console.dave.user)
    seen = client.get(url)
    assert seen.status_code == 200 and b"Consent at contract version" not in seen.content
    assert b"Request link" not in client.get("/console/partners/").content
    assert client.post(url, {"action": "consent"}).status_code == 403
    assert (
        client.post(
            "/console/partners/", {"partner": str(world.b.enterprise.pk), "direction": "provide"}
        ).status_code
        == 403
    )
    client.force_login(world.bob.user)  # auditor of A
    assert client.post(url, {"action": "revoke"}).status_code == 403
    client.force_login(world.charlie.user)
    assert client.get(url).status_code == 404
    # globex's admin sees its own side; a link neither of B's is not found.
    _as_b(client, world)
    assert client.get(url).status_code == 200
    assert client.get("/console/partners/00000000-0000-0000-0000-000000000000/").status_code == 404


def test_exposure_aliases_and_the_lifecycle(client, console):
    world = console.world
    url = _request(client, console)
    client.post(
        url,
        {
            "action": "exposure",
            "projects": [str(world.a.project.pk)],
            "save_domains": "acme",
            "memory_ids": "",
        },
    )
    shown = client.get(url).content.decode()
    assert "Alpha (alpha)" in shown.split('id="exposure"', 1)[1].split("</dl>", 1)[0]
    assert 'hx-confirm="Revoke the link with' in shown  # revoking is final: the browser asks first
    refused = client.post(url, {"action": "alias_add", "home_name": "Dana", "partner_name": "D."})
    assert refused.status_code == 403 and b"only the consumer side may alias entities" in refused.content
    _as_b(client, world)
    client.post(url, {"action": "alias_add", "home_name": "Dana", "partner_name": "D. Smith"})
    assert "D. Smith → <strong>Dana</strong>" in client.get(url).content.decode()
    provider_only = client.post(url, {"action": "exposure", "projects": []})
    assert (
        provider_only.status_code == 403
        and b"only the provider side may set what the link exposes" in provider_only.content
    )
    client.post(url, {"action": "alias_remove", "home_name": "Dana", "partner_name": "D. Smith"})
    assert "No aliases." in client.get(url).content.decode()
    client.post(url, {"action": "consent"})
    client.force_login(world.alice.user)
    client.post(url, {"action": "consent"})
    client.post(url, {"action": "bump", "version": "2"})
    bumped = client.get(url).content.decode()
    assert "Waiting for consent at contract version 2 from us and the partner." in bumped
    client.post(url, {"action": "suspend"})
    assert "The link is suspended." in client.get(url).content.decode()
    client.post(url, {"action": "expiry", "expires": "2099-12-31"})
    assert "2100-01-01 00:00 UTC" in client.get(url).content.decode()
    client.post(url, {"action": "revoke"})
    gone = client.get(url).content.decode()
    assert "The link is revoked." in gone and "Resume</button>" not in gone
    again = client.post(url, {"action": "resume"})
    assert again.status_code == 400 and b"link" in again.content
    _as_b(client, world)
    assert "The link is revoked." in client.get(url).content.decode()
    assert client.post(url, {"action": "nonsense"}).status_code == 400


# role -> (status, queries beyond the door's on the list page, on a link's page)
PARTNER_PAGES = {"admin": (200, 2, 3), "member": (200, 2, 5), "auditor": (200, 2, 3), "outsider": (404, 0, 0)}


@pytest.mark.parametrize("role", list(PARTNER_PAGES))
def test_partner_pages_query_counts(client, console, django_assert_num_queries, role):
    url = _request(client, console)
    status, on_list, on_link = PARTNER_PAGES[role]
    client.force_login(console.person(role).user)
    door = _door_queries(client)
    for page, queries in (("/console/partners/", on_list), (url, on_link)):
        client.get(page)
        with django_assert_num_queries(door + queries):
            assert client.get(page).status_code == status


def test_htmx_swaps_the_link_page_in_place(client, console):
    """With htmx a change answers the link's page (no redirect); a refusal shows its error there."""
    world = console.world
    url = _request(client, console)
    page = client.get(url).content.decode()
    assert 'hx-boost="true" hx-target="#link-page" hx-select="#link-page"' in page
    done = client.post(url, {"action": "consent"}, HTTP_HX_REQUEST="true")
    text = done.content.decode()
    assert done.status_code == 200 and 'id="link-page"' in text
    assert "Waiting for consent at contract version 1 from the partner." in text
    refused = client.post(
        url, {"action": "alias_add", "home_name": "Dana", "partner_name": "D."}, HTTP_HX_REQUEST="true"
    )
    assert refused.status_code == 403 and 'id="link-page"' in refused.content.decode()
    assert 'id="action-error">only the consumer side may alias entities' in refused.content.decode()
    with ctx(world):
        assert AuditEvent.objects.filter(action="partner.link.consent").count() == 1
