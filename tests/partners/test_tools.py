"""Partner tools over REST: contract fields, exposure, provided links, busy, audit on both sides."""

from __future__ import annotations

import uuid
from collections import Counter
from datetime import timedelta

import psycopg
import pytest
from django.conf import settings
from django.utils import timezone

from accounts.models import AuditEvent
from memory.models import Memory
from partners.services.links import (
    partner_link_expiry_set,
    partner_link_exposure_set,
    partner_link_principal_set,
    partner_link_suspend,
)
from tests.memory.helpers import save_event, tool
from tests.partners.helpers import active_link, admin_member, audits, in_org, provider_event

pytestmark = pytest.mark.django_db

LINK_FIELDS = {
    "link_id",
    "partner_org_id",
    "status",
    "usable",
    "blocked_reason",
    "contract_version",
    "reconsent",
    "expires_at",
    "created_at",
}


def test_list_partner_links_is_an_honest_empty(client, world, alice):
    body = tool(client, alice, "list_partner_links").json()
    assert body == {"status": "ok", "count": 0, "provided_link_count": 0, "links": []}


def test_list_partner_links_names_the_contract_fields(client, world, alice, link):
    body = tool(client, alice, "list_partner_links").json()
    assert body["status"] == "ok" and body["count"] == 1 and body["provided_link_count"] == 0
    (entry,) = body["links"]
    assert set(entry) == LINK_FIELDS
    assert entry["link_id"] == str(link) and entry["partner_org_id"] == str(world.b.enterprise.pk)
    assert entry["status"] == "active" and entry["usable"] is True and entry["blocked_reason"] is None
    assert entry["contract_version"] == 1 and entry["reconsent"] == {"mine": False, "partner": False}
    assert entry["expires_at"] is None


def test_the_provider_only_counts_its_provided_links_and_reading_through_one_is_refused(client, world, link):
    bob_b = world.bob.keys[world.b.enterprise.slug][1]
    body = tool(client, bob_b, "list_partner_links").json()
    assert body == {"status": "ok", "count": 0, "provided_link_count": 1, "links": []}
    refused = tool(
        client, bob_b, "search_partner_memory", {"sentence": "What is there?", "link_id": str(link)}
    ).json()
    assert refused["status"] == "error" and refused["reason"] == refused["error"] == "principal_not_active"
    assert "provides this link" in refused["detail"]
    assert set(refused) == {"status", "error", "reason", "detail"}


def test_search_returns_the_seed_hit_fields_and_audits_both_sides(client, world, alice, link):
    event = provider_event(
        client, world, "Globex moved staging deploys to Kubernetes", "Staging now runs on k8s."
    )
    body = tool(
        client,
        alice,
        "search_partner_memory",
        {"sentence": "Where do staging deploys run?", "link_id": str(link)},
    ).json()
    assert (
        body["status"] == "ok"
        and body["link_id"] == str(link)
        and body["remote_org"] == str(world.b.enterprise.pk)
    )
    assert body["count"] == 1
    (hit,) = body["hits"]
    assert set(hit) == {"event_id", "domain", "summary", "timestamp", "distance", "link_id"}
    assert hit["event_id"] == event and hit["domain"] == "globex" and hit["link_id"] == str(link)
    (served,) = audits(world, "b", "partner.serve")
    assert served.details["read_ids"] == [event] and served.details["consumer_org"] == str(
        world.a.enterprise.pk
    )
    (read,) = audits(world, "a", "partner.read")
    assert read.details["ok"] is True and read.details["read_ids"] == [event]
    calls = [e for e in audits(world, "a", "tool.call") if e.details["tool"] == "search_partner_memory"]
    assert calls[0].details["read_ids"] == [event]


