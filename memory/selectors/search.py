"""Hybrid retrieval: BM25 text, vector and entity evidence, score-fused, then named-entity, named-time and
neighbour boosts, then the learned ranker's order (``memory.ranker``).

No language model in the retrieval path. Every channel runs on the caller's
visible memories only (the same queryset, so visibility filters apply inside
the index scans; pgvector 0.8's iterative scan keeps ``top_k`` filled).
"""

from __future__ import annotations

import logging
import math
import uuid
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.core.exceptions import EmptyResultSet
from django.db.models import Q, QuerySet

from accounts.models import AccessKey, Member
from core.dbrouting import read_connection
from memory import ranker
from memory.embedding import Embedder, EmbedderUnavailable, get_embedder
from memory.lookups import array_literal, vector_literal
from memory.models import Entity, Layer, LinkKind, Memory, Visibility
from memory.selectors.visibility import memories_visible
from memory.text import WORD, fold
from memory.timewords import Window, named_windows

logger = logging.getLogger(__name__)

# Fusion weights and the neighbour weight were chosen on LoCoMo's tuning conversations (conv-26 … conv-43)
# and confirmed on the other five (bench/locomo/ablate.py; docs/memory.md, "Ranking").
WEIGHTS = {"text": 1.0, "vector": 0.75, "entity": 0.25}
NEIGHBOUR_WEIGHT = 0.5
# A candidate the text or vector channel found gains this when it involves an entity the query names
# (any entity, however frequent: "what did Alice decide" prefers Alice's memories among the matches).
# Chosen on the tuning conversations from 0.1-0.5 (hit@10 plus recall@10 best at 0.5), held-out agrees.
NAMED_ENTITY_BOOST = 0.5
# A candidate gains this when its timestamp falls in a period the query names ("in July 2023", "on May 3";
# memory.timewords). Chosen on the tuning conversations from 0.5-1.0 (0.75; 0.5 and 1.0 within 0.003),
# added before the neighbour boost (so an answer beside a turn of that day gains too).
TIME_BOOST = 0.75
CHANNEL_DEPTH = 100
VECTOR_DIM = 384


@dataclass(frozen=True)
class ReadScope:
    """What a read may reach, beyond the member's visibility (reported as searched_scope)."""

    member: Member
    key: AccessKey
    project_ids: tuple[uuid.UUID, ...] | None = None
    workspace_id: uuid.UUID | None = None
    include_enterprise_wide: bool = True
    team_id: int | None = None
    task_id: uuid.UUID | None = None
    run_layers: bool = False
    author_ids: tuple[int, ...] | None = None

    def describe(self) -> dict[str, Any]:
        return {
            "enterprise": str(self.key.enterprise_id),
            "projects": [str(p) for p in self.project_ids] if self.project_ids is not None else None,
            "workspace": str(self.workspace_id) if self.workspace_id else None,
            "enterprise_wide": self.include_enterprise_wide,
            "team": self.team_id,
            "layers": ["task", "team", "enterprise"] if self.run_layers else None,
            "principal": list(self.author_ids) if self.author_ids is not None else None,
        }


def scope_for_key(*, member: Member, key: AccessKey) -> ReadScope:
    """The key's project (its folder when folder-bound) and what is shared enterprise-wide; a run key
    (``TaskRun.run_key``) reads its run's task layers."""
    task_id = key.bound_task_id
    return ReadScope(
        member=member,
        key=key,
        project_ids=(key.project_id,),
        workspace_id=key.workspace_id,
        task_id=task_id,
        run_layers=task_id is not None,
    )


