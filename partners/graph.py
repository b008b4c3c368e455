"""The graph language across a link (query_partner_memory_graph).

The home engine (``memory/graph``) runs unchanged over ``PartnerGraphStore``: START and every home
hop run over the caller's own visible memories; ``PARTICIPATED_IN`` and ``SHARES`` also cross into the
provider's exposed events, but only through the entities the link aliases (one node, under the home
spelling). ``NEXT``, ``MEMBER_OF``, ``CONNECTED``, ``RESOLVED_BY`` (and the vector hops) stay within
a side: a partner event does not walk them. Partner events are asked of the provider side per hop.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from django.db import DatabaseError, connection
from django.db.models import QuerySet

from memory.graph import STATEMENT_TIMEOUT_MS, GraphTimeout
from memory.graph.executor import Answer, execute
from memory.graph.parser import parse_query
from memory.graph.store import GraphStore, HopPairs
from memory.graph.validator import Hop, validate
from memory.models import Memory, MemoryEntity
from memory.text import fold
from partners.sides import ProviderSide


class PartnerGraphStore(GraphStore):
    def __init__(self, visible: QuerySet[Memory], *, side: ProviderSide, aliases: dict[str, str]) -> None:
        """``aliases``: partner key -> home name (the link's entity aliases)."""
        super().__init__(visible)
        self.side = side
        home_keys: dict[str, list[str]] = defaultdict(list)
        for partner_key, home_name in aliases.items():
            home_keys[fold(home_name)].append(partner_key)
        self.partner_keys_of: dict[int, list[str]] = {}
        self.home_ids_of: dict[str, list[int]] = defaultdict(list)
        for entity_id, key in (
            self.visible_entities().filter(key__in=list(home_keys)).values_list("pk", "key")
        ):
            self.partner_keys_of[entity_id] = home_keys[key]
            for partner_key in home_keys[key]:
                self.home_ids_of[partner_key].append(entity_id)
        # The partner events reached so far: id -> their data (they never come from our tables).
        self.remote: dict[uuid.UUID, dict[str, Any]] = {}

    def is_remote(self, pk: Any) -> bool:
        return pk in self.remote

    # --- asking the provider side ------------------------------------------------------------
    def _events_for_keys(self, keys: list[str], fanout: int) -> dict[str, list[uuid.UUID]]:
        if not keys:
            return {}
        answer = self.side.call("events_for_keys", {"keys": sorted(set(keys)), "fanout": fanout})
        out: dict[str, list[uuid.UUID]] = {}
        for key, events in (answer.get("events") or {}).items():
            ids = []
            for event in events:
                pk = uuid.UUID(event["event_id"])
                self.remote[pk] = event
                ids.append(pk)
            out[key] = ids
        return out

    def _keys_of_events(self, ids: list[uuid.UUID]) -> dict[uuid.UUID, list[str]]:
        keys = sorted(self.home_ids_of)
        if not ids or not keys:
            return {}
        answer = self.side.call("keys_of_events", {"event_ids": [str(i) for i in ids], "keys": keys})
        return {uuid.UUID(k): v for k, v in (answer.get("keys") or {}).items()}

    # --- hops --------------------------------------------------------------------------------
    def hop(self, hop: Hop, sources: list[Any], fanout: int, vector_k: int) -> HopPairs:
        home = [s for s in sources if not self.is_remote(s)]
        remote = [s for s in sources if self.is_remote(s)]
        found = super().hop(hop, home, fanout, vector_k) if home else HopPairs()
        name = hop.relation.name
        if name == "PARTICIPATED_IN" and hop.way == "in":
            self._events_to_aliased(remote, found)
        elif name == "PARTICIPATED_IN":
            self._aliased_to_events(home, fanout, found)
        elif name == "SHARES":
            minimum = int(hop.params.get("min", 1))
            self._home_shares_remote(home, fanout, minimum, found)
            self._remote_shares_home(remote, fanout, minimum, found)
        return found

    def _events_to_aliased(self, remote: list[uuid.UUID], found: HopPairs) -> None:
        for event, keys in self._keys_of_events(remote).items():
            for entity_id in sorted({i for key in keys for i in self.home_ids_of.get(key, [])}):
                found.pairs[event].append((entity_id, {}))

    def _aliased_to_events(self, entities: list[Any], fanout: int, found: HopPairs) -> None:
        aliased = [e for e in entities if e in self.partner_keys_of]
        events = self._events_for_keys([k for e in aliased for k in self.partner_keys_of[e]], fanout)
        for entity in aliased:
            reached = list(
                dict.fromkeys(pk for key in self.partner_keys_of[entity] for pk in events.get(key, []))
            )
            room = fanout - len(found.pairs[entity])
            if len(reached) > room:
                found.capped.add(entity)
            found.pairs[entity].extend((pk, {}) for pk in reached[: max(0, room)])

    def _home_shares_remote(self, home: list[Any], fanout: int, minimum: int, found: HopPairs) -> None:
        aliased_of: dict[Any, set[int]] = defaultdict(set)
        for memory_id, entity_id in MemoryEntity.objects.filter(
            memory_id__in=home, entity_id__in=list(self.partner_keys_of)
        ).values_list("memory_id", "entity_id"):
            aliased_of[memory_id].add(entity_id)
        keys = [k for ids in aliased_of.values() for e in ids for k in self.partner_keys_of[e]]
        events = self._events_for_keys(keys, fanout)
        for src, entity_ids in aliased_of.items():
            shared: dict[uuid.UUID, set[int]] = defaultdict(set)
            for entity_id in entity_ids:
                for key in self.partner_keys_of[entity_id]:
                    for pk in events.get(key, []):
                        shared[pk].add(entity_id)
            self._add_shared(src, shared, fanout, minimum, found)

    def _remote_shares_home(
        self, remote: list[uuid.UUID], fanout: int, minimum: int, found: HopPairs
    ) -> None:
        keys_of = self._keys_of_events(remote)
        wanted = {i for keys in keys_of.values() for key in keys for i in self.home_ids_of.get(key, [])}
        if not wanted:
            return
        events_of: dict[int, list[Any]] = defaultdict(list)
        for memory_id, entity_id in (
            MemoryEntity.objects.filter(entity_id__in=wanted, memory_id__in=self.visible.values("pk"))
            .order_by("-memory__timestamp", "memory_id")
            .values_list("memory_id", "entity_id")
        ):
            events_of[entity_id].append(memory_id)
        for src, keys in keys_of.items():
            shared: dict[Any, set[int]] = defaultdict(set)
            for entity_id in {i for key in keys for i in self.home_ids_of.get(key, [])}:
                for pk in events_of.get(entity_id, []):
                    shared[pk].add(entity_id)
            self._add_shared(src, shared, fanout, minimum, found)

    @staticmethod
    def _add_shared(
        src: Any, shared: dict[Any, set[int]], fanout: int, minimum: int, found: HopPairs
    ) -> None:
        kept = sorted(
            ((pk, len(ids)) for pk, ids in shared.items() if len(ids) >= minimum),
            key=lambda p: (-p[1], str(p[0])),
        )
        room = fanout - len(found.pairs[src])
        if len(kept) > room:
            found.capped.add(src)
        found.pairs[src].extend((pk, {"count": count}) for pk, count in kept[: max(0, room)])

    # --- node data ---------------------------------------------------------------------------
    def events(self, ids: Iterable[Any]) -> dict[Any, dict[str, Any]]:
        wanted = list(ids)
        out = super().events([i for i in wanted if not self.is_remote(i)])
        for pk in wanted:
            if self.is_remote(pk):
                event = self.remote[pk]
                out[pk] = {
                    "id": str(pk),
                    "summary": event.get("summary"),
                    "content": event.get("content", ""),
                    "timestamp": event.get("timestamp"),
                    "created_at": event.get("created_at", event.get("timestamp")),
                    "status": "remote",
                }
        return out

    def order_indexes(self, ids: list[Any]) -> dict[Any, int]:
        return super().order_indexes([i for i in ids if not self.is_remote(i)])

    def embeddings(self, ids: Iterable[Any]) -> dict[Any, tuple[str, Any]]:
        return super().embeddings([i for i in ids if not self.is_remote(i)])


def _mark_sides(value: Any, store: PartnerGraphStore) -> Any:
    """Every projected event gets ``side``: ``home`` or ``remote`` (the partner's, no order_index known)."""
    if isinstance(value, list):
        return [_mark_sides(v, store) for v in value]
    if isinstance(value, dict):
        marked = {k: _mark_sides(v, store) for k, v in value.items()}
        if {"id", "summary", "timestamp", "order_index"} <= set(value):
            remote = _is_remote_id(value["id"], store)
            marked["side"] = "remote" if remote else "home"
            if remote:
                marked["order_index"] = None
        return marked
    return value


def _is_remote_id(raw: Any, store: PartnerGraphStore) -> bool:
    try:
        return store.is_remote(uuid.UUID(str(raw)))
    except ValueError:
        return False


def partner_graph_query(
    *,
    visible: QuerySet[Memory],
    side: ProviderSide,
    aliases: dict[str, str],
    query: str,
    params: dict[str, Any],
) -> tuple[Answer, PartnerGraphStore]:
    """Like ``memory.graph.graph_query``, but the walk may cross the link. Raises ``Rejection``.

    The home engine rolls its savepoint back to drop the statement timeout; here the provider's
    audit of what it served must stay, so the timeout is set and restored instead.
    """
    plan = validate(parse_query(query), params)
    store = PartnerGraphStore(visible, side=side, aliases=aliases)
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('statement_timeout')")
        (previous,) = cursor.fetchone()
        cursor.execute("SELECT set_config('statement_timeout', %s, true)", [str(STATEMENT_TIMEOUT_MS)])
    try:
        answer = execute(plan, store)
    except DatabaseError as exc:
        if getattr(exc.__cause__, "sqlstate", "") == "57014":
            raise GraphTimeout(f"the walk ran past {STATEMENT_TIMEOUT_MS} ms and was stopped") from exc
        raise
    with connection.cursor() as cursor:
        cursor.execute("SELECT set_config('statement_timeout', %s, true)", [previous])
    answer.rows = [[_mark_sides(v, store) for v in row] for row in answer.rows]
    return answer, store
