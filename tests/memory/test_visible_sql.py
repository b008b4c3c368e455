"""The read path's compiled pieces: one visibility condition per ranking, one statement for a page's surroundings.

``visible_sql`` must select exactly the rows its queryset selects (it is that queryset's own WHERE,
compiled once and used by every channel's statement); ``surroundings`` reads a page's tags, entities
and live links in one statement.
"""

from __future__ import annotations

import uuid

from django.db import connection
from django.db.models import Count
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import OrgRole
from memory.models import Layer, LinkKind, Memory, MemoryLink, Visibility
from memory.selectors.graph import surroundings
from memory.selectors.search import VisibleSQL, scope_for_key, scoped_memories, visible_sql
from memory.selectors.visibility import memories_visible
from tests.conftest import add_person
from tests.memory.helpers import archive, ctx, save_event


def _sent(captured: CaptureQueriesContext) -> list[str]:
    """The statements a block sent (the test transaction's savepoints aside)."""
    return [q["sql"] for q in captured.captured_queries if "SAVEPOINT" not in q["sql"]]


def _selected(visible: VisibleSQL) -> set[uuid.UUID]:
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT memory_memory.id FROM memory_memory WHERE {visible.sql}", list(visible.params)
        )
        return {pk for (pk,) in cursor.fetchall()}


def test_visible_sql_selects_exactly_what_its_queryset_selects(client, world, alice):
    ids = [uuid.UUID(save_event(client, alice, f"Note {i}", f"Deploy note {i}")) for i in range(5)]
    dave = add_person("dave", [(world.a, OrgRole.MEMBER)])
    slug = world.a.enterprise.slug
    with ctx(world):
        Memory.objects.filter(pk=ids[0]).update(visibility=Visibility.AUTHOR)  # alice's own
        Memory.objects.filter(pk=ids[1]).update(forgotten_at=timezone.now())
        Memory.objects.filter(pk=ids[2]).update(layer=Layer.ROLE)  # role holders only
        Memory.objects.filter(pk=ids[3]).update(project=world.a.other_project)  # outside the key's project
        seen = {}
        for name, person in (("alice", world.alice), ("dave", dave)):
            member, key = person.members[slug], person.keys[slug][0]
            querysets = [
                memories_visible(member=member),
                memories_visible(member=member, include_forgotten=True),
                scoped_memories(scope_for_key(member=member, key=key)),
            ]
            for queryset in querysets:
                assert _selected(visible_sql(queryset)) == set(queryset.values_list("pk", flat=True))
            seen[name] = _selected(visible_sql(querysets[2]))
        # The rule is live in the compiled condition: alice reads her own and the project's memories,
        # not the forgotten one, not the role layer's, not the other project's (outside the key).
        assert seen["alice"] == {ids[0], ids[4]}
        assert ids[0] not in seen["dave"]

        joined = Memory.objects.filter(project__slug=world.a.project.slug)
        assert "memory_memory.id IN (SELECT" in visible_sql(joined).sql  # a join: the queryset as a subquery
        assert _selected(visible_sql(joined)) == set(joined.values_list("pk", flat=True)) != set()
        annotated = Memory.objects.annotate(tags=Count("tag_links")).filter(tags__lt=1)  # HAVING: untagged
        assert "memory_memory.id IN (SELECT" in visible_sql(annotated).sql
        assert _selected(visible_sql(annotated)) == set(annotated.values_list("pk", flat=True)) == set(ids)
        assert visible_sql(Memory.objects.filter(pk__in=[])) == VisibleSQL("FALSE", ())
        assert _selected(visible_sql(Memory.objects.filter(pk__in=[]))) == set()
        # Compiled once, handed on as it is.
        compiled = visible_sql(joined)
        assert visible_sql(compiled) is compiled


