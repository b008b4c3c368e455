"""The provider side of a partner read: what the provider's exposure lets a consumer see.

``provider_serve`` runs under the provider's tenant context (entered by ``partners.door`` locally,
or by the serve endpoint for a remote consumer), checks the provider's own row of the link,
applies the exposure, answers plain dicts, and audits what it served. It never writes anything else.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from django.db.models import Q, QuerySet

from accounts.services.audit import audit_record
from memory.models import Layer, LinkKind, Memory, MemoryEntity, MemoryLink, MemoryTag, Visibility
from memory.selectors.search import hybrid_rank
from memory.text import fold
from partners.models import PartnerLink
from partners.selectors.links import partner_link_usability

SERVE_ACTION = "partner.serve"
TOP_N_MAX = 50
FANOUT_MAX = 50


def exposed_memories(link: PartnerLink) -> QuerySet[Memory]:
    """The provider's memories this link opens (docs/partners.md, Exposure)."""
    exposure = link.exposure or {}
    projects = list(exposure.get("projects") or [])
    domains = list(exposure.get("save_domains") or [])
    shared_ids = list(exposure.get("memory_ids") or [])
    if not projects and not domains:
        # Nothing opened yet (and no empty IN list for the SQL compiler to refuse).
        return Memory.objects.none()
    place = Q()
    if projects:
        place |= Q(project_id__in=projects)
    if domains:
        place |= Q(project__save_domain__in=domains)
    shared = Q(visibility=Visibility.ENTERPRISE)
    if shared_ids:
        shared |= Q(pk__in=shared_ids)
    return Memory.objects.filter(place & shared, forgotten_at__isnull=True).exclude(layer=Layer.ROLE)


def _opens_nothing(link: PartnerLink) -> bool:
    exposure = link.exposure or {}
    return not (exposure.get("projects") or exposure.get("save_domains"))


def _domain(memory: Memory) -> str:
    return memory.project.save_domain or memory.project.slug


def _event(memory: Memory) -> dict[str, Any]:
    return {
        "event_id": str(memory.pk),
        "domain": _domain(memory),
        "summary": memory.summary or memory.content[:200],
        "timestamp": memory.timestamp.isoformat(),
    }


