"""The graph reads, batched per hop, over the caller's visible memories only.

Every query here joins through ``visible`` (the caller's read scope, compiled once into a subquery):
an event is reached only when it is visible, an entity or a tag only through a visible event. Row
level security and the tenant manager stay in force underneath.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q, QuerySet

from core.dbrouting import read_connection
from memory.graph.schema import far_ceiling, similar_floor
from memory.graph.validator import Hop
from memory.models import (
    Entity,
    EntityCooccurrence,
    EntityRename,
    LinkKind,
    Memory,
    MemoryEntity,
    MemoryLink,
    MemoryTag,
    Tag,
)
from memory.text import fold

ME = MemoryEntity._meta.db_table
MT = MemoryTag._meta.db_table
ML = MemoryLink._meta.db_table
MEM = Memory._meta.db_table
CO = EntityCooccurrence._meta.db_table
RN = EntityRename._meta.db_table
ORDER_INDEX_DEPTH = 1000


@dataclass
class HopPairs:
    """What one hop found: (src, dst, relation properties) per source, and the sources it cut."""

    pairs: dict[Any, list[tuple[Any, dict[str, Any]]]] = field(default_factory=lambda: defaultdict(list))
    capped: set[Any] = field(default_factory=set)
    thresholds: dict[str, float] = field(default_factory=dict)


class GraphStore:
    def __init__(self, visible: QuerySet[Memory]) -> None:
        self.visible = visible
        sql, params = visible.values(
            "id", "timestamp", "embedding", "embedding_model", "embedding_dim"
        ).query.sql_with_params()
        self._vis_sql = f"({sql})"
        self._vis_params = list(params)

    # --- helpers -------------------------------------------------------------------------------
    def _fetch(self, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        with read_connection().cursor() as cursor:
            cursor.execute(sql, list(params))
            return list(cursor.fetchall())

    def _capped(self, inner: str, params: list[Any], fanout: int, extra: Sequence[str] = ()) -> HopPairs:
        """Run ``inner`` (columns src, dst, extras..., rn) keeping ``fanout`` rows per source."""
        columns = ", ".join(["q.src", "q.dst", *[f"q.{c}" for c in extra], "q.rn"])
        rows = self._fetch(
            f"SELECT {columns} FROM ({inner}) q WHERE q.rn <= %s ORDER BY q.src, q.rn", [*params, fanout + 1]
        )
        found = HopPairs()
        for row in rows:
            src, dst, *values, rn = row
            if rn > fanout:
                found.capped.add(src)
                continue
            found.pairs[src].append((dst, dict(zip(extra, values, strict=True))))
        return found

    @property
    def vis(self) -> tuple[str, list[Any]]:
        return self._vis_sql, list(self._vis_params)

    def visible_entities(self) -> QuerySet[Entity]:
        return Entity.objects.filter(
            pk__in=MemoryEntity.objects.filter(memory_id__in=self.visible.values("pk")).values("entity_id")
        )

    def visible_tags(self) -> QuerySet[Tag]:
        return Tag.objects.filter(
            pk__in=MemoryTag.objects.filter(memory_id__in=self.visible.values("pk")).values("tag_id")
        )

    # --- name resolution (START) ----------------------------------------------------------------
    def entities_named(self, value: str | int) -> list[Entity]:
        """The visible entities a name (case and width folded) or an id names, with their recorded renames."""
        found: list[Entity] = []
        text = str(value).strip()
        if isinstance(value, int) or text.isdigit():
            found = list(self.visible_entities().filter(pk=int(text)))
        if not found and isinstance(value, str):
            found = list(self.visible_entities().filter(key=fold(value)))
        if not found:
            return []
        family = {e.pk: e for e in found}
        frontier = list(family)
        while frontier:
            pairs = EntityRename.objects.filter(Q(old_id__in=frontier) | Q(new_id__in=frontier)).values_list(
                "old_id", "new_id"
            )
            others = {i for pair in pairs for i in pair} - set(family)
            frontier = []
            for entity in self.visible_entities().filter(pk__in=others).order_by("pk"):
                family[entity.pk] = entity
                frontier.append(entity.pk)
        return list(family.values())

    def tags_named(self, name: str) -> list[Tag]:
        """The visible tags whose path or own name is ``name`` (any letter case), and the tags under them."""
        text = name.strip().strip("/")
        matched = list(Tag.objects.filter(Q(path__iexact=text) | Q(name__iexact=text)).order_by("path"))
        if not matched:
            return []
        under = Q(pk__in=[t.pk for t in matched])
        for tag in matched:
            under |= Q(path__startswith=f"{tag.path}/")
        linked = list(self.visible_tags().filter(under))
        paths = [t.path for t in linked]
        # A tag group counts when a tag under it is on a visible event.
        groups = [t for t in matched if any(p.startswith(f"{t.path}/") for p in paths)]
        found = {t.pk: t for t in [*groups, *linked]}
        return sorted(found.values(), key=lambda t: (t.path, t.pk))

    def visible_ids(self, ids: Iterable[str]) -> list[uuid.UUID]:
        wanted = []
        for raw in ids:
            try:
                wanted.append(uuid.UUID(str(raw)))
            except ValueError:
                continue
        return list(self.visible.filter(pk__in=wanted).values_list("pk", flat=True))

    # --- hops ---------------------------------------------------------------------------------
    def hop(self, hop: Hop, sources: list[Any], fanout: int, vector_k: int) -> HopPairs:
        name = hop.relation.name
        if name == "PARTICIPATED_IN":
            return self._participated(hop.way, sources, fanout)
        if name == "MEMBER_OF":
            return self._member_of(hop.way, sources, fanout)
        if name in ("NEXT", "RESOLVED_BY"):
            return self._link(name, hop.way, sources, fanout, hop.params.get("relation"))
        if name == "SHARES":
            return self._shares(sources, fanout, int(hop.params.get("min", 1)))
        if name in ("SIMILAR", "FAR"):
            return self._vector(name, sources, vector_k, hop.params)
        if name == "CONNECTED":
            return self._connected(sources, fanout, int(hop.params.get("min", 1)))
        if name == "SAME_AS":
            return self._same_as(sources, fanout)
        raise AssertionError(name)

    def _participated(self, way: str, sources: list[Any], fanout: int) -> HopPairs:
        vis, params = self.vis
        if way == "in":  # from events to their entities
            inner = (
                f"SELECT me.memory_id AS src, me.entity_id AS dst, "
                f"row_number() OVER (PARTITION BY me.memory_id ORDER BY me.entity_id) AS rn "
                f"FROM {ME} me WHERE me.memory_id = ANY(%s::uuid[])"
            )
            return self._capped(inner, [sources], fanout)
        inner = (
            f"SELECT me.entity_id AS src, me.memory_id AS dst, "
            f"row_number() OVER (PARTITION BY me.entity_id ORDER BY v.timestamp DESC, v.id) AS rn "
            f"FROM {ME} me JOIN {vis} v ON v.id = me.memory_id WHERE me.entity_id = ANY(%s::bigint[])"
        )
        return self._capped(inner, [*params, sources], fanout)

    def _member_of(self, way: str, sources: list[Any], fanout: int) -> HopPairs:
        vis, params = self.vis
        if way == "out":  # from events to their tags
            inner = (
                f"SELECT mt.memory_id AS src, mt.tag_id AS dst, "
                f"row_number() OVER (PARTITION BY mt.memory_id ORDER BY mt.tag_id) AS rn "
                f"FROM {MT} mt WHERE mt.memory_id = ANY(%s::uuid[])"
            )
            return self._capped(inner, [sources], fanout)
        inner = (
            f"SELECT mt.tag_id AS src, mt.memory_id AS dst, "
            f"row_number() OVER (PARTITION BY mt.tag_id ORDER BY v.timestamp DESC, v.id) AS rn "
            f"FROM {MT} mt JOIN {vis} v ON v.id = mt.memory_id WHERE mt.tag_id = ANY(%s::bigint[])"
        )
        return self._capped(inner, [*params, sources], fanout)

    def _link(
        self, name: str, way: str, sources: list[Any], fanout: int, relations: list[str] | None
    ) -> HopPairs:
        vis, params = self.vis
        here, there = ("src_id", "dst_id") if way == "out" else ("dst_id", "src_id")
        kind = LinkKind.NEXT if name == "NEXT" else LinkKind.RESOLVED_BY
        extra = ("relation", "asserted_at") if name == "RESOLVED_BY" else ()
        select_extra = "".join(f", l.{c} AS {c}" for c in extra)
        relation_filter = " AND l.relation = ANY(%s::text[])" if relations else ""
        inner = (
            f"SELECT l.{here} AS src, l.{there} AS dst{select_extra}, "
            f"row_number() OVER (PARTITION BY l.{here} ORDER BY v.timestamp, v.id) AS rn "
            f"FROM {ML} l JOIN {vis} v ON v.id = l.{there} "
            f"WHERE l.kind = %s AND l.revoked_at IS NULL AND l.{here} = ANY(%s::uuid[]){relation_filter}"
        )
        found = self._capped(
            inner, [*params, kind.value, sources, *([relations] if relations else [])], fanout, extra
        )
        for pairs in found.pairs.values():
            for _, props in pairs:
                if props.get("asserted_at") is not None:
                    props["asserted_at"] = props["asserted_at"].isoformat()
        return found

    def _shares(self, sources: list[Any], fanout: int, minimum: int) -> HopPairs:
        vis, params = self.vis
        inner = (
            f"SELECT me1.memory_id AS src, me2.memory_id AS dst, count(DISTINCT me1.entity_id) AS count, "
            f"row_number() OVER (PARTITION BY me1.memory_id "
            f"ORDER BY count(DISTINCT me1.entity_id) DESC, max(v.timestamp) DESC, me2.memory_id) AS rn "
            f"FROM {ME} me1 JOIN {ME} me2 ON me2.entity_id = me1.entity_id AND me2.memory_id <> me1.memory_id "
            f"JOIN {vis} v ON v.id = me2.memory_id "
            f"WHERE me1.memory_id = ANY(%s::uuid[]) "
            f"GROUP BY me1.memory_id, me2.memory_id HAVING count(DISTINCT me1.entity_id) >= %s"
        )
        return self._capped(inner, [*params, sources, minimum], fanout, ("count",))

    def _vector(self, name: str, sources: list[Any], k: int, options: dict[str, Any]) -> HopPairs:
        vis, params = self.vis
        found = HopPairs()
        by_model: dict[str, list[Any]] = defaultdict(list)
        for pk, model in self.visible.filter(pk__in=sources, embedding__isnull=False).values_list(
            "pk", "embedding_model"
        ):
            by_model[model].append(pk)
        for model, ids in by_model.items():
            if name == "SIMILAR":
                threshold = float(options.get("min", similar_floor(model)))
                keep, order = "n.cos >= %s", "v.embedding <=> s.embedding"
            else:
                threshold = float(options.get("max", far_ceiling(model)))
                keep, order = "n.cos < %s", "v.embedding <=> s.embedding DESC"
            found.thresholds[model] = threshold
            inner = (
                f"SELECT s.id AS src, n.id AS dst, n.cos AS score, "
                f"row_number() OVER (PARTITION BY s.id ORDER BY n.cos {'DESC' if name == 'SIMILAR' else 'ASC'}, n.id) AS rn "
                f"FROM {MEM} s CROSS JOIN LATERAL ("
                f"SELECT v.id, 1 - (v.embedding <=> s.embedding) AS cos FROM {vis} v "
                f"WHERE v.id <> s.id AND v.embedding IS NOT NULL AND v.embedding_model = s.embedding_model "
                f"AND v.embedding_dim = s.embedding_dim ORDER BY {order}, v.id LIMIT %s) n "
                f"WHERE s.id = ANY(%s::uuid[]) AND s.embedding IS NOT NULL AND {keep}"
            )
            part = self._capped(inner, [*params, k + 1, ids, threshold], k, ("score",))
            for src, pairs in part.pairs.items():
                found.pairs[src].extend((dst, {"score": round(float(p["score"]), 6)}) for dst, p in pairs)
            found.capped |= part.capped
        return found

    def _connected(self, sources: list[Any], fanout: int, minimum: int) -> HopPairs:
        vis, params = self.vis
        inner = (
            f"SELECT x.src AS src, x.dst AS dst, count(DISTINCT me1.memory_id) AS count, "
            f"row_number() OVER (PARTITION BY x.src ORDER BY count(DISTINCT me1.memory_id) DESC, x.dst) AS rn "
            f"FROM (SELECT a_id AS src, b_id AS dst FROM {CO} WHERE a_id = ANY(%s::bigint[]) "
            f"UNION SELECT b_id, a_id FROM {CO} WHERE b_id = ANY(%s::bigint[])) x "
            f"JOIN {ME} me1 ON me1.entity_id = x.src "
            f"JOIN {ME} me2 ON me2.entity_id = x.dst AND me2.memory_id = me1.memory_id "
            f"JOIN {vis} v ON v.id = me1.memory_id "
            f"GROUP BY x.src, x.dst HAVING count(DISTINCT me1.memory_id) >= %s"
        )
        return self._capped(inner, [sources, sources, *params, minimum], fanout, ("count",))

    def _same_as(self, sources: list[Any], fanout: int) -> HopPairs:
        vis, params = self.vis
        inner = (
            f"SELECT x.src AS src, x.dst AS dst, row_number() OVER (PARTITION BY x.src ORDER BY x.dst) AS rn "
            f"FROM (SELECT old_id AS src, new_id AS dst FROM {RN} WHERE old_id = ANY(%s::bigint[]) "
            f"UNION SELECT new_id, old_id FROM {RN} WHERE new_id = ANY(%s::bigint[])) x "
            f"WHERE EXISTS (SELECT 1 FROM {ME} me JOIN {vis} v ON v.id = me.memory_id WHERE me.entity_id = x.dst)"
        )
        return self._capped(inner, [sources, sources, *params], fanout)

    # --- node data ----------------------------------------------------------------------------
    def events(self, ids: Iterable[Any]) -> dict[Any, dict[str, Any]]:
        rows = self.visible.filter(pk__in=list(ids)).values(
            "id", "summary", "content", "timestamp", "created_at", "status"
        )
        out = {}
        for row in rows:
            out[row["id"]] = {
                "id": str(row["id"]),
                "summary": row["summary"] or row["content"][:200],
                "content": row["content"],
                "timestamp": row["timestamp"].isoformat(),
                "created_at": row["created_at"].isoformat(),
                "status": row["status"],
            }
        return out

    def entities(self, ids: Iterable[Any]) -> dict[Any, dict[str, Any]]:
        rows = self.visible_entities().filter(pk__in=list(ids)).values_list("id", "name", "type")
        return {pk: {"id": pk, "name": name, "type": type_} for pk, name, type_ in rows}

    def tags(self, ids: Iterable[Any]) -> dict[Any, dict[str, Any]]:
        rows = self.visible_tags().filter(pk__in=list(ids)).values_list("id", "name", "path")
        return {pk: {"id": pk, "name": name, "path": path} for pk, name, path in rows}

    def order_indexes(self, ids: list[Any]) -> dict[Any, int]:
        """Each event's place in its sequence (0 = first), counting the visible events before it."""
        if not ids:
            return {}
        vis, params = self.vis
        sql = (
            f"WITH RECURSIVE back(origin, node, depth) AS ("
            f"SELECT i, i, 0 FROM unnest(%s::uuid[]) AS i "
            f"UNION ALL SELECT b.origin, l.src_id, b.depth + 1 FROM back b "
            f"JOIN {ML} l ON l.dst_id = b.node AND l.kind = %s AND l.revoked_at IS NULL "
            f"JOIN {vis} v ON v.id = l.src_id WHERE b.depth < %s) "
            f"SELECT origin, max(depth) FROM back GROUP BY origin"
        )
        rows = self._fetch(sql, [ids, LinkKind.NEXT.value, *params, ORDER_INDEX_DEPTH])
        return {origin: int(depth) for origin, depth in rows}

    def embeddings(self, ids: Iterable[Any]) -> dict[Any, tuple[str, Any]]:
        return {
            pk: (model, vector)
            for pk, model, vector in self.visible.filter(
                pk__in=list(ids), embedding__isnull=False
            ).values_list("pk", "embedding_model", "embedding")
        }
