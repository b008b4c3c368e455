"""The archivist: after a memory commits, compute what the write did not.

Embedding (when deferred), SIMILAR and near-DUPLICATE links, entity
co-occurrence (CONNECTED), fact_key conflicts and source staleness. Every step
recomputes its own results for the memory, so a repeat (a killed worker's
redelivery, a retry) leaves the same state. The Celery jobs (memory/tasks.py)
take ids and call ``archivist_process_memories`` and ``archivist_drain_project``.

One job is a batch of up to ``ARCHIVIST_BATCH`` memories of one project::

    drain: the project's waiting memories, oldest first ──> chunks of 32 ──> one job each
    job:   lock its memories (FOR UPDATE, by pk)
           ──> one embedder call for those without this model's vector (archivist_embed_many)
           ──> per memory, oldest first: similar · co-occurrence · conflicts · staleness · audit
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Iterable, Sequence

from django.db.models import Q
from django.db.models.functions import Left
from pgvector.django import CosineDistance

from accounts.models import Project
from accounts.services.audit import audit_record
from core.metrics import EMBEDDINGS
from memory.embedding import get_embedder, near_duplicate_floor, similarity_floor
from memory.models import (
    ArchivistWake,
    EntityCooccurrence,
    LinkKind,
    Memory,
    MemoryEntity,
    MemoryLink,
    Status,
    Visibility,
)
from memory.selectors.search import VECTOR_DIM, nearest_memories
from memory.services.events import EventType, memory_events_record
from memory.services.locks import project_write_lock
from memory.services.memories import archivist_wake
from memory.text import fold_content

SIMILAR_TOP_K = 5


def embedding_text(memory: Memory, context: str = "") -> str:
    """What the vector is of: the summary (the retrieval surface), then the content; with a ``context``
    (the memory before this one in its sequence, ``embedding_contexts``), the context first.

    Without a context the summary is kept whole even when it is the content's own opening. Measured on
    LoCoMo (bench.locomo.ablate, 2026-12-01): embedding such a text once instead of twice cut the
    embedder's time by ~45% but dense hit@10 fell 0.642 -> 0.579 and the fused ranking's 0.804 -> 0.794,
    so the repetition stays. With a context the repetition goes (a summary that is the content's opening
    adds nothing to it): measured 2026-12-05, "context, content" beat "summary, context, content" on the
    tuning conversations (hit@10 0.857 against 0.846; held out 0.834 against 0.845; bench/RESULTS.md)
    at about half its embedding time, no more than a memory without a context costs.
    """
    if context:
        own = (
            memory.content
            if memory.content.startswith(memory.summary)
            else f"{memory.summary}\n{memory.content}"
        )
        return f"{context}\n{own}".strip()
    return f"{memory.summary}\n{memory.content}".strip() if memory.summary else memory.content


CONTEXT_CHARS = 500  # of the previous memory: its summary, or else its content's opening
# What two memories share when they have the same readers: a context never carries text that a reader
# of the memory could not read itself.
_SAME_READERS = (
    "project_id",
    "workspace_id",
    "layer",
    "visibility",
    "scope",
    "team_id",
    "task_id",
    "role_id",
    "author_id",
)


def embedding_contexts(memories: Sequence[Memory]) -> dict[uuid.UUID, str]:
    """Each memory's context: the summary (else the content's opening) of the live memory before it in
    its sequence (the source of a ``next`` link to it, the latest by timestamp when several), when the two
    have the same readers (``_SAME_READERS``). One statement for the batch.

    A conversation's turn is often understood only with the one before it ("Yes, next month!" answers a
    question about a hike). Measured on LoCoMo (bench.locomo.ablate, 2026-12-05), fused ranking without
    the named-time boost: hit@10 0.807 -> 0.836 on the tuning conversations, 0.800 -> 0.818 on the five
    held out; docs/memory.md, "The archivist". What a vector was computed from changing (the previous
    memory forgotten, erased or redacted, a link added or removed) sends the memory back to the
    archivist: ``archivist_reembed``.
    """
    by_pk = {m.pk: m for m in memories}
    if not by_pk:
        return {}
    rows = (
        MemoryLink.objects.filter(
            kind=LinkKind.NEXT,
            revoked_at__isnull=True,
            dst_id__in=list(by_pk),
            src__forgotten_at__isnull=True,
        )
        .order_by("dst_id", "-src__timestamp", "-src__created_at", "src_id")
        .values(
            "dst_id",
            "src__summary",
            *(f"src__{f}" for f in _SAME_READERS),
            opening=Left("src__content", CONTEXT_CHARS),
        )
    )
    contexts: dict[uuid.UUID, str] = {}
    for row in rows:
        memory = by_pk[row["dst_id"]]
        if memory.pk in contexts or any(row[f"src__{f}"] != getattr(memory, f) for f in _SAME_READERS):
            continue
        text = (row["src__summary"] or row["opening"] or "").strip()
        if text:
            contexts[memory.pk] = text[:CONTEXT_CHARS]
    return contexts


def archivist_reembed(*, memory_ids: Iterable[uuid.UUID], successors: bool = True) -> int:
    """Send these live memories back to the archivist for a new vector, and with ``successors`` the
    memories whose context they are (``embedding_contexts``): what their vectors were computed from
    changed (a redaction, a predecessor forgotten or erased, a sequence link added or removed). Their
    vectors are dropped now (a vector of text no longer there is not kept for a second longer than a
    transaction) and the archivist's drain is woken. In the caller's transaction, under the projects'
    write locks (as a save wakes the drain: the drain takes the lock before it reads what waits, so the
    two never deadlock and the drain never misses these); a long job calls it once, at its end. How many
    memories."""
    ids = {uuid.UUID(str(i)) for i in memory_ids}
    if successors and ids:
        ids |= set(
            MemoryLink.objects.filter(kind=LinkKind.NEXT, src_id__in=list(ids)).values_list(
                "dst_id", flat=True
            )
        )
    targets = Memory.objects.filter(pk__in=list(ids), forgotten_at__isnull=True)
    projects = sorted(set(targets.values_list("project_id", flat=True)), key=str)
    for project_id in projects:  # in pk order, as every writer takes them
        project_write_lock(project_id=project_id)
    # rows in pk order, as the archivist's batch takes them (an unordered UPDATE could deadlock with it)
    locked = list(targets.order_by("pk").select_for_update(no_key=True).values_list("pk", flat=True))
    count = Memory.objects.filter(pk__in=locked).update(
        embedding=None, embedding_model="", embedding_dim=None, archivist_waiting=True
    )
    for project in Project.objects.filter(pk__in=projects).order_by("pk"):
        archivist_wake(project=project)
    return count


ARCHIVIST_BATCH = 32  # memories per archivist job: one embedder call (the engine's own batch) for all


def archivist_embed_many(memories: Sequence[Memory]) -> set[uuid.UUID]:
    """Embed, in one embedder call, those of ``memories`` without this embedder's vector, and write
    their vectors with one ``UPDATE``; the pks embedded. The caller holds their rows."""
    embedder = get_embedder()
    todo = [m for m in memories if m.embedding is None or m.embedding_model != embedder.name]
    if not todo:
        return set()
    contexts = embedding_contexts(todo)
    vectors = embedder.embed_passages([embedding_text(m, contexts.get(m.pk, "")) for m in todo])
    for item, vector in zip(todo, vectors, strict=True):
        item.embedding, item.embedding_model, item.embedding_dim = vector, embedder.name, embedder.dim
    Memory.objects.bulk_update(todo, ["embedding", "embedding_model", "embedding_dim"])
    EMBEDDINGS.inc(len(todo))
    return {m.pk for m in todo}


def _shared_readers(memory: Memory) -> Q:
    """Candidates whose readers overlap this memory's: its project, or enterprise-wide ones."""
    if memory.visibility == Visibility.ENTERPRISE:
        return Q()
    return Q(project_id=memory.project_id) | Q(visibility=Visibility.ENTERPRISE)


