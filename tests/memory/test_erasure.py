"""Erasure on the real database: a member's memories and an entity's (a data subject's) are removed for good,
with everything derived from them; afterwards no read surface finds anything of them (search_memory, the SQL
tool, the graph tool, find_memories_by_entity, the timeline, a partner's search_partner_memory); the tombstone
holds ids, counts and a hash but no content; idempotency records, co-occurrences, partner aliases and exports
go with them; another enterprise is untouched; a confirm twice changes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from accounts.models import AuditEvent, OrgRole
from core.errors import Conflict, Forbidden, InvalidInput, NotFound
from memory.models import (
    DataExport,
    Entity,
    EntityCooccurrence,
    Erasure,
    GuardEvent,
    IdempotencyRecord,
    Memory,
    MemoryCount,
    MemoryEntity,
    MemoryTag,
    TermStat,
)
from memory.services.erasure import (
    erased_rows_hash,
    erasure_cancel,
    erasure_confirm,
    erasure_request,
    subject_hash,
)
from memory.services.holds import hold_create
from partners.models import PartnerEntityAlias
from partners.services.links import partner_link_alias_add
from tests.conftest import add_person
from tests.memory.helpers import archive, ctx, save_event, tool
from tests.partners.helpers import active_link, provider_event

pytestmark = pytest.mark.django_db

SECRET_WORDS = ("Whitfield", "Elm Street", "refund")


def _alice(world):
    return world.alice.members[world.a.enterprise.slug]


def _remember(client, secret, content, **extra):
    response = tool(client, secret, "remember", {"content": content, **extra})
    assert response.status_code == 200, response.content
    return str(response.json()["id"])


@pytest.fixture
def subject(client, world, alice, bob_b):
    """Dana Whitfield, a data subject in A: two events naming her, a summary derived from one, a bystander
    event sharing an entity with her, and an event of B's naming her too (another tenant)."""
    address = save_event(
        client,
        alice,
        "Dana Whitfield's address",
        "Dana Whitfield lives at 12 Elm Street; Acme ships her orders there.",
        entities=["Dana Whitfield", "Acme"],
        tags=["people/customers"],
    )
    refund = tool(
        client,
        alice,
        "save_memory",
        {
            "summary": "Dana Whitfield asked for a refund",
            "content": "Dana Whitfield asked for a refund of order 881.",
            "entities": [{"name": "Dana Whitfield", "type": "person"}],
            "tags": ["people/customers"],
        },
        HTTP_X_IDEMPOTENCY_KEY="refund-881",
    ).json()["event_id"]
    summary = _remember(
        client, alice, "Customer summary: one address on record, one refund.", derived_from=[address]
    )
    bystander = save_event(
        client,
        alice,
        "Acme moved its warehouse",
        "Acme moved its warehouse to Leeds.",
        entities=["Acme", "Leeds"],
    )
    theirs = save_event(
        client,
        bob_b,
        "Globex knows a Dana Whitfield",
        "Dana Whitfield is Globex's contact.",
        entities=["Dana Whitfield"],
    )
    archive(world, address, refund, summary, bystander)
    return {
        "address": address,
        "refund": refund,
        "summary": summary,
        "bystander": bystander,
        "theirs": theirs,
    }


def _erase_entity(world, name="Dana Whitfield", reason="GDPR request #7"):
    with ctx(world):
        erasure = erasure_request(member=_alice(world), subject="entity", entity_ref=name, reason=reason)
        return erasure_request_and_confirm(world, erasure)


def erasure_request_and_confirm(world, erasure):
    return erasure_confirm(member=_alice(world), erasure_id=erasure.pk)


def _nothing_of(body, ids):
    """Nothing of these memories in an answer (the question it echoes aside)."""
    text = json.dumps({k: v for k, v in body.items() if k not in ("query", "sentence", "params")})
    for memory_id in ids:
        assert memory_id not in text
    for word in SECRET_WORDS:
        assert word not in text


def test_the_request_previews_and_removes_nothing(client, world, subject):
    with ctx(world):
        erasure = erasure_request(member=_alice(world), subject="entity", entity_ref="dana whitfield")
        preview = erasure.counts["preview"]
        assert erasure.state == "requested" and erasure.memory_ids == []
        assert (
            preview["memories"] == 3 and preview["memories_direct"] == 2 and preview["memories_derived"] == 1
        )
        assert preview["projects"] == {"alpha": 3} and "held" not in preview
        assert (
            Memory.objects.filter(pk__in=[subject["address"], subject["refund"], subject["summary"]]).count()
            == 3
        )
        assert erasure.subject_hash == subject_hash("dana whitfield")
        event = AuditEvent.objects.get(action="erasure.request")
        assert "Whitfield" not in json.dumps(event.details)


