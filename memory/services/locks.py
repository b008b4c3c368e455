"""The project's write lock: one writer per project at a time (the write path and the archivist's drain)."""

from __future__ import annotations

import uuid

from django.db import connection


def project_write_lock(*, project_id: uuid.UUID) -> None:
    """The project's write lock, to the end of the transaction.

    One writer per project at a time: limits and fact_key versions stay exact under concurrency. The
    archivist's drain takes it too, while it resets the project's wake (archivist_wake).
    """
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [f"memory-write:{project_id}"])
