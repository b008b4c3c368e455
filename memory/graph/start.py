"""START a = events(...): the anchor events, their scores, and how well the start covered its scope."""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, field
from typing import Any

from django.db.models import QuerySet
from django.db.models.expressions import RawSQL
from pgvector.django import CosineDistance

from core.dbrouting import read_connection
from memory.embedding import EmbedderUnavailable, get_embedder
from memory.graph import schema
from memory.graph.store import GraphStore
from memory.graph.validator import StartSpec
from memory.lookups import vector_literal
from memory.models import Entity, Memory, MemoryEntity, MemoryTag, Tag
from memory.selectors.search import VECTOR_DIM, hybrid_rank

logger = logging.getLogger(__name__)


@dataclass
class StartResult:
    ids: list[uuid.UUID]
    scores: dict[uuid.UUID, float]
    shape: str
    k: int
    k_cap: int
    variable: str = ""
    scoped_mode: str | None = None
    has_more: bool = False
    filled: bool = True
    unresolved: list[dict[str, str]] = field(default_factory=list)
    entities: list[Entity] = field(default_factory=list)
    tags: list[Tag] = field(default_factory=list)
    entities_truncated: bool = False
    tags_truncated: bool = False
    embedder: str | None = None
    truncated: list[dict[str, Any]] = field(default_factory=list)
    detail: str = ""


def _shape(spec: StartSpec) -> tuple[str, int]:
    """The start's shape and its k cap: text and combined starts 20; entity, tag or ids alone 200."""
    parts = [
        name
        for name, present in (
            ("entity", spec.has_entities),
            ("tag", spec.has_tags),
            ("ids", spec.ids is not None),
        )
        if present
    ]
    if spec.text is not None:
        return "+".join(["text", *parts]), schema.K_MAX
    return "+".join(parts), schema.K_MAX_ALONE if len(parts) == 1 else schema.K_MAX


def _cap_names(parts: list[list[Any]], limit: int) -> tuple[list[list[Any]], bool]:
    """At most ``limit`` distinct matches across parts, in the order the names were given."""
    kept: dict[Any, None] = {}
    cut = False
    out = []
    for part in parts:
        mine = []
        for item in part:
            if item.pk in kept:
                mine.append(item)
            elif len(kept) < limit:
                kept[item.pk] = None
                mine.append(item)
            else:
                cut = True
        out.append(mine)
    return out, cut


def _resolve(spec: StartSpec, store: GraphStore, result: StartResult) -> QuerySet[Memory] | None:
    """The scope the start ranks or lists; None when a part found no name (no rows)."""
    entity_parts: list[list[Entity]] = []
    if spec.entity_any:
        found: list[Entity] = []
        for value in spec.entity_any:
            named = store.entities_named(value)
            if not named:
                result.unresolved.append({"kind": "entity", "name": str(value)})
            found.extend(e for e in named if e not in found)
        entity_parts.append(found)
    for value in spec.entity_all:
        named = store.entities_named(value)
        if not named:
            result.unresolved.append({"kind": "entity", "name": str(value)})
        entity_parts.append(named)
    tag_parts: list[list[Tag]] = []
    if spec.tag_any:
        found_tags: list[Tag] = []
        for name in spec.tag_any:
            named_tags = store.tags_named(name)
            if not named_tags:
                result.unresolved.append({"kind": "tag", "name": name})
            found_tags.extend(t for t in named_tags if t not in found_tags)
        tag_parts.append(found_tags)
    for name in spec.tag_all:
        named_tags = store.tags_named(name)
        if not named_tags:
            result.unresolved.append({"kind": "tag", "name": name})
        tag_parts.append(named_tags)
    entity_parts, result.entities_truncated = _cap_names(entity_parts, schema.NAME_MATCHES_MAX)
    tag_parts, result.tags_truncated = _cap_names(tag_parts, schema.NAME_MATCHES_MAX)
    result.entities = list({e.pk: e for part in entity_parts for e in part}.values())
    result.tags = list({t.pk: t for part in tag_parts for t in part}.values())
    for kind, cut in (("entities", result.entities_truncated), ("tags", result.tags_truncated)):
        if cut:
            result.truncated.append(
                {
                    "stage": "start",
                    "cap": "name_matches",
                    "limit": schema.NAME_MATCHES_MAX,
                    "detail": f"more than {schema.NAME_MATCHES_MAX} {kind} matched the names; the first "
                    f"{schema.NAME_MATCHES_MAX} were used",
                }
            )
    scope = store.visible
    empty = False
    for entity_part in entity_parts:
        if not entity_part:
            empty = True
            continue
        linked = MemoryEntity.objects.filter(entity_id__in=[e.pk for e in entity_part]).values("memory_id")
        scope = scope.filter(pk__in=linked)
    for tag_part in tag_parts:
        if not tag_part:
            empty = True
            continue
        tagged = MemoryTag.objects.filter(tag_id__in=[t.pk for t in tag_part]).values("memory_id")
        scope = scope.filter(pk__in=tagged)
    if spec.ids is not None:
        visible = set(store.visible_ids(spec.ids))
        result.unresolved.extend(
            {"kind": "id", "name": raw} for raw in spec.ids if not _is_uuid_in(raw, visible)
        )
        if not visible:
            empty = True
        scope = scope.filter(pk__in=visible)
    return None if empty else scope


def _is_uuid_in(raw: str, ids: set[uuid.UUID]) -> bool:
    try:
        return uuid.UUID(raw) in ids
    except ValueError:
        return False


