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
from memory.models import Layer, Task, TaskRun
from memory.selectors.ask import RUN_BUDGET_CHARS, AskResult, memory_ask
from memory.selectors.search import ReadScope
from memory.services.memories import MemoryDraft, memory_create

RUN_KEY_LIFETIME = timedelta(hours=24)


@dataclass
class RunStart:
    run: TaskRun
    run_key: str
    consulted: AskResult


def task_run_start(*, task: Task, member: Member, key: AccessKey) -> RunStart:
    access.task_run_check(member=member, key=key, task=task)
    run = TaskRun.objects.create(enterprise_id=task.enterprise_id, task=task, started_by=member)
    run_key, secret = access_key_create(
        member=member,
        project=task.project,
        scopes=["tasks:read", "tasks:write"],
        toolsets=["enterprise"],
        label=f"run {run.pk}",
        expires_at=timezone.now() + RUN_KEY_LIFETIME,
        task=task,
    )
    run_key.run = run
    run_key.save(update_fields=["run"])
    run.run_key = run_key
    run.save(update_fields=["run_key"])
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
    """Learn a task-layer note from the run's outcome, once; a repeat changes nothing."""
    if run.state == "finished":
        return run
    access.task_run_check(member=member, key=key, task=run.task)
    if outcome.strip():
        task = run.task
        run.learned = memory_create(
            draft=MemoryDraft(
                project=task.project,
                workspace=workspace_get_or_create(project=task.project, name=f"task-{task.pk}"),
                author=member,
                access_key=run.run_key or AccessKey.objects.filter(task=task).first(),  # type: ignore[arg-type]
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
