"""The experiments. Each starts its own ``manage.py serve`` on a fresh data directory, runs its clients
and its fault, checks the done-when criteria of issue 18, and returns a ``Result``.

Timeline of a fault experiment: serve green, demo enterprise and key made; /healthz polled every
0.5 s and the clients started; the fault a third of the way through the load; the load runs on to its
end (clients retry their saves through the outage); then recovery is awaited (up to the recovery
deadline after the fault), a save is tried, the background backlog is polled for up to 2 minutes from
the later of the load's end and the recovery (no traffic meanwhile), and the database is read.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from bench.chaos.harness import (
    BACKGROUND_DEADLINE_S,
    HEALTH_LIMIT_S,
    Api,
    Backlog,
    ChaosError,
    HealthPoller,
    Instance,
    Load,
    Redis,
    Reply,
    Tally,
    private_root,
    run_id,
    save_arguments,
    sleep_until,
    snapshot_backlog,
    verify_writes,
    wait_background,
)
from bench.locomo.harness import latency_summary

T = TypeVar("T")

LOST = "0 acknowledged writes lost"
DUPLICATED = "0 writes duplicated"
HTML = "0 HTML responses on /v1 and /mcp"
HEALTHZ = "/healthz never slower than 2 s"
RECOVERED = "back to green (/healthz 200) without a human"
SAVE_AFTER = "a save succeeds after recovery"
BACKGROUND = "background jobs done within 2 min, no traffic (vectors, archivist, outbox)"
NO_ERRORS = "0 errors"
CLEAN_STOP = "Ctrl-C stops serve cleanly (exit 0 within 30 s, nothing left running)"
SAME_BODY = "same key, same body: every call 2xx, one event_id, one record"
DIFFERENT_BODIES = "same key, different bodies: 1 success, the rest 409, one record"

CLEAN_STOP_S = 30.0


@dataclass(frozen=True)
class Options:
    quick: bool = False
    clients: int | None = None
    seconds: float | None = None
    rate: float = 2.0  # calls a second per client; 0: a closed loop (as fast as answers come)
    retries: int = 200  # concurrent calls per idempotency case
    keep: bool = False  # keep the data directories (for a post-mortem)

    @property
    def load_clients(self) -> int:
        return self.clients or (2 if self.quick else 4)

    def load_seconds(self, experiment: str) -> float:
        if self.seconds:
            return self.seconds
        if experiment == "mixed_load":
            return 20 if self.quick else 180
        return 10 if self.quick else 60

    @property
    def recovery_deadline_s(self) -> float:
        return 60 if self.quick else 120


@dataclass
class Result:
    experiment: str
    quick: bool
    clients: int
    seconds: float
    rate: float = 0.0  # calls a second per client (0: closed loop)
    acknowledged: int = 0
    present: int = 0
    lost: int = 0
    duplicated: int = 0
    unacknowledged_present: int = 0
    calls: dict[str, int] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    error_samples: dict[str, str] = field(default_factory=dict)  # kind -> a body it came with (JSON only)
    html: int = 0
    healthz_max_ms: float = 0.0
    healthz_slow: int = 0
    healthz_ms: dict[str, float] = field(default_factory=dict)
    healthz_statuses: dict[str, int] = field(default_factory=dict)
    recovery_s: float | None = None
    background_drained_s: float | None = None
    backlog: dict[str, Any] | None = None
    latency_ms: dict[str, dict[str, float]] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    checks: dict[str, bool] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def verdict(self) -> bool:
        return bool(self.checks) and all(self.checks.values())

    def failures(self) -> list[str]:
        return [name for name, ok in self.checks.items() if not ok]

    def as_json(self) -> dict[str, Any]:
        return {**asdict(self), "verdict": "pass" if self.verdict else "fail"}


def _private_root(name: str, options: Options) -> AbstractContextManager[Path]:
    """The experiment's data directory; serve's log lands in bench/out/chaos/<name>[.quick].serve.log."""
    return private_root(f"{name}.quick" if options.quick else name, keep=options.keep)


class Session:
    """One experiment's serve, key, clients and /healthz poller, and the checks every experiment makes."""

    def __init__(self, name: str, options: Options, root: Path, *, broker_url: str = "") -> None:
        self.options = options
        self.instance = Instance(root, broker_url=broker_url)
        self.poller = HealthPoller(self.instance)
        self.prefix = f"chaos-{run_id()}-"
        self.tally = Tally()
        self.key = ""
        self._load: Load | None = None
        self.result = Result(
            name,
            options.quick,
            options.load_clients,
            options.load_seconds(name),
            rate=options.rate,
            notes=[f"data: {root}"],
        )

    def open(self) -> None:
        self.result.timings["start_s"] = round(self.instance.start(), 1)
        self.key = self.instance.seed()
        self.poller.start()

    def load(self) -> Load:
        """The clients (stopped by ``close`` too, should the experiment end early)."""
        self._load = Load(
            self.instance.base_url,
            self.key,
            clients=self.options.load_clients,
            prefix=self.prefix,
            tally=self.tally,
            rate=self.options.rate,
        )
        return self._load

    def save_once(self) -> bool:
        """One save after recovery (a few tries over 10 s: green /healthz first, the pool's reconnects after)."""
        api = Api(self.instance.base_url, self.key, timeout=30)
        content = f"{self.prefix}after-recovery"
        arguments = save_arguments(content, client="probe", topic="oncall", text="the probe after recovery")
        try:
            for _ in range(5):
                reply = api.tool("save_memory", arguments, idempotency_key=content)
                self.tally.record("save after recovery", reply)
                if reply.error is None:
                    self.tally.acknowledge(content, reply)
                    return True
                time.sleep(2)
            return False
        finally:
            api.close()

    def conclude(self, *, recovered: bool | None, since: float) -> None:
        """The background wait (when there is something to wait on), the reads, and the shared checks.

        ``recovered``: None for an experiment without a fault, else whether /healthz came back.
        """
        result = self.result
        if recovered is not False and self.instance.serving():
            if recovered is not None:
                result.checks[SAVE_AFTER] = self.save_once()
            drained, first, seen = wait_background(
                self.instance, since=since, deadline_s=BACKGROUND_DEADLINE_S
            )
            if first is not None:
                result.extra["backlog_when_the_wait_began"] = backlog_text(first)
        else:
            result.notes.append("not recovered: the backlog is read once, not awaited")
            drained, seen = None, snapshot_backlog(self.instance)
        self.poller.stop()
        writes = verify_writes(self.instance, prefix=self.prefix, acknowledged=dict(self.tally.acknowledged))
        if seen is None:
            seen = snapshot_backlog(self.instance)
        result.acknowledged, result.present, result.lost = writes.acknowledged, writes.present, writes.lost
        result.duplicated, result.unacknowledged_present = writes.duplicated, writes.unacknowledged_present
        if writes.lost_ids:
            result.notes.append(f"lost ids (first 10): {', '.join(writes.lost_ids)}")
        result.calls = dict(self.tally.calls)
        result.errors = dict(self.tally.errors.most_common())
        result.error_samples = dict(self.tally.samples)
        result.html = self.tally.html
        result.latency_ms = {
            op: {k: round(v, 1) for k, v in latency_summary(samples).items()}
            for op, samples in self.tally.latencies_ms.items()
        }
        result.healthz_max_ms = round(self.poller.max_ms(), 1)
        result.healthz_slow = self.poller.slow()
        result.healthz_ms = {k: round(v, 1) for k, v in latency_summary(self.poller.latencies_ms()).items()}
        result.healthz_statuses = self.poller.statuses()
        if any(p.html for p in self.poller.probes):
            result.notes.append("/healthz answered HTML at least once")
        result.background_drained_s = None if drained is None else round(drained, 1)
        result.backlog = asdict(seen) if seen is not None else None
        result.checks[LOST] = writes.lost == 0
        result.checks[DUPLICATED] = writes.duplicated == 0
        result.checks[HTML] = self.tally.html == 0
        result.checks[HEALTHZ] = self.poller.max_ms() <= HEALTH_LIMIT_S * 1000
        result.checks[BACKGROUND] = drained is not None
        if seen is not None and seen.jobs_open is None:
            result.notes.append("no outbox table (accounts_job) in this schema: its check was skipped")

    def close(self) -> None:
        if self._load is not None:
            self._load.stop()
        self.poller.stop()
        self.instance.close()


