"""Background upkeep with visible progress: re-scan after a guard rule change, re-embed after a model change.

Both are idempotent and resumable: they pick the memories still on an old
version, in batches, so a killed worker's redelivery continues where it stopped.
Progress lives in a JobRun row (``result``: total, done, changed).
"""

from __future__ import annotations

import uuid

from django.utils import timezone

from accounts.models import JobRun
from accounts.services.audit import audit_record
from memory.embedding import get_embedder
from memory.guard import RULES_VERSION, guard_check
from memory.models import GuardEvent, Memory
from memory.selectors.guard import guard_model_threshold
from memory.services.archivist import archivist_embed_many, archivist_reembed

BATCH = 64


def _job(name: str, key: str, total: int) -> JobRun:
    job, created = JobRun.objects.get_or_create(
        name=name, key=key, defaults={"state": "running", "result": {"total": total, "done": 0, "changed": 0}}
    )
    if not created and job.state != "done":
        job.attempts += 1
        job.save(update_fields=["attempts"])
    return job


def _progress(job: JobRun, done: int, changed: int, *, finished: bool) -> None:
    job.result = {
        **job.result,
        "done": job.result.get("done", 0) + done,
        "changed": job.result.get("changed", 0) + changed,
    }
    job.state = "done" if finished else "running"
    job.finished_at = timezone.now() if finished else None
    job.save(update_fields=["result", "state", "finished_at"])


def guard_rescan() -> JobRun:
    """Apply the current rules to memories scanned with older ones."""
    pending = Memory.objects.filter(forgotten_at__isnull=True).exclude(guard_version=RULES_VERSION)
    job = _job("guard.rescan", RULES_VERSION, pending.count())
    if job.state == "done":
        return job
    threshold = guard_model_threshold()  # the enterprise's own, read once for the whole job
    redacted: list[uuid.UUID] = []
    while True:
        batch = list(pending.order_by("created_at")[:BATCH])
        if not batch:
            break
        changed = 0
        for memory in batch:
            updates = ["guard_version"]
            flagged: list[str] = []
            for field in ("content", "summary"):
                text = getattr(memory, field)
                if not text:
                    continue
                result = guard_check(text, model_threshold=threshold)
                if result.verdict == "reject":
                    flagged.append(f"{field}: {result.reason}")
                if result.text != text:
                    setattr(memory, field, result.text)
                    memory.redactions = [
                        *memory.redactions,
                        *[
                            {"field": field, "rule": r.rule, "start": r.start, "end": r.end}
                            for r in result.redactions
                        ],
                    ]
                    updates += [field, "redactions"]
            memory.guard_version = RULES_VERSION
            memory.save(update_fields=sorted(set(updates)))
            if len(updates) > 1:  # its text changed: so did its vector's, and its successors' contexts
                redacted.append(memory.pk)
            if len(updates) > 1 or flagged:
                changed += 1
                GuardEvent.objects.create(
                    action="rescan",
                    memory=memory,
                    reason="; ".join(flagged)[:500],
                    rules=sorted({r["rule"] for r in memory.redactions}),
                    rules_version=RULES_VERSION,
                )
        _progress(job, len(batch), changed, finished=False)
    # Once, at the end: the projects' write locks it takes are then held only until the job commits.
    archivist_reembed(memory_ids=redacted)
    _progress(job, 0, 0, finished=True)
    audit_record(action="guard.rescan", target=job, details=job.result)
    return job


def embedding_reindex() -> JobRun:
    """Embed memories with no vector, or a vector from another model, with the current embedder."""
    embedder = get_embedder()
    pending = Memory.objects.filter(forgotten_at__isnull=True).exclude(
        embedding_model=embedder.name, embedding__isnull=False
    )
    job = _job("embedding.reindex", embedder.name, pending.count())
    if job.state == "done" and not pending.exists():
        return job
    while True:
        batch = list(pending.order_by("created_at")[:BATCH])
        if not batch:
            break
        archivist_embed_many(batch)  # every one of them lacks this embedder's vector: one call, one UPDATE
        _progress(job, len(batch), len(batch), finished=False)
    _progress(job, 0, 0, finished=True)
    audit_record(action="embedding.reindex", target=job, details=job.result)
    return job
