"""The memory browser: search and filters, a memory's page, corrections through update_memory, forget."""

from __future__ import annotations

import uuid
from typing import Any

from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from accounts import access
from accounts.selectors.console import projects_by_slug
from accounts.services.audit import audit_record
from console.decorators import attempt, console_view, not_found
from console.forms import CorrectionForm, ForgetForm, MemorySearchForm
from console.types import ConsoleRequest
from memory.selectors.browse import MemoryFilter, memory_browse, memory_page
from memory.selectors.visibility import memory_get_visible
from memory.services import corrections
from memory.services.forgetting import memory_forget
from memory.tools.update import UpdateMemoryIn, update_corrections

GONE = "This memory does not exist, or you may not see it."


def _record_read(memory_ids: list[str]) -> None:
    # Console reads are audited like the tools' reads: which memories this member saw.
    if memory_ids:
        audit_record(action="console.read", target_type="memory", details={"read_ids": memory_ids})


@require_GET
@console_view
def memories(request: ConsoleRequest) -> HttpResponse:
    member = request.member
    projects = projects_by_slug(member=member)
    form = MemorySearchForm(request.GET or None, projects=projects)
    result = None
    if not request.GET or form.is_valid():
        data = form.cleaned_data if request.GET else {}
        since, until = form.bounds() if request.GET else (None, None)
        where = MemoryFilter(
            query=data.get("q", ""),
            project_id=uuid.UUID(data["project"]) if data.get("project") else None,
            workspace=data.get("workspace", ""),
            layer=data.get("layer", ""),
            scope=data.get("scope", ""),
            status=data.get("status", ""),
            tag=data.get("tag", ""),
            entity=data.get("entity", ""),
            since=since,
            until=until,
        )
        result = memory_browse(member=member, where=where)
        _record_read([str(row.memory.pk) for row in result.rows])
    filtered = any(v for k, v in request.GET.items() if k != "q")
    context = {"form": form, "result": result, "filtered": filtered}
    template = "console/memories.html#results" if request.htmx else "console/memories.html"
    return render(request, template, context, status=200 if result is not None else 400)


def _page(request: ConsoleRequest, memory_id: str, *, status: int = 200, **extra: Any) -> HttpResponse:
    member = request.member
    page = memory_page(member=member, memory_id=memory_id)
    if page is None:
        return not_found(request, GONE)
    _record_read([str(page.memory.pk)])
    may_change = access.place_may_write(
        member=member, key=None, project=page.memory.project_id, workspace_id=page.memory.workspace_id
    )
    context = {
        "page": page,
        "memory": page.memory,
        "may_change": may_change,
        "correction_form": CorrectionForm(),
        "forget_form": ForgetForm(),
        **extra,
    }
    return render(request, "console/memory.html", context, status=status)


@require_GET
@console_view
def memory(request: ConsoleRequest, memory_id: str) -> HttpResponse:
    return _page(request, memory_id)


@require_POST
@console_view
def memory_correct(request: ConsoleRequest, memory_id: str) -> HttpResponse:
    """Corrections go through update_memory's own service, with the tool's own argument checks."""
    member = request.member
    found = memory_get_visible(member=member, memory_id=memory_id)
    if found is None:
        return not_found(request, GONE)
    form = CorrectionForm(request.POST)
    if not form.is_valid():
        return _page(request, memory_id, correction_form=form, status=400)
    try:
        arguments = UpdateMemoryIn.model_validate(form.arguments(event_id=str(found.pk)))
    except ValueError as exc:
        form.add_error(None, str(exc))
        return _page(request, memory_id, correction_form=form, status=422)
    changes = update_corrections(arguments)
    outcome, error = attempt(
        lambda: corrections.memory_correct(member=member, key=None, memory_id=str(found.pk), changes=changes)
    )
    if error is not None:
        form.add_error(None, error.message)
        return _page(request, memory_id, correction_form=form, status=error.http_status)
    assert outcome is not None
    rejected = [f"{r.item}: {r.reason}" for r in outcome.rejected()]
    if rejected or request.htmx:
        return _page(request, memory_id, corrected=outcome, rejected=rejected)
    return redirect("console:memory", memory_id=found.pk)


@require_POST
@console_view
def memory_forget_view(request: ConsoleRequest, memory_id: str) -> HttpResponse:
    member = request.member
    found = memory_get_visible(member=member, memory_id=memory_id)
    if found is None:
        return not_found(request, GONE)
    form = ForgetForm(request.POST)
    reason = form.cleaned_data["reason"] if form.is_valid() else ""
    flagged, error = attempt(lambda: memory_forget(memory=found, member=member, reason=reason))
    if error is not None:
        return _page(request, memory_id, forget_error=error.message, status=error.http_status)
    return render(
        request,
        "console/message.html",
        {
            "title": "Forgotten",
            "message": "The memory is gone from every read; the audit trail keeps that it was forgotten."
            + (f" {len(flagged or [])} memories derived from it are now flagged." if flagged else ""),
            "back": "/console/memories/",
        },
    )
