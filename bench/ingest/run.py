"""Write throughput through the public save path, and the archivist behind it.

    .venv/bin/python -m bench.ingest.run [--saves 2000] [--configs 1x1,4x1,4x4,8x8] [--broker URL]
                                         [--worker-concurrency 1] [--profile 200] [--no-worker]

On a throwaway embedded cluster (config.settings_test): one enterprise on a bench plan (the
``enterprise`` plan's limits, but 1,000,000 calls/min/project, since the ``enterprise`` plan's 6,000
would itself cap one project at 100 saves/s), one admin member, eight projects with one all-scope
access key each, the web server (uvicorn, tests/live.py) and a real Celery worker (the archivist).

1. In process (``--profile N``, default 200): N saves through the tool door
   (``core.dispatch.tool_dispatch``, REST minus HTTP); SQL statements per save counted with a
   connection ``execute_wrapper`` (every statement Django sends, both of the door's transactions
   included), wall ms per save, and cProfile's product functions with the most cumulative time.
2. Over HTTP, per config ``CxP`` (C concurrent clients saving into P projects, clients dealt to
   projects round-robin): ``--saves`` LoCoMo turns (in order, cycling through the ten conversations)
   through ``POST /v1/tools/save_memory``: summary = the turn cut to 500 characters, content = the turn,
   entities = its speaker, timestamp = the session's time. Memory Guard is on (it always is). Reported:
   memories/s (saves / wall time of the config), p50/p95/p99 per save (client side), 429 retries.
   The write path takes one advisory lock per project by design (plan limits and fact_key versions
   stay exact), so C clients into one project queue on it; into several projects they do not.
3. The archivist, running throughout on the same two cores (``--no-worker``: saves only): a poller
   in this process reads every 50 ms which saved memories have their vector; per memory, the
   time from the save's HTTP response to the first poll that sees the vector (the HNSW index is
   updated in the same transaction, so a committed vector is a searchable one). After the saves the
   bench waits for the last vector and reports embeddings/s over the whole config (first save to last
   vector), the drain after the last save, and time-to-vector p50/p95. Last, for 30 random memories a
   ``search_memory`` call with the memory's own text must return it with ``vector`` among its channels.

4. Batch writes (``--batches N``, issue 20), after the configs, in the same run and server: first
   ``--batch-singles`` single saves (``POST /v1/tools/save_memory``, one client, project p1), then N
   calls of ``--batch-size`` items (``POST /v1/memories:batch``, one client, project p2) of the same
   kind of item: a ~300-character note (consecutive LoCoMo turns joined), its speakers as entities,
   two tags, a source_id and a timestamp. Memory Guard is on; the archivist embeds behind (its lag is
   reported, not waited for unless the configs' watch does). Reported: memories/s of each, per-call
   p50/p95, CPU ms per memory by process.

A JSON summary goes to bench/out/ingest/ (git-ignored); figures in bench/ingest/RESULTS.md.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import json
import os
import random
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.locomo.data import DEFAULT_DATA, Turn, load
from bench.locomo.harness import (
    ROOT,
    Api,
    BenchTenant,
    build_tenant,
    fmt_ms,
    latency_summary,
    pct,
    prepare_database,
    product_functions,
    setup_django,
)
from bench.locomo.run import load_avg, web_server

OUT = ROOT / "bench" / "out" / "ingest"
BENCH_PLAN = "bench-ingest"
POLL_S = 0.05


@dataclass(frozen=True)
class Config:
    clients: int
    projects: int

    @property
    def label(self) -> str:
        return f"{self.clients} client(s) -> {self.projects} project(s)"


def parse_configs(raw: str) -> list[Config]:
    out = []
    for part in filter(None, (p.strip() for p in raw.split(","))):
        clients, _, projects = part.strip().partition("x")
        out.append(Config(int(clients), int(projects or 1)))
    return out


def turn_stream(turns: Sequence[Turn], n: int, offset: int) -> list[Turn]:
    return [turns[(offset + i) % len(turns)] for i in range(n)]


def save_arguments(turn: Turn) -> dict[str, Any]:
    return {
        "summary": turn.text[:500],
        "content": turn.text,
        "entities": [{"name": turn.speaker, "type": "person"}],
        "timestamp": turn.timestamp.isoformat(),
    }


NOTE_CHARS = 300


def notes(turns: Sequence[Turn], n: int, offset: int) -> list[dict[str, Any]]:
    """``n`` batch items: consecutive turns joined to ~300 characters, the speakers as entities."""
    items: list[dict[str, Any]] = []
    i = offset
    while len(items) < n:
        parts: list[Turn] = []
        while sum(len(t.text) + 1 for t in parts) < NOTE_CHARS:
            parts.append(turns[i % len(turns)])
            i += 1
        speakers = list(dict.fromkeys(t.speaker for t in parts))
        items.append(
            {
                "content": " ".join(t.text for t in parts)[: NOTE_CHARS + 40],
                "entities": [{"name": name, "type": "person"} for name in speakers],
                "tags": ["locomo/notes", f"locomo/session-{parts[0].session}"],
                "source_id": f"locomo/{offset}/{len(items)}",
                "timestamp": parts[0].timestamp.isoformat(),
            }
        )
    return items


def single_arguments(item: dict[str, Any]) -> dict[str, Any]:
    """The same note through save_memory (summary = its first 500 characters)."""
    return {
        "summary": item["content"][:500],
        "content": item["content"],
        "entities": item["entities"],
        "tags": item["tags"],
        "timestamp": item["timestamp"],
    }


# --------------------------------------------------------------------------- set-up


def make_plan() -> None:
    from accounts.models import Plan
    from core.tenancy import tenant_context

    with tenant_context(enterprise_id=None, all_tenants=True, door="bench"):
        base = Plan.objects.get(slug="enterprise")
        Plan.objects.update_or_create(
            slug=BENCH_PLAN,
            defaults={
                "name": "Bench ingest",
                "max_memories_per_project": base.max_memories_per_project,
                "max_memories_per_workspace": base.max_memories_per_workspace,
                "max_memories_per_enterprise": base.max_memories_per_enterprise,
                "tool_calls_per_minute_per_project": 1_000_000,
            },
        )


@contextmanager
def worker(concurrency: int) -> Iterator[int]:
    """A real Celery worker (as ``manage.py serve`` starts one) on the bench's broker and queue; its pid."""
    from tests.live import worker_process

    with worker_process(concurrency=concurrency, prefix="bench", start_timeout=90) as (_, process):
        yield process.pid


