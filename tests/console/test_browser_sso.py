"""End to end in headless Chromium: single sign-on through a real OpenID provider (django-oauth-toolkit, in
its own process on loopback: tests/sso_provider/). An admin sets it up on the console's Single sign-on page;
a person of an allowed domain signs in there and lands in the console as a member of A with the default
role and the team its IdP group maps to; a person of another domain does not get in. Screenshots
docs/console/sso.png and docs/console/sso_login.png."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from accounts.models import Member
from core.tenancy import tenant_context
from tests.console import test_browser
from tests.console.test_browser import UI, shoot
from tests.live import ROOT, free_port, stop_process, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.live]

ui = test_browser.ui
no_csp_violation = test_browser.no_csp_violation

PASSWORD = "idp pass phrase 7"


@dataclass
class IdP:
    issuer: str
    client_id: str
    secret: str


@pytest.fixture(scope="module")
def idp(ui: UI) -> Iterator[IdP]:
    """The test identity provider, its client registered with the Mnemos test server's callback."""
    port = free_port()
    seed = {
        "clients": [
            {
                "client_id": "mnemos-a",
                "secret": "client-secret-a",
                "redirect_uri": f"{ui.base}/console/sso/callback/",
            }
        ],
        "users": [
            {"username": "ada", "password": PASSWORD, "email": "ada@a.example", "groups": ["platform-eng"]},
            {
                "username": "eve",
                "password": PASSWORD,
                "email": "eve@evil.example",
                "groups": ["platform-eng"],
            },
        ],
    }
    seed_file = Path(tempfile.mkdtemp(prefix="mnemos-idp-seed-")) / "seed.json"
    seed_file.write_text(json.dumps(seed))
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.sso_provider.serve", str(port), str(seed_file)],
        cwd=ROOT,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    issuer = f"http://127.0.0.1:{port}/o"

    def answering() -> bool:
        if process.poll() is not None:
            raise AssertionError("the test identity provider exited during start-up")
        try:
            urllib.request.urlopen(f"{issuer}/.well-known/openid-configuration", timeout=2).close()
            return True
        except OSError:
            return False

    try:
        wait_for(answering, timeout=60, what="the test identity provider")
        yield IdP(issuer=issuer, client_id="mnemos-a", secret="client-secret-a")
    finally:
        stop_process(process)


def _sign_in_through_the_idp(ui: UI, *, username: str) -> Page:
    page = ui.page()
    page.goto(f"{ui.base}/console/login/")
    expect(page.locator("#sso h2")).to_have_text("Sign in with your company's identity provider")
    page.fill("#id_enterprise", ui.world.a.enterprise.slug)
    if username == "ada":
        shoot(page, "sso_login")
    page.get_by_role("button", name="Continue with single sign-on").click()
    page.get_by_role("link", name="Continue to your identity provider").click()
    expect(page.locator("h1")).to_have_text("Example Corp identity provider")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name="Sign in to Example Corp").click()
    page.locator("input[name=allow]").click()  # the provider's consent
    return page


def test_sso_set_up_then_a_member_signs_in_just_in_time(ui: UI, idp: IdP) -> None:
    admin = ui.page(ui.world.alice)
    admin.goto(f"{ui.base}/console/sso/")
    expect(admin.locator("h1")).to_have_text("Single sign-on")
    admin.fill("#id_issuer", idp.issuer)
    admin.fill("#id_client_id", idp.client_id)
    admin.fill("#id_client_secret", idp.secret)
    admin.fill("#id_allowed_domains", "a.example")
    admin.select_option("#id_default_org_role", "member")
    admin.fill("#id_group_map", "platform-eng = platform")
    admin.get_by_role("button", name="Save").click()
    expect(admin.locator("#sso-state")).to_contain_text(idp.issuer)
    expect(admin.locator("#sso-state")).to_contain_text("platform-eng")
    assert idp.secret not in admin.content()
    shoot(admin, "sso")
    admin.context.close()

    page = _sign_in_through_the_idp(ui, username="ada")
    page.wait_for_url(re.compile(r".*/console/$"))
    expect(page.locator("header")).to_contain_text("ada@a.example")
    expect(page.locator("header")).to_contain_text(ui.world.a.enterprise.name)
    expect(page.locator("header")).to_contain_text("Member")
    page.context.close()
    with tenant_context(enterprise_id=ui.world.a.enterprise.pk, door="test"):
        ada = Member.objects.get(user__email="ada@a.example")
        assert ada.org_role == "member" and [t.slug for t in ada.teams.all()] == ["platform"]


def test_a_person_of_another_domain_does_not_get_in(ui: UI, idp: IdP) -> None:
    page = _sign_in_through_the_idp(ui, username="eve")
    expect(page.locator("h1")).to_have_text("Single sign-on refused")
    expect(page.locator("main")).to_contain_text(
        "E-mail domain 'evil.example' may not sign in to this enterprise."
    )
    page.goto(f"{ui.base}/console/")
    page.wait_for_url(re.compile(r".*/console/login/.*"))
    page.context.close()
    with tenant_context(enterprise_id=ui.world.a.enterprise.pk, door="test"):
        assert not Member.objects.filter(user__email="eve@evil.example").exists()