def test_surroundings_reads_tags_entities_and_live_links_in_one_statement(client, world, alice):
    first = uuid.UUID(
        save_event(client, alice, "Deploy", "Dana deployed.", entities=["Dana"], tags=["ops/deploy"])
    )
    second = uuid.UUID(save_event(client, alice, "Review", "Lee reviewed.", entities=["Lee"], tags=["ops"]))
    third = uuid.UUID(save_event(client, alice, "Hidden", "Not on the page."))
    with ctx(world):
        MemoryLink.objects.filter(src_id__in=[first, second, third]).delete()
        MemoryLink.objects.create(kind=LinkKind.NEXT, src_id=first, dst_id=second)
        MemoryLink.objects.create(kind=LinkKind.SIMILAR, src_id=second, dst_id=first, score=0.91)
        MemoryLink.objects.create(kind=LinkKind.SIMILAR, src_id=first, dst_id=third, score=0.9)  # not visible
        MemoryLink.objects.create(
            kind=LinkKind.CONFLICT, src_id=second, dst_id=first, revoked_at=timezone.now()
        )  # revoked
        with CaptureQueriesContext(connection) as captured:
            around = surroundings([first, second], visible_ids={first, second})
    assert len(_sent(captured)) == 1
    assert around.tags == {first: ["ops/deploy"], second: ["ops"]}
    assert [name for _, name, _ in around.entities[first]] == ["Dana"]
    assert [(name, type_) for _, name, type_ in around.entities[second]] == [("Lee", "thing")]
    assert around.next == {first: str(second)} and around.prev == {second: str(first)}
    assert sorted((r["type"], r["direction"], r["score"]) for r in around.relations[first]) == [
        ("next", "out", None),
        ("similar", "in", 0.91),
    ]
    assert sorted((r["type"], r["direction"]) for r in around.relations[second]) == [
        ("next", "in"),
        ("similar", "out"),
    ]
    assert surroundings([]).tags == {}


def test_a_search_takes_a_fixed_number_of_statements(world, alice):
    """An extra round trip per search is a red build (as a save's count is, test_write_throughput)."""
    from core.dispatch import tool_dispatch

    def call(name: str, arguments: dict) -> dict:
        outcome = tool_dispatch(secret=alice, name=name, arguments=arguments, surface="rest")
        assert outcome.ok, outcome.error
        return outcome.output or {}

    saved = []
    for i in range(3):
        saved.append(
            call(
                "save_memory",
                {
                    "summary": f"Dana moved the deploy {i}.",
                    "content": f"Dana moved the deploy to Friday {i}.",
                    "entities": [{"name": "Dana", "type": "person"}],
                    "tags": ["deploy"],
                },
            )
        )
    search = {"query": "when did Dana move the deploy", "top_k": 10}
    call("search_memory", search)
    with CaptureQueriesContext(connection) as captured:
        call("search_memory", search)
    sent = _sent(captured)
    # The gate (digest, key identified, context, key loaded, rate window, reset), the call (context, term
    # statistics with the HNSW settings, text, entity names with their renames and frequency, entity
    # channel, vector, named entities with the neighbours' links, rows, surroundings, the shared tag's
    # three, audit, reset). Outermost, as a request runs it, the two resets are not sent and the
    # gate commits asynchronously (one more).
    assert len(sent) == 20, "\n".join(sent)
    assert len([q for q in sent if "set_config('hnsw.ef_search'" in q]) == 1

    # With vectors, the learned ranker reads the rows it reorders (their cosines, whether they ask): one more.
    archive(world, *(str(r["event_id"]) for r in saved))
    with CaptureQueriesContext(connection) as captured:
        call("search_memory", search)
    sent = _sent(captured)
    assert len(sent) == 21, "\n".join(sent)
    assert len([q for q in sent if "m.content ~" in q]) == 1


