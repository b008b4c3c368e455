"""Erasure (the right to be forgotten): choose a subject (a member, or an entity by name), see what it
reaches, confirm on a page of its own that says what goes and that it cannot be undone; the tombstones
that prove what was erased (ids, counts, a hash, who, when; never the content). docs/lifecycle.md,
"Console"."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.selectors.console import members_list
from console.decorators import attempt, console_view, forbidden, may_manage, not_found, sees_everything
from console.forms import ErasureRequestForm
from console.types import ConsoleRequest
from memory.models import Erasure
from memory.selectors.lifecycle import erasure_get, erasure_subject_label, erasures_list
from memory.services.erasure import (
    ERASURE_MANAGE_DENIED,
    ERASURE_NOT_FOUND,
    erasure_cancel,
    erasure_confirm,
    erasure_request,
)

OVERSIGHT_ONLY = "Only the enterprise's owners, admins and auditors see its erasures."


def _page(request: ConsoleRequest, *, status: int = 200, **shown: Any) -> HttpResponse:
    manage = may_manage(request)
    context = {
        "erasures": erasures_list(),
        "may_manage": manage,
        "oversight": True,
        "form": ErasureRequestForm(members=members_list()) if manage else None,
        **shown,
    }
    return render(request, "console/erasure.html", context, status=status)


@require_http_methods(["GET", "POST"])
@console_view
def erasure(request: ConsoleRequest) -> HttpResponse:
    if not sees_everything(request):
        return forbidden(request, OVERSIGHT_ONLY)
    if request.method == "GET":
        return _page(request)
    if not may_manage(request):
        return forbidden(request, ERASURE_MANAGE_DENIED)
    form = ErasureRequestForm(request.POST, members=members_list())
    if not form.is_valid():
        return _page(request, form=form, status=400)
    data = form.cleaned_data
    requested, error = attempt(
        lambda: erasure_request(
            member=request.member,
            subject=data["subject"],
            member_ref=data["member"] or None,
            entity_ref=data["entity"] or None,
            reason=data["reason"],
        )
    )
    if error is not None:
        return _page(request, form=form, error=error.message, status=error.http_status)
    assert requested is not None
    return redirect("console:erasure_detail", erasure_id=requested.pk)


def _detail(request: ConsoleRequest, found: Erasure, *, status: int = 200, error: str = "") -> HttpResponse:
    preview = (found.counts or {}).get("preview", {}) if found.state == "requested" else {}
    context = {
        "erasure": found,
        "subject": erasure_subject_label(found),
        "preview": preview,
        "projects": sorted((preview.get("projects") or {}).items()),
        "counts": sorted((found.counts or {}).items()) if found.state == "done" else [],
        "may_manage": may_manage(request),
        "oversight": True,
        "error": error or (preview.get("held") or {}).get("error", ""),
    }
    return render(request, "console/erasure_detail.html", context, status=status)


@require_GET
@console_view
def erasure_detail(request: ConsoleRequest, erasure_id: str) -> HttpResponse:
    """A requested erasure's confirmation page (what goes, the hold that refuses it), or a tombstone."""
    if not sees_everything(request):
        return forbidden(request, OVERSIGHT_ONLY)
    found = erasure_get(erasure_id=erasure_id)
    if found is None:
        return not_found(request, ERASURE_NOT_FOUND)
    return _detail(request, found)


@require_POST
@console_view
def erasure_confirm_view(request: ConsoleRequest, erasure_id: str) -> HttpResponse:
    if not may_manage(request):
        return forbidden(request, ERASURE_MANAGE_DENIED)
    _, error = attempt(lambda: erasure_confirm(member=request.member, erasure_id=erasure_id))
    return _after(request, erasure_id, error)


@require_POST
@console_view
def erasure_cancel_view(request: ConsoleRequest, erasure_id: str) -> HttpResponse:
    if not may_manage(request):
        return forbidden(request, ERASURE_MANAGE_DENIED)
    _, error = attempt(lambda: erasure_cancel(member=request.member, erasure_id=erasure_id))
    return _after(request, erasure_id, error)


def _after(request: ConsoleRequest, erasure_id: str, error: Any) -> HttpResponse:
    if error is not None and error.http_status == 404:
        return not_found(request, error.message)
    if error is not None:
        found = erasure_get(erasure_id=erasure_id)
        if found is None:
            return not_found(request, ERASURE_NOT_FOUND)
        return _detail(request, found, status=error.http_status, error=error.message)
    return redirect("console:erasure_detail", erasure_id=erasure_id)