# --------------------------------------------------------------------------- CPU accounting


CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _stat(pid: int) -> list[str] | None:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return raw[raw.rindex(")") + 2 :].split()  # fields from the state on (the name may hold spaces)


def cpu_seconds(root: int) -> float:
    """CPU seconds used by ``root`` and its descendants: the live ones, and the exited ones their
    parents reaped (``cutime``/``cstime``), e.g. PostgreSQL's per-connection backends."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (fields := _stat(int(entry.name))) is not None:
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        fields = _stat(pid)
        if fields is None:
            continue
        total += sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime
        stack.extend(children.get(pid, []))
    return total / CLOCK_TICKS


def pid_listening_on(port: int) -> int | None:
    """The process whose command line names ``--port <port>`` (the uvicorn server)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if (
            b"uvicorn" in b" ".join(argv)
            and b"--port" in argv
            and argv[argv.index(b"--port") + 1] == str(port).encode()
        ):
            return int(entry.name)
    return None


def postmaster_pid() -> int | None:
    pgdata = os.environ.get("MNEMOS_PGDATA")
    if not pgdata:
        return None
    try:
        return int((Path(pgdata) / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


@dataclass
class CpuMeter:
    """CPU seconds of the web server, PostgreSQL, the worker and this process (the clients)."""

    pids: dict[str, int]

    def read(self) -> dict[str, float]:
        out = {name: cpu_seconds(pid) for name, pid in self.pids.items()}
        out["clients"] = time.process_time()
        return out


# --------------------------------------------------------------------------- in process


def count_statements(secret: str, turns: Sequence[Turn], n: int) -> dict[str, Any]:
    """SQL statements and wall time per save through the tool door, in this process."""
    from django.db import connection

    from core.dispatch import tool_dispatch

    statements: list[str] = []

    def wrapper(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        statements.append(sql)
        return execute(sql, params, many, context)

    per_save: list[int] = []
    wall: list[float] = []
    cpu_start = time.process_time()
    with connection.execute_wrapper(wrapper):
        for turn in turns[:n]:
            before = len(statements)
            start = time.perf_counter()
            outcome = tool_dispatch(
                secret=secret, name="save_memory", arguments=save_arguments(turn), surface="rest"
            )
            wall.append((time.perf_counter() - start) * 1000)
            if outcome.error is not None:
                raise RuntimeError(f"save_memory: {outcome.error.message}")
            per_save.append(len(statements) - before)
    cpu_ms = (time.process_time() - cpu_start) * 1000 / max(1, len(per_save))
    last = statements[-per_save[-1] :] if per_save else []
    return {
        "saves": len(per_save),
        "python_cpu_ms_per_save": cpu_ms,
        "statements_per_save": {
            "min": min(per_save),
            "max": max(per_save),
            "mean": sum(per_save) / len(per_save),
        },
        "ms_per_save": latency_summary(wall),
        "last_save_statements": [" ".join(s.split())[:160] for s in last],
    }


def profile_saves(secret: str, turns: Sequence[Turn], n: int) -> list[dict[str, Any]]:
    """cProfile over ``n`` in-process saves: product functions by cumulative ms per save."""
    from core.dispatch import tool_dispatch

    profiler = cProfile.Profile()
    profiler.enable()
    for turn in turns[:n]:
        outcome = tool_dispatch(
            secret=secret, name="save_memory", arguments=save_arguments(turn), surface="rest"
        )
        if outcome.error is not None:
            raise RuntimeError(f"save_memory: {outcome.error.message}")
    profiler.disable()
    return product_functions(profiler, per=n, unit="save", top=25)


def profile_archivist(enterprise_id: uuid.UUID, n: int) -> dict[str, Any]:
    """The archivist's body in process over ``n`` memories without a vector, in the drain's batches:
    ms per memory, and the product functions by cumulative time (the Celery round trip is not in it)."""
    from django.db import transaction

    from core.tenancy import tenant_context
    from memory import tasks
    from memory.models import Memory

    with tenant_context(enterprise_id=enterprise_id, door="bench"):
        ids = [
            str(pk) for pk in Memory.objects.filter(embedding__isnull=True).values_list("pk", flat=True)[:n]
        ]
    body = getattr(tasks.archivist_process, "run", tasks.archivist_process)
    batch = tasks.ARCHIVIST_BATCH  # as the drain sends them
    profiler = cProfile.Profile()
    start = time.perf_counter()
    profiler.enable()
    for i in range(0, len(ids), batch):
        with tenant_context(enterprise_id=enterprise_id, door="bench"), transaction.atomic():
            body(enterprise_id=str(enterprise_id), memory_ids=ids[i : i + batch])
    profiler.disable()
    wall = time.perf_counter() - start
    rows = product_functions(profiler, per=len(ids), unit="memory", top=15)
    return {"memories": len(ids), "ms_per_memory": wall * 1000 / max(1, len(ids)), "profile": rows[:15]}


# --------------------------------------------------------------------------- vectors


# Which of the given memory ids have a vector.
Lookup = Callable[[list[str]], Iterable[str]]


@contextmanager
def orm_lookup(enterprise_id: uuid.UUID) -> Iterator[Lookup]:
    """A ``Lookup`` through the ORM in the bench enterprise's tenant context; closes the thread's connections."""
    from django.db import connections

    from core.tenancy import tenant_context
    from memory.models import Memory

    def lookup(waiting: list[str]) -> list[str]:
        with tenant_context(enterprise_id=enterprise_id, door="bench"):
            done = Memory.objects.filter(pk__in=waiting, embedding__isnull=False).values_list("pk", flat=True)
            return [str(pk) for pk in done]

    try:
        yield lookup
    finally:
        connections.close_all()


@dataclass
class VectorWatch:
    """Which saved memories have their vector yet, polled every ``POLL_S`` seconds on the thread that runs
    ``run``. ``looker`` is entered on that thread: it yields the ``Lookup`` and closes what it opened
    (``orm_lookup`` here; bench/archivist reads over the owner's socket)."""

    looker: Callable[[], AbstractContextManager[Lookup]]
    saved_at: dict[str, float] = field(default_factory=dict)  # event_id -> perf_counter at the response
    vector_at: dict[str, float] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    stop: threading.Event = field(default_factory=threading.Event)
    error: BaseException | None = None

    def saved(self, event_id: str, at: float) -> None:
        with self.lock:
            self.saved_at[event_id] = at

    def pending(self) -> list[str]:
        with self.lock:
            return [i for i in self.saved_at if i not in self.vector_at]

    def poll_once(self, lookup: Lookup) -> None:
        waiting = self.pending()
        if not waiting:
            return
        seen = list(lookup(waiting))
        now = time.perf_counter()
        with self.lock:
            for pk in seen:
                self.vector_at.setdefault(pk, now)

    def run(self) -> None:
        try:
            with self.looker() as lookup:
                while not self.stop.is_set():
                    self.poll_once(lookup)
                    time.sleep(POLL_S)
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread
            self.error = exc

    def wait_all(self, timeout_s: float) -> bool:
        deadline = time.perf_counter() + timeout_s
        while time.perf_counter() < deadline:
            if self.error is not None:
                raise self.error
            if not self.pending():
                return True
            time.sleep(POLL_S)
        return False


# --------------------------------------------------------------------------- HTTP


def run_config(
    base: str,
    tenant: BenchTenant,
    config: Config,
    turns: Sequence[Turn],
    *,
    saves: int,
    offset: int,
    watch: VectorWatch | None,
    vector_timeout: float,
    meter: CpuMeter,
) -> dict[str, Any]:
    slugs = list(tenant.projects)[: config.projects]
    stream = turn_stream(turns, saves, offset)
    shares = [stream[i :: config.clients] for i in range(config.clients)]
    latencies: list[float] = []
    retries = 0
    errors: list[BaseException] = []
    lock = threading.Lock()
    barrier = threading.Barrier(config.clients + 1)

    def work(index: int, mine: Sequence[Turn]) -> None:
        nonlocal retries
        api = Api(base)
        secret = tenant.projects[slugs[index % len(slugs)]].secret
        try:
            barrier.wait()
            for turn in mine:
                body, ms = api.tool(secret, "save_memory", save_arguments(turn))
                done = time.perf_counter()
                with lock:
                    latencies.append(ms)
                if watch is not None:
                    watch.saved(body["event_id"], done)
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread
            errors.append(exc)
        finally:
            with lock:
                retries += api.retries_429
            api.close()

    threads = [threading.Thread(target=work, args=(i, share)) for i, share in enumerate(shares)]
    for t in threads:
        t.start()
    load_before = load_avg()
    cpu_before = meter.read()
    barrier.wait()
    start = time.perf_counter()
    for t in threads:
        t.join()
    wall_s = time.perf_counter() - start
    cpu_saves = meter.read()
    if errors:
        raise errors[0]
    n = max(1, len(latencies))
    cpu_ms = {k: (cpu_saves[k] - cpu_before[k]) * 1000 / n for k in cpu_saves}
    result: dict[str, Any] = {
        "clients": config.clients,
        "projects": config.projects,
        "saves": len(latencies),
        "wall_s": wall_s,
        "memories_per_s": len(latencies) / wall_s,
        "latency_ms": latency_summary(latencies),
        "retries_429": retries,
        "load_avg_before": load_before,
        "load_avg_after": load_avg(),
        # CPU per save while the saves ran, by process group (PostgreSQL's includes the archivist's
        # queries when the worker runs); the bound is what two dedicated cores would allow for the
        # web server and the database alone.
        "cpu_ms_per_save": cpu_ms,
        "two_core_bound_saves_per_s": 2000 / max(1e-9, cpu_ms.get("web", 0) + cpu_ms.get("postgres", 0)),
    }
    print(
        f"  {config.label}: {len(latencies)} saves in {wall_s:.1f} s = {result['memories_per_s']:.1f} memories/s; "
        f"save {fmt_ms(result['latency_ms'])}; 429 retries {retries}; load {load_avg():.1f}; CPU ms per save "
        + ", ".join(f"{k} {v:.1f}" for k, v in cpu_ms.items())
        + f" (two-core bound {result['two_core_bound_saves_per_s']:.0f}/s)",
        flush=True,
    )
    if watch is not None:
        complete = watch.wait_all(vector_timeout)
        with watch.lock:
            ids = [i for i in watch.saved_at if i in watch.vector_at]
            delays = [(watch.vector_at[i] - watch.saved_at[i]) * 1000 for i in ids]
            last_vector = max((watch.vector_at[i] for i in ids), default=float("nan"))
            missing = len(watch.saved_at) - len(ids)
            watch.saved_at.clear()
            watch.vector_at.clear()
        span = last_vector - start
        cpu_end = meter.read()
        worker_ms = (cpu_end.get("worker", 0) - cpu_before.get("worker", 0)) * 1000 / max(1, len(ids))
        result["archivist"] = {
            "worker_cpu_ms_per_memory": worker_ms,
            "complete": complete,
            "missing_vectors": missing,
            "embedded": len(ids),
            "span_s": span,
            "embeddings_per_s": len(ids) / span if span > 0 else float("nan"),
            "drain_after_last_save_s": last_vector - (start + wall_s),
            "time_to_vector_ms": latency_summary(delays),
        }
        a = result["archivist"]
        print(
            f"    archivist: {a['embedded']} vectors, {a['embeddings_per_s']:.1f}/s over {span:.1f} s "
            f"(drain {a['drain_after_last_save_s']:.1f} s after the last save); save->vector "
            f"p50 {pct(delays, 50):.0f} / p95 {pct(delays, 95):.0f} ms; worker CPU {worker_ms:.0f} ms per memory"
            + ("" if complete else f"; {missing} still without a vector after {vector_timeout:.0f} s"),
            flush=True,
        )
    return result


def run_batches(
    base: str,
    tenant: BenchTenant,
    turns: Sequence[Turn],
    *,
    batches: int,
    size: int,
    singles: int,
    meter: CpuMeter,
) -> dict[str, Any]:
    """Single saves, then batches of the same kind of note, one client each, in this server."""
    api = Api(base)
    out: dict[str, Any] = {}
    try:
        phases = (
            ("single", tenant.projects["p1"].secret, [[n] for n in notes(turns, singles, 0)]),
            (
                "batch",
                tenant.projects["p2" if "p2" in tenant.projects else "p1"].secret,
                [notes(turns, size, (b + 1) * 100_000) for b in range(batches)],
            ),
        )
        for phase, secret, calls in phases:
            latencies: list[float] = []
            saved = 0
            cpu_before = meter.read()
            start = time.perf_counter()
            for items in calls:
                if phase == "single":
                    body, ms = api.tool(secret, "save_memory", single_arguments(items[0]))
                    saved += 1
                else:
                    body, ms = api._send("POST", "/v1/memories:batch", secret, json={"items": items})
                    statuses = {r["status"] for r in body["results"]}
                    if statuses != {"created"}:
                        raise RuntimeError(f"batch: not all created: {statuses}")
                    saved += len(body["results"])
                latencies.append(ms)
            wall_s = time.perf_counter() - start
            cpu_after = meter.read()
            cpu_ms = {k: (cpu_after[k] - cpu_before[k]) * 1000 / max(1, saved) for k in cpu_after}
            out[phase] = {
                "calls": len(calls),
                "memories": saved,
                "wall_s": wall_s,
                "memories_per_s": saved / wall_s,
                "call_latency_ms": latency_summary(latencies),
                "cpu_ms_per_memory": cpu_ms,
                # What two cores of their own would allow the server, the database and the worker.
                "two_core_bound_per_s": 2000
                / max(1e-9, sum(v for k, v in cpu_ms.items() if k in ("web", "postgres", "worker"))),
            }
            print(
                f"  {phase}: {saved} memories in {len(calls)} calls, {wall_s:.1f} s = "
                f"{saved / wall_s:.1f} memories/s; call {fmt_ms(latency_summary(latencies))}; CPU ms per memory "
                + ", ".join(f"{k} {v:.2f}" for k, v in cpu_ms.items())
                + f" (two-core bound {out[phase]['two_core_bound_per_s']:.0f}/s); load {load_avg():.1f}",
                flush=True,
            )
    finally:
        api.close()
    out["speedup"] = out["batch"]["memories_per_s"] / out["single"]["memories_per_s"]
    from core.tenancy import tenant_context
    from memory.models import Memory

    with tenant_context(enterprise_id=tenant.enterprise_id, door="bench"):
        out["waiting_for_the_archivist_after"] = Memory.objects.filter(embedding__isnull=True).count()
    print(
        f"  batch / single: {out['speedup']:.1f}x; memories still without a vector: "
        f"{out['waiting_for_the_archivist_after']}",
        flush=True,
    )
    return out


def vector_channel_check(base: str, tenant: BenchTenant, sample: int, seed: int) -> dict[str, Any]:
    """Memories, searched with their own text, come back from the vector channel."""
    from core.tenancy import tenant_context
    from memory.models import Memory

    with tenant_context(enterprise_id=tenant.enterprise_id, door="bench"):
        rows = list(Memory.objects.filter(embedding__isnull=False).values_list("pk", "project_id", "content"))
    secret_of = {p.project_id: p.secret for p in tenant.projects.values()}
    rows = [r for r in rows if r[1] in secret_of]
    random.Random(seed).shuffle(rows)
    api = Api(base)
    found = 0
    try:
        for pk, project_id, content in rows[:sample]:
            body, _ = api.tool(secret_of[project_id], "search_memory", {"query": content[:300], "top_k": 10})
            found += any(h["event_id"] == str(pk) and "vector" in h["channels"] for h in body["hits"])
    finally:
        api.close()
    return {"checked": min(sample, len(rows)), "found_by_vector": found}


# --------------------------------------------------------------------------- main


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--saves", type=int, default=2000, help="saves per config (default 2000)")
    parser.add_argument(
        "--configs",
        default="1x1,4x1,4x4,8x8",
        help="CxP: C clients into P projects (default 1x1,4x1,4x4,8x8)",
    )
    parser.add_argument("--broker", default=None, help="CELERY_BROKER_URL (default: the filesystem broker)")
    parser.add_argument("--worker-concurrency", type=int, default=1)
    parser.add_argument(
        "--db-pool",
        type=int,
        default=8,
        help="MNEMOS_DB_POOL for the web server: its connection pool's size (0: a connection per request)",
    )
    parser.add_argument("--no-worker", action="store_true", help="saves only, no archivist")
    parser.add_argument("--batches", type=int, default=0, help="batch calls after the configs (0: none)")
    parser.add_argument("--batch-size", type=int, default=500, help="items per batch call (default 500)")
    parser.add_argument(
        "--batch-singles", type=int, default=1000, help="single saves measured beside the batches"
    )
    parser.add_argument("--profile", type=int, default=200, help="in-process saves profiled (0: none)")
    parser.add_argument("--vector-timeout", type=float, default=900.0)
    parser.add_argument("--check", type=int, default=30, help="memories checked in the vector channel")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args(argv)
    configs = parse_configs(args.configs)

    wall = time.perf_counter()
    convs, _ = load(args.data)
    turns = [t for c in convs for t in c.turns]
    if args.broker:
        os.environ["CELERY_BROKER_URL"] = args.broker
        os.environ["MNEMOS_CELERY_QUEUE"] = (
            f"mnemos-bench-{uuid.uuid4().hex[:8]}"  # private on a shared broker
        )
    setup_django()
    db_s = prepare_database()
    make_plan()
    projects = max([c.projects for c in configs] + [2 if args.batches else 1])
    tenant = build_tenant(
        slug=f"ingest-{uuid.uuid4().hex[:6]}",
        project_slugs=[f"p{i + 1}" for i in range(projects)] + ["profile"],
        plan=BENCH_PLAN,
    )
    profile_secret = tenant.projects.pop("profile").secret
    print(
        f"cluster + migrations {db_s:.1f} s; {len(turns)} LoCoMo turns; {os.cpu_count()} cores; "
        f"broker {'filesystem' if not args.broker else args.broker}; load {load_avg():.2f}",
        flush=True,
    )
    summary: dict[str, Any] = {
        "settings": vars(args) | {"data": str(args.data)},
        "cores": os.cpu_count(),
        "configs": {},
    }
    if args.profile:
        # Warm-up (imports, the guard's compiled patterns), then counted and profiled saves.
        count_statements(profile_secret, turns[-20:], 20)
        counted = count_statements(profile_secret, turns, args.profile)
        summary["in_process"] = counted
        print(
            f"in process: {counted['statements_per_save']['mean']:.1f} statements per save "
            f"({counted['statements_per_save']['min']}-{counted['statements_per_save']['max']}); "
            f"{fmt_ms(counted['ms_per_save'])}; this process's CPU {counted['python_cpu_ms_per_save']:.1f} ms per save",
            flush=True,
        )
        summary["profile"] = profile_saves(profile_secret, turns[args.profile :], args.profile)
        for row in summary["profile"][:14]:
            print(f"  {row['ms_per_save']:7.2f} ms  {row['function']}", flush=True)
        archivist = profile_archivist(tenant.enterprise_id, min(100, args.profile))
        summary["archivist_in_process"] = archivist
        print(f"archivist in process: {archivist['ms_per_memory']:.1f} ms per memory", flush=True)
        for row in archivist["profile"][:10]:
            print(f"  {row['ms_per_memory']:7.2f} ms  {row['function']}", flush=True)
        write_summary(summary)

    watch = None if args.no_worker else VectorWatch(functools.partial(orm_lookup, tenant.enterprise_id))
    poller = threading.Thread(target=watch.run, daemon=True) if watch else None
    with (
        web_server({"MNEMOS_DB_POOL": str(args.db_pool)}) as base,
        worker(args.worker_concurrency) if watch else _nothing() as worker_pid,
    ):
        pids = {"web": pid_listening_on(int(base.rsplit(":", 1)[1])), "postgres": postmaster_pid()}
        if worker_pid is not None:
            pids["worker"] = worker_pid
        meter = CpuMeter({k: v for k, v in pids.items() if v is not None})
        print(f"processes: {json.dumps(pids)}", flush=True)
        if poller is not None:
            poller.start()
        # Warm the web server (imports, the embedder is not loaded there).
        api = Api(base)
        api.tool(tenant.projects["p1"].secret, "save_memory", save_arguments(turns[0]))
        api.close()
        if watch is not None:
            watch.wait_all(120)
        offset = 1
        for config in configs:
            result = run_config(
                base,
                tenant,
                config,
                turns,
                saves=args.saves,
                offset=offset,
                watch=watch,
                vector_timeout=args.vector_timeout,
                meter=meter,
            )
            offset += args.saves
            summary["configs"][f"{config.clients}x{config.projects}"] = result
            write_summary(summary)
        if args.batches:
            print(
                f"batch writes: {args.batches} x {args.batch_size} beside {args.batch_singles} single saves"
            )
            summary["batch"] = run_batches(
                base,
                tenant,
                turns,
                batches=args.batches,
                size=args.batch_size,
                singles=args.batch_singles,
                meter=meter,
            )
            write_summary(summary)
        if watch is not None:
            watch.stop.set()
            summary["vector_channel"] = vector_channel_check(base, tenant, args.check, args.seed)
            print(f"vector channel: {json.dumps(summary['vector_channel'])}", flush=True)
    summary["wall_s"] = time.perf_counter() - wall
    path = write_summary(summary)
    print(f"summary in {path.relative_to(ROOT)}; wall {summary['wall_s']:.0f} s", flush=True)
    return 0


def write_summary(summary: dict[str, Any]) -> Path:
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"summary-{summary.setdefault('started', time.strftime('%Y%m%d-%H%M%S'))}.json"
    path.write_text(json.dumps(summary, indent=1, default=str), encoding="utf-8")
    return path


@contextmanager
def _nothing() -> Iterator[None]:
    yield None


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