def scoped_memories(scope: ReadScope) -> QuerySet[Memory]:
    memories = memories_visible(member=scope.member)
    # A folder and a project filter both hold when both are given (a filter narrows, never widens).
    place = Q()
    if scope.workspace_id is not None:
        place &= Q(workspace_id=scope.workspace_id)
    if scope.project_ids is not None:
        place &= Q(project_id__in=scope.project_ids)
    if place:
        if scope.include_enterprise_wide:
            place |= Q(visibility=Visibility.ENTERPRISE)
        memories = memories.filter(place)
    if scope.team_id is not None:
        memories = memories.filter(team_id=scope.team_id)
    if scope.run_layers:
        memories = memories.filter(
            Q(layer=Layer.TASK, task_id=scope.task_id) | Q(layer__in=[Layer.TEAM, Layer.ENTERPRISE])
        )
    if scope.author_ids is not None:
        memories = memories.filter(author_id__in=scope.author_ids)
    return memories


@dataclass(frozen=True)
class VisibleSQL:
    """A read's visible memories as one SQL condition on ``memory_memory``, compiled once a ranking.

    Every channel of a ranking filters by the same queryset; Django compiled it anew in each channel's
    statement (the visibility rule's subqueries, the scope, the tenant: ~1-2 ms of CPU each time). The
    condition is ``memory_memory.id IN (the queryset's SELECT)``, the SQL Django writes for it
    (``sql_with_params``), so nothing of the ORM's internals is re-implemented here. Compiling the
    queryset's WHERE by hand and inlining it was measured paired against this at 100k and gained less
    than the 5 ms at p95 a hand-rolled path must pay (bench/RESULTS.md): it is gone. Row-level
    security still applies to every statement that uses it.
    """

    sql: str
    params: tuple[Any, ...]


def visible_sql(memories: QuerySet[Memory] | VisibleSQL) -> VisibleSQL:
    if isinstance(memories, VisibleSQL):
        return memories
    try:
        sql, params = memories.values("pk").query.sql_with_params()
    except EmptyResultSet:  # e.g. pk__in=[]: Django sends no statement for it
        return VisibleSQL("FALSE", ())
    return VisibleSQL(f"memory_memory.id IN ({sql})", tuple(params))


# BM25 (Robertson/Sparck Jones idf as in Lucene; k1 and b at their textbook values, not tuned).
BM25_K1 = 1.2
BM25_B = 0.75
# The text channel scores at most this many candidates. They come from the GIN index through the query's
# rarest lexemes first: a lexeme is added to the candidate query only while the documents holding the
# chosen ones stay under the cap, so a common word ("said", a speaker's name) is scored on the candidates
# but never makes the channel read a large part of the project.
TEXT_CANDIDATES = 2000
MAX_QUERY_LEXEMES = 40


@dataclass(frozen=True)
class TermWeights:
    """The query's lexemes (Postgres 'english': stemmed, stop words dropped) and their BM25 weights."""

    idf: dict[str, float]
    docs: dict[str, int]
    average_length: float

    def candidate_lexemes(self, cap: int | None = None) -> list[str]:
        cap = TEXT_CANDIDATES if cap is None else cap
        chosen: list[str] = []
        covered = 0
        for lexeme in sorted(self.docs, key=lambda x: (self.docs[x], x)):
            if chosen and covered + self.docs[lexeme] > cap:
                break
            chosen.append(lexeme)
            covered += self.docs[lexeme]
        return chosen


# Statements are prepared per connection (core/dbserver.py), and PostgreSQL may then reuse a generic
# plan, made without the values. The ranking channels' best plan depends on them (how many rows a tsquery
# matches, the LIMIT an HNSW scan must fill), so from the term statistics on, and for every vector query,
# the read's transaction plans each statement for its values; it is still parsed and rewritten only once.
CUSTOM_PLANS = "set_config('plan_cache_mode', 'force_custom_plan', true)"


def _vector_settings(depth: int) -> tuple[str, list[Any]]:
    """The HNSW scan's settings for ``depth`` results, with custom plans: a SELECT list and its params."""
    return (
        f"set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', %s, true), {CUSTOM_PLANS}",
        [str(max(40, depth))],
    )


