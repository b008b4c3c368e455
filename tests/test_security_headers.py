"""Headers and cookies: HTTPS only where the deployment says it is served over HTTPS, and a
Content-Security-Policy that allows no inline code."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.test import Client, override_settings

from core.env import FORWARDED_PROTO_HTTPS, ONE_YEAR_SECONDS, TransportSecurity, transport_security

TRANSPORT_ENV = (
    "MNEMOS_BEHIND_HTTPS_PROXY",
    "MNEMOS_SECURE_COOKIES",
    "MNEMOS_HSTS_SECONDS",
    "MNEMOS_HSTS_INCLUDE_SUBDOMAINS",
    "MNEMOS_HSTS_PRELOAD",
)
PLAIN = TransportSecurity(
    secure_cookies=False,
    hsts_seconds=0,
    hsts_include_subdomains=False,
    hsts_preload=False,
    proxy_ssl_header=None,
)
POLICY = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self' data:",
    "object-src": "'none'",
    "base-uri": "'none'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
}


@pytest.fixture
def environ(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in TRANSPORT_ENV:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def directives(header: str) -> dict[str, str]:
    """The policy as {directive: sources} (django-csp writes the directives in no fixed order)."""
    parts = (part.strip().split(" ", 1) for part in header.split(";") if part.strip())
    return {name: sources for name, sources in parts}


# The settings: a pure reading of the environment.


def test_plain_http_keeps_cookies_and_hsts_off(environ):
    assert transport_security(public_url="http://127.0.0.1:8000") == PLAIN


@pytest.mark.parametrize("public_url", ["https://mnemos.example.com", "HTTPS://Mnemos.example.com/"])
def test_an_https_public_url_turns_secure_cookies_and_a_year_of_hsts_on(environ, public_url):
    assert transport_security(public_url=public_url) == TransportSecurity(
        secure_cookies=True,
        hsts_seconds=ONE_YEAR_SECONDS,
        hsts_include_subdomains=False,
        hsts_preload=False,
        proxy_ssl_header=None,
    )


def test_behind_an_https_proxy_trusts_its_header_and_turns_both_on(environ):
    environ.setenv("MNEMOS_BEHIND_HTTPS_PROXY", "true")
    security = transport_security(public_url="http://10.0.0.5:8000")
    assert security.proxy_ssl_header == ("HTTP_X_FORWARDED_PROTO", "https") == FORWARDED_PROTO_HTTPS
    assert security.secure_cookies is True
    assert security.hsts_seconds == 31_536_000


def test_the_operator_overrides_each_default(environ):
    environ.setenv("MNEMOS_SECURE_COOKIES", "false")
    environ.setenv("MNEMOS_HSTS_SECONDS", "3600")
    assert transport_security(public_url="https://mnemos.example.com") == TransportSecurity(
        secure_cookies=False,
        hsts_seconds=3600,
        hsts_include_subdomains=False,
        hsts_preload=False,
        proxy_ssl_header=None,
    )
    environ.setenv("MNEMOS_SECURE_COOKIES", "true")
    environ.setenv("MNEMOS_HSTS_SECONDS", "0")
    security = transport_security(public_url="http://127.0.0.1:8000")
    assert (security.secure_cookies, security.hsts_seconds) == (True, 0)
    environ.setenv("MNEMOS_HSTS_SECONDS", str(2 * ONE_YEAR_SECONDS))
    environ.setenv("MNEMOS_HSTS_INCLUDE_SUBDOMAINS", "yes")
    environ.setenv("MNEMOS_HSTS_PRELOAD", "on")
    security = transport_security(public_url="https://mnemos.example.com")
    assert (security.hsts_seconds, security.hsts_include_subdomains, security.hsts_preload) == (
        2 * ONE_YEAR_SECONDS,
        True,
        True,
    )


@pytest.mark.parametrize(
    "name, value, message",
    [
        ("MNEMOS_SECURE_COOKIES", "maybe", "MNEMOS_SECURE_COOKIES must be true or false, got 'maybe'"),
        ("MNEMOS_BEHIND_HTTPS_PROXY", "2", "MNEMOS_BEHIND_HTTPS_PROXY must be true or false, got '2'"),
        ("MNEMOS_HSTS_SECONDS", "a year", "MNEMOS_HSTS_SECONDS must be an integer, got 'a year'"),
        ("MNEMOS_HSTS_SECONDS", "-1", "MNEMOS_HSTS_SECONDS must be 0 or more"),
        (
            "MNEMOS_HSTS_PRELOAD",
            "true",
            "MNEMOS_HSTS_PRELOAD needs MNEMOS_HSTS_INCLUDE_SUBDOMAINS=true and MNEMOS_HSTS_SECONDS of "
            "31536000 or more (the preload list refuses less)",
        ),
    ],
)
def test_a_bad_value_stops_start_up(environ, name, value, message):
    environ.setenv(name, value)
    with pytest.raises(ImproperlyConfigured, match=f"^{re.escape(message)}$"):
        transport_security(public_url="https://mnemos.example.com")


def test_the_embedded_default_settings_are_plain_http():
    assert settings.PUBLIC_URL.startswith("http://")
    assert settings.SESSION_COOKIE_SECURE is False
    assert settings.CSRF_COOKIE_SECURE is False
    assert settings.SECURE_HSTS_SECONDS == 0
    assert settings.SECURE_PROXY_SSL_HEADER is None
    assert settings.SESSION_COOKIE_HTTPONLY is True
    assert settings.SESSION_COOKIE_SAMESITE == settings.CSRF_COOKIE_SAMESITE == "Lax"
    assert settings.X_FRAME_OPTIONS == "DENY"


# The responses.


def _sign_in(client: Client, person, **extra):
    return client.post(
        "/console/login/", {"username": person.user.username, "password": person.password}, **extra
    )


def test_over_http_cookies_are_not_secure_and_there_is_no_hsts(client, world):
    page = client.get("/console/login/")
    assert page.status_code == 200
    assert "Strict-Transport-Security" not in page.headers
    assert not page.cookies["csrftoken"]["secure"]
    signed_in = _sign_in(client, world.alice)
    assert signed_in.status_code == 302
    session = signed_in.cookies["sessionid"]
    assert not session["secure"]
    assert session["httponly"] is True
    assert session["samesite"] == "Lax"


@override_settings(SESSION_COOKIE_SECURE=True, CSRF_COOKIE_SECURE=True, SECURE_HSTS_SECONDS=ONE_YEAR_SECONDS)
def test_over_https_cookies_are_secure_and_hsts_is_sent(world):
    client = Client()  # its middleware is built under these settings
    page = client.get("/console/login/", secure=True)
    assert page.headers["Strict-Transport-Security"] == "max-age=31536000"
    assert page.cookies["csrftoken"]["secure"] is True
    signed_in = _sign_in(client, world.alice, secure=True)
    assert signed_in.status_code == 302
    assert signed_in.cookies["sessionid"]["secure"] is True
    assert signed_in.cookies["sessionid"]["httponly"] is True
    # HSTS is only ever sent on a secure request: a plain-http deployment never pins itself.
    assert "Strict-Transport-Security" not in client.get("/console/login/").headers


@override_settings(SECURE_HSTS_SECONDS=ONE_YEAR_SECONDS)
def test_x_forwarded_proto_counts_only_behind_a_declared_proxy(db):
    client = Client()
    forwarded = {"headers": {"X-Forwarded-Proto": "https"}}
    assert "Strict-Transport-Security" not in client.get("/console/login/", **forwarded).headers
    with override_settings(SECURE_PROXY_SSL_HEADER=FORWARDED_PROTO_HTTPS):
        assert client.get("/console/login/", **forwarded).headers["Strict-Transport-Security"] == (
            "max-age=31536000"
        )


def test_the_console_carries_the_policy_and_the_framing_and_sniffing_headers(client, world):
    page = client.get("/console/login/")
    assert page.status_code == 200
    assert directives(page.headers["Content-Security-Policy"]) == POLICY
    assert page.headers["X-Frame-Options"] == "DENY"
    assert page.headers["X-Content-Type-Options"] == "nosniff"
    assert page.headers["Referrer-Policy"] == "same-origin"
    client.force_login(world.alice.user)
    home = client.get("/console/", follow=True)
    assert home.status_code == 200
    assert directives(home.headers["Content-Security-Policy"]) == POLICY


def test_every_console_template_holds_no_inline_code():
    """The policy refuses inline <script>, <style>, style= and on*= handlers: the console uses none."""
    for path in (settings.BASE_DIR / "templates" / "console").glob("*.html"):
        text = path.read_text()
        assert not re.search(r"<script(?![^>]*\bsrc=)|<style|\sstyle=|\son[a-z]+=|hx-on", text), path.name


def test_the_api_docs_render_with_a_nonce_for_their_inline_code(client):
    page = client.get("/v1/docs/")
    assert page.status_code == 200
    policy = directives(page.headers["Content-Security-Policy"])
    nonce = re.fullmatch(r"'self' 'nonce-([A-Za-z0-9+/=]+)'", policy["script-src"])
    assert nonce is not None, policy
    assert policy["style-src"] == policy["script-src"]
    html = page.content.decode()
    assert html.count(f'nonce="{nonce.group(1)}"') == 2
    assert not re.search(r"<(script|style)>", html)
    assert client.get("/v1/schema/").status_code == 200


def test_the_admin_keeps_working_under_the_policy(client, world):
    login = client.get("/admin/login/")
    assert login.status_code == 200
    assert directives(login.headers["Content-Security-Policy"]) == POLICY
    client.force_login(world.bob.user)
    assert client.get("/admin/accounts/auditevent/").status_code == 200


def test_healthz_and_the_api_answer_as_before(client, world):
    health = client.get("/healthz")
    assert health.status_code in (200, 503)
    assert health.headers["Content-Type"] == "application/json"
    assert health.json()["checks"]["database"]["ok"] is True
    assert not health.cookies
    _, secret = world.alice.keys[world.a.enterprise.slug]
    whoami = client.get("/v1/whoami", headers={"Authorization": f"Bearer {secret}"})
    assert whoami.status_code == 200
    assert whoami.json()["member"] == world.alice.user.username
    assert not whoami.cookies
    assert "Strict-Transport-Security" not in whoami.headers
