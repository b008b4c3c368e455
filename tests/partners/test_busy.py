"""Busy, with two real calls at once: the first is held by a slow partner, the second answers busy.

The slow partner is a stand-in HTTP server (the one thing outside the system), so the first call
really is in flight, inside its transaction and holding the enterprise's partner lock.
"""

from __future__ import annotations

import json
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.db import connection
from django.test import override_settings

from core.dispatch import tool_dispatch
from core.tenancy import tenant_context
from partners.services.links import partner_link_consent
from partners.services.remote import partner_link_consume_remote
from tests.conftest import build_world

pytestmark = pytest.mark.live


class SlowPartner(BaseHTTPRequestHandler):
    arrived = threading.Event()
    release = threading.Event()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        SlowPartner.arrived.set()
        SlowPartner.release.wait(timeout=8)
        body = json.dumps({"status": "ok", "hits": []}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def test_a_second_call_while_one_is_in_flight_is_busy_without_running(django_db_setup, django_db_blocker):
    server = ThreadingHTTPServer(("127.0.0.1", 0), SlowPartner)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    link_id = uuid.uuid4()
    with django_db_blocker.unblock(), override_settings(PARTNER_ALLOW_HTTP=True):
        world = build_world(suffix=f"-busy{uuid.uuid4().hex[:6]}")
        a = world.a.enterprise
        with tenant_context(enterprise_id=a.pk, door="test"):
            partner_link_consume_remote(
                consumer_id=a.pk,
                provider_org_id=uuid.uuid4(),
                link_id=link_id,
                url=f"http://127.0.0.1:{server.server_address[1]}",
                credential="mnp_slow",
            )
            for partner in (False, True):
                partner_link_consent(
                    actor=None, enterprise_id=a.pk, link_id=link_id, version=1, for_partner=partner
                )
        secret = world.alice.keys[a.slug][1]
        args = {"sentence": "What has the partner recorded?", "link_id": str(link_id)}
        outcomes: dict[str, object] = {}

        def first() -> None:
            try:
                outcomes["first"] = tool_dispatch(
                    secret=secret, name="search_partner_memory", arguments=args, surface="rest"
                )
            finally:
                connection.close()

        worker = threading.Thread(target=first)
        worker.start()
        try:
            assert SlowPartner.arrived.wait(timeout=30), "the first call never reached the partner"
            second = tool_dispatch(
                secret=secret, name="search_partner_memory", arguments=args, surface="rest"
            )
            assert second.output is not None
            assert second.output["status"] == "error" and second.output["reason"] == "busy"
            # list_partner_links takes no lock: it answers while the partner call is in flight.
            listed = tool_dispatch(secret=secret, name="list_partner_links", arguments={}, surface="rest")
            assert listed.output is not None and listed.output["count"] == 1
            SlowPartner.release.set()
            worker.join(timeout=30)
            first_outcome = outcomes["first"]
            assert first_outcome.output is not None and first_outcome.output["status"] == "ok"  # type: ignore[attr-defined]
            # Once the first has answered, the lock is free again.
            again = tool_dispatch(secret=secret, name="search_partner_memory", arguments=args, surface="rest")
            assert again.output is not None and again.output["status"] == "ok"
        finally:
            SlowPartner.release.set()
            worker.join(timeout=30)
            server.shutdown()
            server.server_close()
