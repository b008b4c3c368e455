"""What the API benchmarks share: a throwaway cluster, a bench tenant, an HTTP client, percentiles.

``setup_django()`` must run before anything imports a Django model: it selects
``config.settings_test`` (throwaway embedded PostgreSQL + pgvector, a private filesystem broker),
so the web server and the worker started from here attach to the same cluster and broker.
"""

from __future__ import annotations

import math
import os
import sys
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]


def setup_django() -> None:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings_test")
    import django

    django.setup()


def prepare_database() -> float:
    """Create the roles, the database and the schema (migrations as the owner role); seconds taken."""
    from django.core.management import call_command

    from core.bootstrap import bootstrap_database

    start = time.perf_counter()
    bootstrap_database()
    call_command("migrate", verbosity=0)
    return time.perf_counter() - start


@dataclass
class BenchProject:
    slug: str
    project_id: uuid.UUID
    key_id: uuid.UUID
    secret: str


@dataclass
class BenchTenant:
    enterprise_id: uuid.UUID
    member_id: int
    team_id: int
    plan: str
    projects: dict[str, BenchProject] = field(default_factory=dict)


def build_tenant(
    *, slug: str, project_slugs: Sequence[str], plan: str = "enterprise", with_team: bool = True
) -> BenchTenant:
    """One enterprise on ``plan``, one admin member with no Main target (saves go to the key's
    project), one project and one all-scope access key per slug."""
    from django.contrib.auth.models import User

    from accounts.models import OrgRole, Plan
    from accounts.services.enterprises import enterprise_create, member_add, project_create, team_create
    from accounts.services.keys import access_key_create
    from core.tenancy import tenant_context

    with tenant_context(enterprise_id=None, all_tenants=True, door="bench"):
        enterprise = enterprise_create(slug=slug, name=f"Bench {slug}", plan=Plan.objects.get(slug=plan))
    user = User.objects.create_user(username=f"{slug}-agent", email=f"{slug}@bench.invalid")
    with tenant_context(enterprise_id=enterprise.pk, door="bench"):
        team = team_create(enterprise=enterprise, slug="bench", name="Bench")
        member = member_add(
            enterprise=enterprise, user=user, org_role=OrgRole.ADMIN, teams=[team] if with_team else []
        )
        tenant = BenchTenant(enterprise_id=enterprise.pk, member_id=member.pk, team_id=team.pk, plan=plan)
        for project_slug in project_slugs:
            project = project_create(enterprise=enterprise, slug=project_slug, name=project_slug, team=team)
            key, secret = access_key_create(member=member, project=project, label=f"bench {project_slug}")
            tenant.projects[project_slug] = BenchProject(
                slug=project_slug, project_id=project.pk, key_id=key.pk, secret=secret
            )
    return tenant


class ApiError(RuntimeError):
    """A call that did not succeed: the HTTP status and the error body's ``code`` (when it gave one)."""

    def __init__(self, message: str, *, status: int | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.status, self.code = status, code


class Api:
    """A keep-alive HTTP client for the public REST surface; every call returns (json, ms)."""

    def __init__(self, base_url: str, *, timeout: float = 120.0) -> None:
        self.client = httpx.Client(base_url=base_url, timeout=timeout)
        self.retries_429 = 0

    def close(self) -> None:
        self.client.close()

    def _send(self, method: str, path: str, secret: str, **kwargs: Any) -> tuple[dict[str, Any], float]:
        headers = {"Authorization": f"Bearer {secret}"}
        for attempt in range(20):
            start = time.perf_counter()
            response = self.client.request(method, path, headers=headers, **kwargs)
            elapsed = (time.perf_counter() - start) * 1000
            if response.status_code == 429 and attempt < 19:
                # The plan's per-project call window: count it and wait for the next minute to open.
                self.retries_429 += 1
                time.sleep(1.0)
                continue
            if response.status_code != 200:
                try:
                    code = response.json().get("code")
                except ValueError:
                    code = None
                raise ApiError(
                    f"{method} {path} -> {response.status_code}: {response.text[:300]}",
                    status=response.status_code,
                    code=code if isinstance(code, str) else None,
                )
            body: dict[str, Any] = response.json()
            return body, elapsed
        raise ApiError(f"{method} {path}: still rate-limited after 20 tries")

    def tool(self, secret: str, name: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], float]:
        return self._send("POST", f"/v1/tools/{name}", secret, json=arguments)

    def get(self, secret: str, path: str, params: dict[str, str]) -> tuple[dict[str, Any], float]:
        return self._send("GET", path, secret, params=params)


def cpu_model() -> str:
    """The CPU's model name as Linux reports it, for a bench's summary ("unknown" elsewhere)."""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def pct(samples: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100); nan when empty."""
    ordered = sorted(samples)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q / 100 * len(ordered)) - 1))]


def latency_summary(samples: Sequence[float]) -> dict[str, float]:
    return {
        "n": float(len(samples)),
        "p50": pct(samples, 50),
        "p95": pct(samples, 95),
        "p99": pct(samples, 99),
        "mean": sum(samples) / len(samples) if samples else float("nan"),
    }


def fmt_ms(summary: dict[str, float]) -> str:
    return f"p50 {summary['p50']:.1f} / p95 {summary['p95']:.1f} / p99 {summary['p99']:.1f} ms"


def product_functions(profiler: Any, *, per: int, unit: str, top: int) -> list[dict[str, Any]]:
    """The product's own functions (not the venv, not the benches) by cumulative time, in ms per ``unit``."""
    import pstats

    stats: dict[Any, Any] = getattr(pstats.Stats(profiler), "stats")  # noqa: B009 - untyped in typeshed
    key = f"ms_per_{unit}"
    rows = [
        {"function": f"{Path(path).relative_to(ROOT)}:{line}({func})", key: cumulative * 1000 / max(1, per)}
        for (path, line, func), (_cc, _nc, _tt, cumulative, _callers) in stats.items()
        if str(ROOT) in path and ".venv" not in path and "/bench/" not in path
    ]
    rows.sort(key=lambda r: -r[key])
    return rows[:top]
