"""Imports: upload a Mnemos export, a Mem0 export or Markdown/text files into a project's folder, watch
the job's progress bar, and read the lines it refused with their reasons (docs/lifecycle.md, "Console")."""

from __future__ import annotations

import uuid
from typing import Any

from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from accounts import access
from accounts.selectors.console import projects_writable
from console.decorators import attempt, console_view, not_found, sees_everything
from console.forms import ImportUploadForm
from console.types import ConsoleRequest
from core.errors import NotFound
from memory.models import DataImport
from memory.selectors.imports import import_get
from memory.selectors.lifecycle import RUNNING, imports_listed, transfers_running
from memory.services.imports import import_request

GONE = "This import does not exist, or you may not see it."


def _list_context(request: ConsoleRequest) -> dict[str, Any]:
    rows = imports_listed(member=request.member)
    return {"imports": rows, "polling": transfers_running(rows)}


def _page(
    request: ConsoleRequest, *, form: ImportUploadForm | None = None, error: str = "", status: int = 200
) -> HttpResponse:
    may_import = access.member_may_write(request.member)
    projects = projects_writable(member=request.member) if may_import else []
    context = {
        "form": form or ImportUploadForm(projects=projects),
        "may_import": may_import and bool(projects),
        "error": error,
        "oversight": sees_everything(request),
        **_list_context(request),
    }
    return render(request, "console/imports.html", context, status=status)


@require_http_methods(["GET", "POST"])
@console_view
def imports(request: ConsoleRequest) -> HttpResponse:
    if request.method == "GET":
        return _page(request)
    member = request.member
    projects = projects_writable(member=member)
    form = ImportUploadForm(request.POST, request.FILES, projects=projects)
    if not form.is_valid():
        return _page(request, form=form, status=400)
    data = form.cleaned_data
    project = next(p for p in projects if p.slug == data["project"])
    upload = data["file"]
    started, error = attempt(
        lambda: import_request(
            member=member,
            project=project,
            format=data["format"],
            source=upload,
            original_name=upload.name or "",
            workspace=data["workspace"],
            split_headings=data["split_headings"],
        )
    )
    if error is not None:
        return _page(request, form=form, error=error.message, status=error.http_status)
    assert started is not None
    return redirect("console:import", import_id=started.pk)


def _found(request: ConsoleRequest, import_id: str) -> DataImport | None:
    try:
        return import_get(member=request.member, import_id=uuid.UUID(import_id))
    except (ValueError, NotFound):
        return None


def _detail_context(found: DataImport) -> dict[str, Any]:
    return {"imp": found, "polling": found.state in RUNNING}


@require_GET
@console_view
def import_detail(request: ConsoleRequest, import_id: str) -> HttpResponse:
    found = _found(request, import_id)
    if found is None:
        return not_found(request, GONE)
    context = {"oversight": sees_everything(request), **_detail_context(found)}
    return render(request, "console/import.html", context)


@require_GET
@console_view
def import_progress(request: ConsoleRequest, import_id: str) -> HttpResponse:
    """One import's progress and bad lines, polled by htmx while it is pending or running."""
    found = _found(request, import_id)
    if found is None:
        return not_found(request, GONE)
    return render(request, "console/import.html#progress", _detail_context(found))


@require_GET
@console_view
def imports_progress(request: ConsoleRequest) -> HttpResponse:
    """The list of imports, polled by htmx while one is pending or running."""
    return render(request, "console/imports.html#list", _list_context(request))
