"""The bench's job, on the product's Celery app: the worker imports it with ``--include bench.broker.tasks``.

It touches no database: it spins ``spin_ms`` of CPU (0 = a no-op; ~70 is an archivist job on the
2-core machine) and appends one byte to ``mark``, which the bench watches to count finished jobs.

With ``MNEMOS_BENCH_KOMBU_FILESYSTEM=1`` (the bench's ``kombu-fs`` configs) the sender and the worker,
both importing this module before they connect, use kombu's own filesystem transport instead of
``core.broker``'s: the transport before issue 18.
"""

from __future__ import annotations

import os
import time

from config.celery import app

if os.environ.get("MNEMOS_BENCH_KOMBU_FILESYSTEM") == "1":
    app.conf.broker_url = "filesystem://localhost//"


@app.task(name="bench.broker.mark", ignore_result=True)
def mark(*, mark: str, spin_ms: float = 0.0) -> None:
    until = time.process_time() + spin_ms / 1000.0
    while time.process_time() < until:
        pass
    fd = os.open(mark, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, b".")
    finally:
        os.close(fd)
