"""The BM25 text channel and its statistics (memory.TermStat, kept by triggers), the fusion, the capped timeline."""

from __future__ import annotations

import pytest

from memory.models import Memory, TermStat
from memory.selectors import search as search_selectors
from tests.memory.helpers import archive, ctx, save_event, tool


def _stats(world) -> dict[str, tuple[int, int]]:
    with ctx(world):
        return {s.lexeme: (s.docs, s.length) for s in TermStat.objects.filter(project_id=world.a.project.pk)}


def test_term_statistics_follow_every_write(client, world, alice):
    first = save_event(client, alice, "Quokka sighting", "A quokka visited the staging server room.")
    save_event(client, alice, "Deploy", "The staging deploy finished.")
    stats = _stats(world)
    # 'english' stems and drops stop words: "the" is not counted, "staging" is "stage".
    assert stats["quokka"][0] == 1 and stats["stage"][0] == 2 and "the" not in stats
    assert stats[""][0] == 2
    with ctx(world):
        lengths = [len(m.search_vector.split()) for m in Memory.objects.filter(project=world.a.project)]
    assert stats[""][1] == sum(lengths)

    # The archivist only writes the vector: the counts stay as they are.
    archive(world, first)
    assert _stats(world) == stats

    with ctx(world):
        Memory.objects.filter(pk=first).update(summary="", content="A wombat visited.")
    stats = _stats(world)
    assert "quokka" not in stats and stats["wombat"][0] == 1 and stats["stage"][0] == 1 and stats[""][0] == 2

    # Forgetting hides a memory from reads; the statistics still count it until it is deleted.
    assert tool(client, alice, "forget", {"id": first}).status_code == 200
    assert _stats(world)["wombat"][0] == 1
    with ctx(world):
        Memory.objects.filter(pk=first).delete()
    stats = _stats(world)
    assert "wombat" not in stats and stats[""][0] == 1


def test_statistics_are_per_project_and_per_tenant(client, world, alice):
    save_event(client, alice, "Quokka", "A quokka in project alpha.")
    with ctx(world):
        weights = search_selectors.term_weights("quokka", project_ids=(world.a.other_project.pk,))
        alpha = search_selectors.term_weights("quokka", project_ids=(world.a.project.pk,))
        everywhere = search_selectors.term_weights("quokka", project_ids=None)
    assert weights.docs == {"quokka": 0} and alpha.docs == {"quokka": 1} and everywhere.docs == {"quokka": 1}
    with ctx(world, "b"):
        assert search_selectors.term_weights("quokka", project_ids=None).docs == {"quokka": 0}
        assert not TermStat.objects.exists()


def test_bm25_ranks_the_rare_word_first(client, world, alice):
    for i in range(6):
        save_event(client, alice, f"Deploy {i}", f"The deploy number {i} of the service went out.")
    rare = save_event(client, alice, "Note", "A quokka was seen near the office.")
    body = tool(client, alice, "search_memory", {"query": "Where was the quokka deploy seen?"}).json()
    assert body["hits"][0]["event_id"] == rare and "text" in body["hits"][0]["channels"]
    # Every memory holding a query word is a text candidate.
    assert sum("text" in hit["channels"] for hit in body["hits"]) == 7


def test_quotes_and_operators_in_queries_are_only_words(client, world, alice):
    event = save_event(client, alice, "O'Brien's notes", "O'Brien wrote the runbook: a | b & !c")
    for query in ("O'Brien's runbook", "a | b & !c <-> (runbook)", "'runbook'", "\\ runbook"):
        body = tool(client, alice, "search_memory", {"query": query}).json()
        assert body["hits"][0]["event_id"] == event, query


def test_the_text_channel_scores_at_most_the_candidate_cap(client, world, alice, monkeypatch):
    common = [save_event(client, alice, "Deploy", f"Deploy {i} done.") for i in range(4)]
    rare = save_event(client, alice, "Deploy", "Deploy of the quokka service.")
    monkeypatch.setattr(search_selectors, "TEXT_CANDIDATES", 2)
    with ctx(world):
        from accounts.models import AccessKey, Member

        key = AccessKey.objects.get(pk=world.alice.keys[world.a.enterprise.slug][0].pk)
        member = Member.objects.get(pk=key.member_id)
        scope = search_selectors.scope_for_key(member=member, key=key)
        weights = search_selectors.term_weights("quokka deploy", project_ids=scope.project_ids)
        # The rare lexeme alone fits the cap; "deploy" (5 memories) would not, so it only scores.
        assert weights.candidate_lexemes(cap=2) == ["quokka"]
        ranked = search_selectors._text_channel(
            search_selectors.scoped_memories(scope), "quokka deploy", 10, project_ids=scope.project_ids
        )
    assert [str(pk) for pk, _ in ranked] == [rare]
    assert set(common).isdisjoint(str(pk) for pk, _ in ranked)