def term_weights(
    query: str, *, project_ids: Sequence[uuid.UUID] | None, vector_depth: int | None = None
) -> TermWeights:
    """BM25 statistics for the query from the per-project counts (memory.TermStat, kept by triggers).

    ``project_ids`` None reads the whole enterprise (the tenant's RLS limits it). ``vector_depth``: the
    same statement also sets the transaction up for a vector channel of that depth (one round trip less
    for ``nearest_memories(..., configured=True)``).
    """
    where = "s.project_id = ANY(%s::uuid[])" if project_ids is not None else "TRUE"
    settings, settings_params = (
        _vector_settings(vector_depth) if vector_depth is not None else (CUSTOM_PLANS, [])
    )
    params: list[Any] = [query, MAX_QUERY_LEXEMES, *settings_params]
    if project_ids is not None:
        params.append([str(p) for p in project_ids])
    with read_connection().cursor() as cursor:
        cursor.execute(
            f"""
            WITH q AS (
                SELECT l AS lexeme FROM unnest(tsvector_to_array(to_tsvector('english', %s))) AS l LIMIT %s
            )
            SELECT q.lexeme, coalesce(sum(s.docs), 0), coalesce(sum(s.length), 0)
            FROM (SELECT lexeme FROM q UNION SELECT '') q
            CROSS JOIN (SELECT {settings}) AS custom_plans
            LEFT JOIN memory_termstat s ON s.lexeme = q.lexeme AND {where}
            GROUP BY q.lexeme
            """,
            params,
        )
        rows = {lexeme: (int(docs), int(length)) for lexeme, docs, length in cursor.fetchall()}
    total, total_length = rows.pop("", (0, 0))
    total = max(total, 1)
    idf = {
        lexeme: math.log(1.0 + (total - min(docs, total) + 0.5) / (min(docs, total) + 0.5))
        for lexeme, (docs, _) in rows.items()
    }
    return TermWeights(
        idf=idf,
        docs={lexeme: docs for lexeme, (docs, _) in rows.items()},
        average_length=max(1.0, total_length / total),
    )


def _text_channel(
    memories: QuerySet[Memory] | VisibleSQL,
    query: str,
    depth: int,
    *,
    project_ids: Sequence[uuid.UUID] | None = None,
    weights: TermWeights | None = None,
    vector_depth: int | None = None,
) -> list[tuple[uuid.UUID, float]]:
    """BM25 over the caller's visible memories: candidates from the GIN index, scored in SQL.

    ``vector_depth``: see ``term_weights`` (used when the weights are read here).
    """
    weights = weights or term_weights(query, project_ids=project_ids, vector_depth=vector_depth)
    chosen = weights.candidate_lexemes()
    if not chosen:
        return []
    visible = visible_sql(memories)
    # Lexemes are quoted as tsquery operands, so the query's own punctuation cannot make an operator.
    tsquery = " | ".join("'" + lexeme.replace("'", "''").replace("\\", "\\\\") + "'" for lexeme in chosen)
    inner = (
        "SELECT memory_memory.id, memory_memory.search_vector FROM memory_memory"
        f" WHERE ({visible.sql}) AND memory_memory.search_vector @@ %s::tsquery LIMIT {TEXT_CANDIDATES:d}"
    )
    inner_params = [*visible.params, tsquery]
    lexemes = list(weights.idf)
    with read_connection().cursor() as cursor:
        cursor.execute(
            f"""
            SELECT c.id, sum(
                q.idf * t.tf * %s::float8 / (t.tf + %s::float8 * (1 - %s::float8 + %s::float8 * length(c.vector) / %s::float8))
            ) AS score
            FROM ({inner}) AS c(id, vector)
            CROSS JOIN LATERAL (
                -- Only the query's lexemes are unnested: marked (weight A) and kept by ts_filter, in C.
                SELECT u.lexeme, coalesce(array_length(u.positions, 1), 1)::float8 AS tf
                FROM unnest(ts_filter(setweight(c.vector, 'A', %s::text[]), '{{a}}')) AS u
            ) AS t
            JOIN unnest(%s::text[], %s::float8[]) AS q(lexeme, idf) ON q.lexeme = t.lexeme
            GROUP BY c.id
            ORDER BY score DESC, c.id
            LIMIT %s
            """,
            [
                BM25_K1 + 1,
                BM25_K1,
                BM25_B,
                BM25_B,
                weights.average_length,
                *inner_params,
                lexemes,
                lexemes,
                [weights.idf[lexeme] for lexeme in lexemes],
                depth,
            ],
        )
        return [(pk, float(score)) for pk, score in cursor.fetchall()]


