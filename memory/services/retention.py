"""Retention: policies that age memories out, their dry run, and their application in batches.
docs/lifecycle.md, "Retention".

A policy (``RetentionPolicy``) is enterprise-wide or one project's; it names a layer and/or a kind (or
neither: every memory) and a maximum age in days, counted from ``created_at`` (when the memory was
recorded; an import keeps its source's date). Its action is ``forget`` (soft, as the forget tool: live
memories only) or ``erase`` (hard, as an erasure: forgotten ones too; the batch's audit event is the
tombstone: ids, rows per table, the rows' hash). Memories under a legal hold are skipped and counted.

``retention_plan`` is the dry run (changes nothing); ``retention_apply`` takes one batch (at most
``RETENTION_BATCH`` memories across the enabled policies, in policy order), audits it as one event per
policy touched, and says whether more remain. The ``memory.retention_apply`` job runs one batch and
enqueues the next while more remain; ``memory.retention_sweep`` (Celery beat) starts one such chain per
enterprise with an enabled policy, ``retention_run_request`` one now. A repeat
finds what it did already gone and does nothing.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from accounts import access
from accounts.models import Job, JobState, Member, Project
from accounts.services.audit import audit_record
from accounts.tasks import enqueue
from core.errors import Forbidden, InvalidInput, NotFound
from core.tenancy import current_tenant
from memory.models import Kind, Layer, Memory, RetentionAction, RetentionPolicy
from memory.selectors.holds import HeldScope, held_scope, memories_held, memories_not_held
from memory.services.erasure import memories_hard_delete
from memory.services.forgetting import memories_forget_many

RETENTION_BATCH = 500  # memories per batch (per job), across the enabled policies
SAMPLE = 10
MAX_AGE_DAYS = 36_500  # a hundred years
APPLY_TASK = "memory.retention_apply"

RETENTION_MANAGE_DENIED = "only an owner or an admin may change retention policies"
POLICY_NOT_FOUND = "retention policy not found"
POLICY_NAME_REQUIRED = "a retention policy needs a name (1 to 200 characters)"
POLICY_AGE_INVALID = "max_age_days must be a whole number of days from 1 to 36500"
POLICY_LAYER_INVALID = "layer must be one of: {choices} (or empty for any layer)"
POLICY_KIND_INVALID = "kind must be one of: {choices} (or empty for any kind)"
POLICY_ACTION_INVALID = "action must be one of: forget, erase"
POLICY_PROJECT_NOT_FOUND = "no project '{ref}' in this enterprise"


def retention_manage_check(member: Member) -> None:
    if not access.member_may_manage(member):
        raise Forbidden(RETENTION_MANAGE_DENIED, code="retention_forbidden")


def _policy(policy_id: uuid.UUID | str, *, for_update: bool = False) -> RetentionPolicy:
    try:
        pk = uuid.UUID(str(policy_id))
    except ValueError as exc:
        raise NotFound(POLICY_NOT_FOUND, code="not_found") from exc
    policies = RetentionPolicy.objects.select_related("project")
    found = (policies.select_for_update(of=("self",)) if for_update else policies).filter(pk=pk).first()
    if found is None:
        raise NotFound(POLICY_NOT_FOUND, code="not_found")
    return found


def _validated(
    *, name: str, max_age_days: int, action: str, layer: str, kind: str, project_ref: str | None
) -> dict[str, Any]:
    name = name.strip()
    if not name or len(name) > 200:
        raise InvalidInput(POLICY_NAME_REQUIRED, code="invalid_input")
    if (
        isinstance(max_age_days, bool)
        or not isinstance(max_age_days, int)
        or not 1 <= max_age_days <= MAX_AGE_DAYS
    ):
        raise InvalidInput(POLICY_AGE_INVALID, code="invalid_input")
    if action not in RetentionAction.values:
        raise InvalidInput(POLICY_ACTION_INVALID, code="invalid_input")
    if layer and layer not in Layer.values:
        raise InvalidInput(POLICY_LAYER_INVALID.format(choices=", ".join(Layer.values)), code="invalid_input")
    if kind and kind not in Kind.values:
        raise InvalidInput(POLICY_KIND_INVALID.format(choices=", ".join(Kind.values)), code="invalid_input")
    project = None
    if project_ref:
        project = Project.objects.filter(slug=project_ref.strip()).first()
        if project is None:
            raise NotFound(POLICY_PROJECT_NOT_FOUND.format(ref=project_ref[:200]), code="not_found")
    return {
        "name": name,
        "max_age_days": max_age_days,
        "action": action,
        "layer": layer,
        "kind": kind,
        "project": project,
    }


def _described(policy: RetentionPolicy) -> dict[str, Any]:
    return {
        "name": policy.name,
        "project": policy.project.slug if policy.project else None,
        "layer": policy.layer or None,
        "kind": policy.kind or None,
        "max_age_days": policy.max_age_days,
        "action": policy.action,
        "enabled": policy.enabled,
    }


@transaction.atomic
def retention_policy_create(
    *,
    member: Member,
    name: str,
    max_age_days: int,
    action: str = RetentionAction.FORGET,
    layer: str = "",
    kind: str = "",
    project_ref: str | None = None,
    enabled: bool = True,
) -> RetentionPolicy:
    """A policy: memories of ``layer`` and/or ``kind`` (empty: any) older than ``max_age_days`` go by
    ``action``, in every project or in ``project_ref`` (a slug). Owners and admins; audited."""
    retention_manage_check(member)
    values = _validated(
        name=name, max_age_days=max_age_days, action=action, layer=layer, kind=kind, project_ref=project_ref
    )
    policy = RetentionPolicy.objects.create(
        enterprise_id=member.enterprise_id, enabled=enabled, created_by=member, **values
    )
    audit_record(action="retention.policy_create", target=policy, details=_described(policy))
    return policy


@transaction.atomic
def retention_policy_update(
    *,
    member: Member,
    policy_id: uuid.UUID | str,
    name: str | None = None,
    max_age_days: int | None = None,
    action: str | None = None,
    layer: str | None = None,
    kind: str | None = None,
    project_ref: str | None = None,
    enterprise_wide: bool = False,
    enabled: bool | None = None,
) -> RetentionPolicy:
    """Change what is given (``enterprise_wide=True`` moves a project's policy to every project).
    Owners and admins; audited with the old and new values."""
    retention_manage_check(member)
    policy = _policy(policy_id, for_update=True)
    before = _described(policy)
    values = _validated(
        name=policy.name if name is None else name,
        max_age_days=policy.max_age_days if max_age_days is None else max_age_days,
        action=policy.action if action is None else action,
        layer=policy.layer if layer is None else layer,
        kind=policy.kind if kind is None else kind,
        project_ref=None
        if enterprise_wide
        else (project_ref or (policy.project.slug if policy.project else None)),
    )
    for attribute, value in values.items():
        setattr(policy, attribute, value)
    if enabled is not None:
        policy.enabled = enabled
    policy.save()
    after = _described(policy)
    if after != before:
        audit_record(action="retention.policy_update", target=policy, details={"old": before, "new": after})
    return policy


def retention_policy_disable(*, member: Member, policy_id: uuid.UUID | str) -> RetentionPolicy:
    """Stop applying a policy (it stays, for a later enable or its dry run)."""
    return retention_policy_update(member=member, policy_id=policy_id, enabled=False)


@transaction.atomic
def retention_policy_delete(*, member: Member, policy_id: uuid.UUID | str) -> None:
    """Delete a policy (what it aged out stays gone). Owners and admins; audited."""
    retention_manage_check(member)
    policy = _policy(policy_id, for_update=True)
    details = _described(policy)
    audit_record(action="retention.policy_delete", target=policy, details=details)
    policy.delete()


# -- what a policy reaches ----------------------------------------------------------------------------


def policy_candidates(policy: RetentionPolicy, *, now: datetime | None = None) -> QuerySet[Memory]:
    """The memories a policy would age out now, held ones included (the caller sets them apart)."""
    cutoff = (now or timezone.now()) - timedelta(days=policy.max_age_days)
    memories = Memory.objects.filter(created_at__lt=cutoff)
    if policy.project_id is not None:
        memories = memories.filter(project_id=policy.project_id)
    if policy.layer:
        memories = memories.filter(layer=policy.layer)
    if policy.kind:
        memories = memories.filter(kind=policy.kind)
    if policy.action == RetentionAction.FORGET:
        memories = memories.filter(forgotten_at__isnull=True)
    return memories


@dataclass(frozen=True)
class PolicyPlan:
    """One policy's dry run: how many memories would go, how many a hold keeps, a sample of them."""

    policy_id: str
    name: str
    action: str
    enabled: bool
    would_go: int
    held: int
    sample: list[dict[str, str]]


@dataclass(frozen=True)
class RetentionPlan:
    policies: list[PolicyPlan]

    @property
    def would_go(self) -> int:
        return sum(p.would_go for p in self.policies)

    @property
    def held(self) -> int:
        return sum(p.held for p in self.policies)


def _sample(memories: QuerySet[Memory], limit: int) -> list[dict[str, str]]:
    rows = memories.order_by("created_at", "pk").values_list("pk", "summary", "content", "created_at")[:limit]
    return [
        {"id": str(pk), "summary": (summary or content)[:120], "created_at": created.isoformat()}
        for pk, summary, content, created in rows
    ]


def retention_plan(
    *, policy_id: uuid.UUID | str | None = None, sample: int = SAMPLE, now: datetime | None = None
) -> RetentionPlan:
    """The dry run: per policy (one, or every enabled one), what would go now and what a hold keeps.
    Counts overlap where policies do (a memory two policies reach counts in both). Changes nothing."""
    policies = [_policy(policy_id)] if policy_id is not None else _enabled_policies()
    scope = held_scope()
    plans = []
    for policy in policies:
        candidates = policy_candidates(policy, now=now)
        going = memories_not_held(candidates, scope=scope)
        plans.append(
            PolicyPlan(
                policy_id=str(policy.pk),
                name=policy.name,
                action=policy.action,
                enabled=policy.enabled,
                would_go=going.count(),
                held=memories_held(candidates, scope=scope).count(),
                sample=_sample(going, sample),
            )
        )
    return RetentionPlan(policies=plans)


def _enabled_policies() -> list[RetentionPolicy]:
    return list(
        RetentionPolicy.objects.filter(enabled=True).select_related("project").order_by("created_at", "pk")
    )


# -- applying -----------------------------------------------------------------------------------------


@dataclass
class RetentionBatch:
    """One batch: per policy, memories aged out and held ones skipped; ``more`` when some remain."""

    applied: dict[str, int] = field(default_factory=dict)
    held: dict[str, int] = field(default_factory=dict)
    more: bool = False

    @property
    def total(self) -> int:
        return sum(self.applied.values())


@transaction.atomic
def retention_apply(
    *, batch_size: int = RETENTION_BATCH, run_started: datetime | None = None, now: datetime | None = None
) -> RetentionBatch:
    """Apply the enabled policies, at most ``batch_size`` memories, in policy order; one audit event per
    policy touched (its counts, and for erase the tombstone: ids, rows per table, the rows' hash). Held
    memories are skipped and counted. ``run_started`` names the run a chain of batches belongs to: a
    policy's ``last_run_count`` adds up within one run. Idempotent: what went is not found again."""
    now = now or timezone.now()
    run_started = run_started or now
    scope: HeldScope = held_scope()
    batch = RetentionBatch()
    room = batch_size
    for policy in _enabled_policies():
        candidates = policy_candidates(policy, now=now)
        going = memories_not_held(candidates, scope=scope)
        if room <= 0:
            batch.more = batch.more or going.exists()
            continue
        ids = list(going.order_by("created_at", "pk").values_list("pk", flat=True)[: room + 1])
        if len(ids) > room:
            batch.more, ids = True, ids[:room]
        held = memories_held(candidates, scope=scope).count()
        batch.held[str(policy.pk)] = held
        if not ids:
            _ran(policy, run_started, 0)
            continue
        room -= len(ids)
        details: dict[str, Any] = {
            "policy": _described(policy),
            "held_skipped": held,
            "run": run_started.isoformat(),
        }
        if policy.action == RetentionAction.FORGET:
            forgotten, flagged = memories_forget_many(memory_ids=ids)
            batch.applied[str(policy.pk)] = forgotten
            details.update(
                {"forgotten": forgotten, "derived_flagged": flagged, "memory_ids": [str(i) for i in ids]}
            )
        else:
            flagged = (
                Memory.objects.filter(derived_from__overlap=ids, forgotten_at__isnull=True)
                .exclude(pk__in=ids)
                .exclude(source_forgotten=True)
                .update(source_forgotten=True)
            )
            deleted = memories_hard_delete(memory_ids=ids)
            batch.applied[str(policy.pk)] = len(deleted.memory_ids)
            details.update(
                {
                    "erased": len(deleted.memory_ids),
                    "derived_flagged": flagged,
                    "memory_ids": deleted.memory_ids,
                    "counts": deleted.counts,
                    "content_hash": deleted.content_hash,
                }
            )
        _ran(policy, run_started, batch.applied[str(policy.pk)])
        audit_record(action=f"retention.{policy.action}", target=policy, details=details)
    return batch


def _ran(policy: RetentionPolicy, run_started: datetime, count: int) -> None:
    """Record a run on the policy: a batch of the same run adds to its count, a new run starts it again."""
    if policy.last_run_at == run_started:
        policy.last_run_count += count
    else:
        policy.last_run_at, policy.last_run_count = run_started, count
    RetentionPolicy.objects.filter(pk=policy.pk).update(
        last_run_at=policy.last_run_at, last_run_count=policy.last_run_count
    )


def retention_run_pending() -> bool:
    """Whether a retention chain is waiting or running for the tenant (its next batch is in the outbox)."""
    return Job.objects.filter(task=APPLY_TASK, state=JobState.PENDING).exists()


def retention_run_start(*, run_started: str, batch_size: int = RETENTION_BATCH) -> bool:
    """Start the tenant's retention run (its first batch's job, in the caller's transaction) unless one
    is pending already; whether it started. The beat sweep's step per enterprise, and "apply now"'s."""
    if retention_run_pending():
        return False
    kwargs: dict[str, object] = {"run_started": run_started}
    if batch_size != RETENTION_BATCH:
        kwargs["batch_size"] = batch_size
    enqueue(APPLY_TASK, enterprise_id=str(current_tenant().enterprise_id), **kwargs)
    return True


@transaction.atomic
def retention_run_request(*, member: Member, batch_size: int = RETENTION_BATCH) -> bool:
    """Apply the enterprise's retention policies now (what the hourly sweep does, docs/lifecycle.md):
    the run's first batch unless a run is pending already (False then). Owners and admins; audited."""
    retention_manage_check(member)
    started = timezone.now().isoformat()
    if not retention_run_start(run_started=started, batch_size=batch_size):
        return False
    audit_record(action="retention.run_request", target_type="retention", details={"run": started})
    return True


def retention_enterprise_ids() -> list[str]:
    """Enterprises with an enabled policy (the sweep reads it across tenants)."""
    ids = RetentionPolicy.objects.filter(enabled=True).values_list("enterprise_id", flat=True).distinct()
    return sorted(str(i) for i in ids)