def _fault_experiment(
    name: str, options: Options, inject: Callable[[Session, Redis | None], None], *, redis: bool = False
) -> Result:
    with _private_root(name, options) as root:
        broker = Redis(root) if redis else None
        if broker is not None:
            broker.start()
        session = Session(name, options, root, broker_url=broker.url if broker else "")
        result = session.result
        try:
            session.open()
            load = session.load()
            load.start()
            began = time.monotonic()
            sleep_until(began + result.seconds / 3)
            fault_at = time.monotonic()
            inject(session, broker)
            result.timings["fault_at_s"] = round(fault_at - began, 1)
            sleep_until(began + result.seconds)
            recovery = session.poller.recovery(
                fault_at, deadline=fault_at + options.recovery_deadline_s, alive=session.instance.serving
            )
            load.stop()
            ended = time.monotonic()
            result.recovery_s = None if recovery is None else round(recovery, 1)
            if not session.instance.serving():
                result.notes.append(f"serve exited: {session.instance.log_tail(6)}")
            result.checks[RECOVERED] = recovery is not None
            since = ended if recovery is None else max(ended, fault_at + recovery)
            session.conclude(recovered=recovery is not None, since=since)
        finally:
            session.close()
            if broker is not None:
                broker.close()
        return result


def _kill_worker(session: Session, _broker: Redis | None) -> None:
    pid = session.instance.worker_pid()
    if pid is None:
        raise ChaosError("no Celery worker in serve's process tree")
    session.result.notes.append(f"SIGKILL worker main process {pid}")
    session.instance.kill(pid)