def nearest_memories(
    memories: QuerySet[Memory] | VisibleSQL, vector: list[float], depth: int, *, configured: bool = False
) -> list[tuple[uuid.UUID, float]]:
    """The vector channel: the ``depth`` memories nearest to ``vector`` (cosine) through the HNSW index.

    ``configured``: this transaction's HNSW settings for ``depth`` were sent already (``term_weights``
    with ``vector_depth``).
    """
    literal = vector_literal(vector)
    visible = visible_sql(memories)
    with read_connection().cursor() as cursor:
        if not configured:
            # Filters apply inside the HNSW scan; iterative scanning keeps going until depth rows pass them.
            settings, params = _vector_settings(depth)
            cursor.execute(f"SELECT {settings}", params)
        cursor.execute(
            "SELECT memory_memory.id, ((memory_memory.embedding::vector(384)) <=> %s::vector(384)) AS distance"
            f" FROM memory_memory WHERE ({visible.sql}) AND memory_memory.embedding_dim = %s"
            f" ORDER BY 2 ASC LIMIT {int(depth):d}",
            [literal, *visible.params, VECTOR_DIM],
        )
        ranked = cursor.fetchall()
    return [(pk, 1.0 - float(distance)) for pk, distance in ranked]


# All of an entity's columns (``Manager.raw`` maps the selected columns onto the model's fields by name).
_ENTITY_COLUMNS = tuple(f.column for f in Entity._meta.concrete_fields)


def entities_in(text: str) -> list[Entity]:
    """Entities whose name (or a rename of it) appears in the text, as a run of 1-4 words.

    One statement (under the tenant's row-level security, as every statement here): the live entities
    whose folded name is one of the text's runs, then the other side of any rename of them; each with
    ``few_links``, whether it is on at most ``ENTITY_CHANNEL_MAX_LINKS`` memories (the entity channel's
    test, read here at most MAX + 1 links of each).
    """
    words = [fold(w) for w in WORD.findall(text)]
    grams = {" ".join(words[i : i + n]) for n in range(1, 5) for i in range(len(words) - n + 1)}
    grams = {g for g in grams if len(g) >= 2}
    if not grams:
        return []
    columns = ", ".join(f"e.{c}" for c in _ENTITY_COLUMNS)
    # Manager.raw: Django's own loading of raw rows into models (its converters, from_db); the column
    # outside the model's fields (few_links) becomes an attribute.
    named = Entity.objects.raw(
        f"""
        WITH named AS MATERIALIZED (
            SELECT {columns} FROM memory_entity e WHERE e.key = ANY(%s::text[]) AND NOT e.deprecated LIMIT 20
        ), found AS (
            SELECT 0 AS side, {columns} FROM named e
            UNION ALL
            SELECT 1, {columns} FROM memory_entity e
            WHERE e.id NOT IN (SELECT id FROM named) AND e.id IN (
                SELECT r.new_id FROM memory_entityrename r WHERE r.old_id IN (SELECT id FROM named)
                UNION SELECT r.old_id FROM memory_entityrename r WHERE r.new_id IN (SELECT id FROM named)
            )
        )
        SELECT {", ".join(f"f.{c}" for c in _ENTITY_COLUMNS)}, (
            SELECT count(*) FROM (SELECT 1 FROM memory_memoryentity x WHERE x.entity_id = f.id LIMIT %s) AS l
        ) <= %s AS few_links
        FROM found f
        ORDER BY f.side, f.id
        """,
        [array_literal(sorted(grams)), ENTITY_CHANNEL_MAX_LINKS + 1, ENTITY_CHANNEL_MAX_LINKS],
    )
    return list(named)


