"""The embedded broker's pace (issue 18): jobs per second end to end and the worker's idle CPU.

    .venv/bin/python -m bench.broker.run [--configs kombu-fs:1 fs:0.02 fs:0.02/p2 redis ...] [--jobs 300]
                                         [--spin-ms 0 70] [--max-seconds 30] [--idle-seconds 10]
                                         [--latency 30] [--backlog 3000 10000] [--backlog-spin-ms 70]
                                         [--concurrency 1] [--redis URL]

About 14 minutes with the default configs (the ones in bench/RESULTS.md, issue 18).

Each config runs in a child process of its own (settings are read once a process), with the
product's Celery app and settings (``config.celery``: acks_late, a prefetch of one) on a private
broker: ``fs:POLL`` is the embedded broker (``core.broker``, kombu's filesystem transport writing each
message whole) in a fresh folder with ``MNEMOS_BROKER_POLL_SECONDS=POLL``, ``kombu-fs:POLL`` kombu's own
filesystem transport (``kombu-fs:1`` is the broker before issue 18: kombu's default poll),
``redis`` is ``--redis`` (default redis://127.0.0.1:6379/15; when nothing answers there and
``redis-server`` is installed, a private one on a free port); ``/pN`` adds ``--prefetch-multiplier N``
(``fs:0.02/p2``). A real worker (``tests.live.worker_process``, ``--concurrency`` processes, niced as in
production) imports ``bench.broker.tasks``, whose job touches no database: it spins ``spin_ms`` of CPU
and appends a byte to a file the bench watches.

Per config, after three warm-up jobs:

1. idle CPU: the worker's processes (main and pool) over ``--idle-seconds`` from /proc/<pid>/stat,
   as a share of one core;
2. latency: ``--latency`` jobs one at a time on the idle worker (a random 0-200 ms gap between them),
   from ``apply_async`` to the job's byte, p50 / p95;
3. throughput, once per ``--spin-ms``: ``--jobs`` jobs sent at once, jobs per second from the first
   send to the last job's byte (or the jobs done by ``--max-seconds``, when that comes first);
4. a deep queue, once per ``--backlog`` size: that many ``--backlog-spin-ms`` jobs sent, then over
   ``--idle-seconds`` the worker's main process's CPU (the broker's side: it polls its control queue
   between jobs, and the filesystem transport lists the whole folder at each poll) and the jobs done.

A JSON summary goes to bench/out/broker/ (git-ignored); figures in bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent.parent
OUT = ROOT / "bench" / "out" / "broker"
QUEUE = "mnemos-bench-broker"
DEFAULT_CONFIGS = [
    "kombu-fs:1",
    "fs:0.1",
    "fs:0.05",
    "fs:0.02",
    "fs:0.01",
    "fs:0.02/p2",
    "kombu-fs:1/p4",
    "redis",
]
WATCH_SECONDS = 0.002


@dataclass(frozen=True)
class Config:
    label: str
    transport: str  # "fs" or "redis"
    poll: float | None
    prefetch: int | None


def parse_config(text: str) -> Config:
    head, _, prefetch = text.partition("/p")
    transport, _, poll = head.partition(":")
    if transport not in {"fs", "kombu-fs", "redis"} or (transport == "redis") == bool(poll):
        raise argparse.ArgumentTypeError(f"{text!r}: fs:POLL[/pN], kombu-fs:POLL[/pN] or redis[/pN]")
    return Config(
        label=text,
        transport=transport,
        poll=float(poll) if poll else None,
        prefetch=int(prefetch) if prefetch else None,
    )


# ------------------------------------------------------------------------------------------------
# the child: one config, one worker


def _marks(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def _wait_marks(path: Path, count: int, *, timeout: float) -> float:
    """Seconds (perf_counter) when ``path`` holds ``count`` marks, or when ``timeout`` ran out."""
    deadline = time.perf_counter() + timeout
    while _marks(path) < count and time.perf_counter() < deadline:
        time.sleep(WATCH_SECONDS)
    return time.perf_counter()


def _cpu_ticks(root_pid: int, *, children: bool = True) -> int:
    """utime + stime of ``root_pid`` and (``children``) its direct children, the worker's pool, in clock ticks."""
    parents: dict[int, int] = {}
    ticks: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        pid = int(entry.name)
        parents[pid] = int(fields[1])
        ticks[pid] = int(fields[11]) + int(fields[12])
    family = {root_pid}
    for pid, parent in parents.items():
        if children and parent in family:
            family.add(pid)
    return sum(ticks.get(pid, 0) for pid in family)


def _cpu_percent(pid: int, seconds: float, *, children: bool = True) -> float:
    """The worker's CPU over the next ``seconds``, in percent of one core."""
    before, start = _cpu_ticks(pid, children=children), time.monotonic()
    time.sleep(seconds)
    used = (_cpu_ticks(pid, children=children) - before) / os.sysconf("SC_CLK_TCK")
    return 100.0 * used / (time.monotonic() - start)