def test_an_entity_erasure_leaves_nothing_on_any_read_surface(client, world, alice, subject):
    erased = [subject["address"], subject["refund"], subject["summary"]]
    graph_query = {"query": "START a = events(text: 'Dana Whitfield refund', k: 20) RETURN a"}
    sql_query = {"sql": "SELECT id, summary, content FROM agent.memories"}
    # Before: every surface finds her (so the checks after can fail).
    search = tool(client, alice, "search_memory", {"query": "Dana Whitfield address refund"}).json()
    assert {h["event_id"] for h in search["hits"]} >= {subject["address"], subject["refund"]}
    assert all(
        i in json.dumps(tool(client, alice, "query_memories_with_sql", sql_query).json()) for i in erased
    )
    assert subject["refund"] in json.dumps(
        tool(client, alice, "query_memory_graph", graph_query).json()["rows"]
    )
    assert tool(client, alice, "find_memories_by_entity", {"name": "Dana Whitfield"}).json()["total"] == 2
    assert subject["address"] in json.dumps(tool(client, alice, "list_memory_timeline", {}).json())
    with ctx(world):
        rows = list(
            Memory.objects.filter(pk__in=erased)
            .order_by("pk")
            .values_list("pk", "summary", "content", "created_at")
        )
        rows.sort(key=lambda r: str(r[0]))
        expected_hash = erased_rows_hash(rows)
        dana = Entity.objects.get(key="dana whitfield")
        assert (
            EntityCooccurrence.objects.filter(a_id__in=[dana.pk]).exists()
            or EntityCooccurrence.objects.filter(b_id=dana.pk).exists()
        )
        assert IdempotencyRecord.objects.filter(key="refund-881").exists()
        live_before = sum(
            MemoryCount.objects.filter(project_id=world.a.project.pk).values_list("live", flat=True)
        )

    erasure = _erase_entity(world)

    # The tombstone: ids, counts, the hash; no content, no name.
    assert erasure.state == "done" and sorted(map(str, erasure.memory_ids)) == sorted(erased)
    assert erasure.content_hash == expected_hash
    assert erasure.counts["memories"] == 3 and erasure.counts["entities"] == 1
    assert erasure.counts["memory_entities"] >= 3 and erasure.counts["memory_tags"] == 2
    assert erasure.counts["idempotency_records"] == 1
    assert erasure.confirmed_by_id == _alice(world).pk and erasure.done_at is not None
    with ctx(world):
        stored = Erasure.objects.filter(pk=erasure.pk).values().get()
        for word in (*SECRET_WORDS, "Dana", "dana"):
            assert word not in json.dumps(stored, default=str)
        assert not Memory.objects.filter(pk__in=erased).exists()
        assert not Entity.objects.filter(key="dana whitfield").exists()
        assert not MemoryEntity.objects.filter(memory_id__in=erased).exists()
        assert not MemoryTag.objects.filter(memory_id__in=erased).exists()
        assert not IdempotencyRecord.objects.filter(key="refund-881").exists()
        # Acme's co-occurrence with Leeds stays (the bystander), every pair with Dana is gone.
        acme = Entity.objects.get(key="acme")
        pairs = EntityCooccurrence.objects.filter(a_id=acme.pk) | EntityCooccurrence.objects.filter(
            b_id=acme.pk
        )
        assert [p.count for p in pairs] == [1]
        # The trigger-kept counts follow the DELETE: live memories and BM25 statistics.
        live_after = sum(
            MemoryCount.objects.filter(project_id=world.a.project.pk).values_list("live", flat=True)
        )
        assert live_after == live_before - 3
        docs = TermStat.objects.get(project_id=world.a.project.pk, lexeme="").docs
        assert docs == Memory.objects.filter(project_id=world.a.project.pk).count()
        assert (
            not TermStat.objects.filter(project_id=world.a.project.pk, lexeme="whitfield")
            .exclude(docs=0)
            .exists()
        )
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM memory_memory WHERE search_vector @@ to_tsquery('english', 'whitfield')"
            )
            assert cursor.fetchone()[0] == 0
        # Guard events keep no content.
        for event in GuardEvent.objects.all():
            assert not any(word in f"{event.reason} {event.rules}" for word in SECRET_WORDS)
        audit = AuditEvent.objects.get(action="erasure.confirm")
        assert audit.details["content_hash"] == expected_hash and "Whitfield" not in json.dumps(audit.details)

    # Every read surface.
    search = tool(client, alice, "search_memory", {"query": "Dana Whitfield address refund"}).json()
    _nothing_of(search, erased)
    assert subject["bystander"] in {
        h["event_id"]
        for h in tool(client, alice, "search_memory", {"query": "Acme warehouse"}).json()["hits"]
    }
    sql = tool(client, alice, "query_memories_with_sql", sql_query).json()
    _nothing_of(sql, erased)
    assert subject["bystander"] in json.dumps(sql)
    graph = tool(client, alice, "query_memory_graph", graph_query)
    assert graph.status_code == 200, graph.content
    _nothing_of({"rows": graph.json()["rows"]}, erased)  # its explanation echoes the question
    entity_graph = tool(
        client,
        alice,
        "query_memory_graph",
        {
            "query": "START a = events(text: 'Acme', k: 20) MATCH (a)<-[:PARTICIPATED_IN]-(e:Entity) RETURN e.name"
        },
    )
    assert entity_graph.status_code == 200 and "Whitfield" not in entity_graph.content.decode()
    by_entity = tool(client, alice, "find_memories_by_entity", {"name": "Dana Whitfield"}).json()
    assert by_entity["entity"] is None and by_entity["events"] == []
    _nothing_of(by_entity, erased)
    timeline = tool(client, alice, "list_memory_timeline", {}).json()
    _nothing_of(timeline, erased)
    assert subject["bystander"] in json.dumps(timeline)

    # Another enterprise's Dana Whitfield is its own business.
    with ctx(world, "b"):
        assert Memory.objects.filter(pk=subject["theirs"]).exists()
        assert Entity.objects.filter(key="dana whitfield").exists()


