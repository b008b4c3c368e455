"""The Webhooks pages (issue 21): what each role may do there, the deliveries page's queries whatever the
number of deliveries, and, end to end in headless Chromium with a real worker and a receiver on loopback,
an admin adding a webhook, a save delivered and verified with the secret the page showed once, and a
replay from the deliveries page. Screenshots: docs/console/webhooks.png, docs/console/webhook.png."""

from __future__ import annotations

import json
import os
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from playwright.sync_api import expect, sync_playwright
from standardwebhooks.webhooks import Webhook

from accounts.models import AuditEvent
from core.tenancy import tenant_context
from events.models import Event, WebhookAttempt, WebhookDelivery, WebhookEndpoint
from tests.conftest import build_world
from tests.console.test_browser import CHROMIUM, UI, shoot
from tests.live import running_web, running_worker, wait_for
from tests.memory.helpers import ctx


def _post(client: Any, url: str, data: dict[str, Any] | None = None) -> Any:
    return client.post(url, data or {})


def test_an_admin_adds_a_webhook_and_sees_its_secret_once(client, console):
    client.force_login(console.world.alice.user)
    page = _post(
        client,
        "/console/webhooks/add/",
        {"url": "https://crm.example.com/hook", "event_types": ["memory.created"], "description": "CRM"},
    )
    assert page.status_code == 200
    assert b"Copy it now: it is not shown again." in page.content
    assert b"whsec_" in page.content
    again = client.get("/console/webhooks/")
    assert b"whsec_" not in again.content and b"https://crm.example.com/hook" in again.content
    refused = _post(client, "/console/webhooks/add/", {"url": "ftp://example.com/x"})
    assert refused.status_code == 400
    assert (
        b"the webhook URL must be an http:// or https:// address of at most 2,000 characters"
        in refused.content
    )


def test_an_auditor_reads_the_webhooks_and_changes_nothing(client, console):
    with ctx(console.world):
        endpoint = WebhookEndpoint.objects.create(url="https://example.com/hook", secret_encrypted="x")
    client.force_login(console.world.bob.user)  # auditor of A
    assert b"https://example.com/hook" in client.get("/console/webhooks/").content
    for url in (
        "/console/webhooks/add/",
        f"/console/webhooks/{endpoint.pk}/toggle/",
        f"/console/webhooks/{endpoint.pk}/delete/",
    ):
        assert _post(client, url, {"url": "https://x.example.com/"}).status_code == 403
    with ctx(console.world):
        assert WebhookEndpoint.objects.get().active


def test_disable_enable_and_delete_are_audited_and_a_disabled_one_is_announced(client, console):
    with ctx(console.world):
        endpoint = WebhookEndpoint.objects.create(url="https://example.com/hook", secret_encrypted="x")
    client.force_login(console.world.alice.user)
    _post(client, f"/console/webhooks/{endpoint.pk}/toggle/")
    with ctx(console.world):
        assert not WebhookEndpoint.objects.get().active
        WebhookEndpoint.objects.update(disabled_reason="5 deliveries in a row failed")
    page = client.get("/console/webhooks/")
    assert b"was disabled on" in page.content and b"5 deliveries in a row failed" in page.content
    _post(client, f"/console/webhooks/{endpoint.pk}/toggle/", {"active": "on"})
    _post(client, f"/console/webhooks/{endpoint.pk}/delete/")
    with ctx(console.world):
        assert not WebhookEndpoint.objects.exists()
        actions = list(
            AuditEvent.objects.filter(action__startswith="webhook.")
            .order_by("id")
            .values_list("action", flat=True)
        )
    assert actions == ["webhook.update", "webhook.update", "webhook.delete"]


def test_the_deliveries_page_reads_the_same_queries_for_one_delivery_or_many(client, console):
    with ctx(console.world):
        endpoint = WebhookEndpoint.objects.create(url="https://example.com/hook", secret_encrypted="x")
    client.force_login(console.world.alice.user)

    def add(n: int) -> None:
        with ctx(console.world):
            for k in range(n):
                event = Event.objects.create(type="memory.created", subject=f"memory:{uuid.uuid4()}")
                delivery = WebhookDelivery.objects.create(endpoint=endpoint, event=event)
                WebhookAttempt.objects.create(delivery=delivery, status=500, error=f"try {k}")

    def count() -> int:
        client.get(f"/console/webhooks/{endpoint.pk}/")
        with CaptureQueriesContext(connection) as queries:
            response = client.get(f"/console/webhooks/{endpoint.pk}/")
        assert response.status_code == 200
        return len(queries)

    add(1)
    one = count()
    add(7)
    assert count() == one


# ------------------------------------------------------------------------------------------ browser


class _Receiver(BaseHTTPRequestHandler):
    received: list[tuple[dict[str, str], bytes]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        type(self).received.append(({k.lower(): v for k, v in self.headers.items()}, body))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def webhook_ui(django_db_setup: Any, django_db_blocker: Any) -> Iterator[tuple[UI, str]]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    env = {"MNEMOS_WEBHOOK_ALLOW_PRIVATE_NETWORKS": "true", "MNEMOS_WEBHOOK_RETRY_BASE_SECONDS": "0.5"}
    with django_db_blocker.unblock():
        world = build_world(suffix=f"-wh{uuid.uuid4().hex[:4]}")
        with running_web(env=env) as base, running_worker(env=env):
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
            try:
                with sync_playwright() as playwright:
                    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
                    yield (
                        UI(world=world, base=base, browser=browser),
                        f"http://127.0.0.1:{server.server_address[1]}/hook",
                    )
                    browser.close()
            finally:
                os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
                server.shutdown()


@pytest.mark.browser
@pytest.mark.live
def test_add_a_webhook_receive_a_signed_delivery_and_replay_it(webhook_ui: tuple[UI, str]) -> None:
    ui, receiver_url = webhook_ui
    page = ui.page(ui.world.alice)
    page.click("nav >> text=Webhooks")
    page.fill("input[name=url]", receiver_url)
    page.fill("input[name=description]", "CRM sync")
    page.check("input[value='memory.created']")
    page.get_by_role("button", name="Add webhook").click()
    secret = page.locator("#webhook-secret-value").inner_text().strip()
    assert secret.startswith("whsec_")
    shoot(page, "webhooks")
    status, saved = ui.call(
        ui.secret(ui.world.alice),
        "save_memory",
        {"summary": "Webhook check", "content": "The CRM learns of this save.", "entities": []},
    )
    assert status == 200, saved
    wait_for(lambda: _Receiver.received, timeout=60, what="the webhook delivery")
    headers, body = _Receiver.received[0]
    payload = Webhook(secret).verify(body, headers)
    assert payload["type"] == "memory.created" and payload["data"]["memory_id"] == saved["event_id"]
    page.get_by_role("link", name=receiver_url).click()
    expect(page.locator("#deliveries")).to_contain_text("delivered")
    page.get_by_role("button", name="Send again").click()
    wait_for(lambda: len(_Receiver.received) >= 2, timeout=60, what="the replay")
    assert _Receiver.received[1][0]["webhook-id"] == headers["webhook-id"]
    page.reload()
    expect(page.locator("#deliveries")).to_contain_text("replay")
    shoot(page, "webhook")
    with tenant_context(enterprise_id=ui.world.a.enterprise.pk, door="test"):
        assert json.loads(body)["data"]["memory_id"] == str(
            WebhookDelivery.objects.get().event.data["memory_id"]
        )
    page.context.close()
