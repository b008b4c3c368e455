"""The outbox's rows: record a job, claim it, finish it, fail it, take the due ones, re-run a failed one.

The life of a job (``accounts.models.Job``)::

    enqueue ─ job_record ──(commit)── send ──► worker: job_claim ─► body ─► job_done (row deleted)
                 │                                  │                 │
                 │                                  │ row gone        ├─ transient DB error: retried by
                 │                                  │ or held: skip   │  Celery with back-off (job_retrying)
                 │                                  ▼                 └─ any other error: job_failed
                 └─ not done by due_at ── jobs_due (the sweeper) ── send again (due_at doubles)

The claim, the body and ``job_done`` share the job's transaction, so the row goes exactly when the
work commits; a worker killed mid-job leaves it pending. ``job_failed`` runs in a transaction of its
own after the job's rolled back. Every step is idempotent: a second message for a done job finds no
row, one for a running job finds the row held (SKIP LOCKED) and both do nothing.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import F
from django.utils import timezone

from accounts.models import Job, JobState
from accounts.services.audit import audit_record
from core.errors import Conflict, NotFound
from core.jobs import job_send_on_commit
from core.tenancy import TenantContextMissing, current_tenant

# The longest a pending job waits between two sends, however many it has had.
MAX_WAIT = timedelta(minutes=10)


def job_wait(*, sends: int) -> timedelta:
    """How long after its ``sends``-th send a pending job is due again: JOBS_STALE_SECONDS, doubling."""
    wait = timedelta(seconds=settings.JOBS_STALE_SECONDS) * (2 ** min(max(sends - 1, 0), 10))
    return min(wait, MAX_WAIT)


def job_record(*, task: str, kwargs: dict[str, Any], delay: timedelta | None = None) -> Job:
    """A job for the tenant in context, in its transaction; sent after the commit (``delay`` later: a
    retry's back-off; the broker holds it, and the sweeper sends it again if that message is lost)."""
    return jobs_record(task=task, kwargs_list=[kwargs], delay=delay)[0]


def jobs_record(
    *, task: str, kwargs_list: Iterable[dict[str, Any]], delay: timedelta | None = None
) -> list[Job]:
    """Many jobs of one task in one statement (a drain hands the archivist one job a memory)."""
    enterprise_id = current_tenant().enterprise_id
    if enterprise_id is None:
        raise TenantContextMissing("a job is recorded only in its enterprise's tenant context")
    now = timezone.now()
    due = now + (delay or timedelta()) + job_wait(sends=1)
    jobs = Job.objects.bulk_create(
        [
            Job(enterprise_id=enterprise_id, task=task, kwargs=kwargs, sent_at=now, due_at=due)
            for kwargs in kwargs_list
        ]
    )
    for job in jobs:
        _send_on_commit(job, countdown=delay.total_seconds() if delay else None)
    return jobs


def _send_on_commit(job: Job, countdown: float | None = None) -> None:
    job_send_on_commit(
        task=job.task,
        job_id=str(job.pk),
        enterprise_id=str(job.enterprise_id),
        kwargs=dict(job.kwargs),
        countdown=countdown,
    )


def job_claim(*, job_id: str) -> bool:
    """In the job's transaction: whether this worker runs it. False when its row is gone (done),
    failed (it waits for a person's re-run) or held by another worker running it now."""
    return (
        Job.objects.filter(pk=job_id, state=JobState.PENDING)
        .select_for_update(skip_locked=True)
        .values_list("pk", flat=True)
        .first()
        is not None
    )


def job_done(*, job_id: str) -> None:
    """In the job's transaction, after its work: the row goes with the commit."""
    Job.objects.filter(pk=job_id).delete()


def job_retrying(*, job_id: str, error: str, countdown: float) -> None:
    """A worker's attempt failed and Celery sends it again in ``countdown`` seconds: counted, and not
    due for the sweeper before that retry has had its turn."""
    due = timezone.now() + timedelta(seconds=countdown) + job_wait(sends=1)
    Job.objects.filter(pk=job_id, state=JobState.PENDING).update(
        attempts=F("attempts") + 1, last_error=error[:2000], due_at=due
    )


def job_failed(*, job_id: str, error: str) -> bool:
    """The job failed for good (an error no retry mends): kept, failed, until a person re-runs it."""
    job = Job.objects.filter(pk=job_id, state=JobState.PENDING).first()
    if job is None:
        return False
    job.state, job.failed_at = JobState.FAILED, timezone.now()
    job.attempts += 1
    job.last_error = error[:2000]
    job.save(update_fields=["state", "failed_at", "attempts", "last_error"])
    audit_record(action="job.failed", target=job, details={"task": job.task, "error": job.last_error[:200]})
    return True


def jobs_due(*, limit: int, now: datetime | None = None) -> list[Job]:
    """The sweeper's step, in one transaction: the pending jobs past ``due_at`` (oldest due first, none
    that a worker holds), their next due time pushed out, and each sent again after the commit.
    Runs in the all-tenants context (a platform job); each message names its job's own enterprise."""
    now = now or timezone.now()
    due = list(
        Job.objects.filter(state=JobState.PENDING, due_at__lte=now)
        .order_by("due_at")
        .select_for_update(skip_locked=True)[:limit]
    )
    for job in due:
        job.sends += 1
        job.sent_at = now
        job.due_at = now + job_wait(sends=job.sends)
    Job.objects.bulk_update(due, ["sends", "sent_at", "due_at"])
    for job in due:
        _send_on_commit(job)
    return due


def job_rerun(*, job_id: uuid.UUID | str) -> Job:
    """A person's re-run of a failed job: pending again and sent after the commit (audited)."""
    try:
        pk = uuid.UUID(str(job_id))
    except ValueError:
        raise NotFound("job not found") from None
    job = Job.objects.select_for_update().filter(pk=pk).first()
    if job is None:
        raise NotFound("job not found")
    if job.state != JobState.FAILED:
        raise Conflict("only a failed job can be run again; this one is still pending", code="job_pending")
    now = timezone.now()
    job.state, job.failed_at = JobState.PENDING, None
    job.sends += 1
    job.sent_at, job.due_at = now, now + job_wait(sends=1)
    job.save(update_fields=["state", "failed_at", "sends", "sent_at", "due_at"])
    audit_record(action="job.rerun", target=job, details={"task": job.task})
    _send_on_commit(job)
    return job
