"""Legal holds: place one on a project, an entity or a tag; the active ones and the released ones;
release. Auditors see them read-only. docs/lifecycle.md, "Console"."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from console.decorators import attempt, console_view, forbidden, may_manage, not_found, sees_everything
from console.forms import HoldCreateForm
from console.types import ConsoleRequest
from memory.selectors.holds import hold_label
from memory.selectors.lifecycle import holds_listed
from memory.services.holds import HOLD_MANAGE_DENIED, hold_create, hold_release

OVERSIGHT_ONLY = "Only the enterprise's owners, admins and auditors see its legal holds."


def _page(request: ConsoleRequest, *, status: int = 200, **shown: Any) -> HttpResponse:
    holds = holds_listed()
    context = {
        "active": [(h, hold_label(h)) for h in holds if h.released_at is None],
        "released": [(h, hold_label(h)) for h in holds if h.released_at is not None],
        "may_manage": may_manage(request),
        "oversight": True,
        "form": HoldCreateForm(),
        **shown,
    }
    return render(request, "console/holds.html", context, status=status)


@require_http_methods(["GET", "POST"])
@console_view
def holds(request: ConsoleRequest) -> HttpResponse:
    if not sees_everything(request):
        return forbidden(request, OVERSIGHT_ONLY)
    if request.method == "GET":
        return _page(request)
    if not may_manage(request):
        return forbidden(request, HOLD_MANAGE_DENIED)
    form = HoldCreateForm(request.POST)
    if not form.is_valid():
        return _page(request, form=form, status=400)
    data = form.cleaned_data
    _, error = attempt(
        lambda: hold_create(
            member=request.member,
            target=data["target"],
            ref=data["ref"],
            name=data["name"],
            reason=data["reason"],
        )
    )
    if error is not None:
        return _page(request, form=form, error=error.message, status=error.http_status)
    return _page(request) if request.htmx else redirect("console:holds")


@require_POST
@console_view
def hold_release_view(request: ConsoleRequest, hold_id: str) -> HttpResponse:
    if not may_manage(request):
        return forbidden(request, HOLD_MANAGE_DENIED)
    _, error = attempt(
        lambda: hold_release(member=request.member, hold_id=hold_id, note=request.POST.get("note", ""))
    )
    if error is not None and error.http_status == 404:
        return not_found(request, error.message)
    if error is not None:
        return _page(request, error=error.message, status=error.http_status)
    return _page(request) if request.htmx else redirect("console:holds")
