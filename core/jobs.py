"""Handing recorded background jobs to the broker (the outbox's sending half; models-free).

A job is first a row (``accounts.models.Job``, written in the transaction of the change that needs
it), then a message. The message carries the row's id as ``job_id`` and as its Celery task id; the
row is the truth, the message only a wake-up. So a send may fail (the broker is down or restarting):
it is logged and the row waits for the sweeper, which sends it again once it is due. Nothing here
raises into the request whose commit triggered the send.
"""

from __future__ import annotations

import logging
from functools import partial
from typing import Any

from celery import current_app
from django.db import transaction

from core.logs import REQUEST_ID_HEADER, current_request_id

logger = logging.getLogger(__name__)


def job_message_kwargs(*, job_id: str, enterprise_id: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    return {**kwargs, "enterprise_id": enterprise_id, "job_id": job_id}


def job_send(
    *,
    task: str,
    job_id: str,
    enterprise_id: str,
    kwargs: dict[str, Any],
    countdown: float | None = None,
    request_id: str | None = None,
) -> bool:
    """Send one recorded job now (to run ``countdown`` seconds later); False when the broker refused it
    (the sweeper sends it later). ``request_id``: the request that recorded it, a message header the
    worker binds to the job's log lines (accounts.tasks.TenantTask)."""
    try:
        current_app.send_task(
            task,
            kwargs=job_message_kwargs(job_id=job_id, enterprise_id=enterprise_id, kwargs=kwargs),
            task_id=job_id,
            retry=False,
            countdown=countdown,
            headers={REQUEST_ID_HEADER: request_id} if request_id else None,
        )
    except Exception as exc:  # noqa: BLE001 - the row is kept: a failed send is never the caller's failure
        logger.warning("job %s (%s) not sent, the sweeper sends it later: %s", job_id, task, exc)
        return False
    return True


def job_send_on_commit(
    *, task: str, job_id: str, enterprise_id: str, kwargs: dict[str, Any], countdown: float | None = None
) -> None:
    """Send the job once the current transaction commits (the worker never looks for a row it cannot see)."""
    transaction.on_commit(
        partial(
            job_send,
            task=task,
            job_id=job_id,
            enterprise_id=enterprise_id,
            kwargs=kwargs,
            countdown=countdown,
            request_id=current_request_id(),
        )
    )
