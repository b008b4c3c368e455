"""serve's supervisor (core/supervisor.py): dead pieces restarted with back-off, a failing one given up on,
everything stopped in order. Real processes throughout: tiny Python children for the rules, a real
Celery worker for the warm shutdown, and ``manage.py serve`` itself for the pieces it runs."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import psutil
import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from config.celery import app
from core.supervisor import (
    PieceKeepsFailing,
    ProcessPiece,
    RestartPolicy,
    Supervisor,
    restart_policy,
    worker_command,
)
from tests.live import QUIET_BEAT, ROOT, free_port, stop_process, wait_for

FAST = RestartPolicy(backoff_s=0.05, backoff_max_s=1.0, limit=2, window_s=60.0)


def _python(code: str, *args: str) -> list[str]:
    return [sys.executable, "-c", code, *args]


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


# A server that, on SIGTERM, finishes what it does (0.3 s) and exits 0.
GRACEFUL = """
import signal, sys, time
log, name = sys.argv[1], sys.argv[2]
def note(line):
    with open(log, "a") as f:
        f.write(f"{name} {line}\\n")
def term(*_):
    note("got SIGTERM")
    time.sleep(0.3)
    note("exits")
    sys.exit(0)
signal.signal(signal.SIGTERM, term)
note("ready")
while True:
    time.sleep(0.05)
"""

# A worker's main process with a pool child in its process group: on SIGTERM the main process finishes
# its job and exits; the child notes a SIGTERM if one reaches it (a signal to the whole group would).
WITH_POOL_CHILD = """
import signal, subprocess, sys, time
log = sys.argv[1]
CHILD = '''
import os, signal, sys, time
log = sys.argv[1]
def term(*_):
    with open(log, "a") as f:
        f.write("pool child got SIGTERM\\\\n")
    sys.exit(0)
signal.signal(signal.SIGTERM, term)
with open(log, "a") as f:
    f.write(f"pool child ready {os.getpid()}\\\\n")
while True:
    time.sleep(0.05)
'''
def note(line):
    with open(log, "a") as f:
        f.write(f"worker {line}\\n")
def term(*_):
    note("got SIGTERM")
    time.sleep(0.5)
    note("finished its job")
    sys.exit(0)
signal.signal(signal.SIGTERM, term)
subprocess.Popen([sys.executable, "-c", CHILD, log])
note("ready")
while True:
    time.sleep(0.05)
"""

STUBBORN = """
import signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
open(sys.argv[1], "w").write("ready")
while True:
    time.sleep(0.05)
