"""The partner-call lock: one partner call per enterprise at a time."""

from __future__ import annotations

import uuid

from django.db import connection


def partner_call_lock_try(*, enterprise_id: uuid.UUID) -> bool:
    """Take the enterprise's partner-call lock to the end of the transaction, without waiting.

    False when another call of the enterprise holds it (that call is still in flight).
    """
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(hashtext(%s))", [f"partner-call:{enterprise_id}"])
        (got,) = cursor.fetchone()
    return bool(got)