def test_a_partner_read_writes_nothing_but_the_audit(client, world, alice, link):
    provider_event(client, world, "Globex staging runs on Kubernetes", "k8s everywhere")
    with in_org(world, "a"):
        before_a = (Memory.objects.count(), AuditEvent.objects.count())
    with in_org(world, "b"):
        before_b = (Memory.objects.count(), AuditEvent.objects.count())
    tool(
        client, alice, "search_partner_memory", {"sentence": "Where does staging run?", "link_id": str(link)}
    )
    with in_org(world, "a"):
        assert (Memory.objects.count(), AuditEvent.objects.count()) == (before_a[0], before_a[1] + 2)
    with in_org(world, "b"):
        assert (Memory.objects.count(), AuditEvent.objects.count()) == (before_b[0], before_b[1] + 1)


def test_a_partner_never_sees_outside_the_exposure(client, world, alice, link):
    shared = provider_event(client, world, "Globex shared roadmap for Kubernetes", "roadmap k8s")
    project_only = provider_event(
        client, world, "Globex private Kubernetes notes", "private k8s", visibility="project"
    )
    forgotten = provider_event(client, world, "Globex forgotten Kubernetes plan", "forgotten k8s")
    bob_b = world.bob.keys[world.b.enterprise.slug][1]
    assert tool(client, bob_b, "forget", {"id": forgotten}).status_code == 200
    # Another project of B, enterprise-visible but not exposed.
    beta = save_event(client, bob_b, "Globex beta Kubernetes cluster", "beta k8s")
    with in_org(world, "b"):
        Memory.objects.filter(pk=beta).update(visibility="enterprise", project=world.b.other_project)
    sentence = {"sentence": "What does Globex know about Kubernetes?", "link_id": str(link), "top_n": 50}
    ids = {h["event_id"] for h in tool(client, alice, "search_partner_memory", sentence).json()["hits"]}
    assert ids == {shared}
    for hidden in (project_only, forgotten, beta):
        body = tool(
            client, alice, "get_partner_memory_content", {"event_id": hidden, "link_id": str(link)}
        ).json()
        assert body["reason"] == "event_not_found"
    # Explicitly shared through the link: the project-visible one opens.
    with in_org(world, "b"):
        partner_link_exposure_set(
            actor=admin_member(world, "b"), link_id=link, projects=["alpha"], memory_ids=[project_only]
        )
    ids = {h["event_id"] for h in tool(client, alice, "search_partner_memory", sentence).json()["hits"]}
    assert ids == {shared, project_only}
    # By save domain instead of project.
    with in_org(world, "b"):
        type(world.b.other_project).objects.filter(pk=world.b.other_project.pk).update(save_domain="infra")
        partner_link_exposure_set(actor=admin_member(world, "b"), link_id=link, save_domains=["infra"])
    body = tool(client, alice, "search_partner_memory", {**sentence, "domain": "infra"}).json()
    assert [h["event_id"] for h in body["hits"]] == [beta] and body["hits"][0]["domain"] == "infra"


def test_get_partner_memory_content_opens_a_hit(client, world, alice, link):
    event = provider_event(
        client, world, "Globex release train", "Every second Tuesday.", entities=["Release Train"]
    )
    body = tool(client, alice, "get_partner_memory_content", {"event_id": event, "link_id": str(link)}).json()
    assert body["status"] == "ok"
    assert body["event"]["content"] == "Every second Tuesday." and body["event"]["entities"] == [
        "Release Train"
    ]


def test_blocked_links_answer_with_their_reason(client, world, alice, link):
    args = {"sentence": "What is there?", "link_id": str(link)}
    with in_org(world, "b"):
        partner_link_expiry_set(
            actor=admin_member(world, "b"), link_id=link, expires_at=timezone.now() - timedelta(minutes=1)
        )
    assert tool(client, alice, "search_partner_memory", args).json()["reason"] == "link_expired"
    with in_org(world, "b"):
        partner_link_expiry_set(actor=admin_member(world, "b"), link_id=link, expires_at=None)
        partner_link_principal_set(actor=admin_member(world, "b"), link_id=link, active=False)
    assert tool(client, alice, "search_partner_memory", args).json()["reason"] == "principal_not_active"
    with in_org(world, "b"):
        partner_link_principal_set(actor=admin_member(world, "b"), link_id=link, active=True)
        partner_link_suspend(actor=admin_member(world, "b"), link_id=link)
    body = tool(client, alice, "search_partner_memory", args).json()
    assert body == {
        "status": "error",
        "error": "link_not_active",
        "reason": "link_not_active",
        "detail": "the link is suspended; its owners manage it in the console",
    }
    listed = tool(client, alice, "list_partner_links").json()["links"][0]
    assert listed["usable"] is False and listed["blocked_reason"] == "link_not_active"


