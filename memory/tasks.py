"""The memory jobs (Celery): adapters that take ids and call one service.

The archivist's steps live in ``memory/services/archivist.py``, the upkeep jobs in
``memory/services/maintenance.py``. Every job is idempotent: a repeat (a killed worker's
redelivery, a retry) leaves the same state.
"""

from __future__ import annotations

from accounts.tasks import TenantTask, enqueue_many
from config.celery import app
from memory.embedding import EmbedderUnavailable
from memory.services.archivist import ARCHIVIST_BATCH, archivist_drain_project, archivist_process_memories
from memory.services.maintenance import embedding_reindex, guard_rescan


@app.task(
    base=TenantTask,
    name="memory.archivist_process",
    autoretry_for=(EmbedderUnavailable,),
    retry_backoff=True,
    retry_backoff_max=300,
    max_retries=20,
)
def archivist_process(
    *, enterprise_id: str, memory_ids: list[str] | None = None, memory_id: str | None = None
) -> dict[str, int]:
    """The archivist for a batch of memories (``memory_ids``, what the drain sends); ``memory_id``, one
    memory, is what a correction sends and what jobs recorded before batches carry."""
    ids = [*(memory_ids or []), *([memory_id] if memory_id else [])]
    return archivist_process_memories(memory_ids=ids)


@app.task(base=TenantTask, name="memory.archivist_drain")
def archivist_drain(*, enterprise_id: str, project_id: str) -> int:
    """Hand the archivist every memory of the project saved since the last drain, oldest first, in
    ``archivist_process`` jobs of up to ``ARCHIVIST_BATCH`` memories, recorded in this job's
    transaction and sent after it commits (``archivist_drain_project``); how many jobs."""
    waiting = [str(memory_id) for memory_id in archivist_drain_project(project_id=project_id)]
    batches = [waiting[i : i + ARCHIVIST_BATCH] for i in range(0, len(waiting), ARCHIVIST_BATCH)]
    return enqueue_many(
        archivist_process, enterprise_id=enterprise_id, kwargs_list=[{"memory_ids": b} for b in batches]
    )


@app.task(base=TenantTask, name="memory.guard_rescan")
def guard_rescan_task(*, enterprise_id: str) -> dict[str, int]:
    return dict(guard_rescan().result)


@app.task(
    base=TenantTask,
    name="memory.embedding_reindex",
    autoretry_for=(EmbedderUnavailable,),
    retry_backoff=True,
    max_retries=20,
)
def embedding_reindex_task(*, enterprise_id: str) -> dict[str, int]:
    return dict(embedding_reindex().result)
