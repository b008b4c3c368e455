"""The Celery door of the tenancy, and the account jobs.

Every task derives from ``TenantTask``: it takes ids (never instances), needs an
``enterprise_id``, runs in that tenant's context and transaction, is acked late
and rejected on a lost worker so a killed worker loses nothing, and is written
to be idempotent so a repeat changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from functools import partial
from typing import Any

from celery import Task
from django.db import transaction

from accounts.tenancy import TenantContextMissing, tenant_context
from config.celery import app


class TenantTask(Task):  # type: ignore[misc]
    abstract = True
    acks_late = True
    reject_on_worker_lost = True

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        enterprise_id = kwargs.get("enterprise_id")
        if not enterprise_id:
            raise TenantContextMissing(
                f"task {self.name} refused: it needs an enterprise_id keyword argument"
            )
        with tenant_context(
            enterprise_id=enterprise_id,
            request_id=str(self.request.id or ""),
            door="celery",
        ):
            return super().__call__(*args, **kwargs)


def enqueue(task: Any, *, enterprise_id: str, **kwargs: Any) -> None:
    """Send a task once the current transaction commits (never a row it cannot see)."""
    send: Callable[[], Any] = partial(task.apply_async, kwargs={"enterprise_id": enterprise_id, **kwargs})
    transaction.on_commit(send)


@app.task(base=TenantTask, name="accounts.access_key_touch")
def access_key_touch_task(*, enterprise_id: str, key_id: str, used_at: str) -> bool:
    """Record an access key's latest use off the request path (idempotent)."""
    from accounts.services.keys import access_key_touch

    return access_key_touch(key_id=key_id, used_at=datetime.fromisoformat(used_at))
