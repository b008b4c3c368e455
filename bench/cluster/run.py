"""Scale-out, measured as ratios in one run (issue 22): 1 and 2 web nodes, 1 and 2 archivist workers, and
the replica's lag under the save load.

    .venv/bin/python -m bench.cluster.run [--saves 400] [--searches 400] [--clients 8]

On a throwaway embedded primary (config.settings_test) with one streaming replica (core/replica.py), one
enterprise on a bench plan, four projects, and per project a writer key (saves) and a reader key (searches
only, so its reads go to the replica: the writer's would stay on the primary, read-your-writes).

1. For 1, then 2 web nodes (``serve --role web``, one uvicorn process each, so a node is a unit of
   capacity; ``DATABASE_REPLICA_URLS`` set): ``--clients`` threads save ``--saves`` LoCoMo turns
   (``save_memory``), dealt round-robin over nodes and projects; then the same number of threads
   search ``--searches`` LoCoMo questions with the reader keys. No worker runs meanwhile (embedding
   would take the same two cores). A thread samples the replica's lag every 100 ms during the saves:
   the age of what it has not replayed (0 when caught up) and the WAL bytes behind the primary.
2. For 1, then 2 archivist workers (``serve --role worker --kinds archivist``, one pool process each):
   the time from the workers' start to the last memory of its batch with a vector: vectors/s. The
   archivist's drain embeds every memory of a project still without one, so each phase has a batch of
   its own: the first, what the web phases saved (nothing was embedded yet); the second, as many saved
   after it.

Every figure of a pair comes from the same run and the same machine; on 2 cores the two nodes (or
workers) share the CPU with PostgreSQL and the clients, so the ratios say how far a second node helps
when the machine is the bound, not what a second machine would add. A JSON summary goes to
bench/out/cluster/.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from bench.locomo.harness import (
    ROOT,
    Api,
    build_tenant,
    cpu_model,
    latency_summary,
    pct,
    prepare_database,
    setup_django,
)

OUT = ROOT / "bench" / "out" / "cluster"
PROJECTS = ("c1", "c2", "c3", "c4")


@contextmanager
def _nodes(folder: Path, count: int, env: dict[str, str]) -> Iterator[list[str]]:
    from tests.live import free_port, serve_node

    ports = [free_port() for _ in range(count)]
    with ExitStack() as stack:
        for port in ports:
            stack.enter_context(
                serve_node(
                    folder,
                    f"web-{port}",
                    "--role",
                    "web",
                    "--port",
                    str(port),
                    ready="as a web node",
                    env=env,
                )
            )
        yield [f"http://127.0.0.1:{port}" for port in ports]


@contextmanager
def _workers(folder: Path, count: int, env: dict[str, str]) -> Iterator[None]:
    from tests.live import serve_node

    with ExitStack() as stack:
        for i in range(count):
            stack.enter_context(
                serve_node(
                    folder,
                    f"worker-{i}-{time.monotonic_ns()}",
                    "--role",
                    "worker",
                    "--kinds",
                    "archivist",
                    "--concurrency",
                    "1",
                    ready="Press Ctrl-C",
                    env=env,
                )
            )
        yield


def _drive(
    bases: Sequence[str], clients: int, jobs: Sequence[tuple[str, str, dict[str, Any]]]
) -> tuple[float, list[float], list[dict[str, Any]]]:
    """``jobs`` (secret, tool, arguments) by ``clients`` threads, thread i on node i mod len(bases); wall s,
    per-call ms, answers."""
    lock = threading.Lock()
    queue = list(reversed(jobs))
    latencies: list[float] = []
    answers: list[dict[str, Any]] = []

    def client(i: int) -> None:
        api = Api(bases[i % len(bases)])
        try:
            while True:
                with lock:
                    if not queue:
                        return
                    secret, tool, arguments = queue.pop()
                body, ms = api.tool(secret, tool, arguments)
                with lock:
                    latencies.append(ms)
                    answers.append(body)
        finally:
            api.close()

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.perf_counter() - start, latencies, answers


class LagSampler:
    """The replica's lag every 100 ms: seconds behind (0 when it has replayed all it received) and WAL bytes."""

    def __init__(self, primary: Any, standby: Any) -> None:
        self.primary, self.standby = primary, standby
        self.seconds: list[float] = []
        self.bytes: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> LagSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        import psycopg

        from core.dbrouting import LAG_SQL
        from core.dbserver import SUPERUSER

        with (
            psycopg.connect(
                host=self.primary.socket_dir,
                port=self.primary.port,
                user=SUPERUSER,
                dbname="postgres",
                autocommit=True,
            ) as p,
            psycopg.connect(
                host=self.standby.socket_dir,
                port=self.standby.port,
                user=SUPERUSER,
                dbname="postgres",
                autocommit=True,
            ) as r,
        ):
            while not self._stop.wait(0.1):
                row = p.execute("SELECT pg_current_wal_lsn()::text").fetchone()
                replay = r.execute(
                    f"SELECT lag, pg_last_wal_replay_lsn()::text FROM ({LAG_SQL}) AS s(rec, lag)"
                ).fetchone()
                assert row is not None and replay is not None
                behind = p.execute(
                    "SELECT pg_wal_lsn_diff(%s::pg_lsn, %s::pg_lsn)", [row[0], replay[1]]
                ).fetchone()
                self.seconds.append(float(replay[0]))
                self.bytes.append(max(0.0, float(behind[0])) if behind else 0.0)


