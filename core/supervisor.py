"""What ``manage.py serve`` runs, kept running: pieces watched, restarted with back-off, stopped in order.

A piece is one thing serve runs and watches: the embedded database (``core.dbserver.EmbeddedPostmaster``,
only when serve started it), the Celery worker with beat embedded, and the web server (uvicorn), those
two a ``ProcessPiece`` each, in a session of its own (a terminal's Ctrl-C reaches serve alone, which
stops them in order).

When a piece dies the supervisor says so and starts it again after a back-off that doubles from
``MNEMOS_RESTART_BACKOFF_MS`` (1 s) up to ``MNEMOS_RESTART_BACKOFF_MAX_MS`` (30 s); the other pieces are
left alone, so the web server keeps answering while the worker or the database comes back. A piece
that dies more than ``MNEMOS_RESTART_LIMIT`` times (5) within ``MNEMOS_RESTART_WINDOW_S`` (300) fails
for a reason a restart does not fix: ``check`` raises ``PieceKeepsFailing`` and the caller stops
everything, in order, and exits non-zero.

Stopping goes in the reverse order of starting: the web server first (SIGTERM to uvicorn's main
process: it stops accepting and drains the requests in flight, bounded by its
``--timeout-graceful-shutdown``), then the worker (SIGTERM to Celery's main process only, a warm
shutdown: the job it runs finishes; its process group is killed only after
``MNEMOS_WORKER_STOP_TIMEOUT_S``), then the database (a fast shutdown).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from core.env import env_int


@dataclass(frozen=True)
class RestartPolicy:
    """How long to wait before a dead piece's next start, and when to stop trying."""

    backoff_s: float = 1.0
    backoff_max_s: float = 30.0
    limit: int = 5
    window_s: float = 300.0

    def wait_before(self, attempt: int) -> float:
        """The wait before restart ``attempt`` (1, 2, 3 ...): the back-off doubled each time, capped."""
        return float(min(self.backoff_max_s, self.backoff_s * 2 ** min(attempt - 1, 32)))


def restart_policy() -> RestartPolicy:
    return RestartPolicy(
        backoff_s=env_int("MNEMOS_RESTART_BACKOFF_MS", 1000, minimum=0) / 1000,
        backoff_max_s=env_int("MNEMOS_RESTART_BACKOFF_MAX_MS", 30_000, minimum=0) / 1000,
        limit=env_int("MNEMOS_RESTART_LIMIT", 5, minimum=0),
        window_s=env_int("MNEMOS_RESTART_WINDOW_S", 300, minimum=1),
    )


def web_drain_seconds() -> int:
    """uvicorn's ``--timeout-graceful-shutdown``: how long a stopping web server lets requests finish."""
    return env_int("MNEMOS_WEB_DRAIN_S", 30, minimum=1)


def worker_stop_seconds() -> int:
    """How long a warm shutdown may take (the job in hand finishing) before the worker is killed."""
    return env_int("MNEMOS_WORKER_STOP_TIMEOUT_S", 60, minimum=1)


class Piece(Protocol):
    """One thing the supervisor runs. ``start`` raises OSError or a SubprocessError when it cannot."""

    name: str

    @property
    def pid(self) -> int | None: ...

    def start(self) -> None: ...

    def exited(self) -> str | None:
        """None while it runs; once it has died, how (its exit status), whatever it left behind gone."""
        ...

    def stop(self) -> str:
        """Stop it (bounded) and say how it ended."""
        ...


def exit_status(returncode: int) -> str:
    if returncode < 0:
        try:
            return f"was killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"was killed by signal {-returncode}"
    return f"exited with status {returncode}"


class ProcessPiece:
    """A child process in a session (and process group) of its own.

    ``stop`` sends SIGTERM to the main process only, so a server's own children (uvicorn's workers,
    Celery's pool and beat) are stopped by it, each in its own way, and a job in hand finishes; the
    group gets SIGKILL after ``stop_timeout_s``, and whatever is left of it when the main process
    dies (a pool child holding a job, uvicorn workers holding the listening socket).
    """

    def __init__(
        self,
        name: str,
        command: Sequence[str],
        *,
        stop_timeout_s: float,
        env: Mapping[str, str] | None = None,
        cwd: Path | str | None = None,
    ) -> None:
        self.name = name
        self.command = list(command)
        self.stop_timeout_s = stop_timeout_s
        self.env = dict(env) if env is not None else None
        self.cwd = cwd
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def start(self) -> None:
        self._process = subprocess.Popen(self.command, env=self.env, cwd=self.cwd, start_new_session=True)

    def exited(self) -> str | None:
        process = self._process
        if process is None or not self._dead(process):
            return None
        self._kill_group(process)
        return exit_status(process.wait())

    def stop(self) -> str:
        process = self._process
        if process is None or process.returncode is not None:
            return "was not running"
        if self._dead(process):
            self._kill_group(process)
            return f"had already {exit_status(process.wait())}"
        os.kill(process.pid, signal.SIGTERM)
        try:
            returncode = process.wait(timeout=self.stop_timeout_s)
        except subprocess.TimeoutExpired:
            self._kill_group(process)
            process.wait()
            return f"did not stop within {self.stop_timeout_s:g} s: killed"
        self._kill_group(process)
        # A server that re-raises SIGTERM once it has shut down (uvicorn does) ends killed by it.
        return "stopped on SIGTERM" if returncode == -signal.SIGTERM else exit_status(returncode)

    @staticmethod
    def _dead(process: subprocess.Popen[bytes]) -> bool:
        # Asked without reaping it (WNOWAIT): while the dead main process is a zombie its pid, and so
        # its process group's id, cannot be reused, so the group killed next is still its own.
        if process.returncode is not None:
            return True
        try:
            return os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
        except ChildProcessError:
            return process.poll() is not None

    @staticmethod
    def _kill_group(process: subprocess.Popen[bytes]) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):  # nothing left of the group
            os.killpg(process.pid, signal.SIGKILL)