def test_confirming_twice_changes_nothing(client, world, subject):
    first = _erase_entity(world)
    with ctx(world):
        again = erasure_confirm(member=_alice(world), erasure_id=first.pk)
        assert again.counts == first.counts and again.content_hash == first.content_hash
        assert AuditEvent.objects.filter(action="erasure.confirm").count() == 1
        with pytest.raises(Conflict) as refused:
            erasure_cancel(member=_alice(world), erasure_id=first.pk)
        assert refused.value.message == "this erasure is done already: it cannot be cancelled"


def test_a_members_erasure_removes_their_memories_only(client, world, alice):
    dave = add_person("dave", [(world.a, OrgRole.MEMBER)])
    dave_member = dave.members[world.a.enterprise.slug]
    dave_secret = dave.keys[world.a.enterprise.slug][1]
    his = [
        save_event(
            client, dave_secret, "Dave's salary review", "Dave asked for a refund of his Elm Street parking."
        ),
        _remember(client, dave_secret, "Dave prefers the night shift."),
    ]
    derived = _remember(client, alice, "Shift notes from Dave's preference.", derived_from=[his[1]])
    hers = save_event(client, alice, "Alice's note", "Deploys run at noon.")
    with ctx(world):
        erasure = erasure_request(member=_alice(world), subject="member", member_ref=str(dave_member.pk))
        assert erasure.counts["preview"]["memories"] == 3
        done = erasure_confirm(member=_alice(world), erasure_id=erasure.pk)
        assert sorted(map(str, done.memory_ids)) == sorted([*his, derived])
        assert not Memory.objects.filter(pk__in=[*his, derived]).exists()
        assert Memory.objects.filter(pk=hers).exists()
    search = tool(client, alice, "search_memory", {"query": "refund Elm Street parking night shift"}).json()
    _nothing_of(search, [*his, derived])
    sql = tool(
        client, alice, "query_memories_with_sql", {"sql": "SELECT id, content FROM agent.memories"}
    ).json()
    _nothing_of(sql, [*his, derived])


def test_a_partner_finds_nothing_of_an_erased_subject(client, world, alice):
    link = active_link(world)  # B provides project alpha to A
    event = provider_event(
        client,
        world,
        "Dana Whitfield renewed with Globex",
        "Dana Whitfield renewed her Globex plan.",
        entities=["Dana Whitfield"],
    )
    arguments = {"sentence": "Did Dana Whitfield renew?", "link_id": str(link)}
    assert event in json.dumps(tool(client, alice, "search_partner_memory", arguments).json())
    bob_admin_b = world.bob.members[world.b.enterprise.slug]
    with ctx(world, "b"):
        erasure = erasure_request(member=bob_admin_b, subject="entity", entity_ref="Dana Whitfield")
        erasure_confirm(member=bob_admin_b, erasure_id=erasure.pk)
    after = tool(client, alice, "search_partner_memory", arguments).json()
    assert after["status"] == "ok"
    _nothing_of(after, [event])