def _kill_database(session: Session, _broker: Redis | None) -> None:
    pid = session.instance.postmaster_pid()
    if pid is None:
        raise ChaosError("no postmaster on the data directory")
    session.result.notes.append(f"SIGKILL postmaster {pid}")
    session.instance.kill(pid)


def _restart_broker(session: Session, broker: Redis | None) -> None:
    assert broker is not None
    broker.kill()
    time.sleep(1)
    broker.start()
    session.result.notes.append(
        f"redis-server SIGKILLed and started again on port {broker.port} (no persistence)"
    )


def worker_kill(options: Options) -> Result:
    """SIGKILL the Celery worker's main process under load."""
    return _fault_experiment("worker_kill", options, _kill_worker)


def db_kill(options: Options) -> Result:
    """SIGKILL the embedded PostgreSQL's postmaster under load."""
    return _fault_experiment("db_kill", options, _kill_database)


def broker_restart(options: Options) -> Result:
    """SIGKILL a private redis-server broker (no persistence: queued messages are gone) and start it again."""
    return _fault_experiment("broker_restart", options, _restart_broker, redis=True)


def sigint_under_load(options: Options) -> Result:
    """Ctrl-C to serve under load; serve started again on the same data directory; every acknowledged save there."""
    name = "sigint_under_load"
    with _private_root(name, options) as root:
        session = Session(name, options, root)
        result = session.result
        instance = session.instance
        try:
            session.open()
            load = session.load()
            load.start()
            began = time.monotonic()
            sleep_until(began + result.seconds / 3)
            fault_at = time.monotonic()
            result.timings["fault_at_s"] = round(fault_at - began, 1)
            instance.sigint()
            code = instance.wait_exit(60)
            stopped_s = time.monotonic() - fault_at
            time.sleep(1)  # a child's last moment after serve's own exit
            left = instance.leftovers()
            result.timings["shutdown_s"] = round(stopped_s, 1)
            result.extra.update(exit_code=code, left_running=left)
            result.checks[CLEAN_STOP] = code == 0 and stopped_s <= CLEAN_STOP_S and not left
            instance.close()  # ends what was left, so that the restart has the data directory and port
            try:
                result.timings["restart_s"] = round(instance.start(), 1)
                recovered = True
            except ChaosError as exc:
                result.notes.append(f"restart failed: {exc}")
                recovered = False
            result.recovery_s = round(time.monotonic() - fault_at, 1) if recovered else None
            result.checks[RECOVERED] = recovered
            sleep_until(max(began + result.seconds, time.monotonic() + 3))
            load.stop()
            session.conclude(recovered=recovered, since=time.monotonic())
        finally:
            session.close()
        return result


def _concurrently(n: int, call: Callable[[int], T]) -> list[T]:
    """``call(i)`` for i in 0..n-1, all released at once from a barrier."""
    barrier = threading.Barrier(n)
    results: dict[int, T] = {}

    def run(i: int) -> None:
        barrier.wait()
        results[i] = call(i)

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return [results[i] for i in range(n)]