def _drop_waiting(config: Config, work: Path) -> None:
    """Empty the queue (the jobs a capped burst or a backlog left), so the next count starts from zero."""
    if config.transport == "redis":
        _purge(QUEUE)
    else:
        for message in (work / "broker" / "queue").glob(f"*.{QUEUE}.msg"):
            message.unlink(missing_ok=True)
    time.sleep(max(config.poll or 0.0, 0.5) * 2)


def _purge(queue: str) -> None:
    from config.celery import app

    with app.connection_for_write() as connection:
        connection.default_channel.queue_purge(queue)


class WorkerDied(Exception):
    pass


def _alive(worker: subprocess.Popen[bytes], phase: str) -> None:
    if worker.poll() is not None:
        raise WorkerDied(f"{phase}: exit status {worker.returncode}")


def run_child(config: Config, args: argparse.Namespace, work: Path) -> dict[str, Any]:
    """The figures, or where the worker died (kombu-fs: a torn message stops it, core/broker.py)."""
    import bench.broker.tasks  # noqa: F401  (first: it chooses the transport for kombu-fs)
    from tests.live import worker_process

    if config.transport == "redis":
        _purge(QUEUE)
    extra = ["--include", "bench.broker.tasks"]
    if config.prefetch:
        extra += ["--prefetch-multiplier", str(config.prefetch)]
    result: dict[str, Any] = {"config": asdict(config), "worker_died": None}
    try:
        with worker_process(concurrency=args.concurrency, prefix="bench-broker", extra_args=extra) as (
            _,
            worker,
        ):
            _measure(config, args, work, worker, result)
    except AssertionError as exc:  # tests.live: "the worker exited during start-up"
        result["worker_died"] = f"start-up: {exc}"
    except WorkerDied as exc:
        result["worker_died"] = str(exc)
    if config.transport == "redis":
        _purge(QUEUE)
    return result


def _measure(
    config: Config,
    args: argparse.Namespace,
    work: Path,
    worker: subprocess.Popen[bytes],
    result: dict[str, Any],
) -> None:
    from bench.broker.tasks import mark

    warm = work / "warm"
    for _ in range(3):
        mark.apply_async(kwargs={"mark": str(warm)})
    _wait_marks(warm, 3, timeout=60)
    _alive(worker, "warm-up")

    result["idle_cpu_percent"] = round(_cpu_percent(worker.pid, args.idle_seconds), 2)

    one = work / "one"
    latencies = []
    for done in range(1, args.latency + 1):
        time.sleep(random.uniform(0.0, 0.2))
        start = time.perf_counter()
        mark.apply_async(kwargs={"mark": str(one)})
        latencies.append((_wait_marks(one, done, timeout=30) - start) * 1000)
        _alive(worker, "latency")
    latencies.sort()
    result["latency_ms"] = {
        "n": len(latencies),
        "p50": round(statistics.median(latencies), 1),
        "p95": round(latencies[max(int(len(latencies) * 0.95) - 1, 0)], 1),
    }

    result["throughput"] = []
    for spin_ms in args.spin_ms:
        marks = work / f"burst-{spin_ms}"
        start = time.perf_counter()
        for _ in range(args.jobs):
            mark.apply_async(kwargs={"mark": str(marks), "spin_ms": spin_ms})
        sent = time.perf_counter()
        end = _wait_marks(marks, args.jobs, timeout=args.max_seconds - (sent - start))
        _alive(worker, f"throughput, {spin_ms:g} ms jobs")
        done = _marks(marks)
        result["throughput"].append(
            {
                "spin_ms": spin_ms,
                "sent": args.jobs,
                "done": done,
                "send_per_s": round(args.jobs / (sent - start), 1),
                "jobs_per_s": round(done / (end - start), 2),
                "wall_s": round(end - start, 2),
            }
        )
        if done < args.jobs:
            _drop_waiting(config, work)

    # A deep queue: between jobs the worker's main process polls the other queues it consumes (its
    # control queue, in the same folder), and the filesystem transport lists the folder each time.
    result["backlog"] = []
    for size in args.backlog:
        marks = work / f"backlog-{size}"
        for _ in range(size):
            mark.apply_async(kwargs={"mark": str(marks), "spin_ms": args.backlog_spin_ms})
        time.sleep(1.0)
        before = _marks(marks)
        main_cpu = _cpu_percent(worker.pid, args.idle_seconds, children=False)
        _alive(worker, f"backlog of {size}")
        result["backlog"].append(
            {
                "size": size,
                "spin_ms": args.backlog_spin_ms,
                "main_cpu_percent": round(main_cpu, 2),
                "jobs_per_s": round((_marks(marks) - before) / args.idle_seconds, 2),
            }
        )
        _drop_waiting(config, work)


# ------------------------------------------------------------------------------------------------
# the parent: one child per config, the table