def archivist_similar(memory: Memory) -> int:
    MemoryLink.objects.filter(
        src=memory, kind__in=[LinkKind.SIMILAR, LinkKind.DUPLICATE], by_archivist=True
    ).delete()
    if memory.embedding is None:
        return 0
    floor, duplicate = similarity_floor(memory.embedding_model), near_duplicate_floor(memory.embedding_model)
    candidates = Memory.objects.filter(
        _shared_readers(memory), forgotten_at__isnull=True, embedding_model=memory.embedding_model
    ).exclude(embedding__isnull=True)
    scored: list[tuple[uuid.UUID, float]]
    if memory.embedding_dim == VECTOR_DIM:
        # The search's own HNSW scan (the index is on embedding::vector(384)): an exact scan over the
        # project took 365 ms a memory at 100k (bench.scale). Iterative scans return in relaxed order.
        nearest = nearest_memories(candidates, list(memory.embedding), SIMILAR_TOP_K + 1)
        scored = sorted(((pk, cos) for pk, cos in nearest if pk != memory.pk), key=lambda p: -p[1])
    else:  # another model's dimension has no index: exact
        scored = [
            (m.pk, 1.0 - float(m.distance))  # type: ignore[attr-defined]
            for m in candidates.exclude(pk=memory.pk)
            .annotate(distance=CosineDistance("embedding", memory.embedding))
            .order_by("distance")[:SIMILAR_TOP_K]
        ]
    links = [
        MemoryLink(
            enterprise_id=memory.enterprise_id,
            kind=LinkKind.DUPLICATE if score >= duplicate else LinkKind.SIMILAR,
            src=memory,
            dst_id=pk,
            score=score,
            by_archivist=True,
        )
        for pk, score in itertools.takewhile(lambda p: p[1] >= floor, scored[:SIMILAR_TOP_K])
    ]
    # One upsert: a link someone else made between the same two memories takes the archivist's score.
    MemoryLink.objects.bulk_create(
        links,
        update_conflicts=True,
        unique_fields=["kind", "src", "dst"],
        update_fields=["score", "by_archivist"],
    )
    return len(links)


