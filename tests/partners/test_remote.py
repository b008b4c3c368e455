"""Two Mnemos deployments: the provider runs as a second server (own cluster, HTTPS on loopback).

The consumer side is this test process; its partner tools reach the provider deployment over HTTPS
with the per-link credential. The provider going down is then a real state: remote_org_unavailable.
"""

from __future__ import annotations

import json
import os
import shutil
import ssl
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import httpx
import pytest
import trustme
from django.test import override_settings

from core.errors import InvalidInput
from partners.crypto import credential_decrypt
from partners.models import PartnerLink
from partners.services.links import partner_link_consent
from partners.services.remote import partner_link_consume_remote, remote_url_clean
from tests.live import ROOT, free_port, stop_process, wait_for
from tests.memory.helpers import tool
from tests.partners.helpers import audits, in_org

pytestmark = pytest.mark.live


class Remote:
    def __init__(self, state: Path, port: int, consumer_org_id: str, link_id: str, ca: Path) -> None:
        self.state, self.port, self.consumer, self.link_id, self.ca = (
            state,
            port,
            consumer_org_id,
            link_id,
            ca,
        )
        self.url = f"https://127.0.0.1:{port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        log = (self.state / "server.log").open("ab")
        env = {k: v for k, v in os.environ.items() if k not in ("MNEMOS_PGDATA", "DJANGO_SETTINGS_MODULE")}
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.partners.remote_server",
                str(self.state),
                str(self.port),
                self.consumer,
                self.link_id,
            ],
            cwd=ROOT,
            env={
                **env,
                "PYTHONUNBUFFERED": "1",
                "MNEMOS_BROKER_DIR": str(self.state / "broker"),
                "MNEMOS_CELERY_QUEUE": "remote",
            },
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        context = ssl.create_default_context(cafile=str(self.ca))

        def answering() -> bool:
            assert self.process is not None
            if self.process.poll() is not None:
                raise AssertionError(
                    "the remote server exited:\n" + (self.state / "server.log").read_text()[-3000:]
                )
            try:
                httpx.get(f"{self.url}/v1/partners/serve", verify=context, timeout=2)
                return True
            except httpx.HTTPError:
                return False

        wait_for(answering, timeout=240, interval=0.5, what="the remote Mnemos server")

    def stop(self) -> None:
        if self.process is not None:
            stop_process(self.process)
            self.process = None

    @property
    def seed(self) -> dict[str, str]:
        return json.loads((self.state / "seed.json").read_text())


@pytest.fixture(scope="module")
def ca_and_state():
    state = Path(tempfile.mkdtemp(prefix="mnemos-remote-"))
    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1", "localhost")
    cert.private_key_pem.write_to_path(str(state / "key.pem"))
    cert.cert_chain_pems[0].write_to_path(str(state / "cert.pem"))
    ca.cert_pem.write_to_path(str(state / "ca.pem"))
    yield state
    shutil.rmtree(state, ignore_errors=True)


def test_remote_url_must_be_https():
    with pytest.raises(InvalidInput, match="a remote partner URL must be https://"):
        remote_url_clean("http://partner.example.com")
    assert remote_url_clean("https://partner.example.com/mnemos/") == "https://partner.example.com/mnemos"
    with override_settings(PARTNER_ALLOW_HTTP=True):
        assert remote_url_clean("http://127.0.0.1:9000") == "http://127.0.0.1:9000"


def test_two_deployments_link_read_and_survive_the_partner_going_down(client, world, alice, ca_and_state):
    state = ca_and_state
    link_id = str(uuid.uuid4())
    remote = Remote(state, free_port(), str(world.a.enterprise.pk), link_id, state / "ca.pem")
    remote.start()
    try:
        seed = remote.seed
        with in_org(world, "a"):
            row = partner_link_consume_remote(
                consumer_id=world.a.enterprise.pk,
                provider_org_id=seed["provider_id"],
                provider_name="Umbrella",
                link_id=link_id,
                url=remote.url,
                credential=seed["credential"],
            )
            # The credential is kept encrypted, never as is.
            assert seed["credential"] not in row.credential_encrypted
            assert credential_decrypt(row.credential_encrypted) == seed["credential"]
            me = {"actor": None, "enterprise_id": world.a.enterprise.pk, "link_id": link_id}
            partner_link_consent(version=1, **me)
            partner_link_consent(version=1, for_partner=True, **me)
        args = {"sentence": "What did Umbrella measure in the vaccine trial?", "link_id": link_id}
        with override_settings(PARTNER_CA_BUNDLE=str(state / "ca.pem")):
            body = tool(client, alice, "search_partner_memory", args).json()
            assert body["status"] == "ok", body
            assert [h["event_id"] for h in body["hits"]] == [seed["event_id"]]
            assert body["remote_org"] == seed["provider_id"]
            content = tool(
                client,
                alice,
                "get_partner_memory_content",
                {"event_id": seed["event_id"], "link_id": link_id},
            ).json()
            assert content["event"]["content"] == "The remote deployment's trial notes."
            listed = tool(client, alice, "list_partner_links").json()["links"][0]
            assert listed["usable"] is True and listed["blocked_reason"] is None

            remote.stop()
            down = tool(client, alice, "search_partner_memory", args).json()
            assert down["status"] == "error" and down["reason"] == down["error"] == "remote_org_unavailable"
            # list_partner_links is local: it answers while the partner is down, and says so.
            listed = tool(client, alice, "list_partner_links").json()["links"][0]
            assert listed["usable"] is False and listed["blocked_reason"] == "remote_org_unavailable"

            remote.start()
            back = tool(client, alice, "search_partner_memory", args).json()
            assert back["status"] == "ok" and back["count"] == 1
            listed = tool(client, alice, "list_partner_links").json()["links"][0]
            assert listed["usable"] is True

            # A wrong credential is refused by the provider deployment: this direction is closed.
            with in_org(world, "a"):
                from partners.crypto import credential_encrypt

                PartnerLink.objects.filter(link_id=link_id).update(
                    credential_encrypted=credential_encrypt("mnp_wrong")
                )
            refused = tool(client, alice, "search_partner_memory", args).json()
            assert refused["reason"] == "principal_not_active"
        # The consumer side audited every read through the link.
        reads = audits(world, "a", "partner.read")
        assert [e.details.get("remote") for e in reads] == [
            "answered",
            "answered",
            "unavailable",
            "answered",
            "answered",
        ]
    finally:
        remote.stop()
