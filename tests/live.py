"""Helpers for tests that run real processes: a Celery worker, the web server."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings

from config.celery import app
from core.queues import worker_queues

ROOT = Path(__file__).resolve().parent.parent


# For a worker with beat (or serve) started by a test: beat runs, but sends no sweep while the test runs,
# so a test fails only for what it tests.
QUIET_BEAT = {"PYTHONUNBUFFERED": "1", "MNEMOS_JOBS_SWEEP_SECONDS": "3600"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(predicate, *, timeout: float, interval: float = 0.2, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def stop_process(process: subprocess.Popen, *, sig: int = signal.SIGTERM, timeout: float = 30) -> int:
    if process.poll() is None:
        os.killpg(process.pid, sig)
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        # A worker still finishing a long task: a cold stop is safe (acks_late redelivers it).
        os.killpg(process.pid, signal.SIGKILL)
        return process.wait()


@contextmanager
def worker_process(
    *,
    concurrency: int = 1,
    prefix: str = "test",
    start_timeout: float = 60,
    extra_args: Sequence[str] = (),
    beat: bool = False,
    env: Mapping[str, str] | None = None,
    queues: Sequence[str] = (),
) -> Iterator[tuple[str, subprocess.Popen]]:
    """A real Celery worker on the configured broker and queue; yields (node name, process) once it answers.

    ``extra_args`` go to ``celery worker`` as they are (bench/broker: ``--include``, ``--prefetch-multiplier``);
    ``beat``: with Celery beat inside it (the outbox's sweeper), as ``manage.py serve`` runs it; ``env``:
    variables of its own over this process's; ``queues``: the queues it consumes (default: every kind's,
    core/queues.py)."""
    name = f"{prefix}-{uuid.uuid4().hex[:8]}@{socket.gethostname()}"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "--loglevel",
            "WARNING",
            "--concurrency",
            str(concurrency),
            "-Q",
            ",".join(queues or worker_queues(settings.CELERY_TASK_DEFAULT_QUEUE, settings.WORK_KINDS)),
            "-n",
            name,
            *extra_args,
            *(["-B", "-s", str(Path(tempfile.mkdtemp(prefix="mnemos-beat-")) / "schedule")] if beat else []),
        ],
        cwd=ROOT,
        env={**os.environ, **(env or {}), "PYTHONUNBUFFERED": "1"},
        start_new_session=True,
    )
    try:
        wait_for(
            lambda: process.poll() is not None or app.control.ping(destination=[name], timeout=0.5),
            timeout=start_timeout,
            what="the worker to answer a ping",
        )
        assert process.poll() is None, "the worker exited during start-up"
        yield name, process
    finally:
        stop_process(process)


@contextmanager
def running_worker(*, beat: bool = False, env: Mapping[str, str] | None = None) -> Iterator[str]:
    """A real Celery worker on the test broker; yields its node name once it answers pings."""
    with worker_process(beat=beat, env=env) as (name, _):
        yield name


def web_workers_args() -> list[str]:
    """uvicorn's ``--workers`` when MNEMOS_WEB_WORKERS is set (the benches set serve's count); else one."""
    from core.uvicorn_http import HTTP_PROTOCOL

    workers = os.environ.get("MNEMOS_WEB_WORKERS", "").strip()
    return ["--workers", workers, "--http", HTTP_PROTOCOL] if workers else []


@contextmanager
def running_web(*, env: Mapping[str, str] | None = None) -> Iterator[str]:
    """The ASGI application (Django + MCP) under uvicorn; yields its base URL. ``env``: variables of
    its own (a database URL through a fault proxy, a pool size) over this process's."""
    import urllib.error
    import urllib.request

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "config.asgi:application",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
            *web_workers_args(),
        ],
        cwd=ROOT,
        env={**os.environ, **(env or {}), "PYTHONUNBUFFERED": "1", "MNEMOS_PUBLIC_URL": base},
        start_new_session=True,
    )

    def answering() -> bool:
        if process.poll() is not None:
            raise AssertionError("the web server exited during start-up")
        try:
            urllib.request.urlopen(f"{base}/v1/schema/", timeout=2).close()
            return True
        except urllib.error.HTTPError:
            return True
        except OSError:
            return False

    try:
        wait_for(answering, timeout=60, what="the web server")
        yield base
    finally:
        stop_process(process)


@contextmanager
def serve_node(
    tmp_path: Path, name: str, *args: str, ready: str, env: Mapping[str, str] | None = None
) -> Iterator[Path]:
    """``manage.py serve`` with ``args`` in a process of its own, until ``ready`` is in its output; stopped
    with Ctrl-C (SIGINT) at the end, which must stop it cleanly. ``env``: variables over this process's."""
    log = tmp_path / f"{name}.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "serve", *args],
            cwd=ROOT,
            env={**os.environ, **QUIET_BEAT, "MNEMOS_VAR_DIR": str(tmp_path / "var"), **(env or {})},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_for(
            lambda: process.poll() is not None or ready in log.read_text(),
            timeout=120,
            what=f"the {name} node",
        )
        assert process.poll() is None, log.read_text()
        yield log
    finally:
        code = stop_process(process, sig=signal.SIGINT, timeout=90)
        assert code == 0, log.read_text()
        assert "Mnemos stopped." in log.read_text()


def post_json(
    base: str, secret: str, path: str, body: dict, *, idempotency_key: str | None = None, timeout: float = 30
) -> dict:
    """One POST of a JSON body with a bearer key to a web node; the JSON answer (an HTTPError for a refusal,
    its message carrying the body)."""
    import json
    import urllib.error
    import urllib.request

    headers = {"Authorization": f"Bearer {secret}", "Content-Type": "application/json"}
    if idempotency_key:
        headers["X-Idempotency-Key"] = idempotency_key
    request = urllib.request.Request(
        f"{base}{path}", data=json.dumps(body).encode(), headers=headers, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return dict(json.load(response))
    except urllib.error.HTTPError as refused:
        refused.msg = f"{refused.msg}: {path} said {refused.read()[:500]!r}"
        raise


def tool_call(
    base: str,
    secret: str,
    tool: str,
    arguments: dict,
    *,
    idempotency_key: str | None = None,
    timeout: float = 30,
) -> dict:
    """One tool call through a web node's REST door."""
    return post_json(
        base, secret, f"/v1/tools/{tool}", arguments, idempotency_key=idempotency_key, timeout=timeout
    )
