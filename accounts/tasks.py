"""The Celery door of the tenancy, the outbox's sender and sweeper, and the account jobs.

Every task derives from ``TenantTask``: it takes ids (never instances), needs an
``enterprise_id``, runs in that tenant's context and transaction, is acked late
and rejected on a lost worker, and is written to be idempotent so a repeat changes
nothing. Every job is sent with ``enqueue``, which records it in the outbox
(``accounts.models.Job``) in the caller's transaction; a ``TenantTask`` takes its
row with its work and deletes it in the same commit, retries a transient database
error with back-off, and marks the row failed for any other error. The sweeper
(``jobs_sweep``, every ``JOBS_SWEEP_SECONDS`` from Celery beat) sends again what
has waited past its due time: a message lost with a broker, a killed worker, an outage.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import structlog
from celery import Task
from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.utils import timezone

from accounts.services.jobs import job_claim, job_done, job_failed, job_retrying, jobs_due, jobs_record
from config.celery import app
from core.logs import REQUEST_ID_HEADER, access_logger
from core.metrics import JOBS
from core.tenancy import TenantContextMissing, current_tenant, tenant_context

if TYPE_CHECKING:
    from accounts.models import AccessKey


logger = logging.getLogger(__name__)

# The database's own failures that a later attempt may not meet: a refused or dropped connection,
# a server restarting, a pool with no connection to give. Retried with back-off, never failed for good.
TRANSIENT_ERRORS: tuple[type[Exception], ...] = (OperationalError, InterfaceError)


def transient_backoff(retries: int) -> float:
    """Seconds before the next attempt after ``retries`` transient failures: 1, 2, 4 ... 60."""
    return float(min(60, 2**retries))


class TenantTask(Task):  # type: ignore[misc]
    abstract = True
    acks_late = True
    reject_on_worker_lost = True
    # Celery checks a message's arguments against the function when it is sent, and a job's messages
    # carry ``job_id``, which only this class reads (a retry, sent by Celery, would be refused):
    # ``enqueue`` checks the job's own arguments instead, when it records the job.
    typing = False

    def before_start(self, task_id: str, args: Any, kwargs: dict[str, Any]) -> None:
        """The job's log lines carry the request that recorded it (the header ``core.jobs`` sets), its
        job id and task; a worker process starts each job with nothing else bound."""
        structlog.contextvars.clear_contextvars()
        origin = getattr(self.request, REQUEST_ID_HEADER, None) or (self.request.headers or {}).get(
            REQUEST_ID_HEADER
        )
        structlog.contextvars.bind_contextvars(
            task=self.name,
            job_id=str(kwargs.get("job_id") or task_id),
            **({"request_id": origin} if origin else {}),
        )

    def after_return(self, *args: Any, **kwargs: Any) -> None:
        structlog.contextvars.clear_contextvars()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        enterprise_id = kwargs.get("enterprise_id")
        if not enterprise_id:
            raise TenantContextMissing(
                f"task {self.name} refused: it needs an enterprise_id keyword argument"
            )
        # Sent by enqueue: the outbox row this message wakes (absent for a call made by hand).
        job_id = kwargs.pop("job_id", None)
        started = time.perf_counter()
        try:
            with tenant_context(
                enterprise_id=enterprise_id,
                request_id=str(self.request.id or ""),
                door="celery",
            ):
                if job_id is not None and not job_claim(job_id=job_id):
                    return None  # done already, failed for good, or running on another worker now
                result = super().__call__(*args, **kwargs)
                if job_id is not None:
                    job_done(job_id=job_id)
            if job_id is not None:  # committed
                JOBS.labels(self.name, "done").inc()
            access_logger().info(
                "job.done", status="done", duration_ms=round((time.perf_counter() - started) * 1000, 2)
            )
            return result
        except TRANSIENT_ERRORS as exc:
            if self.request.called_directly:
                raise
            countdown = transient_backoff(self.request.retries)
            logger.warning(
                "%s: transient database error, attempt %d again in %.0f s: %s",
                self.name,
                self.request.retries + 1,
                countdown,
                exc,
            )
            raise self.retry(
                exc=exc, countdown=countdown, max_retries=settings.JOBS_TRANSIENT_RETRIES
            ) from exc

    def on_retry(self, exc: Exception, task_id: str, args: Any, kwargs: dict[str, Any], einfo: Any) -> None:
        countdown = transient_backoff(self.request.retries)
        JOBS.labels(self.name, "retried").inc()
        access_logger().warning(
            "job.retry", status="retried", error=type(exc).__name__, countdown_s=countdown
        )
        self._record(
            kwargs, lambda job_id: job_retrying(job_id=job_id, error=_describe(exc), countdown=countdown)
        )

    def on_failure(self, exc: Exception, task_id: str, args: Any, kwargs: dict[str, Any], einfo: Any) -> None:
        if isinstance(exc, TRANSIENT_ERRORS):
            return  # the database is still away: the row stays pending and the sweeper sends it again
        JOBS.labels(self.name, "failed").inc()
        access_logger().error("job.failed", status="failed", error=type(exc).__name__)
        self._record(kwargs, lambda job_id: job_failed(job_id=job_id, error=_describe(exc)))

    def _record(self, kwargs: dict[str, Any], step: Any) -> None:
        """A step on the job's row after its own transaction rolled back, in a transaction of its own;
        when even that fails (the database is away) the row stays pending for the sweeper."""
        job_id, enterprise_id = kwargs.get("job_id"), kwargs.get("enterprise_id")
        if not job_id or not enterprise_id:
            return
        try:
            with tenant_context(enterprise_id=enterprise_id, door="celery"):
                step(job_id)
        except Exception as exc:  # noqa: BLE001 - bookkeeping must never hide the job's own error
            logger.warning(
                "%s: job %s's outcome not recorded (%s); the sweeper sends it again", self.name, job_id, exc
            )


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def enqueue(task: Any, *, enterprise_id: str, **kwargs: Any) -> None:
    """Record a job in the outbox, in the current transaction (of ``enterprise_id``'s tenant context);
    it is sent once the transaction commits, and again by the sweeper while it is not done.

    ``task`` is the task, or its registered name: a service names the job it records (services never
    import the task modules, which import the services: no import cycle)."""
    _in_tenant(enterprise_id)
    task = _task(task)
    _check_arguments(task, enterprise_id, [kwargs])
    jobs_record(task=task.name, kwargs_list=[kwargs])


def _task(task: Any) -> Any:
    """A task given by its name: the registered task (its arguments are checked as any task's)."""
    if not isinstance(task, str):
        return task
    if task not in app.tasks:
        app.loader.import_default_modules()  # the apps' task modules, as a worker imports them
    return app.tasks[task]


def enqueue_many(task: Any, *, enterprise_id: str, kwargs_list: Iterable[dict[str, Any]]) -> int:
    """``enqueue`` for many jobs of one task, one statement."""
    _in_tenant(enterprise_id)
    task = _task(task)
    kwargs_list = list(kwargs_list)
    _check_arguments(task, enterprise_id, kwargs_list)
    return len(jobs_record(task=task.name, kwargs_list=kwargs_list))


def _check_arguments(task: Any, enterprise_id: str, kwargs_list: list[dict[str, Any]]) -> None:
    """The arguments fit the task's function (a TypeError now, not a failed job later)."""
    header = getattr(task, "__header__", None)
    if header is not None:
        for kwargs in kwargs_list:
            header(**kwargs, enterprise_id=enterprise_id)


def _in_tenant(enterprise_id: str) -> None:
    ctx = current_tenant()
    if ctx.enterprise_id is None or str(ctx.enterprise_id) != str(enterprise_id):
        raise TenantContextMissing(
            f"a job for enterprise {enterprise_id} is recorded only in that enterprise's tenant context"
        )


@app.task(name="accounts.jobs_sweep", ignore_result=True)
def jobs_sweep() -> int:
    """Send again every pending job past its due time, across enterprises (Celery beat, every
    ``JOBS_SWEEP_SECONDS``; idempotent: a job a worker holds is skipped, a send twice runs once)."""
    with tenant_context(enterprise_id=None, all_tenants=True, door="celery"):
        due = jobs_due(limit=settings.JOBS_SWEEP_BATCH)
    if due:
        logger.warning("sweeper: sent %d job(s) again that waited past their due time", len(due))
    return len(due)


@app.task(base=TenantTask, name="accounts.access_key_touch")
def access_key_touch_task(*, enterprise_id: str, key_id: str, used_at: str) -> bool:
    """Record an access key's latest use off the request path (idempotent)."""
    from accounts.services.keys import access_key_touch

    return access_key_touch(key_id=key_id, used_at=datetime.fromisoformat(used_at))


TOUCH_EVERY = timedelta(minutes=1)
_touches_sent: dict[Any, float] = {}
_touches_lock = threading.Lock()


def access_key_touch_soon(key: AccessKey) -> None:
    """Record a key's latest use, to the minute: a job when its ``last_used_at`` is a minute old, and at
    most one a minute per key from this process (while no worker has run the last one, the stored time
    stays old, and every call would otherwise send another)."""
    now = timezone.now()
    if key.last_used_at is not None and now - key.last_used_at < TOUCH_EVERY:
        return
    clock = time.monotonic()
    with _touches_lock:
        sent = _touches_sent.get(key.pk)
        if sent is not None and clock - sent < TOUCH_EVERY.total_seconds():
            return
        if len(_touches_sent) >= 10_000:
            _touches_sent.clear()
        _touches_sent[key.pk] = clock
    enqueue(
        access_key_touch_task,
        enterprise_id=str(key.enterprise_id),
        key_id=str(key.pk),
        used_at=now.isoformat(),
    )
