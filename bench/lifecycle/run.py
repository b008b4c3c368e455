"""Import and export at scale (issue 20): a Mem0 export of N memories imported end to end, the project
exported again (Mnemos JSONL), and that export imported into a second project.

    .venv/bin/python -m bench.lifecycle.run [--memories 100000] [--chunk 500]

On a throwaway embedded cluster (config.settings_test), RLS live: one enterprise on a bench plan (the
``enterprise`` plan with room for the memories), one admin member, projects ``mem0``, ``mnemos``.

1. Mem0 import: a synthetic Mem0 export (``{"results": [...]}``: a ~120-character memory, user_id,
   agent_id, run_id, metadata, two categories, created_at/updated_at, hash) of N memories, through
   ``import_request`` (stored, read into items.jsonl, counted) and then every chunk in this process,
   a transaction each (``import_run_here``: what ``manage.py memory_import`` runs and what each job
   runs on a worker): the one batch write path with Memory Guard on every item. Reported: the request
   (store + read) and the chunks, total time, memories/s. The archivist's jobs wait in the outbox
   (no worker runs here: embedding is the archivist's lag, not the import's).
2. Export of that project: ``export_write`` (the export job's writer) to a file: time and MB.
3. Mnemos import of that file into project ``mnemos`` (restoring the stored fields): time, memories/s.

A JSON summary goes to bench/out/lifecycle/ (git-ignored); figures in bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.locomo.harness import ROOT, build_tenant, prepare_database, setup_django

OUT = ROOT / "bench" / "out" / "lifecycle"
BENCH_PLAN = "bench-lifecycle"
SERVICES = ["billing", "search", "payments", "identity", "reports", "mobile", "gateway", "ledger"]
TEAMS = ["platform", "data", "growth", "security", "core", "edge"]
FACTS = [
    "{service} is owned by the {team} team and pages {who} first.",
    "{who} prefers that {service} deploys happen before noon on weekdays.",
    "The {service} runbook lives in the {team} wiki; {who} reviewed it last.",
    "{who} said the {service} latency budget is {n} ms at p95.",
    "Incidents on {service} are reported to {who} and the {team} channel.",
]


def mem0_export(n: int, path: Path) -> None:
    rng = random.Random(20)
    start = datetime(2024, 1, 1, tzinfo=UTC)
    users = [f"user-{i}" for i in range(200)]
    results = []
    for i in range(n):
        service, team, who = rng.choice(SERVICES), rng.choice(TEAMS), rng.choice(users)
        text = rng.choice(FACTS).format(service=service, team=team, who=who, n=rng.randint(50, 900))
        created = start + timedelta(minutes=7 * i)
        results.append(
            {
                "id": str(uuid.UUID(int=rng.getrandbits(128))),
                "memory": f"{text} (note {i})",
                "user_id": who,
                "agent_id": f"agent-{team}",
                "run_id": f"run-{i // 20}",
                "metadata": {"channel": rng.choice(["chat", "email", "ticket"])},
                "categories": [service, "work"],
                "created_at": created.isoformat(),
                "updated_at": (created + timedelta(hours=1)).isoformat(),
                "hash": f"{rng.getrandbits(64):016x}",
            }
        )
    path.write_text(json.dumps({"results": results}, indent=1))


def _import(tenant: Any, project_slug: str, fmt: str, source: Path) -> dict[str, Any]:
    from accounts.models import Member, Project
    from core.tenancy import tenant_context
    from memory.services.imports import import_request, import_run_here

    start = time.perf_counter()
    with tenant_context(enterprise_id=tenant.enterprise_id, door="bench"):
        member = Member.objects.get(pk=tenant.member_id)
        project = Project.objects.get(slug=project_slug)
        data_import = import_request(member=member, project=project, format=fmt, source=source, start=False)
    requested = time.perf_counter() - start
    done = import_run_here(
        import_id=str(data_import.pk), enterprise_id=str(tenant.enterprise_id), progress=lambda _: None
    )
    total = time.perf_counter() - start
    assert done.state == "done", done.error
    return {
        "format": fmt,
        "items": done.total,
        "created": done.created,
        "rejected": done.rejected,
        "errors": done.errors,
        "request_s": round(requested, 1),
        "chunks_s": round(total - requested, 1),
        "total_s": round(total, 1),
        "memories_per_s": round(done.created / total, 1),
    }


def _export(tenant: Any, project_slug: str, path: Path) -> dict[str, Any]:
    from django.utils import timezone

    from accounts.models import Project
    from core.tenancy import tenant_context
    from memory.services.export_writer import ExportSpec, export_write

    start = time.perf_counter()
    with tenant_context(enterprise_id=tenant.enterprise_id, door="bench"), path.open("wb") as out:
        project = Project.objects.get(slug=project_slug)
        spec = ExportSpec(
            scope="project", enterprise_id=tenant.enterprise_id, project_id=project.pk, cutoff=timezone.now()
        )
        digest = export_write(out, spec=spec)
    seconds = time.perf_counter() - start
    return {
        "memories": digest.counts.get("memory", 0),
        "lines": digest.lines + 1,
        "seconds": round(seconds, 1),
        "mb": round(path.stat().st_size / 1024**2, 1),
        "memories_per_s": round(digest.counts.get("memory", 0) / seconds, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--chunk", type=int, default=500, help="items per import transaction")
    args = parser.parse_args()
    os.environ["MNEMOS_IMPORT_CHUNK"] = str(args.chunk)
    work = Path(tempfile.mkdtemp(prefix="mnemos-lifecycle-"))
    os.environ.setdefault("MNEMOS_LIFECYCLE_DIR", str(work / "lifecycle"))
    setup_django()
    db_s = prepare_database()
    from accounts.models import Plan
    from core.tenancy import tenant_context

    with tenant_context(enterprise_id=None, all_tenants=True, door="bench"):
        Plan.objects.update_or_create(
            slug=BENCH_PLAN,
            defaults={
                "name": "Bench lifecycle",
                "max_memories_per_project": 10 * args.memories,
                "max_memories_per_workspace": 10 * args.memories,
                "max_memories_per_enterprise": 10 * args.memories,
                "tool_calls_per_minute_per_project": 1_000_000,
            },
        )
    tenant = build_tenant(
        slug=f"lifecycle-{uuid.uuid4().hex[:6]}", project_slugs=["mem0", "mnemos"], plan=BENCH_PLAN
    )
    print(f"cluster + migrations {db_s:.1f} s; {os.cpu_count()} cores; {args.memories} memories", flush=True)
    source = work / "mem0.json"
    mem0_export(args.memories, source)
    print(f"Mem0 export written: {source.stat().st_size / 1024**2:.1f} MB", flush=True)
    summary: dict[str, Any] = {"settings": vars(args), "cores": os.cpu_count()}
    summary["mem0_import"] = _import(tenant, "mem0", "mem0", source)
    print(f"Mem0 import: {summary['mem0_import']}", flush=True)
    exported = work / "export.jsonl"
    summary["export"] = _export(tenant, "mem0", exported)
    print(f"export: {summary['export']}", flush=True)
    summary["mnemos_import"] = _import(tenant, "mnemos", "mnemos", exported)
    print(f"Mnemos import: {summary['mnemos_import']}", flush=True)
    OUT.mkdir(parents=True, exist_ok=True)
    out = OUT / f"lifecycle-{datetime.now(UTC):%Y%m%dT%H%M%S}.json"
    out.write_text(json.dumps(summary, indent=2))
    print(f"summary: {out}")


if __name__ == "__main__":
    main()
