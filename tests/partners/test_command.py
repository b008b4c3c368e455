"""manage.py partnerlink: operators set up a link, local or remote, and see both sides."""

from __future__ import annotations

import io
import re
import uuid

import pytest
from django.core.management import CommandError, call_command

from tests.memory.helpers import tool
from tests.partners.helpers import audits, link_row

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = io.StringIO()
    call_command("partnerlink", *args, stdout=out)
    return out.getvalue()


def test_an_operator_links_two_enterprises_of_this_deployment(client, world, alice):
    a, b = world.a.enterprise, world.b.enterprise
    out = run("request", "--enterprise", b.slug, "--provider", str(b.pk), "--consumer", str(a.pk))
    link_id = re.search(r"link ([0-9a-f-]{36}) requested", out).group(1)
    run("expose", "--enterprise", b.slug, "--link-id", link_id, "--project", "alpha")
    run("consent", "--enterprise", b.slug, "--link-id", link_id, "--version", "1")
    assert "active" in run("consent", "--enterprise", str(a.pk), "--link-id", link_id, "--version", "1")
    assert link_row(world, "b", link_id).exposure["projects"] == [str(world.b.project.pk)]
    listed = run("list", "--enterprise", a.slug)
    assert f"{link_id} consumer partner={b.pk} status=active usable=True" in listed
    assert tool(client, alice, "list_partner_links").json()["links"][0]["usable"] is True
    # Operator changes are audited on both sides, as the operator's.
    (consent_b, _) = audits(world, "b", "partner.link.consent")
    assert consent_b.details["actor"] == "operator" and consent_b.door == "command"
    assert "suspended" in run("suspend", "--enterprise", a.slug, "--link-id", link_id)


def test_remote_setup_and_refusals(world):
    a = world.a.enterprise
    out = run("provide", "--enterprise", a.slug, "--consumer-org", str(uuid.uuid4()), "--project", "alpha")
    credential = out.strip().splitlines()[-1]
    assert credential.startswith("mnp_")
    link_id = re.search(r"link ([0-9a-f-]{36}) provided", out).group(1)
    row = link_row(world, "a", link_id)
    assert (
        row.credential_digest and credential not in row.credential_digest and row.credential_encrypted == ""
    )
    with pytest.raises(CommandError, match="a remote partner URL must be https://"):
        run(
            "consume",
            "--enterprise",
            world.b.enterprise.slug,
            "--provider-org",
            str(a.pk),
            "--link-id",
            link_id,
            "--url",
            "http://insecure.example.com",
            "--credential",
            credential,
        )
    with pytest.raises(CommandError, match="no enterprise 'nope'"):
        run("list", "--enterprise", "nope")
    with pytest.raises(CommandError, match="partner link not found"):
        run("suspend", "--enterprise", world.b.enterprise.slug, "--link-id", link_id)
