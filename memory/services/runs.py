"""Task runs: every run consults memory before its work and learns from it afterwards."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.utils import timezone

from accounts import access
from accounts.models import AccessKey, Member
from accounts.services.audit import audit_record
from accounts.services.keys import access_key_create, access_key_revoke
from accounts.services.workspaces import workspace_get_or_create
from core.errors import Conflict
from memory.models import Layer, Task, TaskRun
from memory.selectors.ask import RUN_BUDGET_CHARS, AskResult, memory_ask
from memory.selectors.search import ReadScope
from memory.services.memories import MemoryDraft, memory_create

RUN_KEY_LIFETIME = timedelta(hours=24)
RUN_KEY_MISSING = "this run's key is gone: finish the run with an access key to learn its outcome"


def task_run_key_drop(*, run: TaskRun) -> None:
    """A run deleted (its task's or project's deletion cascades to it) takes its run key along: unbound,
    the key would otherwise act as a plain key of the task's project until it expires. Connected to
    TaskRun's post_delete by ``MemoryConfig.ready`` (the cascade reaches runs without a service)."""
    if run.run_key_id is not None:
        AccessKey.objects.filter(pk=run.run_key_id).delete()


@dataclass
class RunStart:
    run: TaskRun
    run_key: str
    consulted: AskResult


def task_run_start(*, task: Task, member: Member, key: AccessKey) -> RunStart:
    """Start a run: mint its run key (``TaskRun.run_key``, the run's own: it asks and trains only this
    run's task, ``AccessKey.bound_task_id``) and consult memory on the task's goal."""
    access.task_run_check(member=member, key=key, task=task)
    run = TaskRun(enterprise_id=task.enterprise_id, task=task, started_by=member)  # its id is known now
    run_key, secret = access_key_create(
        member=member,
        project=task.project,
        scopes=["tasks:read", "tasks:write"],
        toolsets=["enterprise"],
        label=f"run {run.pk}",
        expires_at=timezone.now() + RUN_KEY_LIFETIME,
    )
    # One INSERT binds the key (and caches the reverse: run_key.bound_run is this run, no statement).
    run.run_key = run_key
    run.save(force_insert=True)
    scope = ReadScope(member=member, key=run_key, project_ids=None, task_id=task.pk, run_layers=True)
    consulted = memory_ask(scope=scope, purpose=task.goal or task.name, limit=None, budget=RUN_BUDGET_CHARS)
    audit_record(
        action="task.run.start",
        target=run,
        details={
            "task": str(task.pk),
            "consulted": [str(e.memory.pk) for e in consulted.evidence],
            "status": consulted.status,
        },
    )
    return RunStart(run=run, run_key=secret, consulted=consulted)


def task_run_finish(*, run: TaskRun, outcome: str, member: Member, key: AccessKey | None = None) -> TaskRun:
    """Learn a task-layer note from the run's outcome, once; a repeat changes nothing.

    The note is written through the run's own key (``run.run_key``: its plan, its audit trail). When
    that key is gone (deleted: ``run_key`` is SET NULL; a revoked key stays bound), it is written
    through ``key``, the key finishing the run, which has just passed ``task_run_check`` (write on
    the task's project, never folder-bound, a run key only of this task). Keys are never looked up by
    task. With neither key the outcome cannot be learned: 409 ``run_key_missing``, nothing written.
    """
    if run.state == "finished":
        return run
    access.task_run_check(member=member, key=key, task=run.task)
    if outcome.strip():
        task = run.task
        writer = run.run_key or key
        if writer is None:
            raise Conflict(RUN_KEY_MISSING, code="run_key_missing")
        run.learned = memory_create(
            draft=MemoryDraft(
                project=task.project,
                workspace=workspace_get_or_create(project=task.project, name=f"task-{task.pk}"),
                author=member,
                access_key=writer,
                content=outcome.strip(),
                summary=outcome.strip()[:500],
                layer=Layer.TASK,
                visibility="project",
                source="run",
                source_event_id=f"run:{run.pk}",
                source_event_revision="1",
                team=task.team or task.project.team,
                task=task,
            ),
            tool="task.run.finish",
        )
    run.state, run.outcome, run.finished_at = "finished", outcome, timezone.now()
    run.save(update_fields=["state", "outcome", "finished_at", "learned"])
    if run.run_key is not None:
        access_key_revoke(key=run.run_key)
    audit_record(
        action="task.run.finish",
        target=run,
        details={"learned": str(run.learned_id) if run.learned_id else None},
    )
    return run