# An entity on more memories than this names a whole stream (a conversation's speaker, the company itself):
# matching it says nothing about which memory answers. Measured on LoCoMo, where every turn carries its
# speaker: with such entities in, the fused hit@10 fell from 0.675 (text + vector) to 0.658.
ENTITY_CHANNEL_MAX_LINKS = 50


def _entity_channel(
    memories: QuerySet[Memory] | VisibleSQL, entities: list[Entity], depth: int
) -> list[uuid.UUID]:
    """The visible memories of the named entities that are not too frequent, newest first.

    ``entities`` come from ``entities_in``, which says of each whether it is on at most
    ``ENTITY_CHANNEL_MAX_LINKS`` memories (``few_links``). One statement for their memories, the ids
    as constants so that the planner estimates the join from the entities' own statistics (with the
    frequency check in the same statement it could not, and chose to walk the timestamp index: 12-13
    against 7 ms a query at 100k, bench.scale.run).
    """
    chosen = [e.pk for e in entities if e.few_links]
    if not chosen:
        return []
    with read_connection().cursor() as cursor:
        visible = visible_sql(memories)
        cursor.execute(
            f"""
            SELECT memory_memory.id FROM memory_memory
            WHERE ({visible.sql}) AND memory_memory.id IN (
                SELECT me.memory_id FROM memory_memoryentity me WHERE me.entity_id = ANY(%s::bigint[])
            )
            ORDER BY memory_memory.timestamp DESC
            LIMIT {int(depth):d}
            """,
            [*visible.params, array_literal(chosen)],
        )
        return [pk for (pk,) in cursor.fetchall()]


@dataclass
class Ranked:
    ids: list[uuid.UUID]
    scores: dict[uuid.UUID, float]
    channels: dict[uuid.UUID, list[str]]
    available_channels: list[str]
    vector_error: str | None = None
    entities: list[Entity] = field(default_factory=list)
    cosines: dict[uuid.UUID, float] = field(default_factory=dict)
    embedder_name: str | None = None


def _min_max(scores: Iterable[tuple[uuid.UUID, float]]) -> dict[uuid.UUID, float]:
    """A channel's scores on 0..1 over its own list (the best 1, the last 0; all 1 when they tie)."""
    pairs = list(scores)
    if not pairs:
        return {}
    low, high = min(v for _, v in pairs), max(v for _, v in pairs)
    return {pk: (v - low) / (high - low) if high > low else 1.0 for pk, v in pairs}


def fuse(
    channel_scores: dict[str, list[tuple[uuid.UUID, float]]], weights: dict[str, float] | None = None
) -> dict[uuid.UUID, float]:
    """Score fusion: each channel's scores normalised to 0..1 over its own list, weighted, added."""
    weights = weights or WEIGHTS
    fused: dict[uuid.UUID, float] = {}
    for name, scored in channel_scores.items():
        for pk, value in _min_max(scored).items():
            fused[pk] = fused.get(pk, 0.0) + weights[name] * value
    return fused


@dataclass(frozen=True)
class CandidateLinks:
    """What the boosts need to know of a ranking's candidates, read in one statement."""

    named: frozenset[uuid.UUID]  # candidates linked to one of the query's entities
    next_pairs: tuple[tuple[uuid.UUID, uuid.UUID], ...]  # live NEXT links between two candidates
    timestamps: dict[uuid.UUID, datetime] = field(default_factory=dict)  # of every candidate, when asked


