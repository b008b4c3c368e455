"""A second Mnemos deployment for the remote partner tests: its own embedded cluster, HTTPS on loopback.

Run as a process by tests/partners/test_remote.py:

    python -m tests.partners.remote_server <state_dir> <port> <consumer_org_id> <link_id>

The first start bootstraps and migrates the cluster under <state_dir>/pg, makes the providing
enterprise with one enterprise-visible memory, and the provider row of the link (both consents
recorded by the operator, project alpha exposed); it writes <state_dir>/seed.json. Every start
then serves config.asgi under uvicorn with <state_dir>/cert.pem and key.pem until stopped.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def main() -> None:
    state, port, consumer_org_id, link_id = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
    os.environ["MNEMOS_PGDATA"] = str(state / "pg")
    os.environ["MNEMOS_THROWAWAY_DB"] = "0"
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    import django

    django.setup()
    seed = state / "seed.json"
    if not seed.exists():
        seed.write_text(json.dumps(_seed(consumer_org_id, link_id)))
    import uvicorn

    uvicorn.run(
        "config.asgi:application",
        host="127.0.0.1",
        port=port,
        log_level="warning",
        ssl_keyfile=str(state / "key.pem"),
        ssl_certfile=str(state / "cert.pem"),
    )


def _seed(consumer_org_id: str, link_id: str) -> dict[str, str]:
    from django.contrib.auth.models import User
    from django.core.management import call_command

    from accounts.services.enterprises import enterprise_create, member_add, project_create, team_create
    from accounts.services.keys import access_key_create
    from core.bootstrap import bootstrap_database
    from core.dispatch import tool_dispatch
    from core.tenancy import tenant_context
    from memory.models import Memory
    from partners.services.links import partner_link_consent, partner_link_exposure_set
    from partners.services.remote import partner_link_provide_remote

    bootstrap_database()
    call_command("migrate", verbosity=0)
    with tenant_context(enterprise_id=None, all_tenants=True, door="test"):
        enterprise = enterprise_create(slug="umbrella", name="Umbrella (remote)")
    with tenant_context(enterprise_id=enterprise.pk, door="test"):
        team = team_create(enterprise=enterprise, slug="research", name="Research")
        project = project_create(enterprise=enterprise, slug="alpha", name="Alpha", team=team)
        user = User.objects.create_user(username="umbrella-admin", password="pw-remote-admin")
        member = member_add(
            enterprise=enterprise, user=user, org_role="admin", teams=[team], main_project=project
        )
        _, secret = access_key_create(member=member, project=project, label="remote seed")
    saved = tool_dispatch(
        secret=secret,
        name="save_memory",
        arguments={
            "summary": "Umbrella measured the vaccine trial on Kubernetes",
            "content": "The remote deployment's trial notes.",
            "entities": [{"name": "K8s", "type": "system"}],
        },
        surface="rest",
    )
    assert saved.output is not None, saved.error
    event_id = str(saved.output["event_id"])
    with tenant_context(enterprise_id=enterprise.pk, door="test"):
        Memory.objects.filter(pk=event_id).update(visibility="enterprise")
    link, credential = partner_link_provide_remote(
        provider_id=enterprise.pk, consumer_org_id=consumer_org_id, consumer_name="Acme", link_id=link_id
    )
    with tenant_context(enterprise_id=enterprise.pk, door="command"):
        me = {"actor": None, "enterprise_id": enterprise.pk, "link_id": link.link_id}
        partner_link_consent(version=1, **me)  # type: ignore[arg-type]
        partner_link_consent(version=1, for_partner=True, **me)  # type: ignore[arg-type]
        partner_link_exposure_set(projects=["alpha"], **me)  # type: ignore[arg-type]
    return {"credential": credential, "provider_id": str(enterprise.pk), "event_id": event_id}


if __name__ == "__main__":
    main()
