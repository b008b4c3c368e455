"""Guard (rejections, redactions, the re-scan job, the learned detector's threshold, reports of the guard's
mistakes), audit (filterable, CSV) and usage."""

from __future__ import annotations

import csv
import json
from typing import Any

from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.selectors.console import AuditFilter, audit_events_filtered
from console.decorators import attempt, console_view, forbidden, may_manage, not_found, sees_everything
from console.forms import AuditFilterForm, GuardFilterForm, GuardReportForm, GuardThresholdForm
from console.selectors import usage_overview
from console.types import ConsoleRequest
from memory.guard import RULES_VERSION
from memory.selectors.browse import GuardFilter, guard_events_list, guard_pending_count, guard_rescan_job
from memory.selectors.guard import guard_detector_settings, guard_reports_list
from memory.selectors.visibility import projects_readable
from memory.services.console import guard_rescan_request
from memory.services.guard_settings import (
    ADMIN_ONLY_REPORT,
    ADMIN_ONLY_THRESHOLD,
    guard_report,
    guard_threshold_set,
)

OVERSIGHT_ONLY = "Only the enterprise's owners, admins and auditors see the {page}."
AUDIT_PAGE = 50


def _progress_context(*, requested: bool = False) -> dict[str, Any]:
    job = guard_rescan_job()
    total = (job.result.get("total") or 0) if job else 0
    done = (job.result.get("done") or 0) if job else 0
    return {
        "job": job,
        "requested": requested,
        "percent": 100 if job and job.state == "done" else (int(100 * done / total) if total else 0),
        "polling": (job is None and requested) or (job is not None and job.state != "done"),
        "rules_version": RULES_VERSION,
        "pending": guard_pending_count(),
    }


def _guard_page(request: ConsoleRequest, *, status: int = 200, **shown: Any) -> HttpResponse:
    """The guard page; ``shown`` puts a refused form back in place (``threshold_form``, ``threshold_error``,
    ``report_error`` with ``report_event``, the rejection it was about)."""
    form = GuardFilterForm(request.GET or None)
    where = GuardFilter(**form.cleaned_data) if form.is_valid() else GuardFilter()
    context = {
        "form": form,
        "events": guard_events_list(where=where),
        "may_manage": may_manage(request),
        "detector": guard_detector_settings(),
        "threshold_form": GuardThresholdForm(),
        **_progress_context(requested=request.GET.get("requested") == "1"),
        **shown,
    }
    return render(request, "console/guard.html", context, status=status)


@require_GET
@console_view
def guard(request: ConsoleRequest) -> HttpResponse:
    if not sees_everything(request):
        return forbidden(request, OVERSIGHT_ONLY.format(page="guard's records"))
    return _guard_page(request)


@require_POST
@console_view
def guard_threshold(request: ConsoleRequest) -> HttpResponse:
    """Set the learned detector's threshold, or reset it to the model's default (owners and admins)."""
    if not may_manage(request):
        return forbidden(request, ADMIN_ONLY_THRESHOLD)
    form = GuardThresholdForm(request.POST)
    if not form.is_valid():
        return _guard_page(request, status=400, threshold_form=form)
    _, error = attempt(lambda: guard_threshold_set(value=form.value()))
    if error is not None:
        return _guard_page(
            request, status=error.http_status, threshold_form=form, threshold_error=error.message
        )
    return _guard_page(request) if request.htmx else redirect("console:guard")


@require_POST
@console_view
def guard_false_positive(request: ConsoleRequest, event_id: str) -> HttpResponse:
    """Report a rejection as a false positive (kept for the next tuning round)."""
    if not may_manage(request):
        return forbidden(request, ADMIN_ONLY_REPORT)
    if not event_id.isdigit():
        return not_found(request)
    form = GuardReportForm(request.POST)
    form.is_valid()  # every field is optional text: the service checks the limits
    data = form.cleaned_data
    _, error = attempt(
        lambda: guard_report(
            kind="false_positive", text=data["text"], note=data["note"], guard_event_id=int(event_id)
        )
    )
    if error is not None and error.http_status == 404:
        return not_found(request, error.message)
    if error is not None:
        return _guard_page(
            request, status=error.http_status, report_error=error.message, report_event=int(event_id)
        )
    return _guard_page(request) if request.htmx else redirect("console:guard")


