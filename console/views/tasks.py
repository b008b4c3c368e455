"""Tasks: the list of readable tasks, creating one (version 1), editing one (a new version with its layer
grants). Creating and editing need manage on the task's project (``accounts.access.task_may_change``)."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from accounts import access
from console.decorators import attempt, console_view, forbidden, not_found
from console.forms import TaskEditForm, TaskForm
from console.types import ConsoleRequest
from memory.selectors.tasks import task_readable_get, tasks_readable
from memory.services.tasks import task_open, task_update

MANAGERS_ONLY = "Only those who manage the task's project create or change its tasks."


def _manageable(request: ConsoleRequest) -> list[Any]:
    return list(access.projects_manageable(member=request.member).order_by("slug"))


def _page(request: ConsoleRequest, *, status: int = 200, **extra: Any) -> HttpResponse:
    manageable = _manageable(request)
    context = {
        "tasks": list(tasks_readable(member=request.member)[:200]),
        "form": TaskForm(projects=manageable) if manageable else None,
        **extra,
    }
    return render(request, "console/tasks.html", context, status=status)


@require_http_methods(["GET", "POST"])
@console_view
def tasks(request: ConsoleRequest) -> HttpResponse:
    if request.method == "GET":
        return _page(request)
    manageable = _manageable(request)
    if not manageable:
        return forbidden(request, MANAGERS_ONLY)
    form = TaskForm(request.POST, projects=manageable)
    if not form.is_valid():
        return _page(request, form=form, status=400)
    project = next(p for p in manageable if str(p.pk) == form.cleaned_data["project"])
    task, error = attempt(
        lambda: task_open(
            member=request.member,
            key=None,
            project=project,
            name=form.cleaned_data["name"],
            goal=form.cleaned_data["goal"],
            grants=form.cleaned_data["grants"],
        )
    )
    if error is not None:
        form.add_error(None, error.message)
        return _page(request, form=form, status=error.http_status)
    return redirect("console:task", task_id=task.pk)  # type: ignore[union-attr]


def _grants_text(grants: list[dict[str, str]]) -> str:
    return "\n".join(f"{g['layer']} {g['prefix']}" for g in grants)


def _task_page(request: ConsoleRequest, task: Any, *, status: int = 200, **extra: Any) -> HttpResponse:
    versions = list(task.versions.all())
    may_change = access.task_may_change(member=request.member, key=None, project=task.project)
    form = None
    if may_change:
        form = TaskEditForm(
            initial={
                "name": task.name,
                "goal": task.goal,
                "grants": _grants_text(versions[0].grants if versions else []),
            }
        )
    context = {"task": task, "versions": versions, "form": form, **extra}
    return render(request, "console/task.html", context, status=status)


@require_http_methods(["GET", "POST"])
@console_view
def task(request: ConsoleRequest, task_id: str) -> HttpResponse:
    found = task_readable_get(member=request.member, task_id=task_id)
    if found is None:
        return not_found(request, "This task does not exist, or you may not see it.")
    if request.method == "GET":
        return _task_page(request, found)
    if not access.task_may_change(member=request.member, key=None, project=found.project):
        return forbidden(request, MANAGERS_ONLY)
    form = TaskEditForm(request.POST)
    if not form.is_valid():
        return _task_page(request, found, form=form, status=400)
    _, error = attempt(
        lambda: task_update(
            member=request.member,
            key=None,
            task=found,
            name=form.cleaned_data["name"],
            goal=form.cleaned_data["goal"],
            grants=form.cleaned_data["grants"],
        )
    )
    if error is not None:
        form.add_error(None, error.message)
        return _task_page(request, found, form=form, status=error.http_status)
    return redirect("console:task", task_id=found.pk)