"""

# Dies at once, leaving a child of its own behind in its process group.
DIES_LEAVING_A_CHILD = """
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
open(sys.argv[1], "w").write(str(child.pid))
sys.exit(4)
"""


def test_the_back_off_doubles_from_the_first_wait_and_is_capped():
    policy = RestartPolicy(backoff_s=1.0, backoff_max_s=30.0, limit=5, window_s=300.0)
    assert [policy.wait_before(n) for n in range(1, 8)] == [1, 2, 4, 8, 16, 30, 30]
    assert policy.wait_before(10_000) == 30


def test_the_policy_is_read_from_the_environment(monkeypatch):
    assert restart_policy() == RestartPolicy(backoff_s=1.0, backoff_max_s=30.0, limit=5, window_s=300.0)
    monkeypatch.setenv("MNEMOS_RESTART_BACKOFF_MS", "250")
    monkeypatch.setenv("MNEMOS_RESTART_BACKOFF_MAX_MS", "2000")
    monkeypatch.setenv("MNEMOS_RESTART_LIMIT", "2")
    monkeypatch.setenv("MNEMOS_RESTART_WINDOW_S", "60")
    assert restart_policy() == RestartPolicy(backoff_s=0.25, backoff_max_s=2.0, limit=2, window_s=60.0)
    monkeypatch.setenv("MNEMOS_RESTART_LIMIT", "-1")
    with pytest.raises(ImproperlyConfigured, match="MNEMOS_RESTART_LIMIT must be 0 or more"):
        restart_policy()


def test_stop_goes_web_then_worker_and_signals_only_the_main_process(tmp_path):
    log = tmp_path / "log"
    worker = ProcessPiece("worker", _python(WITH_POOL_CHILD, str(log)), stop_timeout_s=10)
    web = ProcessPiece("web", _python(GRACEFUL, str(log), "web"), stop_timeout_s=10)
    lines: list[str] = []
    supervisor = Supervisor([worker, web], policy=FAST, log=lines.append)
    supervisor.start()
    try:
        wait_for(
            lambda: (
                log.exists()
                and all(w in log.read_text() for w in ("web ready", "worker ready", "pool child ready"))
            ),
            timeout=20,
            what="the pieces to be ready",
        )
        pool_child = int(re.search(r"pool child ready (\d+)", log.read_text()).group(1))
    finally:
        supervisor.stop()
    assert log.read_text().splitlines()[-4:] == [
        "web got SIGTERM",
        "web exits",
        "worker got SIGTERM",
        "worker finished its job",
    ]
    assert "pool child got SIGTERM" not in log.read_text()
    # What the main process left of its group is killed once it has exited.
    wait_for(lambda: _gone(pool_child), timeout=10, what="the pool child to be gone")
    assert lines[-4:] == [
        f"supervisor: stopping web (pid {web.pid})",
        "supervisor: web exited with status 0",
        f"supervisor: stopping worker (pid {worker.pid})",
        "supervisor: worker exited with status 0",
    ]


def test_a_piece_that_ignores_sigterm_is_killed_after_its_stop_timeout(tmp_path):
    ready = tmp_path / "ready"
    piece = ProcessPiece("worker", _python(STUBBORN, str(ready)), stop_timeout_s=0.5)
    piece.start()
    wait_for(ready.exists, timeout=10, what="the stubborn piece")
    started = time.monotonic()
    assert piece.stop() == "did not stop within 0.5 s: killed"
    assert time.monotonic() - started < 5


def test_a_dead_piece_is_restarted_with_back_off_and_given_up_on_past_the_limit(tmp_path):
    other_log = tmp_path / "other"
    failing = ProcessPiece("worker", _python("import sys; sys.exit(3)"), stop_timeout_s=5)
    web = ProcessPiece("web", _python(GRACEFUL, str(other_log), "web"), stop_timeout_s=5)
    lines: list[str] = []
    supervisor = Supervisor([failing, web], policy=FAST, log=lines.append)
    supervisor.start()
    web_pid = web.pid
    deadline = time.monotonic() + 30
    try:
        with pytest.raises(PieceKeepsFailing, match=r"worker kept failing \(3 deaths within 60 s\)"):
            while time.monotonic() < deadline:
                supervisor.check()
                time.sleep(0.02)
        # The other piece was left alone all along.
        assert web.exited() is None and web.pid == web_pid
    finally:
        supervisor.stop()
    said = [line for line in lines if "worker" in line]
    assert re.fullmatch(
        r"supervisor: worker \(pid \d+\) exited with status 3; restart attempt 1 of 2 in 0\.05 s", said[1]
    )
    assert re.fullmatch(r"supervisor: worker restarted \(pid \d+\), attempt 1", said[2])
    assert re.fullmatch(
        r"supervisor: worker \(pid \d+\) exited with status 3; restart attempt 2 of 2 in 0\.1 s", said[3]
    )
    assert re.fullmatch(r"supervisor: worker restarted \(pid \d+\), attempt 2", said[4])
    assert re.fullmatch(
        r"supervisor: worker \(pid \d+\) exited with status 3; 3 deaths within 60 s \(limit 2 restarts\): giving up",
        said[5],
    )
    assert "web restarted" not in "\n".join(lines)


def test_what_a_dead_piece_left_in_its_group_is_killed(tmp_path):
    child_pid_file = tmp_path / "child"
    piece = ProcessPiece("worker", _python(DIES_LEAVING_A_CHILD, str(child_pid_file)), stop_timeout_s=5)
    piece.start()
    how = wait_for(piece.exited, timeout=20, what="the piece to die")
    assert how == "exited with status 4"
    wait_for(lambda: _gone(int(child_pid_file.read_text())), timeout=10, what="its child to be gone")


class _Flaky:
    """A piece that dies when told, for the rules that need the clock to move (a test double of the
    Piece protocol, not of anything Mnemos runs)."""

    name = "worker"

    def __init__(self) -> None:
        self.starts = 0
        self.dead = False

    @property
    def pid(self) -> int:
        return 1000 + self.starts

    def start(self) -> None:
        self.starts += 1
        self.dead = False

    def exited(self) -> str | None:
        return "was killed by SIGKILL" if self.dead else None

    def stop(self) -> str:
        return "exited with status 0"


def test_deaths_older_than_the_window_do_not_count_and_a_restart_waits_its_turn():
    now = [0.0]
    piece = _Flaky()
    lines: list[str] = []
    policy = RestartPolicy(backoff_s=1.0, backoff_max_s=30.0, limit=2, window_s=300.0)
    supervisor = Supervisor([piece], policy=policy, log=lines.append, clock=lambda: now[0])
    supervisor.start()
    for _ in range(10):  # ten deaths, each more than the window after the one before
        piece.dead = True
        supervisor.check()
        now[0] += 0.5
        supervisor.check()
        assert piece.dead, "restarted before its back-off"
        now[0] += 0.6
        supervisor.check()
        assert not piece.dead
        now[0] += 301
    assert piece.starts == 11
    assert all("attempt 1 of 2 in 1 s" in line for line in lines if "was killed" in line)
    # Three deaths inside the window: the back-off doubles, then the supervisor gives up.
    for wait in (1, 2):
        piece.dead = True
        supervisor.check()
        assert lines[-1].endswith(f"in {wait} s")
        now[0] += wait
        supervisor.check()
    piece.dead = True
    with pytest.raises(PieceKeepsFailing):
        supervisor.check()


@pytest.mark.live
def test_a_warm_shutdown_lets_the_workers_job_finish(tmp_path):
    node = f"supervised-{uuid.uuid4().hex[:8]}@{socket.gethostname()}"
    command = worker_command(
        python=sys.executable,
        concurrency=1,
        queues=[settings.CELERY_TASK_DEFAULT_QUEUE],
        node=node,
        beat_schedule=tmp_path / "celerybeat-schedule",
    )
    worker = ProcessPiece(
        "worker",
        [*command, "--include", "tests.supervisor_jobs"],
        env={**os.environ, **QUIET_BEAT},
        cwd=ROOT,
        stop_timeout_s=60,
    )
    lines: list[str] = []
    supervisor = Supervisor([worker], policy=FAST, log=lines.append)
    supervisor.start()
    marker = tmp_path / "job"
    try:
        wait_for(
            lambda: worker.exited() is not None or app.control.ping(destination=[node], timeout=0.5),
            timeout=60,
            what="the worker to answer a ping",
        )
        assert worker.exited() is None
        app.send_task(
            "tests.supervisor.slow_mark",
            kwargs={"path": str(marker), "seconds": 3},
            queue=settings.CELERY_TASK_DEFAULT_QUEUE,
        )
        wait_for(Path(f"{marker}.started").exists, timeout=30, what="the job to start")
    finally:
        supervisor.stop()
    assert Path(f"{marker}.done").exists(), "the job was cut short"
    assert lines[-1] == "supervisor: worker exited with status 0"


# manage.py serve, end to end.


def _health(port: int) -> dict | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as response:
            return json.load(response)
    except urllib.error.HTTPError as exc:
        return json.loads(exc.read() or b"{}")
    except (urllib.error.URLError, OSError):
        return None


def _green(port: int) -> bool:
    report = _health(port)
    return report is not None and report.get("status") == "ok"


def _serve(tmp_path: Path, port: int, **env: str) -> tuple[subprocess.Popen, Path]:
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "serve", "--port", str(port), "--no-demo"],
            cwd=ROOT,
            # Its own var/ (the beat schedule), and no demo: the pieces are what is under test.
            env={**os.environ, **QUIET_BEAT, "MNEMOS_VAR_DIR": str(tmp_path / "var"), **env},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return process, log


def _pid(log: Path, pattern: str) -> int:
    found = re.search(pattern, log.read_text())
    assert found is not None, log.read_text()
    return int(found.group(1))


def _in_order(text: str, *lines: str) -> None:
    missing = [line for line in lines if line not in text]
    assert not missing, f"{missing} not in:\n{text}"
    positions = [text.index(line) for line in lines]
    assert positions == sorted(positions), text


def _wait_banner(process: subprocess.Popen, log: Path) -> None:
    wait_for(
        lambda: process.poll() is not None or "Press Ctrl-C to stop." in log.read_text(),
        timeout=120,
        what="serve's banner",
    )
    assert process.poll() is None, log.read_text()


@pytest.mark.live
def test_serve_restarts_a_killed_worker_and_stops_in_order(django_db_setup, tmp_path):
    port = free_port()
    # Two uvicorn processes: the multi-process mode, whose workers serve must not leave behind.
    process, log = _serve(tmp_path, port, MNEMOS_WEB_WORKERS="2")
    try:
        _wait_banner(process, log)
        worker = _pid(log, r"supervisor: worker running \(pid (\d+)\)")
        web = _pid(log, r"supervisor: web running \(pid (\d+)\)")
        os.kill(worker, signal.SIGKILL)
        wait_for(
            lambda: re.search(r"supervisor: worker restarted \(pid \d+\), attempt 1\n", log.read_text()),
            timeout=30,
            what="the worker's restart",
        )
        assert (
            f"supervisor: worker (pid {worker}) was killed by SIGKILL; restart attempt 1 of 5 in 1 s"
            in log.read_text()
        )
        wait_for(lambda: _green(port), timeout=60, interval=0.5, what="a green /healthz with the new worker")
        assert process.poll() is None
        assert not _gone(web) and "web restarted" not in log.read_text()
    finally:
        code = stop_process(process, sig=signal.SIGINT, timeout=90)
    text = log.read_text()
    assert code == 0, text
    _in_order(
        text,
        "supervisor: stopping web",
        "supervisor: web exited with status 0",
        "supervisor: stopping worker",
        "supervisor: worker exited with status 0",
        "Mnemos stopped.",
    )
    # The test session's cluster was not serve's to supervise, nor to stop.
    assert "supervisor: database" not in text
    assert _health(port) is None


@pytest.fixture
def cluster_dir():
    """A folder for a cluster of a test's own. Not under tmp_path: run as root, the server runs as the
    library's own user, and every pytest session that starts makes /tmp/pytest-of-root private again
    (0700), after which that user reaches none of its files."""
    path = Path(tempfile.mkdtemp(prefix="mnemos-supervised-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.mark.live
def test_serve_restarts_its_killed_embedded_database(tmp_path, cluster_dir):
    # A cluster of serve's own (and a broker and queue of its own): killing it harms no other test.
    pgdata = cluster_dir / "pg"
    port = free_port()
    process, log = _serve(
        tmp_path,
        port,
        MNEMOS_PGDATA=str(pgdata),
        MNEMOS_THROWAWAY_DB="1",
        MNEMOS_BROKER_DIR=str(tmp_path / "broker"),
        MNEMOS_CELERY_QUEUE=f"supervised-{uuid.uuid4().hex[:8]}",
        MNEMOS_WEB_WORKERS="1",
    )
    try:
        _wait_banner(process, log)
        postmaster = int((pgdata / "postmaster.pid").read_text().splitlines()[0])
        assert f"supervisor: database running (pid {postmaster})" in log.read_text()
        os.kill(postmaster, signal.SIGKILL)
        restarted = wait_for(
            lambda: re.search(r"supervisor: database restarted \(pid (\d+)\), attempt 1\n", log.read_text()),
            timeout=60,
            what="the database's restart",
        )
        assert f"supervisor: database (pid {postmaster}) is gone" in log.read_text()
        wait_for(
            lambda: _green(port), timeout=60, interval=0.5, what="a green /healthz on the new postmaster"
        )
        assert process.poll() is None
        assert "web restarted" not in log.read_text() and "worker restarted" not in log.read_text()
    finally:
        code = stop_process(process, sig=signal.SIGINT, timeout=90)
    text = log.read_text()
    assert code == 0, text
    _in_order(
        text,
        "supervisor: stopping web",
        "supervisor: web stopped on SIGTERM",  # a single uvicorn process re-raises it once it has drained
        "supervisor: worker exited with status 0",
        "supervisor: stopping database",
        "supervisor: database stopped (fast shutdown)",
        "Mnemos stopped.",
    )
    wait_for(lambda: _gone(int(restarted.group(1))), timeout=10, what="the postmaster to be gone")
    assert not pgdata.exists()  # a throwaway cluster: serve deleted it at exit


@pytest.mark.live
def test_serve_gives_up_on_a_piece_that_keeps_failing_and_exits_non_zero(django_db_setup, tmp_path):
    port = free_port()
    # The port taken (bound, never listening): every uvicorn start fails at once.
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", port))
        process, log = _serve(
            tmp_path, port, MNEMOS_RESTART_BACKOFF_MS="100", MNEMOS_RESTART_LIMIT="2", MNEMOS_WEB_WORKERS="2"
        )
        try:
            code = process.wait(timeout=120)
        finally:
            stop_process(process, timeout=30)
    text = log.read_text()
    assert code == 1, text
    assert re.search(
        r"supervisor: web \(pid \d+\) exited with status \d+; restart attempt 2 of 2 in 0\.2 s", text
    )
    _in_order(
        text,
        "(limit 2 restarts): giving up",
        "supervisor: stopping web",
        "supervisor: stopping worker",
        "CommandError: web kept failing (3 deaths within 300 s)",
    )
    assert "Mnemos is running" not in text
