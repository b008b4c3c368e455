"""Idempotent writes: the same key and input return the same response; never a second record.

Scoped to (access key, project, workspace, key). The record is inserted first,
inside the write's transaction: a concurrent duplicate's INSERT waits on the
unique index until the first commits (then returns its response) or rolls back
(then runs itself). Records are kept for at least 24 hours (48 here).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any, TypeVar

from django.db import connection
from django.utils import timezone
from pydantic import BaseModel

from accounts.models import Project
from core.errors import Conflict
from core.registry import ToolCall, dump_output
from memory.models import IdempotencyRecord

KEEP_FOR = timedelta(hours=48)
REUSED_WITH_DIFFERENT_INPUT = "409 Conflict: idempotency key was used with different input"

_Out = TypeVar("_Out", bound=BaseModel)


def request_fingerprint(tool: str, arguments: dict[str, Any]) -> str:
    canonical = json.dumps(
        {"tool": tool, "arguments": arguments}, sort_keys=True, default=str, ensure_ascii=False
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def idempotent(
    *,
    call: ToolCall,
    tool: str,
    project: Project,
    workspace: str,
    arguments: dict[str, Any],
    output_model: type[_Out],
    produce: Callable[[], _Out],
    key: str | None = None,
) -> _Out:
    """Run ``produce`` once per key; a repeat returns the stored response."""
    key = key if key is not None else call.idempotency_key
    if not key:
        return produce()
    fingerprint = request_fingerprint(tool, arguments)
    table = IdempotencyRecord._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            INSERT INTO {table} (enterprise_id, access_key_id, project_id, workspace, key, tool,
                                 request_hash, response, created_at)
            VALUES (%s, %s, %s, %s, %s, %s, %s, '{{}}'::jsonb, now())
            ON CONFLICT (access_key_id, project_id, workspace, key) DO NOTHING
            RETURNING id
            """,
            [call.enterprise.pk, call.access_key.pk, project.pk, workspace, key, tool, fingerprint],
        )
        inserted = cursor.fetchone()
    if inserted is None:
        record = IdempotencyRecord.objects.get(
            access_key=call.access_key, project=project, workspace=workspace, key=key
        )
        if record.request_hash != fingerprint:
            raise Conflict(REUSED_WITH_DIFFERENT_INPUT, code="idempotency_conflict")
        return output_model.model_validate(record.response)
    output = produce()
    IdempotencyRecord.objects.filter(pk=inserted[0]).update(response=dump_output(output))
    IdempotencyRecord.objects.filter(
        access_key=call.access_key, created_at__lt=timezone.now() - KEEP_FOR
    ).delete()
    return output
