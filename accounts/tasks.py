"""The Celery door of the tenancy, and the account jobs.

Every task derives from ``TenantTask``: it takes ids (never instances), needs an
``enterprise_id``, runs in that tenant's context and transaction, is acked late
and rejected on a lost worker so a killed worker loses nothing, and is written
to be idempotent so a repeat changes nothing.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import partial
from typing import TYPE_CHECKING, Any

from celery import Task
from django.db import transaction
from django.utils import timezone

from config.celery import app
from core.tenancy import TenantContextMissing, tenant_context

if TYPE_CHECKING:
    from accounts.models import AccessKey


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


TOUCH_EVERY = timedelta(minutes=1)
_touches_sent: dict[Any, float] = {}
_touches_lock = threading.Lock()


def access_key_touch_soon(key: AccessKey) -> None:
    """Record a key's latest use, to the minute: a job when its ``last_used_at`` is a minute old, and at
    most one a minute per key from this process (while no worker has run the last one, the stored time
    stays old, and every call would otherwise send another)."""
    now = timezone.now()
    if key.last_used_at is not None and now - key.last_used_at < TOUCH_EVERY:
        return
    clock = time.monotonic()
    with _touches_lock:
        sent = _touches_sent.get(key.pk)
        if sent is not None and clock - sent < TOUCH_EVERY.total_seconds():
            return
        if len(_touches_sent) >= 10_000:
            _touches_sent.clear()
        _touches_sent[key.pk] = clock
    enqueue(
        access_key_touch_task,
        enterprise_id=str(key.enterprise_id),
        key_id=str(key.pk),
        used_at=now.isoformat(),
    )