def archivist_cooccurrence(memory: Memory) -> int:
    entity_ids = sorted(MemoryEntity.objects.filter(memory=memory).values_list("entity_id", flat=True))
    for a, b in itertools.combinations(entity_ids, 2):
        together = (
            MemoryEntity.objects.filter(entity_id=a, memory__forgotten_at__isnull=True)
            .filter(memory__in=MemoryEntity.objects.filter(entity_id=b).values("memory"))
            .count()
        )
        EntityCooccurrence.objects.update_or_create(
            enterprise_id=memory.enterprise_id, a_id=a, b_id=b, defaults={"count": together}
        )
    return len(entity_ids)


def archivist_fact_conflicts(memory: Memory) -> int:
    if not memory.fact_key:
        return 0
    others = (
        Memory.objects.filter(
            project_id=memory.project_id, fact_key=memory.fact_key, forgotten_at__isnull=True
        )
        .exclude(pk=memory.pk)
        .exclude(status=Status.SUPERSEDED)
    )
    conflicting = [o for o in others if fold_content(o.content) != fold_content(memory.content)]
    # One link per pair, from the newer record to the older one.
    for other in [o for o in conflicting if (o.created_at, str(o.pk)) < (memory.created_at, str(memory.pk))]:
        MemoryLink.objects.get_or_create(
            enterprise_id=memory.enterprise_id,
            kind=LinkKind.CONFLICT,
            src=memory,
            dst=other,
            defaults={"by_archivist": True},
        )
    if conflicting:
        ids = [memory.pk, *[o.pk for o in conflicting]]
        Memory.objects.filter(pk__in=ids, status__in=[Status.UNVERIFIED, Status.STALE]).update(
            status=Status.CONFLICT
        )
        memory_events_record(
            [memory], EventType.MEMORY_CONFLICT, conflicts_with=sorted(str(o.pk) for o in conflicting)
        )
    return len(conflicting)


