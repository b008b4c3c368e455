"""Background jobs: what waits in the outbox, what failed for good, and a re-run for each failure."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from accounts.models import JobState
from accounts.selectors.jobs import jobs_list, jobs_overview
from accounts.services.jobs import job_rerun
from console.decorators import attempt, console_view, forbidden, may_manage, sees_everything
from console.types import ConsoleRequest

OVERSIGHT_ONLY = "Only the enterprise's owners, admins and auditors see its background jobs."
FAILED_PAGE = 100


def _page(request: ConsoleRequest, *, error: str = "", status: int = 200) -> HttpResponse:
    context = {
        "overview": jobs_overview(),
        "failed": jobs_list(state=JobState.FAILED, limit=FAILED_PAGE),
        "may_manage": may_manage(request),
        "error": error,
    }
    return render(request, "console/jobs.html", context, status=status)


@require_GET
@console_view
def jobs(request: ConsoleRequest) -> HttpResponse:
    if not sees_everything(request):
        return forbidden(request, OVERSIGHT_ONLY)
    return _page(request)


@require_POST
@console_view
def job_rerun_view(request: ConsoleRequest, job_id: str) -> HttpResponse:
    if not may_manage(request):
        return forbidden(request, "Only the enterprise's owners and admins run a job again.")
    _, error = attempt(lambda: job_rerun(job_id=job_id))
    if error is not None:
        return _page(request, error=error.message, status=error.http_status)
    if request.htmx:
        return _page(request)
    return redirect("console:jobs")
