"""Export of a large enterprise (issue 20): the job's path and the command's, timed and sized.

    .venv/bin/python -m bench.export.run [--memories 100000] [--vectors]

On a throwaway embedded cluster (config.settings_test): one enterprise, one project, ``--memories``
memories inserted in bulk (the write path is bench/ingest's subject, not this one's), each ~300
characters with two of 500 entities and one of 50 tags, a sequence link between neighbours, and with
``--vectors`` a 384-dimension vector each. Then:

1. the job: ``export_request`` and its ``memory.export_step`` steps run in this process one after
   another (each its own tenant transaction, as a worker runs them; chunks of ``EXPORT_CHUNK_LINES``),
   to the footer and the rename: wall time, file size, memories/s, steps;
2. the command's writer (``export_write``, what ``manage.py memory_export`` runs) to a file, in one
   transaction: wall time and size (the same bytes but for the header's cutoff).

A JSON summary goes to bench/out/export/ (git-ignored); figures in bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import random
import time
import uuid
from datetime import timedelta
from typing import Any

from bench.locomo.harness import ROOT, build_tenant, prepare_database, setup_django

OUT = ROOT / "bench" / "out" / "export"
BATCH = 1000


def seed(tenant: Any, project_slug: str, count: int, vectors: bool) -> float:
    from django.utils import timezone

    from accounts.models import Member, Project
    from accounts.services.workspaces import workspace_get_or_create
    from core.tenancy import tenant_context
    from memory.models import Entity, Memory, MemoryEntity, MemoryLink, MemoryTag
    from memory.services.memories import tags_get_or_create
    from memory.text import fold

    rng = random.Random(20)
    words = [
        "invoice",
        "deploy",
        "staging",
        "customer",
        "billing",
        "release",
        "branch",
        "ticket",
        "meeting",
        "budget",
        "plan",
    ]
    start = time.perf_counter()
    with tenant_context(enterprise_id=tenant.enterprise_id, door="bench"):
        project = Project.objects.get(slug=project_slug)
        member = Member.objects.get(pk=tenant.member_id)
        folder = workspace_get_or_create(project=project, name="default")
        entities = Entity.objects.bulk_create(
            [
                Entity(enterprise_id=tenant.enterprise_id, name=f"Entity {n}", key=fold(f"Entity {n}"))
                for n in range(500)
            ]
        )
        tags = tags_get_or_create([f"bench/topic-{n}" for n in range(50)])
    base = timezone.now() - timedelta(days=365)
    previous = None
    for offset in range(0, count, BATCH):
        with tenant_context(enterprise_id=tenant.enterprise_id, door="bench"):
            rows = []
            for n in range(offset, min(count, offset + BATCH)):
                text = " ".join(rng.choice(words) for _ in range(45))
                vector = [rng.uniform(-1, 1) for _ in range(384)] if vectors else None
                rows.append(
                    Memory(
                        enterprise_id=tenant.enterprise_id,
                        project=project,
                        workspace=folder,
                        author=member,
                        created_at=base + timedelta(seconds=n),
                        timestamp=base + timedelta(seconds=n),
                        content=f"note {n}: {text}",
                        summary=text[:80],
                        source_id=f"bench/{n}",
                        embedding=vector,
                        embedding_model="bench-random" if vectors else "",
                        embedding_dim=384 if vectors else None,
                    )
                )
            made = Memory.objects.bulk_create(rows)
            MemoryEntity.objects.bulk_create(
                [
                    MemoryEntity(enterprise_id=tenant.enterprise_id, memory=m, entity=e)
                    for m in made
                    for e in rng.sample(entities, 2)
                ]
            )
            MemoryTag.objects.bulk_create(
                [MemoryTag(enterprise_id=tenant.enterprise_id, memory=m, tag=rng.choice(tags)) for m in made]
            )
            links = []
            for m in made:
                if previous is not None:
                    links.append(
                        MemoryLink(enterprise_id=tenant.enterprise_id, kind="next", src=previous, dst=m)
                    )
                previous = m
            MemoryLink.objects.bulk_create(links)
    return time.perf_counter() - start


def run_job(tenant: Any, project_slug: str, vectors: bool) -> dict[str, Any]:
    from django.conf import settings

    from accounts.models import Member
    from core.tenancy import tenant_context
    from memory.models import DataExport
    from memory.services.export_writer import export_file
    from memory.services.exports import export_request
    from memory.tasks import export_step_task

    with tenant_context(enterprise_id=tenant.enterprise_id, door="bench"):
        export = export_request(
            member=Member.objects.get(pk=tenant.member_id),
            scope="project",
            project_slug=project_slug,
            include_vectors=vectors,
        )
    start = time.perf_counter()
    steps = 0
    while True:
        steps += 1
        result = export_step_task.apply(
            kwargs={"enterprise_id": str(tenant.enterprise_id), "export_id": str(export.pk)}
        )
        if not result.successful():
            raise RuntimeError(result.result)
        if not result.result:
            break
    wall = time.perf_counter() - start
    with tenant_context(enterprise_id=tenant.enterprise_id, door="bench"):
        export = DataExport.objects.get(pk=export.pk)
    assert export.state == "done", export.error
    return {
        "path": "job (export_step, in process)",
        "memories": export.done,
        "wall_s": round(wall, 2),
        "memories_per_s": round(export.done / wall),
        "mb": round(export.size_bytes / 1e6, 1),
        "steps": steps,
        "chunk_lines": settings.EXPORT_CHUNK_LINES,
        "file": str(export_file(export)),
    }


def run_command(tenant: Any, project_id: uuid.UUID, vectors: bool) -> dict[str, Any]:
    from django.utils import timezone

    from core.tenancy import tenant_context
    from memory.services.export_writer import ExportSpec, export_write

    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / "command.jsonl"
    start = time.perf_counter()
    with tenant_context(enterprise_id=tenant.enterprise_id, door="bench"), open(path, "wb") as f:
        digest = export_write(
            f,
            spec=ExportSpec(
                scope="project",
                enterprise_id=tenant.enterprise_id,
                project_id=project_id,
                include_vectors=vectors,
                cutoff=timezone.now(),
            ),
        )
    wall = time.perf_counter() - start
    memories = digest.counts.get("memory", 0)
    return {
        "path": "command (export_write, one transaction)",
        "memories": memories,
        "wall_s": round(wall, 2),
        "memories_per_s": round(memories / wall),
        "mb": round(path.stat().st_size / 1e6, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--vectors", action="store_true")
    args = parser.parse_args()
    setup_django()
    prepare_database()
    tenant = build_tenant(slug=f"export-{uuid.uuid4().hex[:6]}", project_slugs=["export"])
    seeded = seed(tenant, "export", args.memories, args.vectors)
    print(f"seeded {args.memories} memories in {seeded:.1f} s")
    job = run_job(tenant, "export", args.vectors)
    print(json.dumps(job))
    command = run_command(tenant, tenant.projects["export"].project_id, args.vectors)
    print(json.dumps(command))
    OUT.mkdir(parents=True, exist_ok=True)
    summary = {"memories": args.memories, "vectors": args.vectors, "job": job, "command": command}
    (OUT / f"summary-{int(time.time())}.json").write_text(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
