"""What ``/metrics`` reads from the database when it is scraped (installed by ``MemoryConfig.ready``).

The archivist's queue across every enterprise: the app role sees one tenant's rows at a time, so the
totals come from ``mnemos_archivist_backlog()`` (migration 0017), a ``SECURITY DEFINER`` function that
returns only the two numbers, executable by the app role alone (docs/operations.md, "Metrics and logs").
"""

from __future__ import annotations

from collections.abc import Iterator

from django.db import connection
from prometheus_client.core import GaugeMetricFamily


def archivist_backlog() -> tuple[int, float]:
    """(live memories without a vector, seconds since the oldest of them was saved; 0 when none)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT waiting, oldest_seconds FROM mnemos_archivist_backlog()")
        waiting, oldest = cursor.fetchone()
    return int(waiting), float(oldest)


def archivist_backlog_metrics() -> Iterator[GaugeMetricFamily]:
    waiting, oldest = archivist_backlog()
    yield GaugeMetricFamily(
        "mnemos_archivist_queue_depth", "Live memories without a vector yet, every enterprise", value=waiting
    )
    yield GaugeMetricFamily(
        "mnemos_archivist_lag_seconds",
        "Age of the oldest live memory without a vector (0 when none waits)",
        value=oldest,
    )