def idempotent_retries(options: Options) -> Result:
    """``retries`` concurrent save_memory calls with one X-Idempotency-Key: same body, then different bodies."""
    name = "idempotent_retries"
    n = options.retries
    with _private_root(name, options) as root:
        session = Session(name, options, root)
        result = session.result
        result.clients, result.seconds, result.rate = n, 0, 0
        tally = session.tally
        try:
            session.open()
            # A pool per case: a connection left idle past uvicorn's keep-alive (5 s) between the two would
            # be closed by the server as the next case reused it, the client's artefact, not the server's.
            api = Api(session.instance.base_url, session.key, timeout=120, connections=n + 8)
            began = time.monotonic()
            same_content = f"{session.prefix}same one body for every call"
            same_args = save_arguments(same_content, client="retry", topic="decision", text="one body")
            same = _concurrently(
                n, lambda _i: api.tool("save_memory", same_args, idempotency_key=f"{session.prefix}same")
            )
            result.timings["same_body_s"] = round(time.monotonic() - began, 1)
            api.close()
            api = Api(session.instance.base_url, session.key, timeout=120, connections=n + 8)

            def different(i: int) -> tuple[str, Reply]:
                content = f"{session.prefix}diff body {i}"
                arguments = save_arguments(content, client="retry", topic="decision", text=f"body {i}")
                return content, api.tool("save_memory", arguments, idempotency_key=f"{session.prefix}diff")

            began = time.monotonic()
            diff = _concurrently(n, different)
            result.timings["different_bodies_s"] = round(time.monotonic() - began, 1)
            api.close()
            for reply in same:
                tally.record("save same body", reply)
            for _content, reply in diff:
                # The 409s are the contract's answer here, not errors.
                tally.record("save different bodies", reply, expected=reply.status == 409)
            same_ids = {r.body["event_id"] for r in same if r.error is None and isinstance(r.body, dict)}
            if len(same_ids) == 1:
                tally.acknowledged[same_content] = next(iter(same_ids))
            successes = [(content, r) for content, r in diff if r.error is None]
            for content, reply in successes:
                tally.acknowledge(content, reply)
            conflicts = sum(1 for _content, r in diff if r.status == 409)
            result.extra["same_body_statuses"] = dict(Counter(str(r.status or r.error) for r in same))
            result.extra["different_bodies_statuses"] = dict(
                Counter(str(r.status or r.error) for _c, r in diff)
            )
            session.conclude(recovered=None, since=time.monotonic())
            with session.instance.connect() as conn:
                same_row = conn.execute(
                    "SELECT count(*) FROM memory_memory WHERE content = %s", [same_content]
                ).fetchone()
                diff_row = conn.execute(
                    "SELECT count(*) FROM memory_memory WHERE starts_with(content, %s)",
                    [f"{session.prefix}diff"],
                ).fetchone()
            same_records = same_row[0] if same_row else 0
            diff_records = diff_row[0] if diff_row else 0
            result.extra.update(
                same_body_event_ids=len(same_ids),
                same_body_records=same_records,
                different_bodies_records=diff_records,
            )
            result.checks[SAME_BODY] = (
                all(r.error is None for r in same) and len(same_ids) == 1 and same_records == 1
            )
            result.checks[DIFFERENT_BODIES] = len(successes) == 1 and conflicts == n - 1 and diff_records == 1
        finally:
            session.close()
        return result


def mixed_load(options: Options) -> Result:
    """Saves and searches over REST and MCP for the whole load, no fault: no error at all, the backlog drained."""
    name = "mixed_load"
    with _private_root(name, options) as root:
        session = Session(name, options, root)
        result = session.result
        try:
            session.open()
            load = session.load()
            load.start()
            time.sleep(result.seconds)
            load.stop()
            session.conclude(recovered=None, since=time.monotonic())
            result.checks[NO_ERRORS] = sum(result.errors.values()) == 0
            calls = sum(result.calls.values())
            result.extra["calls_per_s"] = round(calls / result.seconds, 1)
        finally:
            session.close()
        return result


EXPERIMENTS: dict[str, Callable[[Options], Result]] = {
    "worker_kill": worker_kill,
    "db_kill": db_kill,
    "broker_restart": broker_restart,
    "sigint_under_load": sigint_under_load,
    "idempotent_retries": idempotent_retries,
    "mixed_load": mixed_load,
}


def backlog_text(backlog: Backlog | dict[str, Any] | None) -> str:
    if backlog is None:
        return "unread (database down)"
    data = asdict(backlog) if isinstance(backlog, Backlog) else backlog
    jobs = (
        "no outbox"
        if data["jobs_open"] is None
        else f"{data['jobs_open']} open job(s) {data['jobs_by_state']}"
    )
    if data["jobs_open"]:
        jobs += f" by task {data['jobs_by_task']}, oldest {data['oldest_open_job_s']} s, sent up to {data['most_sends']}x"
    if data["last_job_error"]:
        jobs += f", last error {data['last_job_error']!r}"
    return (
        f"{data['memories']} memories, {data['without_vector']} without vector, "
        f"{data['archivist_waiting']} waiting for the archivist, {jobs}"
    )