@pytest.mark.parametrize("cap", [3])
def test_the_timeline_counts_up_to_its_cap(client, world, alice, monkeypatch, cap):
    from memory.selectors import timeline

    for i in range(5):
        save_event(client, alice, f"Event {i}", f"Event number {i}.")
    monkeypatch.setattr(timeline, "TIMELINE_COUNT_CAP", cap)
    body = tool(client, alice, "list_memory_timeline", {"limit": 2}).json()
    assert body["total"] == cap and body["truncated"] is True and len(body["events"]) == 2
    body = tool(client, alice, "list_memory_timeline", {"limit": 2, "days": 1}).json()
    assert [e["summary"] for e in body["events"]] == ["Event 3", "Event 4"]


def test_a_sequence_neighbour_of_a_strong_match_moves_up(client, world, alice, monkeypatch):
    question = save_event(
        client, alice, "What does the quokka eat?", "What does the quokka eat for food, asked Sam."
    )
    answer_text = "Eucalyptus leaves were the food."
    answer = save_event(client, alice, answer_text, answer_text, prev_event_id=question)
    other = save_event(client, alice, "Food trucks.", "Food trucks.")

    def order() -> list[str]:
        hits = tool(client, alice, "search_memory", {"query": "quokka food"}).json()["hits"]
        return [h["event_id"] for h in hits]

    # Alone, the shorter "Food trucks." scores higher on BM25; beside the question, the answer overtakes it.
    assert order() == [question, answer, other]
    monkeypatch.setattr(search_selectors, "NEIGHBOUR_WEIGHT", 0.0)
    assert order() == [question, other, answer]


def test_a_match_involving_an_entity_the_query_names_moves_up(client, world, alice, monkeypatch):
    """The named-entity boost applies among matches, even for an entity too frequent for its own channel."""
    dana = save_event(client, alice, "The quokka ate leaves.", "The quokka ate leaves.", entities=["Dana"])
    save_event(client, alice, "Went home.", "Went home early.", entities=["Dana"])
    sam = save_event(
        client, alice, "The quokka ate leaves, quokka.", "The quokka ate leaves, quokka.", entities=["Sam"]
    )
    long = "The zoo's report for the whole long summer season listed one quokka among many other animals."
    save_event(client, alice, long, long, entities=["Sam"])  # the weakest match, so scores spread out
    monkeypatch.setattr(search_selectors, "ENTITY_CHANNEL_MAX_LINKS", 1)  # Dana's 2 memories: no channel

    def order() -> list[str]:
        hits = tool(client, alice, "search_memory", {"query": "What did Dana see the quokka eat?"}).json()[
            "hits"
        ]
        assert all("entity" not in h["channels"] for h in hits), hits
        return [h["event_id"] for h in hits]

    assert order()[:2] == [dana, sam]
    monkeypatch.setattr(search_selectors, "NAMED_ENTITY_BOOST", 0.0)
    assert order()[:2] == [sam, dana]


def test_a_match_from_the_period_the_query_names_moves_up(client, world, alice, monkeypatch):
    """A memory whose timestamp falls in the named period (or in the days after it, when it is told)
    gains the named-time boost over a better match of the query's words from another time."""
    march = save_event(
        client,
        alice,
        "The team shipped the release.",
        "The team shipped the release. The team shipped it on time.",
        timestamp="2023-03-02T10:00:00Z",
    )
    july = save_event(
        client,
        alice,
        "The team shipped the release.",
        "The team shipped the release.",
        timestamp="2023-08-03T10:00:00Z",  # told in early August of a July release
    )
    save_event(client, alice, "The team had lunch.", "The team had lunch.", timestamp="2023-07-05T12:00:00Z")

    def order(query: str) -> list[str]:
        return [h["event_id"] for h in tool(client, alice, "search_memory", {"query": query}).json()["hits"]]

    assert order("What did the team ship in July 2023?")[:2] == [july, march]
    assert order("What did the team ship?")[:2] == [march, july]  # no period named: no boost
    monkeypatch.setattr(search_selectors, "TIME_BOOST", 0.0)
    assert order("What did the team ship in July 2023?")[:2] == [march, july]


def test_the_text_channel_can_use_the_gin_index_under_row_level_security(client, world, alice):
    """Full-text matching is LEAKPROOF (bootstrap), so the app role's candidate query may use the GIN index.

    Without it PostgreSQL must apply row-level security first and the tsquery after, on every row of the
    tenant, whatever indexes exist. Sequential scans are disabled here only to ask whether the index is usable.
    """
    from django.db import connection

    save_event(client, alice, "Quokka", "A quokka was seen.")
    with ctx(world), connection.cursor() as cursor:
        cursor.execute(
            "SELECT proleakproof FROM pg_proc WHERE oid = 'pg_catalog.ts_match_vq(tsvector, tsquery)'::regprocedure"
        )
        assert cursor.fetchone() == (True,)
        cursor.execute("SELECT current_user")
        assert cursor.fetchone()[0] == "mnemos_app"
        cursor.execute("SELECT set_config('enable_seqscan', 'off', true)")
        cursor.execute("EXPLAIN SELECT id FROM memory_memory WHERE search_vector @@ 'quokka'::tsquery")
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "memory_search_vector" in plan, plan