def _reports_page(
    request: ConsoleRequest, *, form: GuardReportForm | None = None, error: str = "", status: int = 200
) -> HttpResponse:
    context = {
        "reports": guard_reports_list(),
        "may_manage": may_manage(request),
        "form": form or GuardReportForm(),
        "error": error,
    }
    return render(request, "console/guard_reports.html", context, status=status)


@require_http_methods(["GET", "POST"])
@console_view
def guard_reports(request: ConsoleRequest) -> HttpResponse:
    """The enterprise's reports of the guard's mistakes; a POST reports a miss (owners and admins)."""
    if request.method == "GET":
        if not sees_everything(request):
            return forbidden(request, OVERSIGHT_ONLY.format(page="guard's records"))
        return _reports_page(request)
    if not may_manage(request):
        return forbidden(request, ADMIN_ONLY_REPORT)
    form = GuardReportForm(request.POST)
    form.is_valid()
    data = form.cleaned_data
    _, error = attempt(lambda: guard_report(kind="miss", text=data["text"], note=data["note"]))
    if error is not None:
        return _reports_page(request, form=form, error=error.message, status=error.http_status)
    return _reports_page(request) if request.htmx else redirect("console:guard_reports")


@require_GET
@console_view
def guard_progress(request: ConsoleRequest) -> HttpResponse:
    """The re-scan's progress, polled by htmx while the job runs (and reloaded by hand without it)."""
    if not sees_everything(request):
        return forbidden(request, OVERSIGHT_ONLY.format(page="guard's records"))
    context = {
        "may_manage": may_manage(request),
        **_progress_context(requested=request.GET.get("requested") == "1"),
    }
    return render(request, "console/guard.html#progress", context)


@require_POST
@console_view
def guard_rescan(request: ConsoleRequest) -> HttpResponse:
    if not may_manage(request):
        return forbidden(request, "Only the enterprise's owners and admins start a re-scan.")
    guard_rescan_request()
    if request.htmx:
        context = {"may_manage": True, **_progress_context(requested=True)}
        return render(request, "console/guard.html#progress", context)
    return redirect("/console/guard/?requested=1")


def _audit_filter(form: AuditFilterForm) -> AuditFilter:
    if not form.is_valid():
        return AuditFilter()
    since, until = form.bounds()
    data = form.cleaned_data
    return AuditFilter(
        action=data["action"],
        door=data["door"],
        actor=data["actor"],
        target=data["target"],
        since=since,
        until=until,
        reads=data["reads"],
    )


@require_GET
@console_view
def audit(request: ConsoleRequest) -> HttpResponse:
    if not sees_everything(request):
        return forbidden(request, OVERSIGHT_ONLY.format(page="audit trail"))
    form = AuditFilterForm(request.GET or None)
    events = audit_events_filtered(where=_audit_filter(form))
    page = Paginator(events, AUDIT_PAGE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    context = {"form": form, "page": page, "query": query.urlencode()}
    template = "console/audit.html#events" if request.htmx else "console/audit.html"
    return render(request, template, context)


class _Echo:
    def write(self, value: str) -> str:
        return value


@require_GET
@console_view
def audit_csv(request: ConsoleRequest) -> HttpResponse:
    """The filtered audit trail as CSV (the same filters as the page; every matching event)."""
    if not sees_everything(request):
        return forbidden(request, OVERSIGHT_ONLY.format(page="audit trail"))
    events = audit_events_filtered(where=_audit_filter(AuditFilterForm(request.GET or None)))
    writer = csv.writer(_Echo())
    header = [
        "id",
        "created_at",
        "action",
        "actor",
        "door",
        "access_key",
        "target_type",
        "target_id",
        "request_id",
        "details",
    ]
    # Written out inside the tenant transaction, before the response leaves the door.
    rows = [writer.writerow(header)] + [
        writer.writerow(
            [
                e.id,
                e.created_at.isoformat(),
                e.action,
                e.actor_member.user.username if e.actor_member else "",
                e.door,
                e.access_key.prefix if e.access_key else "",
                e.target_type,
                e.target_id,
                e.request_id,
                json.dumps(e.details, sort_keys=True),
            ]
        )
        for e in events.iterator(chunk_size=500)
    ]
    response = HttpResponse("".join(rows), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="mnemos-audit.csv"'
    return response


@require_GET
@console_view
def usage(request: ConsoleRequest) -> HttpResponse:
    member = request.member
    context = usage_overview(enterprise=member.enterprise, projects=projects_readable(member=member))
    return render(request, "console/usage.html", context)