def candidate_links(
    candidates: Iterable[uuid.UUID],
    named_among: Iterable[uuid.UUID],
    entities: Sequence[Entity],
    *,
    timestamps: bool = False,
) -> CandidateLinks:
    """Of ``named_among``, those linked to ``entities``; of ``candidates``, the live NEXT links between two
    and, with ``timestamps``, each one's timestamp.

    One statement for all (they were two ORM queries, ~4 ms of CPU a search between them).
    """
    ids = array_literal(candidates)
    among = list(named_among) if entities else []
    with read_connection().cursor() as cursor:
        cursor.execute(
            """
            SELECT me.memory_id, NULL::uuid, NULL::timestamptz FROM memory_memoryentity me
            WHERE me.entity_id = ANY(%s::bigint[]) AND me.memory_id = ANY(%s::uuid[])
            UNION ALL
            SELECT l.src_id, l.dst_id, NULL FROM memory_memorylink l
            WHERE l.kind = %s AND l.revoked_at IS NULL AND l.src_id = ANY(%s::uuid[]) AND l.dst_id = ANY(%s::uuid[])
            UNION ALL
            SELECT m.id, NULL, m.timestamp FROM memory_memory m WHERE %s AND m.id = ANY(%s::uuid[])
            """,
            [
                array_literal([e.pk for e in entities]),
                array_literal(among),
                str(LinkKind.NEXT),
                ids,
                ids,
                timestamps,
                ids,
            ],
        )
        rows = cursor.fetchall()
    return CandidateLinks(
        named=frozenset(src for src, dst, at in rows if dst is None and at is None),
        next_pairs=tuple((src, dst) for src, dst, _ in rows if dst is not None),
        timestamps={pk: at for pk, _, at in rows if at is not None},
    )


def with_named_entities(
    scores: dict[uuid.UUID, float], named: Iterable[uuid.UUID], boost: float | None = None
) -> dict[uuid.UUID, float]:
    """The ``named`` candidates (linked to an entity the query names) gain ``boost``."""
    boost = NAMED_ENTITY_BOOST if boost is None else boost
    chosen = set(named)
    if not chosen or not boost:
        return scores
    return {pk: value + boost * (pk in chosen) for pk, value in scores.items()}


def with_named_times(
    scores: dict[uuid.UUID, float],
    timestamps: dict[uuid.UUID, datetime],
    windows: Sequence[Window],
    boost: float | None = None,
) -> dict[uuid.UUID, float]:
    """The candidates whose timestamp falls in a period the query names (``windows``) gain ``boost``."""
    boost = TIME_BOOST if boost is None else boost
    if not windows or not boost:
        return scores
    timed = in_named_periods(timestamps, windows)
    return {pk: value + boost * (pk in timed) for pk, value in scores.items()}


def in_named_periods(timestamps: dict[uuid.UUID, datetime], windows: Sequence[Window]) -> set[uuid.UUID]:
    """The memories (of ``timestamps``) whose timestamp falls in a period the query names."""
    return {pk for pk, at in timestamps.items() if any(w.holds(at) for w in windows)}


def with_neighbours(
    scores: dict[uuid.UUID, float],
    next_pairs: Iterable[tuple[uuid.UUID, uuid.UUID]],
    weight: float | None = None,
) -> dict[uuid.UUID, float]:
    """Each candidate gains ``weight`` x the fused score of its best sequence neighbour among the candidates.

    A turn that answers often sits beside the turn the question's words match (the question, then the
    answer). Only candidates move: a neighbour no channel found is not added, so nothing unseen by the
    visibility filter can enter. ``next_pairs``: the live NEXT links between candidates (``candidate_links``).
    """
    weight = NEIGHBOUR_WEIGHT if weight is None else weight
    best: dict[uuid.UUID, float] = {}
    for src, dst in next_pairs:
        if src in scores and dst in scores:
            best[src] = max(best.get(src, 0.0), scores[dst])
            best[dst] = max(best.get(dst, 0.0), scores[src])
    return {pk: value + weight * best.get(pk, 0.0) for pk, value in scores.items()}