def test_the_consumers_aliases_naming_the_entity_go_with_it(client, world, alice, subject):
    link = active_link(world)  # A consumes B
    with ctx(world):
        partner_link_alias_add(
            actor=_alice(world), link_id=link, home_name="Dana Whitfield", partner_name="D. Whitfield"
        )
        partner_link_alias_add(actor=_alice(world), link_id=link, home_name="Acme", partner_name="ACME Corp")
    erasure = _erase_entity(world)
    assert erasure.counts["partner_aliases"] == 1
    with ctx(world):
        assert list(PartnerEntityAlias.objects.values_list("home_key", flat=True)) == ["acme"]


def test_finished_exports_that_may_hold_it_are_withdrawn(
    client, world, subject, django_capture_on_commit_callbacks
):
    root = Path(settings.LIFECYCLE_DIR)
    root.mkdir(parents=True, exist_ok=True)
    file = root / f"export-{world.a.enterprise.pk}.jsonl"
    file.write_text('{"content": "Dana Whitfield lives at 12 Elm Street"}\n')
    with ctx(world):
        export = DataExport.objects.create(
            enterprise_id=world.a.enterprise.pk,
            scope="project",
            project=world.a.project,
            state="done",
            path=file.name,
        )
        other = DataExport.objects.create(
            enterprise_id=world.a.enterprise.pk, scope="project", project=world.a.other_project, state="done"
        )
    with django_capture_on_commit_callbacks(execute=True):
        erasure = _erase_entity(world)
    assert erasure.counts["exports_withdrawn"] == 1 and not file.exists()
    with ctx(world):
        export.refresh_from_db()
        other.refresh_from_db()
        assert export.expires_at is not None and str(erasure.pk) in export.error
        assert other.expires_at is None


def test_refused_under_a_hold(client, world, subject):
    with ctx(world):
        hold_create(member=_alice(world), target="tag", ref="people", name="Customer dispute")
        erasure = erasure_request(member=_alice(world), subject="entity", entity_ref="Dana Whitfield")
        assert "Customer dispute" in erasure.counts["preview"]["held"]["error"]
        with pytest.raises(Conflict) as refused:
            erasure_confirm(member=_alice(world), erasure_id=erasure.pk)
        assert refused.value.code == "legal_hold"
        assert Memory.objects.filter(pk=subject["address"]).exists()
        assert Erasure.objects.get(pk=erasure.pk).state == "requested"


def test_who_may_and_bad_input(client, world, subject):
    dave = add_person("dave", [(world.a, OrgRole.MEMBER)]).members[world.a.enterprise.slug]
    bob_auditor = world.bob.members[world.a.enterprise.slug]
    with ctx(world):
        for member in (dave, bob_auditor):
            with pytest.raises(Forbidden) as refused:
                erasure_request(member=member, subject="entity", entity_ref="Dana Whitfield")
            assert refused.value.message == "only an owner or an admin may request or confirm an erasure"
        erasure = erasure_request(member=_alice(world), subject="entity", entity_ref="Dana Whitfield")
        with pytest.raises(Forbidden):
            erasure_confirm(member=dave, erasure_id=erasure.pk)
        cases = [
            (
                {"subject": "project", "entity_ref": "x"},
                InvalidInput,
                "subject must be one of: member, entity",
            ),
            (
                {"subject": "entity", "entity_ref": "Nobody"},
                NotFound,
                "no entity 'Nobody' in this enterprise",
            ),
            (
                {"subject": "member", "member_ref": "99999999"},
                NotFound,
                "no member '99999999' in this enterprise",
            ),
        ]
        for arguments, error, text in cases:
            with pytest.raises(error) as bad:
                erasure_request(member=_alice(world), **arguments)
            assert bad.value.message == text
        with pytest.raises(NotFound) as missing:
            erasure_confirm(member=_alice(world), erasure_id="nope")
        assert missing.value.message == "erasure not found"
        cancelled = erasure_cancel(member=_alice(world), erasure_id=erasure.pk)
        assert cancelled.state == "cancelled"
        with pytest.raises(Conflict) as refused:
            erasure_confirm(member=_alice(world), erasure_id=erasure.pk)
        assert refused.value.message == "this erasure was cancelled: request a new one"
    # Another tenant's erasure is a missing one.
    with ctx(world, "b"), pytest.raises(NotFound):
        erasure_confirm(member=world.bob.members[world.b.enterprise.slug], erasure_id=erasure.pk)