def archivist_staleness(memory: Memory) -> int:
    """Same source_id with a newer source_hash: the older records are stale."""
    if not memory.source_id or not memory.source_hash:
        return 0
    older = (
        Memory.objects.filter(
            source_id=memory.source_id, forgotten_at__isnull=True, created_at__lt=memory.created_at
        )
        .exclude(source_hash=memory.source_hash)
        .exclude(source_hash__isnull=True)
        .exclude(pk=memory.pk)
    )
    older = older.filter(_shared_readers(memory))
    count = 0
    for old in older:
        MemoryLink.objects.get_or_create(
            enterprise_id=memory.enterprise_id,
            kind=LinkKind.STALE,
            src=old,
            dst=memory,
            defaults={"by_archivist": True},
        )
        count += 1
    older.filter(status=Status.UNVERIFIED).update(status=Status.STALE)
    return count


STEPS = ("embedded", "similar", "entities", "conflicts", "stale")


def archivist_process_memories(*, memory_ids: Sequence[str]) -> dict[str, int]:
    """Every step for each live memory of the batch, in the caller's transaction; forgotten or missing
    ones are left alone. The rows are locked by pk order first, so a job for the same memories (a
    correction's beside a batch) waits for the other instead of interleaving with it, and then finds
    the vectors in place. The lock is ``FOR NO KEY UPDATE``: a link another batch makes to one of these
    memories takes ``FOR KEY SHARE`` on it (its foreign key), which ``FOR UPDATE`` would block, and two
    batches linking to each other's memories deadlocked (bench.chaos mixed_load, 16 clients). One audit
    event a memory (``archivist.process``, its own counts). Returns the batch's totals, with
    ``memories`` processed."""
    memories = list(
        Memory.objects.filter(pk__in=list(memory_ids), forgotten_at__isnull=True)
        .order_by("pk")
        .select_for_update(no_key=True)
    )
    memories.sort(key=lambda m: (m.created_at, str(m.pk)))
    embedded = archivist_embed_many(memories)
    totals = dict.fromkeys(STEPS, 0) | {"memories": len(memories)}
    for memory in memories:
        result = {
            "embedded": int(memory.pk in embedded),
            "similar": archivist_similar(memory),
            "entities": archivist_cooccurrence(memory),
            "conflicts": archivist_fact_conflicts(memory),
            "stale": archivist_staleness(memory),
        }
        audit_record(action="archivist.process", target=memory, details=result)
        for step, count in result.items():
            totals[step] += count
    return totals


def archivist_drain_project(*, project_id: str) -> list[uuid.UUID]:
    """Take every memory of the project saved since the last drain, oldest first, for the caller to
    hand to the archivist one job each. Under the project's write lock the wake is reset and the
    waiting memories taken, so a save either is among them or (finding no drain pending) sends the
    next drain itself. A repeat finds nothing waiting and takes nothing."""
    project_write_lock(project_id=uuid.UUID(project_id))
    ArchivistWake.objects.filter(project_id=project_id).update(pending_since=None)
    waiting = list(
        Memory.objects.filter(project_id=project_id, archivist_waiting=True)
        .order_by("created_at")
        .values_list("pk", flat=True)
    )
    if not waiting:
        return []
    Memory.objects.filter(pk__in=waiting).update(archivist_waiting=False)
    project = Project.objects.get(pk=project_id)
    audit_record(action="archivist.drain", target=project, details={"memories": len(waiting)})
    return waiting
