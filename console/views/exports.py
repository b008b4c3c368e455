"""Exports: request one (my own memories, a project, the whole enterprise), watch its job, download it
through its signed link while the window is open (docs/lifecycle.md, "Console")."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from accounts import access
from accounts.selectors.console import projects_by_slug
from console.decorators import attempt, console_view, sees_everything
from console.forms import ExportRequestForm
from console.types import ConsoleRequest
from memory.selectors.lifecycle import exports_listed, transfers_running
from memory.services.exports import export_download_url, export_request


def _list_context(request: ConsoleRequest) -> dict[str, Any]:
    exports = exports_listed(member=request.member)
    return {
        "rows": [(export, export_download_url(export)) for export in exports],
        "polling": transfers_running(exports),
    }


def _page(
    request: ConsoleRequest, *, form: ExportRequestForm | None = None, error: str = "", status: int = 200
) -> HttpResponse:
    context = {
        "form": form or ExportRequestForm(projects=projects_by_slug(member=request.member)),
        # Every active member may export their own memories; an auditor changes nothing (no form).
        "may_request": access.member_may_write(request.member),
        "error": error,
        "oversight": sees_everything(request),
        **_list_context(request),
    }
    return render(request, "console/exports.html", context, status=status)


@require_http_methods(["GET", "POST"])
@console_view
def exports(request: ConsoleRequest) -> HttpResponse:
    if request.method == "GET":
        return _page(request)
    form = ExportRequestForm(request.POST, projects=projects_by_slug(member=request.member))
    if not form.is_valid():
        return _page(request, form=form, status=400)
    data = form.cleaned_data
    _, error = attempt(
        lambda: export_request(
            member=request.member,
            scope=data["scope"],
            project_slug=data["project"] or None,
            include_vectors=data["include_vectors"],
        )
    )
    if error is not None:
        return _page(request, form=form, error=error.message, status=error.http_status)
    if request.htmx:
        return _page(request)
    return redirect("console:exports")


@require_GET
@console_view
def exports_progress(request: ConsoleRequest) -> HttpResponse:
    """The list of exports, polled by htmx while one is pending or running."""
    return render(request, "console/exports.html#list", _list_context(request))