def reordered_rows(
    ids: Sequence[uuid.UUID], vector: Sequence[float]
) -> tuple[dict[uuid.UUID, float], set[uuid.UUID]]:
    """Of the candidates the learned ranker reorders: each one's cosine to the query (those with a vector)
    and those whose content asks (a question mark). One statement, over at most ``ranker.REORDER_DEPTH`` rows."""
    literal = vector_literal(vector)
    with read_connection().cursor() as cursor:
        cursor.execute(
            """
            SELECT m.id,
                   CASE WHEN m.embedding_dim = %s THEN 1.0 - ((m.embedding::vector(384)) <=> %s::vector(384)) END,
                   m.content ~ %s
            FROM memory_memory m WHERE m.id = ANY(%s::uuid[])
            """,
            [VECTOR_DIM, literal, "[" + "".join(ranker.QUESTION_MARKS) + "]", array_literal(ids)],
        )
        rows = cursor.fetchall()
    return {pk: float(cosine) for pk, cosine, _ in rows if cosine is not None}, {
        pk for pk, _, asks in rows if asks
    }


def learned_order(
    fused: dict[uuid.UUID, float],
    found: dict[str, list[tuple[uuid.UUID, float]]],
    links: CandidateLinks,
    windows: Sequence[Window],
    vector: Sequence[float],
) -> dict[uuid.UUID, float]:
    """The hand fusion's best ``ranker.REORDER_DEPTH`` candidates reordered by the learned ranker
    (``memory.ranker``), the rest after them in the hand fusion's order."""
    model = ranker.load()
    if model is None:
        return fused
    best = sorted(fused, key=lambda pk: (-fused[pk], str(pk)))[: ranker.REORDER_DEPTH]
    cosines, asks = reordered_rows(best, vector)
    return ranker.rank(
        ranker.Candidates(
            fused=fused,
            text=[pk for pk, _ in found.get("text", [])],
            vector=found.get("vector", []),
            cosines=cosines,
            neighbours=links.next_pairs,
            asks=asks,
            named=links.named,
            timed=in_named_periods(links.timestamps, windows),
            reorder=best,
        ),
        model,
    )


_QUERY_EMBEDDING = ThreadPoolExecutor(max_workers=4, thread_name_prefix="query-embedding")
# Query embeddings the tool door started for the call in progress, by text (a hand-off within one call,
# never a cache across calls: a later call embeds again, so a changed or stopped embedder is seen).
_PREFETCHED: ContextVar[dict[str, Future[tuple[Embedder, list[float]]]] | None] = ContextVar(
    "mnemos_prefetched_query_vectors", default=None
)


def _embed_query(query: str) -> tuple[Embedder, list[float]]:
    embedder = get_embedder()
    return embedder, embedder.embed_query(query)


@contextmanager
def query_vector_prefetch(text: object) -> Iterator[None]:
    """Start embedding ``text`` now (on the embedder's thread) for a ``hybrid_rank`` later in this call.

    Anything but a non-blank string starts nothing (the handler's validation reports it).
    """
    if not isinstance(text, str) or not text.strip():
        yield
        return
    token = _PREFETCHED.set({text: _QUERY_EMBEDDING.submit(_embed_query, text)})
    try:
        yield
    finally:
        _PREFETCHED.reset(token)


def _query_vector(query: str) -> Future[tuple[Embedder, list[float]]]:
    prefetched = _PREFETCHED.get()
    if prefetched is not None and query in prefetched:
        return prefetched.pop(query)
    return _QUERY_EMBEDDING.submit(_embed_query, query)