def _search(link: PartnerLink, args: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    if _opens_nothing(link):
        return {"hits": []}, []
    memories = exposed_memories(link)
    domain = args.get("domain")
    if domain:
        memories = memories.filter(
            Q(project__save_domain=domain) | Q(project__save_domain="", project__slug=domain)
        )
    top_n = max(1, min(TOP_N_MAX, int(args.get("top_n") or 10)))
    ranked = hybrid_rank(memories=memories, query=str(args.get("sentence") or ""), depth=max(50, top_n))
    page = ranked.ids[:top_n]
    found = {m.pk: m for m in Memory.objects.filter(pk__in=page).select_related("project")}
    hits = []
    for pk in page:
        if pk not in found:
            continue
        cosine = ranked.cosines.get(pk)
        hits.append({**_event(found[pk]), "distance": None if cosine is None else round(1.0 - cosine, 6)})
    return {"hits": hits}, [h["event_id"] for h in hits]


def _content(link: PartnerLink, args: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    try:
        wanted = uuid.UUID(str(args.get("event_id")))
    except ValueError:
        return {"event": None}, []
    memory = exposed_memories(link).filter(pk=wanted).select_related("project").first()
    if memory is None:
        return {"event": None}, []
    entities = list(
        MemoryEntity.objects.filter(memory=memory)
        .order_by("entity__name")
        .values_list("entity__name", flat=True)
    )
    tags = list(
        MemoryTag.objects.filter(memory=memory).order_by("tag__path").values_list("tag__path", flat=True)
    )
    event = {**_event(memory), "content": memory.content, "entities": entities, "tags": tags}
    return {"event": event}, [event["event_id"]]


def _events_for_keys(link: PartnerLink, args: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """For each folded entity name, the exposed events it takes part in (newest first, fanout + 1)."""
    keys = [fold(str(k)) for k in (args.get("keys") or [])][:FANOUT_MAX]
    fanout = max(1, min(FANOUT_MAX, int(args.get("fanout") or 20)))
    visible = exposed_memories(link)
    out: dict[str, list[dict[str, Any]]] = {}
    read: list[str] = []
    for key in dict.fromkeys(keys):
        page = list(
            visible.filter(entity_links__entity__key=key)
            .select_related("project")
            .order_by("-timestamp", "id")[: fanout + 1]
        )
        out[key] = [{**_event(m), "content": m.content, "created_at": m.created_at.isoformat()} for m in page]
        read += [str(m.pk) for m in page]
    return {"events": out}, list(dict.fromkeys(read))


def _keys_of_events(link: PartnerLink, args: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """For each exposed event, which of the given folded entity names it takes part in."""
    keys = [fold(str(k)) for k in (args.get("keys") or [])]
    ids = []
    for raw in args.get("event_ids") or []:
        try:
            ids.append(uuid.UUID(str(raw)))
        except ValueError:
            continue
    pairs = MemoryEntity.objects.filter(
        memory_id__in=exposed_memories(link).filter(pk__in=ids).values("pk"), entity__key__in=keys
    ).values_list("memory_id", "entity__key")
    out: dict[str, list[str]] = {}
    for memory_id, key in pairs:
        out.setdefault(str(memory_id), []).append(key)
    return {"keys": out}, []


def _neighbours(link: PartnerLink, args: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Exposed events in sequence with the given ones (NEXT stays within the provider's side)."""
    ids = [str(i) for i in args.get("event_ids") or []]
    visible = set(exposed_memories(link).values_list("pk", flat=True))
    pairs = MemoryLink.objects.filter(
        Q(src_id__in=ids) | Q(dst_id__in=ids), kind=LinkKind.NEXT, revoked_at__isnull=True
    ).values_list("src_id", "dst_id")
    out = [[str(s), str(d)] for s, d in pairs if s in visible and d in visible]
    return {"next": out}, []


OPERATIONS: dict[str, Callable[[PartnerLink, dict[str, Any]], tuple[dict[str, Any], list[str]]]] = {
    "search": _search,
    "content": _content,
    "events_for_keys": _events_for_keys,
    "keys_of_events": _keys_of_events,
    "neighbours": _neighbours,
}


def provider_serve(
    *, link_id: uuid.UUID | str, consumer_org_id: uuid.UUID | str, op: str, args: dict[str, Any]
) -> dict[str, Any]:
    """Serve one read for the consumer, under the provider's tenant context.

    Answers ``{"status": "ok", ...}`` or ``{"status": "error", "reason", "detail"}`` (a refusal is
    returned, not raised, so that its audit stays when the caller's savepoint closes).
    """
    try:
        wanted = uuid.UUID(str(link_id))
    except ValueError:
        return refusal("principal_not_active", "this deployment provides no such link")
    link = PartnerLink.objects.filter(link_id=wanted, side="provider").first()
    if link is None or str(link.partner_org_id) != str(consumer_org_id):
        return refusal("principal_not_active", "this deployment provides no such link to your org")
    details: dict[str, Any] = {"link_id": str(link.link_id), "op": op, "consumer_org": str(consumer_org_id)}
    # Seen from the provider: the consumer direction of its own row (the remote check is the consumer's).
    usable, reason = partner_link_usability(link=link, side="consumer", check_remote=False)
    if not usable:
        assert reason is not None
        audit_record(action=SERVE_ACTION, target=link, details={**details, "ok": False, "reason": reason})
        return refusal(reason, f"the providing org does not serve this link now: {reason}")
    if op not in OPERATIONS:
        return refusal("bad_request", f"unknown partner operation {op!r}")
    answer, read_ids = OPERATIONS[op](link, args)
    audit_record(action=SERVE_ACTION, target=link, details={**details, "ok": True, "read_ids": read_ids})
    return {"status": "ok", **answer}


def refusal(reason: str, detail: str) -> dict[str, Any]:
    return {"status": "error", "reason": reason, "detail": detail}