def test_unknown_links_and_other_tenants(client, world, alice, link):
    body = tool(client, alice, "search_partner_memory", {"sentence": "x y", "link_id": "not-a-link"}).json()
    assert body["reason"] == "link_not_found"
    from tests.conftest import add_person, build_tenant

    c = build_tenant("initech")
    carol = add_person("carol", [(c, "admin")])
    secret = carol.keys["initech"][1]
    body = tool(client, secret, "search_partner_memory", {"sentence": "x y", "link_id": str(link)}).json()
    assert body["reason"] == "no_links" and body["status"] == "error"
    assert tool(client, secret, "list_partner_links").json()["count"] == 0
    # charlie has no membership anywhere, so no key: the door answers 401.
    assert tool(client, "mnm_charlie_has_none", "list_partner_links").status_code == 401


def test_a_key_without_the_partner_scope_is_forbidden(client, world, link):
    from accounts.services.keys import access_key_create

    with in_org(world, "a"):
        _, secret = access_key_create(
            member=admin_member(world, "a"), project=world.a.project, scopes=["memory:read"]
        )
    response = tool(client, secret, "search_partner_memory", {"sentence": "x y", "link_id": str(link)})
    assert response.status_code == 403
    assert response.json()["error"] == "this access key lacks the 'partners:read' scope"


def test_bad_input_gets_the_exact_text(client, world, alice, link):
    response = tool(client, alice, "search_partner_memory", {"sentence": " ", "link_id": str(link)})
    assert response.status_code == 422 and response.json()["error"] == "sentence must not be empty"
    response = tool(client, alice, "search_partner_memory", {"link_id": str(link)})
    assert response.status_code == 422 and response.json()["error"] == "sentence: Field required"


def _app_connection():
    conf = settings.DATABASES["default"]
    return psycopg.connect(
        dbname=conf["NAME"],
        user=conf["USER"],
        host=conf["HOST"],
        port=conf["PORT"],
        password=conf.get("PASSWORD") or None,
        autocommit=True,
    )


def test_a_second_call_while_one_is_in_flight_is_busy(client, world, alice, link):
    args = {"sentence": "What is there?", "link_id": str(link)}
    with _app_connection() as other:
        other.execute("SELECT pg_advisory_lock(hashtext(%s))", [f"partner-call:{world.a.enterprise.pk}"])
        body = tool(client, alice, "search_partner_memory", args).json()
        assert body["status"] == "error" and body["reason"] == "busy"
        # Another enterprise is not held up by it.
        bob_b = world.bob.keys[world.b.enterprise.slug][1]
        assert tool(client, bob_b, "search_partner_memory", args).json()["reason"] == "principal_not_active"
        other.execute("SELECT pg_advisory_unlock(hashtext(%s))", [f"partner-call:{world.a.enterprise.pk}"])
    assert tool(client, alice, "search_partner_memory", args).json()["status"] == "ok"
    # A busy call did not run: nothing was served.
    assert len(audits(world, "b", "partner.serve")) == 1


def _queries(client, secret, name, args=None) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        assert tool(client, secret, name, args).status_code == 200
    return len(captured.captured_queries)


LIST_QUERIES = 15  # the tool door's own queries included; locked so an N+1 is a red build


