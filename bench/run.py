"""Benchmarks: `make bench`. Figures go to bench/RESULTS.md by hand, with this command.

Runs on a throwaway embedded cluster (config.settings_test), as the app role with RLS live.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings_test")

import django

django.setup()

from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402

from core.bootstrap import bootstrap_database  # noqa: E402


def _timed(fn: Callable[[], object], n: int) -> list[float]:
    samples = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def _report(name: str, samples: list[float]) -> None:
    samples.sort()
    p95 = samples[int(len(samples) * 0.95) - 1]
    print(f"{name:<46} n={len(samples):<5} p50={statistics.median(samples):7.2f} ms  p95={p95:7.2f} ms")


def bench_rest_auth(n: int = 500) -> None:
    from tests.conftest import build_world

    world = build_world(suffix=f"-bench-{uuid.uuid4().hex[:6]}")
    _, secret = world.alice.keys[world.a.enterprise.slug]
    client = Client()
    headers = {"Authorization": f"Bearer {secret}"}
    for _ in range(20):
        client.get("/v1/whoami", headers=headers)
    _report(
        "REST GET /v1/whoami (key auth + tenant + RLS)",
        _timed(lambda: client.get("/v1/whoami", headers=headers), n),
    )
    _report(
        "REST GET /v1/audit-events?limit=100",
        _timed(lambda: client.get("/v1/audit-events?limit=100", headers=headers), n // 5),
    )


def bench_refusals(n: int = 100) -> None:
    """Bad input costs a clear error and no more (issue 16: a 100,000-character query refused in < 50 ms)."""
    import json

    from tests.conftest import build_world

    world = build_world(suffix=f"-bench-{uuid.uuid4().hex[:6]}")
    _, secret = world.alice.keys[world.a.enterprise.slug]
    client = Client()
    headers = {"Authorization": f"Bearer {secret}"}

    def tool(name: str, body: str) -> Callable[[], object]:
        def call() -> object:
            response = client.post(
                f"/v1/tools/{name}", data=body, content_type="application/json", headers=headers
            )
            assert 400 <= response.status_code < 500, response.status_code
            return response

        return call

    long_query = json.dumps({"query": "why " * 25_000})
    cases = {
        "search_memory, a 100,000-character query": tool("search_memory", long_query),
        "memory.ask, a 100,000-character purpose": tool(
            "memory.ask", json.dumps({"purpose": "why " * 25_000})
        ),
        "save_memory, 3,000 entities": tool(
            "save_memory",
            json.dumps(
                {
                    "summary": "s",
                    "content": "c",
                    "entities": [{"name": f"e{i}", "type": "thing"} for i in range(3000)],
                }
            ),
        ),
        "any tool, JSON nested 10,000 deep": tool("search_memory", "[" * 10_000 + "]" * 10_000),
        "any tool, a NUL in an argument": tool("search_memory", json.dumps({"query": "a\u0000b"})),
    }
    for name, call in cases.items():
        call()
        _report(f"refused: {name}", _timed(call, n))


def main() -> None:
    bootstrap_database()
    call_command("migrate", verbosity=0)
    bench_rest_auth()
    bench_refusals()


if __name__ == "__main__":
    main()
