"""Search latency of two checkouts, paired query by query, on one held 100k cluster.

Whole-bench runs minutes apart cannot resolve a 5 ms change on a noisy two-core machine; this can.
Hold a cluster first (``.venv/bin/python -m bench.scale.run --sizes 100000 --hold``), put the code to
compare beside it (``git worktree add /tmp/old <commit>`` and a symlink to this ``.venv``), then::

    .venv/bin/python -m bench.scale.paired /tmp/old . --queries 300

Each checkout serves the held cluster from its own uvicorn (three workers, a pool of 8, as ``serve``);
every LoCoMo question is searched on both, the order alternating, and the latencies and the paired
difference are printed.

``--saves N`` measures saves instead: ``--rounds`` rounds, each sending N LoCoMo turns through
``save_memory`` with 8 clients to one server, then the other (the order alternating), and reading the
web processes' CPU time (user + system, all of a server's processes) before and after each: the web
CPU a save and the save latency, per side and paired by round. Both sides add the same memories.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench.ingest.run import save_arguments
from bench.locomo.data import DEFAULT_DATA, load

OUT = Path(__file__).resolve().parent.parent / "out" / "scale"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(checkout: Path, pgdata: str) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "MNEMOS_PGDATA": pgdata,
        "DJANGO_SETTINGS_MODULE": "config.settings_test",
        "MNEMOS_DB_POOL": "8",
        "PYTHONUNBUFFERED": "1",
        "MNEMOS_PUBLIC_URL": base,
    }
    command = [str(checkout / ".venv" / "bin" / "python"), "-m", "uvicorn", "config.asgi:application"]
    command += ["--host", "127.0.0.1", "--port", str(port), "--log-level", "warning", "--workers", "3"]
    process = subprocess.Popen(command, cwd=checkout, env=env, start_new_session=True)
    for _ in range(240):
        if process.poll() is not None:
            raise SystemExit(f"the web server of {checkout} exited during start-up")
        try:
            urllib.request.urlopen(f"{base}/v1/schema/", timeout=2).close()
            break
        except urllib.error.HTTPError:
            break
        except OSError:
            time.sleep(0.5)
    return process, base


def _search(base: str, secret: str, query: str) -> float:
    request = urllib.request.Request(
        f"{base}/v1/tools/search_memory",
        data=json.dumps({"query": query, "top_k": 10}).encode(),
        headers={"Authorization": f"Bearer {secret}", "Content-Type": "application/json"},
    )
    start = time.perf_counter()
    body = urllib.request.urlopen(request, timeout=60).read()
    ms = (time.perf_counter() - start) * 1000
    if not json.loads(body)["hits"]:
        raise SystemExit(f"{base}: no hits for {query!r}")
    return ms


def _save(base: str, secret: str, arguments: dict[str, object]) -> float:
    request = urllib.request.Request(
        f"{base}/v1/tools/save_memory",
        data=json.dumps(arguments).encode(),
        headers={"Authorization": f"Bearer {secret}", "Content-Type": "application/json"},
    )
    start = time.perf_counter()
    try:
        body = json.loads(urllib.request.urlopen(request, timeout=60).read())
    except urllib.error.HTTPError as exc:
        if exc.code != 422:
            raise
        # A turn the guard refuses (one of LoCoMo's 5,882 with session 34's weights): timed as any answer.
        print(f"{base}: save refused: {exc.read().decode()[:200]}", flush=True)
        return (time.perf_counter() - start) * 1000
    if not body.get("event_id"):
        raise SystemExit(f"{base}: save answered {body}")
    return (time.perf_counter() - start) * 1000


def _cpu_seconds(session: int) -> float:
    """User + system CPU of every process in a server's session (uvicorn's supervisor and workers)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # After the command: state, ppid, pgrp, session, ..., utime (12th), stime (13th).
        if int(fields[3]) == session:
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def _saves(
    servers: Sequence[tuple[subprocess.Popen[bytes], str]], secret: str, per_round: int, rounds: int
) -> None:
    conversations, _ = load(DEFAULT_DATA)
    turns = [turn for c in conversations for turn in c.turns]
    random.Random(7).shuffle(turns)
    cpu: list[list[float]] = [[], []]
    latency: list[list[float]] = [[], []]
    with ThreadPoolExecutor(max_workers=8) as clients:
        # Warm-up: each server's processes have loaded what a save needs.
        for _, base in servers:
            list(clients.map(lambda turn, base=base: _save(base, secret, save_arguments(turn)), turns[:40]))
        offset = 40
        for r in range(rounds):
            for side in (0, 1) if r % 2 == 0 else (1, 0):
                process, base = servers[side]
                batch = turns[offset : offset + per_round]
                offset += per_round
                before = _cpu_seconds(process.pid)
                times = list(
                    clients.map(lambda turn, base=base: _save(base, secret, save_arguments(turn)), batch)
                )
                cpu[side].append((_cpu_seconds(process.pid) - before) * 1000 / len(batch))
                latency[side].extend(times)
    for side in (0, 1):
        print(f"side {side + 1}: web CPU a save, by round: {' '.join(f'{c:.1f}' for c in cpu[side])} ms")
        print(f"side {side + 1}: save latency {_summary(latency[side])}")
    differences = sorted(a - b for a, b in zip(cpu[0], cpu[1], strict=True))
    print(
        f"paired web CPU a save (first - second), by round: median {differences[len(differences) // 2]:.2f} ms"
    )


def _summary(values: Sequence[float]) -> str:
    ordered = sorted(values)
    n = len(ordered)
    return (
        f"p50 {ordered[n // 2]:.1f} / p95 {ordered[int(n * 0.95)]:.1f} / p99 {ordered[int(n * 0.99)]:.1f}"
        f" / mean {statistics.mean(ordered):.1f} ms"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("first", type=Path, help="a checkout (with .venv) to serve")
    parser.add_argument("second", type=Path, help="the other checkout")
    parser.add_argument("--queries", type=int, default=300, help="measured queries (after 30 warm-up)")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--saves", type=int, default=0, help="measure saves: this many a round and side")
    parser.add_argument("--rounds", type=int, default=8, help="with --saves: rounds, the order alternating")
    args = parser.parse_args(argv)
    hold = json.loads((OUT / "hold.json").read_text(encoding="utf-8"))
    conversations, _ = load(DEFAULT_DATA)
    queries = [q.text for c in conversations for q in c.questions]
    random.Random(args.seed).shuffle(queries)
    names = [str(args.first), str(args.second)]
    servers = [_serve(path.resolve(), hold["MNEMOS_PGDATA"]) for path in (args.first, args.second)]
    if args.saves:
        try:
            print(f"side 1 = {names[0]}, side 2 = {names[1]}")
            _saves(servers, hold["secret"], args.saves, args.rounds)
        finally:
            for process, _ in servers:
                os.killpg(process.pid, 15)
        return 0
    try:
        for query in queries[:30]:
            for _, base in servers:
                _search(base, hold["secret"], query)
        times: list[list[float]] = [[], []]
        for i, query in enumerate(queries[30 : 30 + args.queries]):
            for side in (0, 1) if i % 2 == 0 else (1, 0):
                times[side].append(_search(servers[side][1], hold["secret"], query))
    finally:
        for process, _ in servers:
            os.killpg(process.pid, 15)
    for name, values in zip(names, times, strict=True):
        print(f"{name}: {_summary(values)}")
    differences = sorted(a - b for a, b in zip(times[0], times[1], strict=True))
    print(f"paired difference (first - second): median {differences[len(differences) // 2]:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