def _answers(url: str) -> bool:
    parts = urlsplit(url)
    try:
        with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 6379), timeout=1) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@contextmanager
def redis_url(url: str) -> Iterator[str | None]:
    """``url`` when a Redis answers there; else a private redis-server's db 15, when one is installed."""
    if _answers(url):
        yield url
        return
    server = shutil.which("redis-server")
    if server is None:
        yield None
        return
    from tests.live import free_port, stop_process, wait_for

    port = free_port()
    process = subprocess.Popen(
        [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        start_new_session=True,
    )
    private = f"redis://127.0.0.1:{port}/15"
    try:
        wait_for(lambda: _answers(private), timeout=10, what="the private redis-server")
        yield private
    finally:
        stop_process(process)


def run_config(config: Config, args: argparse.Namespace, redis: str | None) -> dict[str, Any] | None:
    with tempfile.TemporaryDirectory(prefix="mnemos-bench-broker-") as tmp:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "MNEMOS_BROKER_DIR": str(Path(tmp) / "broker"),
            "MNEMOS_CELERY_QUEUE": QUEUE,
            "CELERY_BROKER_URL": "",
        }
        if config.transport == "redis":
            if redis is None:
                print(f"{config.label}: no Redis answers and redis-server is not installed; skipped")
                return None
            env["CELERY_BROKER_URL"] = redis
        else:
            env["MNEMOS_BROKER_POLL_SECONDS"] = str(config.poll)
            env["MNEMOS_BENCH_KOMBU_FILESYSTEM"] = "1" if config.transport == "kombu-fs" else "0"
        argv = [sys.executable, "-m", "bench.broker.run", "--child", config.label, "--work", tmp]
        argv += _shared_argv(args)
        completed = subprocess.run(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True, check=True)
        result: dict[str, Any] = json.loads(completed.stdout.strip().splitlines()[-1])
        if redis is not None and config.transport == "redis":
            result["broker"] = redis
        return result


def _shared_argv(args: argparse.Namespace) -> list[str]:
    return [
        "--jobs",
        str(args.jobs),
        "--spin-ms",
        *[str(ms) for ms in args.spin_ms],
        "--max-seconds",
        str(args.max_seconds),
        "--idle-seconds",
        str(args.idle_seconds),
        "--latency",
        str(args.latency),
        "--concurrency",
        str(args.concurrency),
        "--backlog",
        *[str(size) for size in args.backlog],
        "--backlog-spin-ms",
        str(args.backlog_spin_ms),
    ]


def report(results: Sequence[dict[str, Any]], args: argparse.Namespace) -> None:
    header = f"{'config':<12} {'idle CPU':>9} {'one job p50/p95 ms':>19}"
    header += "".join(f" {f'jobs/s ({ms:g} ms job)':>20}" for ms in args.spin_ms)
    header += "".join(f" {f'{size} waiting: main CPU, jobs/s':>30}" for size in args.backlog)
    print(header)
    for result in results:
        line = f"{result['config']['label']:<12}"
        if "idle_cpu_percent" in result:
            line += f" {result['idle_cpu_percent']:>8.2f}%"
        if "latency_ms" in result:
            line += f" {result['latency_ms']['p50']:>9.1f} / {result['latency_ms']['p95']:<7.1f}"
        for row in result.get("throughput", []):
            cell = f"{row['jobs_per_s']:.2f}"
            if row["done"] < row["sent"]:
                cell += f" ({row['done']}/{row['sent']})"
            line += f" {cell:>20}"
        for row in result.get("backlog", []):
            cell = f"{row['main_cpu_percent']:.1f}%, {row['jobs_per_s']:.2f}"
            line += f" {cell:>30}"
        if result["worker_died"]:
            line += f"  the worker died ({result['worker_died']})"
        print(line)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--configs", nargs="+", type=parse_config, default=[parse_config(c) for c in DEFAULT_CONFIGS]
    )
    parser.add_argument("--jobs", type=int, default=300)
    parser.add_argument("--spin-ms", nargs="+", type=float, default=[0.0, 70.0])
    parser.add_argument("--max-seconds", type=float, default=30.0)
    parser.add_argument("--idle-seconds", type=float, default=10.0)
    parser.add_argument("--latency", type=int, default=30)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--backlog", nargs="*", type=int, default=[3000, 10000])
    parser.add_argument("--backlog-spin-ms", type=float, default=70.0)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/15")
    parser.add_argument("--child", type=parse_config, help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        print(json.dumps(run_child(args.child, args, args.work)))
        return
    results = []
    with redis_url(args.redis) as redis:
        for config in args.configs:
            print(f"... {config.label}", file=sys.stderr, flush=True)
            result = run_config(config, args, redis)
            if result is not None:
                results.append(result)
    report(results, args)
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"broker-{time.strftime('%Y%m%dT%H%M%S')}.json"
    path.write_text(json.dumps({"argv": sys.argv[1:], "results": results}, indent=2))
    print(f"summary: {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
