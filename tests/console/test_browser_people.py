"""End to end in headless Chromium: inviting a member who signs up through the link, deactivating one,
and tasks (the pattern and the server of tests/console/test_browser.py; screenshots in docs/console/)."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request

import pytest
from playwright.sync_api import expect

from accounts.models import Member
from core.tenancy import tenant_context
from tests.console import test_browser
from tests.console.test_browser import SHOTS, UI, shoot

pytestmark = [pytest.mark.browser, pytest.mark.live]

# The same server, browser and policy check as the console's other flows (module-scoped fixtures).
ui = test_browser.ui
no_csp_violation = test_browser.no_csp_violation


def _whoami(ui: UI, secret: str) -> tuple[int, dict[str, object]]:
    request = urllib.request.Request(f"{ui.base}/v1/whoami", headers={"Authorization": f"Bearer {secret}"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_invite_a_member_who_signs_up_through_the_link(ui: UI) -> None:
    page = ui.page(ui.world.alice)
    page.click("nav >> text=Members")
    expect(page.locator("h1")).to_have_text("Members")
    page.fill("#id_email", "erin@example.com")
    page.select_option("#id_org_role", "admin")
    page.get_by_label("Platform").check()
    page.get_by_role("button", name="Create invitation link").click()
    expect(page.locator("h2.ok")).to_have_text("Invitation created: copy the link now")
    link = page.locator("#invite-link").inner_text().strip()
    assert "/console/join/" in link
    shoot(page, "members")
    page.context.close()

    invitee = ui.page()  # a fresh browser context: nobody signed in
    invitee.goto(ui.base + "/console/join/" + link.split("/console/join/", 1)[1])
    expect(invitee.locator("h1")).to_have_text(f"Join {ui.world.a.enterprise.name}")
    invitee.fill("#id_username", "erin-ui")
    invitee.fill("#id_password", "a long pass phrase 7")
    invitee.fill("#id_password_again", "a long pass phrase 7")
    invitee.get_by_role("button", name="Sign up").click()
    invitee.wait_for_url(re.compile(r".*/console/$"))
    expect(invitee.locator("header")).to_contain_text("erin-ui")
    expect(invitee.locator("header")).to_contain_text("Admin")
    invitee.goto(ui.base + "/console/join/" + link.split("/console/join/", 1)[1])
    expect(invitee.locator("p").first).to_contain_text("This invitation link has already been used.")
    invitee.context.close()
    with tenant_context(enterprise_id=ui.world.a.enterprise.pk, door="test"):
        erin = Member.objects.get(user__username="erin-ui")
        assert erin.org_role == "admin" and [t.slug for t in erin.teams.all()] == ["platform"]


def test_deactivate_a_member_and_its_key_stops(ui: UI) -> None:
    secret = ui.secret(ui.world.bob)
    assert _whoami(ui, secret)[0] == 200
    page = ui.page(ui.world.alice)
    page.click("nav >> text=Members")
    page.locator("tr", has_text=ui.world.bob.user.username).get_by_role("link").first.click()
    page.get_by_role("button", name=f"Deactivate {ui.world.bob.user.username}").click()
    expect(page.locator("main")).to_contain_text("deactivated")
    status, body = _whoami(ui, secret)
    assert status == 401 and body["code"] == "member_deactivated"
    page.click("nav >> text=Teams")
    expect(page.locator("h1")).to_have_text("Teams")
    shoot(page, "teams")
    page.click("nav >> text=Members")
    page.locator("tr", has_text=ui.world.bob.user.username).get_by_role("link").first.click()
    page.get_by_role("button", name=f"Reactivate {ui.world.bob.user.username}").click()
    assert _whoami(ui, secret)[0] == 200
    page.context.close()


def test_create_a_task_and_edit_it_into_a_new_version(ui: UI) -> None:
    page = ui.page(ui.world.alice)
    page.click("nav >> text=Tasks")
    page.select_option("#id_project", label="alpha")
    page.fill("#id_name", "Release check")
    page.fill("#id_goal", "Check that every release passed its gates.")
    page.fill("#id_grants", "team ci-")
    page.get_by_role("button", name="Create task").click()
    expect(page.locator("h1")).to_have_text("Release check")
    page.fill("#id_grants", "team ci-\nenterprise release-")
    page.get_by_role("button", name="Save as a new version").click()
    expect(page.locator("tr.version")).to_have_count(2)
    page.click("nav >> text=Tasks")
    expect(page.locator("tbody")).to_contain_text("Release check")
    shoot(page, "tasks_admin")
    page.context.close()


def test_people_screenshots_exist() -> None:
    for name in ("members", "teams", "tasks_admin"):
        assert (SHOTS / f"{name}.png").stat().st_size > 5_000, name
