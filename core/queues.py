"""Which broker queue each kind of background job goes to, so each kind scales on its own (models-free).

One queue a kind, named after the base queue (``MNEMOS_CELERY_QUEUE``, default ``mnemos``):

    mnemos             everything not named below (the outbox's sweeper, retention's sweep, key touches)
    mnemos.archivist   embedding and linking memories (memory.archivist_drain, archivist_process,
                       embedding_reindex): the CPU-heavy kind
    mnemos.guard       re-scans under new guard rules (memory.guard_rescan)
    mnemos.io          imports, exports, retention runs (memory.import_step, export_step, retention_apply)
    mnemos.webhooks    event dispatch and webhook deliveries (events.dispatch, events.deliver)

``settings.WORK_KINDS`` names the tasks of each kind; ``task_routes`` turns it into Celery's
``task_routes``, and ``worker_queues`` into a worker's ``-Q``: every queue unless the worker is given
kinds (``manage.py serve --role worker --kinds archivist``). docs/scaling.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

DEFAULT_KIND = "default"
UNKNOWN_KIND = "unknown kind of work {kind!r}: the kinds are {kinds}"


def queue_name(base: str, kind: str) -> str:
    return base if kind == DEFAULT_KIND else f"{base}.{kind}"


def task_routes(base: str, kinds: Mapping[str, Sequence[str]]) -> dict[str, dict[str, str]]:
    """Celery's ``task_routes``: each named task to its kind's queue (the rest go to the base queue)."""
    routes: dict[str, dict[str, str]] = {}
    for kind, tasks in kinds.items():
        for task in tasks:
            if task in routes:
                raise ValueError(f"{task} is named by two kinds of work")
            routes[task] = {"queue": queue_name(base, kind)}
    return routes


def all_kinds(kinds: Mapping[str, Sequence[str]]) -> list[str]:
    return [DEFAULT_KIND, *kinds]


def worker_queues(
    base: str, kinds: Mapping[str, Sequence[str]], chosen: Iterable[str] | None = None
) -> list[str]:
    """The queues a worker consumes: every kind's, or only ``chosen`` (refused with the list when unknown)."""
    known = all_kinds(kinds)
    picked = known if chosen is None else [k.strip() for k in chosen if k.strip()]
    for kind in picked:
        if kind not in known:
            raise ValueError(UNKNOWN_KIND.format(kind=kind, kinds=", ".join(known)))
    if not picked:
        raise ValueError(UNKNOWN_KIND.format(kind="", kinds=", ".join(known)))
    return [queue_name(base, kind) for kind in dict.fromkeys(picked)]
