"""Connections from a sentence: its closest memories (the starts), and what is reached from them.

``ConnectionScores`` is the one scoring both find_memory_connections and the partner tool use: each
start weighs by its rank (1, 1/2, 1/3, ...), and a memory reached from several starts, or in
several ways, adds them up.
"""

from __future__ import annotations

import uuid
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from django.db.models import Q, QuerySet

from memory.models import LinkKind, Memory, MemoryEntity, MemoryLink
from memory.selectors.search import ReadScope, hybrid_rank, memories_by_ids, scoped_memories

START_COUNT = 5
START_DEPTH = 50
# How many memories one shared entity reaches from one start.
ENTITY_FANOUT = 50
# The link kinds a connection follows, and the name it is reported under.
LINK_VIA = {
    LinkKind.NEXT: "sequence",
    LinkKind.SIMILAR: "similar",
    LinkKind.DUPLICATE: "similar",
    LinkKind.RESOLVED_BY: "resolved_by",
}
NEXT_WEIGHT = 0.8
# A similar, duplicate or resolved-by link without a score of its own.
LINK_WEIGHT = 0.7

_Target = TypeVar("_Target", bound=Hashable)


@dataclass(frozen=True)
class Reached:
    via: str
    from_event: uuid.UUID  # the start it was reached from
    detail: str | None = None


class ConnectionScores(Generic[_Target]):
    """What the starts reach, and how strongly: ``reach`` adds the start's weight times the way's."""

    def __init__(self, starts: Sequence[uuid.UUID]) -> None:
        self.starts = list(starts)
        self.weights = {start: 1.0 / (i + 1) for i, start in enumerate(self.starts)}
        self.score: dict[_Target, float] = {}
        self.reached: dict[_Target, list[Reached]] = {}

    def reach(
        self, target: _Target, *, via: str, start: uuid.UUID, weight: float = 1.0, detail: str | None = None
    ) -> None:
        if target in self.weights:  # a start is where the walk begins, not where it arrives
            return
        self.score[target] = self.score.get(target, 0.0) + self.weights[start] * weight
        self.reached.setdefault(target, []).append(Reached(via=via, from_event=start, detail=detail))

    def ranked(self, limit: int) -> list[_Target]:
        """The ``limit`` most connected, the strongest first (ties by id)."""
        return sorted(self.score, key=lambda target: (-self.score[target], str(target)))[:limit]


def connection_starts(
    *, memories: QuerySet[Memory], sentence: str, project_ids: Sequence[uuid.UUID] | None = None
) -> list[uuid.UUID]:
    """The sentence's closest memories by the hybrid ranking, best first."""
    ranked = hybrid_rank(memories=memories, query=sentence, depth=START_DEPTH, project_ids=project_ids)
    return ranked.ids[:START_COUNT]


def start_entities(
    *, starts: Sequence[uuid.UUID], keys: Sequence[str] | None = None
) -> list[tuple[uuid.UUID, int, str, str]]:
    """(memory id, entity id, entity key, entity name) for each entity of the starts (of those
    ``keys`` only, when given)."""
    links = MemoryEntity.objects.filter(memory_id__in=starts)
    if keys is not None:
        links = links.filter(entity__key__in=list(keys))
    return list(links.values_list("memory_id", "entity_id", "entity__key", "entity__name"))


@dataclass
class MemoryConnections:
    starts: list[uuid.UUID]
    ranked: list[uuid.UUID]  # the memories reached, the most connected first
    scores: ConnectionScores[uuid.UUID]
    memories: dict[uuid.UUID, Memory]  # the ranked ones' rows (memories_by_ids)


def memory_connections(*, scope: ReadScope, sentence: str, limit: int) -> MemoryConnections:
    """From the sentence's starts, the scope's memories that share an entity with one, that the archivist
    linked as similar, that come before or after one in a sequence, or that resolve one."""
    memories = scoped_memories(scope)
    starts = connection_starts(memories=memories, sentence=sentence, project_ids=scope.project_ids)
    scores: ConnectionScores[uuid.UUID] = ConnectionScores(starts)
    for start_id, entity_id, _, name in start_entities(starts=starts):
        for other in (
            memories.filter(entity_links__entity_id=entity_id)
            .exclude(pk=start_id)
            .values_list("pk", flat=True)[:ENTITY_FANOUT]
        ):
            scores.reach(other, via="entity", start=start_id, detail=name)
    links = MemoryLink.objects.filter(
        Q(src_id__in=starts) | Q(dst_id__in=starts), revoked_at__isnull=True
    ).values_list("kind", "src_id", "dst_id", "score", "relation")
    allowed = set(
        memories.filter(Q(links_in__src_id__in=starts) | Q(links_out__dst_id__in=starts)).values_list(
            "pk", flat=True
        )
    )
    for kind, src, dst, link_score, relation in links:
        if kind not in LINK_VIA:
            continue
        start, other = (src, dst) if src in scores.weights else (dst, src)
        if other in allowed:
            scores.reach(
                other,
                via=LINK_VIA[kind],
                start=start,
                weight=NEXT_WEIGHT if kind == LinkKind.NEXT else float(link_score or LINK_WEIGHT),
                detail=relation or None,
            )
    ranked = scores.ranked(limit)
    return MemoryConnections(starts=starts, ranked=ranked, scores=scores, memories=memories_by_ids(ranked))
