"""A job for tests/test_supervisor.py, on the product's Celery app: the worker imports it with
``--include tests.supervisor_jobs``. It touches no database: it marks its start, sleeps, marks its end."""

from __future__ import annotations

import time
from pathlib import Path

from config.celery import app


@app.task(name="tests.supervisor.slow_mark", ignore_result=True)
def slow_mark(*, path: str, seconds: float) -> None:
    Path(f"{path}.started").touch()
    time.sleep(seconds)
    Path(f"{path}.done").touch()
