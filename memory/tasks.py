"""The memory jobs (Celery): adapters that take ids and call one service.

The archivist's steps live in ``memory/services/archivist.py``, the upkeep jobs in
``memory/services/maintenance.py``. Every job is idempotent: a repeat (a killed worker's
redelivery, a retry) leaves the same state.
"""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from accounts.tasks import TenantTask, enqueue, enqueue_many
from config.celery import app
from core.tenancy import tenant_context
from memory.embedding import EmbedderUnavailable
from memory.services.archivist import ARCHIVIST_BATCH, archivist_drain_project, archivist_process_memories
from memory.services.exports import exports_expired_remove
from memory.services.maintenance import embedding_reindex, guard_rescan
from memory.services.retention import (
    RETENTION_BATCH,
    retention_apply,
    retention_enterprise_ids,
    retention_run_start,
)


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


@app.task(base=TenantTask, name="memory.export_step")
def export_step_task(*, enterprise_id: str, export_id: str) -> bool:
    """One chunk of an export (``export_step``); the next step is recorded in this job's transaction,
    with the chunk's committed size, so a killed worker's redelivery resumes from it."""
    from memory.services.export_writer import export_step

    more = export_step(export_id=export_id)
    if more:
        enqueue(export_step_task, enterprise_id=enterprise_id, export_id=export_id)
    return more


# -- retention (docs/lifecycle.md, "Retention") -------------------------------------------------------


@app.task(base=TenantTask, name="memory.retention_apply")
def retention_apply_task(
    *, enterprise_id: str, run_started: str | None = None, batch_size: int = RETENTION_BATCH
) -> dict[str, object]:
    """One batch of the enterprise's enabled retention policies (``retention_apply``); while more remain,
    the next batch is recorded in this job's transaction, so a killed worker resumes where it stopped."""
    run = run_started or timezone.now().isoformat()
    batch = retention_apply(batch_size=batch_size, run_started=datetime.fromisoformat(run))
    if batch.more:
        enqueue(retention_apply_task, enterprise_id=enterprise_id, run_started=run, batch_size=batch_size)
    return {"applied": batch.applied, "held": batch.held, "more": batch.more}


@app.task(name="memory.retention_sweep", ignore_result=True)
def retention_sweep() -> int:
    """Celery beat's retention run, across enterprises (a platform task, as ``accounts.jobs_sweep``): one
    ``memory.retention_apply`` chain per enterprise with an enabled policy and none pending already."""
    with tenant_context(enterprise_id=None, all_tenants=True, door="celery"):
        enterprise_ids = retention_enterprise_ids()
        exports_expired_remove()  # an export's file goes once its download link has expired
    run = timezone.now().isoformat()
    started = 0
    for enterprise_id in enterprise_ids:
        with tenant_context(enterprise_id=enterprise_id, door="celery"):
            started += retention_run_start(run_started=run)
    return started


@app.task(base=TenantTask, name="memory.import_step")
def import_step_task(*, enterprise_id: str, import_id: str) -> dict[str, object] | None:
    """One chunk of an import (``memory.services.imports.import_step``), which records the next
    chunk's job in this job's transaction; a killed worker's redelivery runs the chunk again from the
    committed position (the import keys make nothing twice)."""
    from memory.services.imports import import_step

    data_import = import_step(import_id=import_id)
    if data_import is None:
        return None
    return {"state": data_import.state, "position": data_import.position, "total": data_import.total}