def hybrid_rank(
    *,
    memories: QuerySet[Memory],
    query: str,
    depth: int = CHANNEL_DEPTH,
    project_ids: Sequence[uuid.UUID] | None = None,
) -> Ranked:
    """``project_ids``: where the text channel's statistics come from (None: the whole enterprise)."""
    # The query is embedded on another thread (the embedder releases the GIL), started by the tool door
    # when the call passed its gate or else here, so it overlaps the door and the text channel's SQL.
    embedding = _query_vector(query)
    visible = visible_sql(memories)
    found: dict[str, list[tuple[uuid.UUID, float]]] = {
        "text": _text_channel(visible, query, depth, project_ids=project_ids, vector_depth=depth)
    }
    available = ["text"]
    # The entity channel needs no vector: it runs while the embedder may still be working.
    entities = entities_in(query)
    # The entity channel has no score of its own: its order (newest first) decays linearly.
    linked = _entity_channel(visible, entities, depth)
    vector_error = None
    vector: list[float] | None = None
    cosines: dict[uuid.UUID, float] = {}
    embedder_name = None
    try:
        embedder, vector = embedding.result()
    except EmbedderUnavailable as exc:
        vector_error = str(exc)
        logger.warning("vector channel unavailable: %s", exc)
    else:
        embedder_name = embedder.name
        nearest = nearest_memories(visible, vector, depth, configured=True)
        cosines = dict(nearest)
        found["vector"] = nearest
        available.append("vector")
    found["entity"] = [(pk, 1.0 - rank / max(depth, 1)) for rank, pk in enumerate(linked)]
    available.append("entity")
    scores = fuse(found)
    if scores:
        matched = {pk for name in ("text", "vector") for pk, _ in found.get(name, [])}
        windows = named_windows(query)
        links = candidate_links(scores, matched, entities, timestamps=bool(windows))
        scores = with_named_times(with_named_entities(scores, links.named), links.timestamps, windows)
        scores = with_neighbours(scores, links.next_pairs)
        if vector is not None and found.get("vector"):  # without vectors, half its features are missing
            scores = learned_order(scores, found, links, windows, vector)
    channels: dict[uuid.UUID, list[str]] = {}
    for name, scored in found.items():
        for pk, _ in scored:
            channels.setdefault(pk, []).append(name)
    ordered = sorted(scores, key=lambda pk: (-scores[pk], str(pk)))
    return Ranked(ordered, scores, channels, available, vector_error, entities, cosines, embedder_name)


# A page's columns: all of a memory's but its vector and its text-search vector (``has_vector`` says
# whether there is a vector; the two load on first use, as deferred fields do).
_PAGE_COLUMNS = ", ".join(
    f"m.{f.column}" for f in Memory._meta.concrete_fields if f.name not in ("embedding", "search_vector")
)


def memories_by_ids(ids: Iterable[uuid.UUID]) -> dict[uuid.UUID, Memory]:
    """The rows for ids a ranking returned, in one statement, each with ``has_vector``, ``project_slug``
    and ``workspace_name`` (what a page shows of its project and folder: read those, not ``project`` or
    ``workspace``, which would load on first use).

    ``Manager.raw``: Django maps the columns onto the model and applies each field's converters, and
    nothing is compiled (the queryset with select_related, defer and an annotation cost ~2.5 ms of CPU a
    search, measured paired: bench/RESULTS.md).
    """
    wanted = list(ids)
    if not wanted:
        return {}
    rows = Memory.objects.raw(
        f"""
        SELECT {_PAGE_COLUMNS}, m.embedding IS NOT NULL AS has_vector, p.slug AS project_slug,
               w.name AS workspace_name
        FROM memory_memory m
        JOIN accounts_project p ON p.id = m.project_id
        JOIN accounts_workspace w ON w.id = m.workspace_id
        WHERE m.id = ANY(%s::uuid[])
        """,
        [array_literal(wanted)],
    )
    return {memory.pk: memory for memory in rows}


def recent_first(memories: QuerySet[Memory], since: datetime | None = None) -> QuerySet[Memory]:
    if since is not None:
        memories = memories.filter(timestamp__gte=since)
    return memories.order_by("-timestamp", "-created_at")
