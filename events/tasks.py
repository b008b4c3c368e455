"""The events jobs (Celery): adapters that take ids and call one service (events/services.py).

Both are outbox jobs (``accounts.tasks.TenantTask``): recorded in the transaction that needs them, so a
lost message, a killed worker or a database outage delays them and loses nothing; both are idempotent
(the dispatch cursor moves with its deliveries, a delivered or given-up delivery is not sent again)."""

from __future__ import annotations

from accounts.tasks import TenantTask
from config.celery import app
from events.services import events_dispatch, webhook_deliver


@app.task(base=TenantTask, name="events.dispatch")
def dispatch(*, enterprise_id: str) -> int:
    """New events of the enterprise into deliveries, one an endpoint that wants them."""
    return events_dispatch()


@app.task(base=TenantTask, name="events.deliver")
def deliver(*, enterprise_id: str, delivery_id: str) -> str:
    """One signed POST of a delivery; its retry, or its end, decided in the same transaction."""
    return webhook_deliver(delivery_id=delivery_id)
