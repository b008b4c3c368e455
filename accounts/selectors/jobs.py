"""Reads of the outbox: what waits, what failed (the console's jobs page, ``manage.py jobs``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Min, Q

from accounts.models import Job, JobState


@dataclass(frozen=True)
class JobsOverview:
    pending: int
    failed: int
    oldest_pending: datetime | None


def jobs_overview() -> JobsOverview:
    """The tenant's outbox in one statement."""
    row = Job.objects.aggregate(
        pending=Count("pk", filter=Q(state=JobState.PENDING)),
        failed=Count("pk", filter=Q(state=JobState.FAILED)),
        oldest_pending=Min("created_at", filter=Q(state=JobState.PENDING)),
    )
    return JobsOverview(pending=row["pending"], failed=row["failed"], oldest_pending=row["oldest_pending"])


def jobs_list(*, state: str, limit: int = 100) -> list[Job]:
    """A page of the tenant's jobs in one state, newest first."""
    order = "-failed_at" if state == JobState.FAILED else "-created_at"
    return list(Job.objects.filter(state=state).order_by(order, "pk")[:limit])