def _unembedded(enterprise_id: Any, ids: Sequence[str]) -> int:
    from core.tenancy import tenant_context
    from memory.models import Memory

    with tenant_context(enterprise_id=enterprise_id, door="bench"):
        return Memory.objects.filter(pk__in=ids, embedding__isnull=True).count()


def _embedding_times(enterprise_id: Any, ids: Sequence[str], timeout: float) -> tuple[float, float, int]:
    """Poll until every memory of ``ids`` has a vector: (first seen, last seen, already embedded at first)."""
    end = time.monotonic() + timeout
    first: tuple[float, int] | None = None
    while True:
        left = _unembedded(enterprise_id, ids)
        now = time.perf_counter()
        if first is None and left < len(ids):
            first = (now, len(ids) - left)
        if left == 0:
            assert first is not None
            return first[0], now, first[1]
        if time.monotonic() > end:
            raise TimeoutError("the archivist did not finish")
        time.sleep(0.2)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--saves", type=int, default=400)
    parser.add_argument("--searches", type=int, default=400)
    parser.add_argument("--clients", type=int, default=8)
    args = parser.parse_args(argv)

    setup_django()
    prepare_database()
    from accounts.services.keys import access_key_create
    from bench.ingest.run import BENCH_PLAN, make_plan, save_arguments
    from bench.locomo.data import load
    from core.dbserver import owned_embedded_postmaster
    from core.replica import create_standby, drop_standby, wait_caught_up
    from core.tenancy import tenant_context
    from tests.live import free_port

    make_plan()
    tenant = build_tenant(slug="cluster-bench", project_slugs=PROJECTS, plan=BENCH_PLAN)
    from accounts.models import Member, Project

    readers: dict[str, str] = {}
    with tenant_context(enterprise_id=tenant.enterprise_id, door="bench"):
        member = Member.objects.get(pk=tenant.member_id)
        for slug, project in tenant.projects.items():
            _, readers[slug] = access_key_create(
                member=member, project=Project.objects.get(pk=project.project_id), label=f"reader {slug}"
            )
    conversations, _ = load()
    turns = [t for c in conversations for t in c.turns]
    questions = [q.text for c in conversations for q in c.questions]

    primary = owned_embedded_postmaster()
    assert primary is not None
    folder = Path(tempfile.mkdtemp(prefix="mnemos-cluster-bench-"))
    folder.chmod(0o755)
    standby = create_standby(
        primary_socket_dir=primary.socket_dir,
        primary_port=primary.port,
        pgdata=folder / "replica",
        port=free_port(),
        slot="mnemos_cluster_bench",
        system_user=primary.system_user,
    )
    env = {
        "DATABASE_REPLICA_URLS": standby.url(""),
        "MNEMOS_DB_POOL": "8",
        "MNEMOS_WEB_WORKERS": "1",
        "MNEMOS_JOBS_SWEEP_SECONDS": "3600",
    }
    results: dict[str, Any] = {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "args": vars(args),
        "web": {},
        "workers": {},
    }
    saved: dict[int, list[str]] = {}
    try:
        for count in (1, 2):
            offset = (count - 1) * args.saves
            save_jobs = [
                (
                    tenant.projects[PROJECTS[i % len(PROJECTS)]].secret,
                    "save_memory",
                    save_arguments(turns[(offset + i) % len(turns)]),
                )
                for i in range(args.saves)
            ]
            search_jobs = [
                (
                    readers[PROJECTS[i % len(PROJECTS)]],
                    "search_memory",
                    {"query": questions[(offset + i) % len(questions)]},
                )
                for i in range(args.searches)
            ]
            with _nodes(folder, count, env) as bases:
                _drive(bases, 2, search_jobs[:20])  # warm-up: connections, models
                with LagSampler(primary, standby) as lag:
                    wall, latencies, answers = _drive(bases, args.clients, save_jobs)
                saved[count] = [a["event_id"] for a in answers]
                wait_caught_up(standby, primary_socket_dir=primary.socket_dir, primary_port=primary.port)
                s_wall, s_latencies, _ = _drive(bases, args.clients, search_jobs)
            results["web"][count] = {
                "saves_per_s": args.saves / wall,
                "save_ms": latency_summary(latencies),
                "searches_per_s": args.searches / s_wall,
                "search_ms": latency_summary(s_latencies),
                "replica_lag_s": {
                    "p50": pct(lag.seconds, 50),
                    "p95": pct(lag.seconds, 95),
                    "max": max(lag.seconds, default=0),
                },
                "replica_lag_bytes": {
                    "p50": pct(lag.bytes, 50),
                    "p95": pct(lag.bytes, 95),
                    "max": max(lag.bytes, default=0),
                },
            }
            print(
                f"{count} web node(s): {json.dumps(results['web'][count], default=float)[:400]}", flush=True
            )
        # The archivist's drain embeds every memory of a project still without a vector, so each worker
        # phase gets a batch of its own: the first, what the web phases saved; the second, as many saved now.
        batches = {1: saved[1] + saved[2]}
        refill = [
            (
                tenant.projects[PROJECTS[i % len(PROJECTS)]].secret,
                "save_memory",
                save_arguments(turns[(2 * args.saves + i) % len(turns)]),
            )
            for i in range(len(batches[1]))
        ]
        for count in (1, 2):
            if count == 2:
                with _nodes(folder, 1, env) as bases:
                    batches[2] = [a["event_id"] for a in _drive(bases, args.clients, refill)[2]]
            ids = batches[count]
            with _workers(folder, count, env):
                # From the workers' start-up line (their first job loads the model), and steady: from the
                # first vector seen to the last.
                start = time.perf_counter()
                first, last, early = _embedding_times(tenant.enterprise_id, ids, timeout=1800)
            results["workers"][count] = {
                "vectors": len(ids),
                "seconds": last - start,
                "vectors_per_s": len(ids) / (last - start),
                "steady_vectors_per_s": (len(ids) - early) / max(1e-9, last - first),
            }
            print(f"{count} worker(s): {results['workers'][count]}", flush=True)
    finally:
        drop_standby(standby, primary_socket_dir=primary.socket_dir, primary_port=primary.port)
    web, workers = results["web"], results["workers"]
    results["ratios"] = {
        "saves_2_to_1": web[2]["saves_per_s"] / web[1]["saves_per_s"],
        "searches_2_to_1": web[2]["searches_per_s"] / web[1]["searches_per_s"],
        "vectors_2_to_1": workers[2]["vectors_per_s"] / workers[1]["vectors_per_s"],
        "steady_vectors_2_to_1": workers[2]["steady_vectors_per_s"] / workers[1]["steady_vectors_per_s"],
    }
    OUT.mkdir(parents=True, exist_ok=True)
    out = OUT / f"cluster-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.write_text(json.dumps(results, indent=2, default=float))
    print(json.dumps(results["ratios"], indent=2))
    print(f"summary: {out}")


if __name__ == "__main__":
    main()