def test_list_partner_links_query_count_does_not_grow_with_links(client, world, alice, link):
    from partners.services.remote import partner_link_consume_remote
    from tests.conftest import build_tenant

    tool(client, alice, "list_partner_links")  # warm: first-call lookups Django caches
    assert _queries(client, alice, "list_partner_links") == LIST_QUERIES
    # A link the other way (provided: counted, not listed) and remote links: one more query for all
    # the remote ones together (their last call's outcome, from the audit).
    active_link(world, provider="a", consumer="b")
    far = build_tenant("faraway")
    for _ in range(2):
        with in_org(world, "a"):
            partner_link_consume_remote(
                consumer_id=world.a.enterprise.pk,
                provider_org_id=far.enterprise.pk,
                link_id=uuid.uuid4(),
                url="https://partner.example.com",
                credential="mnp_x",
            )
        body = tool(client, alice, "list_partner_links").json()
        assert body["provided_link_count"] == 1
        assert _queries(client, alice, "list_partner_links") == LIST_QUERIES + 1
    assert body["count"] == 3


def _args(name: str, link_id: str) -> dict[str, object]:
    arguments: dict[str, dict[str, object]] = {
        "search_partner_memory": {"sentence": "What is there?", "link_id": link_id},
        "get_partner_memory_content": {"event_id": str(uuid.uuid4()), "link_id": link_id},
        "find_partner_memory_connections": {"sentence": "What is there?", "link_id": link_id},
        "query_partner_memory_graph": {
            "link_id": link_id,
            "query": "START a = events(text: $q) RETURN a",
            "params": {"q": "x"},
        },
    }
    return arguments[name]


@pytest.mark.parametrize(
    "name",
    [
        "search_partner_memory",
        "get_partner_memory_content",
        "find_partner_memory_connections",
        "query_partner_memory_graph",
    ],
)
def test_another_tenants_link_is_exactly_as_missing_as_no_link(client, world, link, name):
    from tests.conftest import add_person, build_tenant

    c = build_tenant("initech")
    carol = add_person("carol", [(c, "admin")])
    # initech consumes a link of its own from B, so it has links: A's is simply not one of them.
    with in_org(world, "b"):
        from partners.services.links import partner_link_request

        partner_link_request(
            actor=admin_member(world, "b"), provider_id=world.b.enterprise.pk, consumer_id=c.enterprise.pk
        )
    secret = carol.keys["initech"][1]
    foreign = tool(client, secret, name, _args(name, str(link))).json()
    missing = tool(client, secret, name, _args(name, str(uuid.uuid4()))).json()
    assert foreign == missing
    assert foreign["status"] == "error" and foreign["reason"] == foreign["error"] == "link_not_found"


def test_top_n_is_server_capped_at_50(client, world, alice, link):
    bob_b = world.bob.keys[world.b.enterprise.slug][1]
    ids = [
        save_event(client, bob_b, f"Globex Kubernetes note number {i}", f"kubernetes note {i}")
        for i in range(55)
    ]
    with in_org(world, "b"):
        Memory.objects.filter(pk__in=ids).update(visibility="enterprise")
    args = {"sentence": "Which Kubernetes notes did Globex write?", "link_id": str(link)}
    assert tool(client, alice, "search_partner_memory", {**args, "top_n": 500}).json()["count"] == 50
    assert tool(client, alice, "search_partner_memory", {**args, "top_n": 3}).json()["count"] == 3
    assert tool(client, alice, "search_partner_memory", args).json()["count"] == 10  # the default


READ_TOOLS = [
    "search_partner_memory",
    "get_partner_memory_content",
    "find_partner_memory_connections",
    "query_partner_memory_graph",
]