def test_the_door_starts_the_query_embedding_and_hands_it_over_once(client, world, alice, monkeypatch):
    """The door starts embedding search_memory's query when the call passes its gate; hybrid_rank takes
    that one (no second embedding), and nothing outlives the call (the next call embeds again)."""
    first = save_event(client, alice, "Quokka", "A quokka visited the staging server room.")
    archive(world, first)
    embedded: list[str] = []
    handed: list[set[str]] = []
    real_embed, real_rank = search_selectors._embed_query, search_selectors.hybrid_rank

    def counting_embed(query):
        embedded.append(query)
        return real_embed(query)

    def watching_rank(**kwargs):
        handed.append(set(search_selectors._PREFETCHED.get() or {}))
        return real_rank(**kwargs)

    monkeypatch.setattr(search_selectors, "_embed_query", counting_embed)
    monkeypatch.setattr("memory.tools.read.hybrid_rank", watching_rank)
    query = "Where did the quokka go?"
    for n in (1, 2):
        body = tool(client, alice, "search_memory", {"query": query}).json()
        assert "vector" in body["hint"]["available_channels"] and body["hits"][0]["event_id"] == first
        assert embedded == [query] * n and handed[-1] == {query}
    assert search_selectors._PREFETCHED.get() is None
    # A blank or non-string query starts nothing; the handler's own error answers.
    assert tool(client, alice, "search_memory", {"query": "  "}).status_code == 422
    assert tool(client, alice, "search_memory", {"query": 5}).status_code == 422
    assert embedded == [query, query]


def test_any_lookup_matches_in(client, world, alice):
    from memory.models import MemoryEntity

    ids = [save_event(client, alice, f"Note {i}", f"Note {i} about Ada.", entities=["Ada"]) for i in range(3)]
    with ctx(world):
        assert set(Memory.objects.filter(pk__any=ids[:2]).values_list("pk", flat=True)) == set(
            Memory.objects.filter(pk__in=ids[:2]).values_list("pk", flat=True)
        )
        assert list(Memory.objects.filter(pk__any=[])) == []
        linked = MemoryEntity.objects.filter(memory_id__any=ids[1:]).values_list("memory_id", flat=True)
        assert {str(pk) for pk in linked} == set(ids[1:])
        assert MemoryEntity.objects.filter(memory__any=ids[:1]).count() == 1


def test_any_lookup_sends_one_array_literal_that_postgres_reads_back(client, world, alice):
    from django.db import connection

    from memory.lookups import array_literal
    from memory.models import Entity

    awkward = [
        "plain",
        "two words",
        'a "quote"',
        "back\\slash",
        "{brace}",
        "a,comma",
        "",
        "NULL",
        "null",
        "ünï",
    ]
    with connection.cursor() as cursor:
        cursor.execute("SELECT %s::text[]", [array_literal(awkward)])
        assert cursor.fetchone()[0] == awkward
        cursor.execute("SELECT %s::int[]", [array_literal([3, 1, 2])])
        assert cursor.fetchone()[0] == [3, 1, 2]
    save_event(client, alice, "Names", "Names.", entities=["two words", 'a "quote"'])
    with ctx(world):
        names = set(Entity.objects.filter(name__any=awkward).values_list("name", flat=True))
    assert names == {"two words", 'a "quote"'}


def test_memory_rows_keep_their_vector_inline(db):
    """Migration 0009: a vector is not moved to TOAST (a lookup per candidate read) before the row fills a page."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT c.reloptions, a.attstorage FROM pg_class c
            JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'embedding'
            WHERE c.relname = 'memory_memory'
            """
        )
        options, storage = cursor.fetchone()
    assert "toast_tuple_target=8160" in options and storage == "m"


def test_the_ranking_channels_plan_for_their_values(client, world, alice):
    """Statements are prepared per connection; the text and vector channels' own statements must not take a
    generic plan (a tsquery's row count and an HNSW scan's LIMIT decide theirs), so a read's transaction
    switches to custom plans from the term statistics on, and every vector query does too."""
    from django.db import connection

    save_event(client, alice, "Quokka", "A quokka was seen.")

    def mode() -> str:
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_setting('plan_cache_mode')")
            return str(cursor.fetchone()[0])

    with ctx(world):
        assert mode() == "auto"  # transaction-local (set_config(..., true)), like every setting the app makes
        search_selectors.term_weights("quokka", project_ids=[world.a.project.pk])
        assert mode() == "force_custom_plan"
    with ctx(world):
        with connection.cursor() as cursor:  # the test's own transaction holds the first block's setting
            cursor.execute("SELECT set_config('plan_cache_mode', 'auto', true)")
        memories = Memory.objects.filter(project=world.a.project)
        search_selectors.nearest_memories(memories, [1.0] + [0.0] * 383, 5)
        assert mode() == "force_custom_plan"