def _newest(scope: QuerySet[Memory], k: int) -> list[uuid.UUID]:
    return list(scope.order_by("-timestamp", "-created_at", "pk").values_list("pk", flat=True)[:k])


def _cosines(
    store: GraphStore, ids: list[uuid.UUID], vector: list[float], model: str
) -> dict[uuid.UUID, float]:
    rows = (
        store.visible.filter(pk__in=ids, embedding_model=model, embedding__isnull=False)
        .annotate(distance=CosineDistance("embedding", vector))
        .values_list("pk", "distance")
    )
    return {pk: round(1.0 - float(distance), 6) for pk, distance in rows}


def _embedder_down(result: StartResult, exc: Exception) -> None:
    logger.warning("graph start: embedder unavailable: %s", exc)
    result.filled = False
    result.truncated.append(
        {
            "stage": "start",
            "cap": "vector_unavailable",
            "detail": f"the embedder could not answer ({exc}); events were not measured against the text",
        }
    )


def _scoped_text(spec: StartSpec, scope: QuerySet[Memory], store: GraphStore, result: StartResult) -> None:
    assert spec.text is not None
    total = scope.count()
    try:
        embedder = get_embedder()
        vector = embedder.embed_query(spec.text)
    except EmbedderUnavailable as exc:
        _embedder_down(result, exc)
        result.ids = _newest(scope, result.k)
        result.has_more = total > len(result.ids)
        return
    result.embedder = embedder.name
    measurable = scope.filter(
        embedding_model=embedder.name, embedding_dim=embedder.dim, embedding__isnull=False
    )
    measured_total = measurable.count()
    if total <= schema.EXACT_SCOPE_MAX:
        result.scoped_mode = "exact"
        ranked = measurable.annotate(distance=CosineDistance("embedding", vector)).order_by("distance", "pk")
        rows = list(ranked.values_list("pk", "distance")[: result.k])
        result.filled = True
    else:
        result.scoped_mode = "filtered_ann"
        with read_connection().cursor() as cursor:
            # Filters apply inside the HNSW scan; iterative scanning keeps going until k rows pass them.
            cursor.execute("SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true)")
            cursor.execute("SELECT set_config('hnsw.ef_search', %s, true)", [str(max(40, result.k * 4))])
        if embedder.dim == VECTOR_DIM:
            literal = vector_literal(vector)
            distance: Any = RawSQL("(memory_memory.embedding::vector(384)) <=> %s::vector(384)", [literal])
        else:
            distance = CosineDistance("embedding", vector)
        rows = list(
            measurable.annotate(distance=distance)
            .order_by("distance")
            .values_list("pk", "distance")[: result.k]
        )
        result.filled = len(rows) >= min(result.k, measured_total)
    result.ids = [pk for pk, _ in rows]
    result.scores = {pk: round(1.0 - float(d), 6) for pk, d in rows}
    result.has_more = total > len(result.ids)
    pending = total - measured_total
    if pending:
        result.filled = False
        result.truncated.append(
            {
                "stage": "start",
                "cap": "vectors_pending",
                "detail": f"{pending} events in scope have no vector yet and were not measured against the text",
            }
        )


def _text(spec: StartSpec, store: GraphStore, result: StartResult) -> None:
    assert spec.text is not None
    ranked = hybrid_rank(memories=store.visible, query=spec.text)
    result.ids = ranked.ids[: result.k]
    result.has_more = len(ranked.ids) > len(result.ids)
    if ranked.vector_error is not None or ranked.embedder_name is None:
        _embedder_down(result, RuntimeError(ranked.vector_error or "no embedder"))
        return
    result.embedder = ranked.embedder_name
    vector = get_embedder().embed_query(spec.text)
    result.scores = _cosines(store, result.ids, vector, ranked.embedder_name)


def run_start(spec: StartSpec, store: GraphStore) -> StartResult:
    shape, cap = _shape(spec)
    requested = spec.k
    if requested is None:
        requested = len(spec.ids) if shape == "ids" and spec.ids else schema.K_DEFAULT
    result = StartResult(ids=[], scores={}, shape=shape, k=min(requested, cap), k_cap=cap, variable=spec.var)
    if requested > cap:
        result.truncated.append(
            {
                "stage": "start",
                "cap": "k",
                "limit": cap,
                "requested": requested,
                "detail": f"k {requested} is over the cap of {cap} for a {shape} start; {cap} were asked for",
            }
        )
    scope = _resolve(spec, store, result)
    if scope is None:
        result.detail = f"{spec.describe()}: a part named nothing visible, so no events"
    elif spec.text is not None and shape != "text":
        _scoped_text(spec, scope, store, result)
    elif spec.text is not None:
        _text(spec, store, result)
    elif shape == "ids":
        order = {raw: i for i, raw in enumerate(spec.ids or [])}
        visible = sorted(scope.values_list("pk", flat=True), key=lambda pk: order.get(str(pk), len(order)))
        result.ids = visible[: result.k]
        result.has_more = len(visible) > len(result.ids)
    else:
        result.ids = _newest(scope, result.k + 1)
        result.has_more = len(result.ids) > result.k
        result.ids = result.ids[: result.k]
    if not result.filled:
        result.truncated.append(
            {
                "stage": "start",
                "cap": "filled",
                "detail": "the start did not cover its scope (filled: false): 0 rows mean not confirmed, not absent",
            }
        )
    if not result.detail:
        how = f", {result.scoped_mode}" if result.scoped_mode else ""
        result.detail = f"{spec.describe()} k={result.k}{how}: {len(result.ids)} events"
    return result
