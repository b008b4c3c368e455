"""Retention policies: create, enable or disable, delete; a dry run of what each would age out now (held
memories apart, a sample); apply now (the same job Celery beat runs). docs/lifecycle.md, "Console"."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.selectors.console import projects_by_slug
from console.decorators import attempt, console_view, forbidden, may_manage, not_found, sees_everything
from console.forms import RetentionPolicyForm
from console.types import ConsoleRequest
from core.errors import NotFound
from memory.selectors.lifecycle import retention_policies_list
from memory.services.retention import (
    RETENTION_MANAGE_DENIED,
    retention_plan,
    retention_policy_create,
    retention_policy_delete,
    retention_policy_update,
    retention_run_pending,
    retention_run_request,
)

OVERSIGHT_ONLY = "Only the enterprise's owners, admins and auditors see its retention policies."
MANAGE_ONLY = "Only the enterprise's owners and admins change retention policies."


def _page(request: ConsoleRequest, *, status: int = 200, **shown: Any) -> HttpResponse:
    """The page; ``shown`` puts a refused form back (``form``, ``error``), a dry run (``plan``) or a
    message (``notice``) in place."""
    manage = may_manage(request)
    context = {
        "policies": retention_policies_list(),
        "may_manage": manage,
        "oversight": True,
        "running": retention_run_pending(),
        "form": RetentionPolicyForm(projects=projects_by_slug(member=request.member)) if manage else None,
        **shown,
    }
    return render(request, "console/retention.html", context, status=status)


@require_http_methods(["GET", "POST"])
@console_view
def retention(request: ConsoleRequest) -> HttpResponse:
    if not sees_everything(request):
        return forbidden(request, OVERSIGHT_ONLY)
    if request.method == "GET":
        return _page(request)
    if not may_manage(request):
        return forbidden(request, MANAGE_ONLY)
    form = RetentionPolicyForm(request.POST, projects=projects_by_slug(member=request.member))
    if not form.is_valid():
        return _page(request, form=form, status=400)
    data = form.cleaned_data
    _, error = attempt(
        lambda: retention_policy_create(
            member=request.member,
            name=data["name"],
            max_age_days=data["max_age_days"],
            action=data["action"],
            layer=data["layer"],
            kind=data["kind"],
            project_ref=data["project"] or None,
        )
    )
    if error is not None:
        return _page(request, form=form, error=error.message, status=error.http_status)
    return _page(request) if request.htmx else redirect("console:retention")


@require_POST
@console_view
def retention_toggle(request: ConsoleRequest, policy_id: str) -> HttpResponse:
    """Enable a disabled policy, or disable an enabled one (the form says which: ``enabled`` 1 or 0)."""
    if not may_manage(request):
        return forbidden(request, MANAGE_ONLY)
    enabled = request.POST.get("enabled") == "1"
    _, error = attempt(
        lambda: retention_policy_update(member=request.member, policy_id=policy_id, enabled=enabled)
    )
    return _after(request, error)


@require_POST
@console_view
def retention_delete(request: ConsoleRequest, policy_id: str) -> HttpResponse:
    if not may_manage(request):
        return forbidden(request, MANAGE_ONLY)
    _, error = attempt(lambda: retention_policy_delete(member=request.member, policy_id=policy_id))
    return _after(request, error)


def _after(request: ConsoleRequest, error: Any) -> HttpResponse:
    if error is not None and error.http_status == 404:
        return not_found(request, error.message)
    if error is not None:
        return _page(request, error=error.message, status=error.http_status)
    return _page(request) if request.htmx else redirect("console:retention")


@require_GET
@console_view
def retention_dry_run(request: ConsoleRequest) -> HttpResponse:
    """What would go now, per policy (one with ``?policy=<id>``, else every enabled one). Changes nothing,
    so auditors may run it too."""
    if not sees_everything(request):
        return forbidden(request, OVERSIGHT_ONLY)
    try:
        plan = retention_plan(policy_id=request.GET.get("policy") or None)
    except NotFound as missing:
        return not_found(request, missing.message)
    if request.htmx:
        return render(request, "console/retention.html#plan", {"plan": plan})
    return _page(request, plan=plan)


@require_POST
@console_view
def retention_apply_now(request: ConsoleRequest) -> HttpResponse:
    """Start a retention run now (its batches run as jobs, audited); a run already waiting is not doubled."""
    if not may_manage(request):
        return forbidden(request, RETENTION_MANAGE_DENIED)
    started, error = attempt(lambda: retention_run_request(member=request.member))
    if error is not None:
        return _page(request, error=error.message, status=error.http_status)
    notice = (
        "Retention run started: its batches run as background jobs; every batch is in the audit trail."
        if started
        else "A retention run is waiting or running already; it applies every enabled policy."
    )
    return _page(request, notice=notice)