class PieceKeepsFailing(Exception):
    def __init__(self, name: str, *, deaths: int, window_s: float) -> None:
        super().__init__(
            f"{name} kept failing ({deaths} deaths within {window_s:g} s): Mnemos stopped after it"
        )
        self.name = name


@dataclass
class _Watch:
    piece: Piece
    deaths: list[float] = field(default_factory=list)
    restart_at: float | None = None


class Supervisor:
    """Starts the pieces in order, restarts the ones that die (``check``), stops them in reverse order."""

    def __init__(
        self,
        pieces: Sequence[Piece],
        *,
        policy: RestartPolicy,
        log: Callable[[str], None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.policy = policy
        self._log = log
        self._clock = clock
        self._watches = [_Watch(piece) for piece in pieces]

    def start(self) -> None:
        for watch in self._watches:
            watch.piece.start()
            self._log(f"supervisor: {watch.piece.name} running (pid {watch.piece.pid})")

    def check(self) -> None:
        """Restart what is due, note what died; raises PieceKeepsFailing for a piece past its limit."""
        for watch in self._watches:
            piece = watch.piece
            if watch.restart_at is not None:
                if self._clock() < watch.restart_at:
                    continue
                watch.restart_at = None
                try:
                    piece.start()
                except (OSError, subprocess.SubprocessError) as exc:
                    self._died(watch, f"did not start ({type(exc).__name__}: {exc})")
                    continue
                self._log(
                    f"supervisor: {piece.name} restarted (pid {piece.pid}), attempt {len(watch.deaths)}"
                )
                continue
            how = piece.exited()
            if how is not None:
                self._died(watch, how)

    def run(self, stopping: Callable[[], bool], *, interval_s: float = 0.5) -> None:
        """``check`` until ``stopping()`` says to stop."""
        while not stopping():
            self.check()
            time.sleep(interval_s)

    def stop(self) -> None:
        for watch in reversed(self._watches):
            piece = watch.piece
            self._log(f"supervisor: stopping {piece.name} (pid {piece.pid})")
            self._log(f"supervisor: {piece.name} {piece.stop()}")

    def _died(self, watch: _Watch, how: str) -> None:
        now = self._clock()
        window = self.policy.window_s
        watch.deaths = [*(t for t in watch.deaths if now - t < window), now]
        attempt = len(watch.deaths)
        name = f"{watch.piece.name} (pid {watch.piece.pid})"
        if attempt > self.policy.limit:
            self._log(
                f"supervisor: {name} {how}; {attempt} deaths within {window:g} s "
                f"(limit {self.policy.limit} restarts): giving up"
            )
            raise PieceKeepsFailing(watch.piece.name, deaths=attempt, window_s=window)
        wait = self.policy.wait_before(attempt)
        self._log(f"supervisor: {name} {how}; restart attempt {attempt} of {self.policy.limit} in {wait:g} s")
        watch.restart_at = now + wait


def worker_command(
    *, python: str, concurrency: int, queues: Sequence[str], node: str, beat_schedule: Path | None
) -> list[str]:
    """The Celery worker on ``queues`` (core/queues.py), with beat embedded when ``beat_schedule`` is given
    (one beat per deployment: a fleet's other workers run without)."""
    return [
        python,
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
        ",".join(queues),
        "-n",
        node,
        *(["-B", "-s", str(beat_schedule)] if beat_schedule is not None else []),
    ]


def web_command(*, python: str, host: str, port: int, workers: int, http: str, drain_s: int) -> list[str]:
    return [
        python,
        "-m",
        "uvicorn",
        "config.asgi:application",
        "--host",
        host,
        "--port",
        str(port),
        "--log-level",
        "warning",
        "--workers",
        str(workers),
        "--http",
        http,
        "--timeout-graceful-shutdown",
        str(drain_s),
    ]


def stop_on_signals() -> Callable[[], bool]:
    """SIGINT (Ctrl-C) and SIGTERM ask to stop: the callable returned says whether one came (serve, cluster)."""
    requested = threading.Event()

    def handler(signum: int, _frame: object) -> None:
        requested.set()

    signal.signal(signal.SIGINT, handler)
    signal.signal(signal.SIGTERM, handler)
    return requested.is_set