def _stored(world, slug: str) -> tuple[dict[str, object], Counter[str]]:
    """What a read could write: every memory and link table (rows and their last change), and the audit."""
    from memory.models import Entity, EntityCooccurrence, MemoryEntity, MemoryLink, MemoryTag, Tag, TermStat
    from partners.models import PartnerEntityAlias, PartnerLink

    with in_org(world, slug):
        tables: dict[str, object] = {
            m.__name__: m.objects.count()
            for m in (Memory, Entity, MemoryEntity, Tag, MemoryTag, MemoryLink, EntityCooccurrence, TermStat)
        }
        tables["memory_rows"] = sorted(
            Memory.objects.values_list("pk", "status", "visibility", "forgotten_at")
        )
        tables["links"] = sorted(PartnerLink.objects.values_list("pk", "updated_at", "status"))
        tables["aliases"] = PartnerEntityAlias.objects.count()
        return tables, Counter(AuditEvent.objects.values_list("action", flat=True))


@pytest.mark.parametrize("name", READ_TOOLS)
def test_no_partner_read_writes_anything_but_its_audit(client, world, alice, link, name):
    from partners.services.links import partner_link_alias_add

    save_event(client, alice, "Acme moved staging to Kubernetes", "k8s", entities=["Kubernetes"])
    event = provider_event(client, world, "Globex runs K8s in production", "k8s", entities=["K8s"])
    with in_org(world, "a"):
        partner_link_alias_add(
            actor=admin_member(world, "a"), link_id=link, home_name="Kubernetes", partner_name="K8s"
        )
    sentence = "Acme moved staging to Kubernetes"
    args = {
        "search_partner_memory": {"sentence": sentence, "link_id": str(link)},
        "get_partner_memory_content": {"event_id": event, "link_id": str(link)},
        "find_partner_memory_connections": {"sentence": sentence, "link_id": str(link)},
        "query_partner_memory_graph": {
            "link_id": str(link),
            "query": "START a = events(entity: $n, k: 5) MATCH (a)-[:SHARES]->(b) RETURN b",
            "params": {"n": "Kubernetes"},
        },
    }[name]
    before = {slug: _stored(world, slug) for slug in ("a", "b")}
    body = tool(client, alice, name, args).json()
    assert body["status"] == "ok", body
    after = {slug: _stored(world, slug) for slug in ("a", "b")}
    for slug in ("a", "b"):
        assert after[slug][0] == before[slug][0], slug
    assert after["a"][1] - before["a"][1] == Counter({"tool.call": 1, "partner.read": 1})
    written_b = after["b"][1] - before["b"][1]
    assert set(written_b) == {"partner.serve"} and written_b["partner.serve"] >= 1


def test_the_provider_checks_its_own_row_too(client, world, alice, link):
    """The consumer's row says active; the provider's (on a remote deployment, its only one) says not."""
    from partners.models import PartnerLink

    args = {"sentence": "What is there?", "link_id": str(link)}
    with in_org(world, "b"):
        PartnerLink.objects.filter(link_id=link).update(status="suspended")
    body = tool(client, alice, "search_partner_memory", args).json()
    assert body["status"] == "error" and body["reason"] == body["error"] == "link_not_active"
    (served,) = audits(world, "b", "partner.serve")
    assert served.details["ok"] is False and served.details["reason"] == "link_not_active"
    (read,) = audits(world, "a", "partner.read")
    assert read.details["ok"] is False and read.details["reason"] == "link_not_active"


def test_a_link_exposes_nothing_until_the_provider_opens_something_and_never_the_role_layer(
    client, world, alice, link
):
    from memory.models import Layer

    shared = provider_event(client, world, "Globex Kubernetes roadmap", "roadmap k8s")
    role = provider_event(client, world, "Globex Kubernetes role notes", "role k8s")
    with in_org(world, "b"):
        Memory.objects.filter(pk=role).update(layer=Layer.ROLE)
    args = {"sentence": "What does Globex know about Kubernetes?", "link_id": str(link)}
    assert [h["event_id"] for h in tool(client, alice, "search_partner_memory", args).json()["hits"]] == [
        shared
    ]
    with in_org(world, "b"):
        partner_link_exposure_set(actor=admin_member(world, "b"), link_id=link)
    body = tool(client, alice, "search_partner_memory", args).json()
    assert body["status"] == "ok" and body["hits"] == [] and body["count"] == 0
