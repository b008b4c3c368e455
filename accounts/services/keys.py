"""Access keys: created (secret shown once), revoked, touched after use."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from accounts import access
from accounts.models import ALL_SCOPES, AccessKey, Member, Project
from accounts.services.audit import audit_record
from accounts.services.workspaces import workspace_get_or_create
from core.errors import Forbidden, InvalidInput

KEY_PREFIX = "mnm_"
TOOLSETS = ("aiakiv", "remember", "enterprise")
KEY_PROJECT_DENIED = (
    "this member may not use project '{project}' for this key: a key with a write scope needs a project the "
    "member may write, a read-only key one it may read"
)


def access_key_digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _clean_scopes(scopes: Iterable[str] | None) -> list[str]:
    chosen = list(dict.fromkeys(scopes)) if scopes is not None else list(ALL_SCOPES)
    unknown = sorted(set(chosen) - set(ALL_SCOPES))
    if unknown:
        raise InvalidInput(
            f"unknown scope(s): {', '.join(unknown)}; known scopes: {', '.join(ALL_SCOPES)}",
            code="unknown_scope",
        )
    if not chosen:
        raise InvalidInput("an access key needs at least one scope", code="unknown_scope")
    return chosen


def _clean_toolsets(toolsets: Iterable[str] | None) -> list[str]:
    chosen = list(dict.fromkeys(toolsets or []))
    unknown = sorted(set(chosen) - set(TOOLSETS))
    if unknown:
        raise InvalidInput(
            f"unknown toolset(s): {', '.join(unknown)}; known toolsets: {', '.join(TOOLSETS)}",
            code="unknown_toolset",
        )
    return chosen


@transaction.atomic
def access_key_create(
    *,
    member: Member,
    project: Project,
    scopes: Iterable[str] | None = None,
    workspace_name: str | None = None,
    label: str = "",
    expires_at: datetime | None = None,
    toolsets: Iterable[str] | None = None,
) -> tuple[AccessKey, str]:
    """Returns the key and its secret; the secret is not stored and cannot be shown again."""
    if project.enterprise_id != member.enterprise_id:
        raise InvalidInput("the project is not in the member's enterprise", code="project_not_found")
    chosen_scopes = _clean_scopes(scopes)
    if not access.key_may_be_made(member=member, project=project, scopes=chosen_scopes):
        raise Forbidden(KEY_PROJECT_DENIED.format(project=project.slug), code="project_denied")
    workspace = workspace_get_or_create(project=project, name=workspace_name) if workspace_name else None
    prefix = secrets.token_hex(4)
    secret = f"{KEY_PREFIX}{prefix}_{secrets.token_urlsafe(32)}"
    key = AccessKey.objects.create(
        enterprise_id=member.enterprise_id,
        member=member,
        project=project,
        workspace=workspace,
        label=label,
        scopes=chosen_scopes,
        toolsets=_clean_toolsets(toolsets),
        prefix=prefix,
        digest=access_key_digest(secret),
        expires_at=expires_at,
    )
    audit_record(
        action="access_key.create",
        target=key,
        details={
            "project": str(project.pk),
            "workspace": workspace.name if workspace else None,
            "scopes": key.scopes,
            "label": label,
        },
    )
    return key, secret


@transaction.atomic
def access_key_revoke(*, key: AccessKey) -> AccessKey:
    if key.revoked_at is None:
        key.revoked_at = timezone.now()
        key.save(update_fields=["revoked_at"])
        audit_record(action="access_key.revoke", target=key)
    return key


def access_key_touch(*, key_id: str, used_at: datetime) -> bool:
    """Record the latest use; a repeat or an older time changes nothing."""
    updated = (
        AccessKey.objects.filter(pk=key_id).exclude(last_used_at__gte=used_at).update(last_used_at=used_at)
    )
    return bool(updated)