def test_entities_in_reads_named_entities_and_their_renames_in_one_statement(client, world, alice):
    from memory.models import Entity
    from memory.selectors.search import entities_in
    from tests.memory.helpers import tool

    lunch = save_event(client, alice, "Lunch", "Lee booked lunch.", entities=["Lee", "Dana"])
    renamed = tool(
        client,
        alice,
        "update_memory",
        {
            "event_id": lunch,
            "add_entities": [{"name": "Leon"}],
            "add_entity_renames": [{"old": "Lee", "new": "Leon"}],
        },
    )
    assert renamed.status_code == 200, renamed.content
    bob = world.bob.keys[world.b.enterprise.slug][1]
    save_event(client, bob, "Other tenant", "Lee of globex.", entities=["Lee", "Mary Ann"])
    with ctx(world):
        Entity.objects.filter(key="dana").update(deprecated=True)
        with CaptureQueriesContext(connection) as captured:
            found = entities_in("Did ＬＥＥ or Dana or Mary Ann book lunch?")
        assert len(_sent(captured)) == 1
        # The named one (full-width and case folded), then the other side of its rename; not the
        # deprecated Dana, nothing of the other enterprise's (row-level security).
        assert [e.name for e in found] == ["Lee", "Leon"]
        assert [e.few_links for e in found] == [True, True]  # on one memory each: the entity channel's
        assert {e.enterprise_id for e in found} == {world.a.enterprise.pk}
        assert [e.name for e in entities_in("what did Leon say")] == ["Leon", "Lee"]
        assert entities_in("?") == []


def test_candidate_links_reads_named_memories_and_next_links_in_one_statement(client, world, alice):
    from memory.models import Entity
    from memory.selectors.search import candidate_links, with_named_entities, with_neighbours

    first = uuid.UUID(save_event(client, alice, "One", "Dana opened.", entities=["Dana"]))
    second = uuid.UUID(save_event(client, alice, "Two", "Then it closed."))
    third = uuid.UUID(save_event(client, alice, "Three", "Later."))
    with ctx(world):
        MemoryLink.objects.filter(src_id__in=[first, second, third]).delete()
        MemoryLink.objects.create(kind=LinkKind.NEXT, src_id=first, dst_id=second)
        MemoryLink.objects.create(kind=LinkKind.NEXT, src_id=second, dst_id=third, revoked_at=timezone.now())
        dana = list(Entity.objects.filter(key="dana"))
        with CaptureQueriesContext(connection) as captured:
            links = candidate_links([first, second, third], [first, second], dana)
        assert len(_sent(captured)) == 1
        assert links.named == {first} and links.next_pairs == ((first, second),)
        # Only the candidates the text or vector channel found can be named.
        assert candidate_links([first, second], [second], dana).named == frozenset()
        assert candidate_links([first], [first], []).named == frozenset()
    scores = {first: 1.0, second: 0.2, third: 0.4}
    boosted = with_neighbours(with_named_entities(scores, links.named, boost=0.5), links.next_pairs, 0.5)
    assert boosted == {first: 1.5 + 0.5 * 0.2, second: 0.2 + 0.5 * 1.5, third: 0.4}


def test_memories_by_ids_reads_a_page_in_one_statement(client, world, alice):
    from memory.selectors.search import memories_by_ids

    mine = uuid.UUID(save_event(client, alice, "Deploy", "Dana deployed."))
    bob = world.bob.keys[world.b.enterprise.slug][1]
    theirs = uuid.UUID(save_event(client, bob, "Other tenant", "Not alice's."))
    with ctx(world):
        Memory.objects.filter(pk=mine).update(embedding=None)
        with CaptureQueriesContext(connection) as captured:
            found = memories_by_ids([mine, theirs])
            memory = found[mine]
            page = (memory.project_slug, memory.workspace_name, memory.has_vector, memory.content)
        assert len(_sent(captured)) == 1
        assert set(found) == {mine}  # the other enterprise's row is not there (row-level security)
        saved = Memory.objects.select_related("project", "workspace").get(pk=mine)
        assert page == (saved.project.slug, saved.workspace.name, False, "Dana deployed.")
        assert memory.get_deferred_fields() == {"embedding", "search_vector"}
        # Every loaded field as the ORM hands it over (JSON fields parsed, not their text).
        loaded = {f.attname for f in Memory._meta.concrete_fields} - memory.get_deferred_fields()
        assert {a: getattr(memory, a) for a in loaded} == {a: getattr(saved, a) for a in loaded}
        assert not isinstance(memory.origin, str)
        assert memory.project.name == saved.project.name  # a field not read loads on first use
    assert memories_by_ids([]) == {}
