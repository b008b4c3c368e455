"""Partner tools (seed aiakiv): list_partner_links, search_partner_memory, get_partner_memory_content,
find_partner_memory_connections, query_partner_memory_graph.

Adapters: the caller's own side of the link decides whether it answers (``partner_link_usability``),
the provider side is asked through ``partners.sides`` (this deployment or HTTPS), and the answer is
rendered. One partner call per enterprise at a time (``busy``). Refusals are a normal result
``{status: "error", error, reason, detail}``, ``error`` repeating the reason code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, Field

from accounts.services.audit import audit_record
from core.errors import Unprocessable
from core.registry import ToolCall, ToolSpec, registry
from memory.graph import GraphTimeout, Rejection
from memory.selectors.connections import ConnectionScores, connection_starts, start_entities
from memory.selectors.search import scope_for_key, scoped_memories
from memory.text import fold
from memory.tools.common import ID_MAX, NAME_MAX, QUERY_MAX, Clamped, Closed, stated
from memory.tools.graph import GraphQueryIn, GraphQueryOut, graph_query_out
from partners.graph import partner_graph_query
from partners.models import LinkSide, PartnerLink
from partners.provider import TOP_N_MAX
from partners.selectors.links import (
    READ_ACTION,
    REMOTE_UNAVAILABLE,
    partner_link_aliases,
    partner_link_find,
    partner_link_reconsent,
    partner_link_usability,
    partner_links_consumed_any,
    partner_links_list,
    required_version,
)
from partners.services.locks import partner_call_lock_try
from partners.sides import ProviderRefused, ProviderSide, RemoteUnavailable, provider_side

BUSY_DETAIL = (
    "another partner call of this org is in flight; this one did not run: call again when it has answered"
)
NO_LINKS_DETAIL = "this org has no partner links to read through; list_partner_links shows them"
NOT_FOUND_DETAIL = (
    "no partner link with this link_id is readable by this org; list_partner_links shows the ones that are"
)


def _detail(link: PartnerLink, reason: str) -> str:
    if reason == "principal_not_active":
        if link.side == LinkSide.PROVIDER:
            return "this org provides this link: it opens our memory to the partner, there is nothing to read through it"
        return "this direction of the link is closed: the consumer principal is not active"
    if reason == "link_not_active":
        return f"the link is {link.status}; its owners manage it in the console"
    if reason == "link_expired":
        return f"the link expired at {link.expires_at.isoformat() if link.expires_at else 'an earlier time'}"
    if reason == "contract_version_too_old":
        missing = [who for who, needed in partner_link_reconsent(link=link).items() if needed]
        return (
            f"the link needs contract version {required_version(link)}; re-consent is missing from: "
            f"{', '.join(missing) if missing else 'nobody (the link version is below the platform minimum)'}"
        )
    return reason


class LinkError(Exception):
    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


def _lock_or_busy(call: ToolCall) -> None:
    """One partner call per enterprise at a time: a transaction-level lock, released at commit."""
    if not partner_call_lock_try(enterprise_id=call.enterprise.pk):
        raise LinkError("busy", BUSY_DETAIL)


def _consumer_link(link_id: str) -> PartnerLink:
    link = partner_link_find(link_id=link_id)
    if link is None:
        if not partner_links_consumed_any():
            raise LinkError("no_links", NO_LINKS_DETAIL)
        raise LinkError("link_not_found", NOT_FOUND_DETAIL)
    usable, reason = partner_link_usability(link=link, check_remote=False)
    if not usable:
        assert reason is not None
        raise LinkError(reason, _detail(link, reason))
    return link


_Out = TypeVar("_Out", bound=BaseModel)


def _through_link(
    call: ToolCall,
    link_id: str,
    output: type[_Out],
    run: Callable[[PartnerLink, ProviderSide], _Out],
) -> _Out:
    """Lock, check the link, ask the provider side, and audit the read on the caller's side."""
    link: PartnerLink | None = None
    details: dict[str, Any] = {"link_id": str(link_id)}
    try:
        _lock_or_busy(call)
        link = _consumer_link(link_id)
        side = provider_side(link)
        try:
            result = run(link, side)
        except RemoteUnavailable as exc:
            details["remote"] = "unavailable"
            raise LinkError(REMOTE_UNAVAILABLE, str(exc)) from exc
        except ProviderRefused as exc:
            if side.remote:
                details["remote"] = "answered"
            raise LinkError(exc.reason, exc.detail) from exc
        if side.remote:
            details["remote"] = "answered"
    except LinkError as refused:
        if link is not None:
            audit_record(
                action=READ_ACTION, target=link, details={**details, "ok": False, "reason": refused.reason}
            )
        return output.model_validate(
            {"status": "error", "error": refused.reason, "reason": refused.reason, "detail": refused.detail}
        )
    audit_record(action=READ_ACTION, target=link, details={**details, "ok": True, "read_ids": call.read_ids})
    return result


# --- list_partner_links -----------------------------------------------------------------------------


class ListPartnerLinksIn(Closed):
    """No arguments: the org comes from the access key."""


class Reconsent(Closed):
    mine: bool = Field(
        description="True when this org's owner must (re-)consent at the required contract version."
    )
    partner: bool = Field(description="True when the partner org's owner must (re-)consent.")


class PartnerLinkOut(Closed):
    link_id: str = Field(description="What every partner tool takes.")
    partner_org_id: str = Field(description="The partner org (the provider of this link).")
    status: str = Field(description="pending, active, suspended or revoked.")
    usable: bool = Field(description="Whether partner tools answer through this link now.")
    blocked_reason: str | None = Field(
        description="Null when usable; else link_not_active, contract_version_too_old, link_expired, "
        "remote_org_unavailable or principal_not_active."
    )
    contract_version: int = Field(description="The contract version the link runs at.")
    reconsent: Reconsent = Field(description="Who still has to consent at the required contract version.")
    expires_at: str | None = Field(description="When the link expires (ISO 8601), null for never.")
    created_at: str = Field(description="When the link was requested (ISO 8601).")


class ListPartnerLinksOut(Closed):
    status: str = Field(description="ok.")
    count: int = Field(description="How many links are listed (the ones this org reads through).")
    provided_link_count: int = Field(
        description="How many links this org provides (not listed: they are managed in the console)."
    )
    links: list[PartnerLinkOut] = Field(
        description="The links this org can read through; empty is an honest empty."
    )


def list_partner_links(call: ToolCall, args: ListPartnerLinksIn) -> ListPartnerLinksOut:
    states = partner_links_list(enterprise_id=call.enterprise.pk)
    readable = [s for s in states if s.side == LinkSide.CONSUMER]
    return ListPartnerLinksOut(
        status="ok",
        count=len(readable),
        provided_link_count=len(states) - len(readable),
        links=[
            PartnerLinkOut(
                link_id=str(s.link_id),
                partner_org_id=str(s.partner_org_id),
                status=s.status,
                usable=s.usable,
                blocked_reason=s.blocked_reason,
                contract_version=s.contract_version,
                reconsent=Reconsent(**s.reconsent),
                expires_at=s.expires_at.isoformat() if s.expires_at else None,
                created_at=s.created_at.isoformat(),
            )
            for s in readable
        ],
    )


# --- search_partner_memory ----------------------------------------------------------------------


class LinkErrorFields(Closed):
    status: str = Field(description='"ok", or "error" when the link did not answer (see reason).')
    error: str | None = Field(default=None, description="On error: repeats the reason code.")
    reason: str | None = Field(
        default=None,
        description="On error, the state of the link: no_links, link_not_found, busy, link_not_active, "
        "contract_version_too_old, link_expired, remote_org_unavailable, principal_not_active.",
    )
    detail: str | None = Field(default=None, description="On error: what to fix, in words.")
    link_id: str | None = Field(default=None, description="The link read through.")
    remote_org: str | None = Field(default=None, description="The partner org read (its id).")


Sentence = Annotated[str, stated(minLength=1), Field(max_length=QUERY_MAX)]
LinkId = Annotated[str, Field(max_length=ID_MAX)]


class SearchPartnerIn(Closed):
    sentence: Sentence = Field(description="One complete sentence, not keywords (up to 2000 characters).")
    link_id: LinkId = Field(description="Which link to read through, from list_partner_links.")
    top_n: Annotated[int, Clamped(1, TOP_N_MAX)] = Field(
        default=10, description="Max hits (server-capped at 50: 1-50, clamped)."
    )
    domain: str | None = Field(
        default=None, max_length=NAME_MAX, description="An optional single remote domain to narrow to."
    )


class PartnerHit(Closed):
    event_id: str = Field(description="The partner's event id; feeds get_partner_memory_content.")
    domain: str = Field(description="The partner domain it lives in (its project's save domain).")
    summary: str = Field(description="Its summary.")
    timestamp: str = Field(description="When it happened, ISO 8601.")
    distance: float | None = Field(
        description="Cosine distance to the sentence (lower is closer); null when not measured."
    )
    link_id: str = Field(description="The link it was read through.")


class SearchPartnerOut(LinkErrorFields):
    hits: list[PartnerHit] | None = Field(default=None, description="The partner's events, best first.")
    count: int | None = Field(default=None, description="How many hits came back.")


def _sentence(text: str) -> str:
    if not text.strip():
        raise Unprocessable("sentence must not be empty", code="query_empty")
    return text


def search_partner_memory(call: ToolCall, args: SearchPartnerIn) -> SearchPartnerOut:
    sentence = _sentence(args.sentence)

    def run(link: PartnerLink, side: ProviderSide) -> SearchPartnerOut:
        answer = side.call(
            "search",
            {"sentence": sentence, "top_n": max(1, min(TOP_N_MAX, args.top_n)), "domain": args.domain},
        )
        hits = [PartnerHit(**{**h, "link_id": str(link.link_id)}) for h in answer.get("hits") or []]
        call.read_ids = [h.event_id for h in hits]
        return SearchPartnerOut(
            status="ok",
            link_id=str(link.link_id),
            remote_org=str(link.partner_org_id),
            hits=hits,
            count=len(hits),
        )

    return _through_link(call, args.link_id, SearchPartnerOut, run)


# --- get_partner_memory_content ---------------------------------------------------------------------


class PartnerContentIn(Closed):
    event_id: str = Field(
        max_length=ID_MAX,
        description="An event_id from a partner hit (search_partner_memory and the others).",
    )
    link_id: LinkId = Field(description="The link the hit came through (its link_id).")


class PartnerEvent(Closed):
    event_id: str = Field(description="The partner's event id.")
    domain: str = Field(description="The partner domain it lives in.")
    summary: str = Field(description="Its summary.")
    content: str = Field(description="The stored text.")
    timestamp: str = Field(description="When it happened, ISO 8601.")
    entities: list[str] = Field(description="The entities it names, in the partner's spelling.")
    tags: list[str] = Field(description="Its tags.")


class PartnerContentOut(LinkErrorFields):
    event: PartnerEvent | None = Field(default=None, description="The partner's event.")


def get_partner_memory_content(call: ToolCall, args: PartnerContentIn) -> PartnerContentOut:
    def run(link: PartnerLink, side: ProviderSide) -> PartnerContentOut:
        event = side.call("content", {"event_id": args.event_id}).get("event")
        if event is None:
            raise ProviderRefused("event_not_found", "no such event is open through this link")
        call.read_ids = [event["event_id"]]
        return PartnerContentOut(
            status="ok",
            link_id=str(link.link_id),
            remote_org=str(link.partner_org_id),
            event=PartnerEvent(**event),
        )

    return _through_link(call, args.link_id, PartnerContentOut, run)


# --- find_partner_memory_connections ----------------------------------------------------------------


class PartnerConnectionsIn(Closed):
    sentence: Sentence = Field(
        description="Where to start: one sentence about the subject, in your own memory (up to 2000 characters)."
    )
    link_id: LinkId = Field(description="Which link to read through, from list_partner_links.")
    limit: Annotated[int, Clamped(1, 50)] = Field(
        default=10, description="Max partner events (1-50, clamped)."
    )


class PartnerReach(Closed):
    from_event: str = Field(description="Your own event it was reached from (one of starts).")
    via: str = Field(description="alias: an entity the link treats as one on both sides.")
    detail: str = Field(description="The aliased entity, as 'home name = partner name'.")


class PartnerConnected(Closed):
    event_id: str = Field(description="The partner's event reached; opens with get_partner_memory_content.")
    domain: str = Field(description="The partner domain it lives in.")
    summary: str = Field(description="Its summary.")
    timestamp: str = Field(description="When it happened.")
    score: float = Field(description="How strongly it is connected (higher is closer).")
    side: str = Field(description="remote: the partner's.")
    reached_by: list[PartnerReach] = Field(description="Why it was reached.")


class PartnerConnectionsOut(LinkErrorFields):
    sentence: str | None = Field(default=None, description="The starting sentence.")
    starts: list[str] | None = Field(default=None, description="Your own memories the sentence found first.")
    connections: list[PartnerConnected] | None = Field(
        default=None, description="Partner events reached, ranked."
    )


def find_partner_memory_connections(call: ToolCall, args: PartnerConnectionsIn) -> PartnerConnectionsOut:
    sentence = _sentence(args.sentence)
    limit = max(1, min(50, args.limit))

    def run(link: PartnerLink, side: ProviderSide) -> PartnerConnectionsOut:
        memories = scoped_memories(scope_for_key(member=call.member, key=call.access_key))
        starts = connection_starts(memories=memories, sentence=sentence)
        aliases = partner_link_aliases(link=link)  # partner key -> home name
        by_home: dict[str, list[str]] = {}
        for partner_key, home_name in aliases.items():
            by_home.setdefault(fold(home_name), []).append(partner_key)
        pairs = start_entities(starts=starts, keys=list(by_home))
        keys = sorted({k for _, _, home_key, _ in pairs for k in by_home[home_key]})
        events = (
            side.call("events_for_keys", {"keys": keys, "fanout": 50}).get("events") or {} if keys else {}
        )
        # The partner's events, by the same scoring as find_memory_connections: an alias is a shared entity.
        scores: ConnectionScores[str] = ConnectionScores(starts)
        data: dict[str, dict[str, Any]] = {}
        for start, _, home_key, home_name in pairs:
            for partner_key in by_home[home_key]:
                for event in events.get(partner_key, [])[:50]:
                    data[event["event_id"]] = event
                    scores.reach(
                        event["event_id"], via="alias", start=start, detail=f"{home_name} = {partner_key}"
                    )
        ordered = scores.ranked(limit)
        connections = [
            PartnerConnected(
                event_id=pk,
                domain=data[pk]["domain"],
                summary=data[pk]["summary"],
                timestamp=data[pk]["timestamp"],
                score=round(scores.score[pk], 4),
                side="remote",
                reached_by=[
                    PartnerReach(from_event=str(r.from_event), via=r.via, detail=r.detail or "")
                    for r in scores.reached[pk]
                ],
            )
            for pk in ordered
        ]
        call.read_ids = [str(s) for s in starts] + ordered
        return PartnerConnectionsOut(
            status="ok",
            link_id=str(link.link_id),
            remote_org=str(link.partner_org_id),
            sentence=sentence,
            starts=[str(s) for s in starts],
            connections=connections,
        )

    return _through_link(call, args.link_id, PartnerConnectionsOut, run)


# --- query_partner_memory_graph -------------------------------------------------------------------


class PartnerGraphIn(GraphQueryIn):
    link_id: LinkId = Field(description="Which link to read through, from list_partner_links.")


class PartnerGraphOut(GraphQueryOut):
    status: str = Field(description='"ok", or "error" when the link did not answer (see reason).')
    link_id: str | None = Field(default=None, description="The link read through.")
    remote_org: str | None = Field(default=None, description="The partner org read (its id).")
    reason: str | None = Field(
        default=None, description="On error, the state of the link (see list_partner_links)."
    )
    detail: str | None = Field(default=None, description="On error: what to fix, in words.")


def query_partner_memory_graph(call: ToolCall, args: PartnerGraphIn) -> PartnerGraphOut:
    def run(link: PartnerLink, side: ProviderSide) -> PartnerGraphOut:
        visible = scoped_memories(scope_for_key(member=call.member, key=call.access_key))
        try:
            answer, _ = partner_graph_query(
                visible=visible,
                side=side,
                aliases=partner_link_aliases(link=link),
                query=args.query,
                params=args.params,
            )
        except GraphTimeout as exc:
            raise Unprocessable(
                f"{exc}: narrow the start (fewer names, a smaller k) or the hops ({{min: n}}, {{k: n}})",
                code="graph_timeout",
            ) from exc
        except Rejection as refused:
            return PartnerGraphOut.model_validate(
                {
                    "status": "error",
                    "link_id": str(link.link_id),
                    "reason": "query_rejected",
                    "detail": refused.error,
                    # The seed: `error` repeats the reason code; the rejection's own words are the detail.
                    "error": "query_rejected",
                    "blocked_by": refused.blocked_by,
                    "hint": refused.hint,
                    **refused.allowed,
                }
            )
        call.read_ids = answer.read_ids
        home = graph_query_out(answer).model_dump()
        return PartnerGraphOut.model_validate(
            {**home, "status": "ok", "link_id": str(link.link_id), "remote_org": str(link.partner_org_id)}
        )

    return _through_link(call, args.link_id, PartnerGraphOut, run)


# --- registration ------------------------------------------------------------------------------

_READ: dict[str, Any] = {
    "toolset": "aiakiv",
    "scope": "partners:read",
    "read_only": True,
    "idempotent": True,
    "open_world": True,
    "retry": "Safe: repeating the call changes nothing. On reason busy, call again when the other call has answered.",
}
_ERROR = "| { status: error, error, reason, detail }"

registry.register(
    ToolSpec(
        name="list_partner_links",
        title="List partner links",
        summary="The org links the caller can read through, and whether each works now.",
        description=(
            "List the org links the caller can read through, and whether each works now. Use this when the user "
            "asks which partner teams they can read, or when a link tool returned an error and the reason needs "
            "checking. Do not use it to read partner content; the partner tools (`search_partner_memory`, "
            "`find_partner_memory_connections`, `query_partner_memory_graph`, `get_partner_memory_content`) do "
            "that. Read-only and local: it keeps answering while the partner org is down, which is when its answer "
            "matters most. Returns: `{status, count, provided_link_count, links: [{link_id, partner_org_id, status, "
            "usable, blocked_reason, contract_version, reconsent: {mine, partner}, expires_at, created_at}]}`. "
            "`link_id` is what every partner tool takes, and `usable` says which links will answer. "
            "`blocked_reason` names what to fix: `link_not_active` (suspended, pending, or revoked), "
            "`contract_version_too_old` (both owners re-consent — `reconsent` says who is missing), `link_expired`, "
            "`remote_org_unavailable`, or `principal_not_active` (this direction is closed). Links run one way, and "
            "the ones **this** org provides are not listed: they open our memory to the other team, so there is "
            "nothing here to read and nothing to fix. `provided_link_count` (sent with the list) says how many "
            "exist — they are managed in the console, not through these tools. Passing one of their ids to a "
            "remote tool is refused with `principal_not_active`. An empty list is an honest empty, not an error."
        ),
        input_model=ListPartnerLinksIn,
        output_model=ListPartnerLinksOut,
        handler=list_partner_links,
        returns="{ status, count, provided_link_count, links: [{ link_id, partner_org_id, status, usable, "
        "blocked_reason, contract_version, reconsent: { mine, partner }, expires_at, created_at }] }",
        examples=(("Which partner teams can I read?", {}),),
        **{**_READ, "open_world": False},
    )
)
registry.register(
    ToolSpec(
        name="search_partner_memory",
        title="Search partner memory",
        summary="Search a linked partner org's memory through one link.",
        description=(
            "Search a linked partner org's memory. Use this when the user asks what a partner team has recorded "
            "about something. Do not use it to search the caller's own memory; use `search_memory` for that. Reads "
            "the partner org and writes nothing; a link is a read capability both orgs agreed to rather than a "
            "project to switch into, so the caller's own scope is untouched and `link_id` is passed per call. "
            "Results are the partner's events and stay theirs. Calls are handled one at a time per org: a second "
            "link call issued while one is in flight comes back with `reason: busy` without running. Args: "
            "sentence: One complete sentence, not keywords. link_id: Which link to read through, from "
            "`list_partner_links`. top_n: Max hits (server-capped at 50). domain: An optional single remote "
            "domain to narrow to. Returns: `{status, link_id, remote_org, hits: [{event_id, domain, summary, "
            'timestamp, distance, link_id}], count}`. With `status="error"` the `reason` (`no_links`, '
            "`link_not_found`, `contract_version_too_old`, `busy`, ...) describes the state of the link, not a "
            "failure of the caller's own memory. `event_id` feeds `get_partner_memory_content`."
        ),
        input_model=SearchPartnerIn,
        output_model=SearchPartnerOut,
        handler=search_partner_memory,
        returns="{ status, link_id, remote_org, hits: [{ event_id, domain, summary, timestamp, distance, link_id }], "
        "count } " + _ERROR,
        examples=(
            (
                "What the partner recorded about a release",
                {"sentence": "What did the partner decide about the March release?", "link_id": "<link_id>"},
            ),
        ),
        **_READ,
    )
)
registry.register(
    ToolSpec(
        name="get_partner_memory_content",
        title="Get partner memory content",
        summary="Open one partner event (from a partner hit) in full, through its link.",
        description=(
            "Open one of a linked partner org's events in full: its summary, content, entities (in the partner's "
            "spelling) and tags. Use this on an `event_id` from a partner hit (`search_partner_memory`, "
            "`find_partner_memory_connections`, or a `side: remote` row of `query_partner_memory_graph`), with the "
            "`link_id` it came through. Reads the partner org and writes nothing; one call at a time per org "
            "(`reason: busy` otherwise). Returns `{status, link_id, remote_org, event: {event_id, domain, summary, "
            "content, timestamp, entities, tags}}`, or `{status: error, error, reason, detail}` where `reason` "
            "names the state of the link, or `event_not_found` when the event is not open through it."
        ),
        input_model=PartnerContentIn,
        output_model=PartnerContentOut,
        handler=get_partner_memory_content,
        returns="{ status, link_id, remote_org, event: { event_id, domain, summary, content, timestamp, entities, "
        "tags } } " + _ERROR,
        examples=(("Open a partner hit", {"event_id": "<event_id>", "link_id": "<link_id>"}),),
        **_READ,
    )
)
registry.register(
    ToolSpec(
        name="find_partner_memory_connections",
        title="Find partner memory connections",
        summary="From a sentence, the partner events connected to your own memories through aliased entities.",
        description=(
            "Start from a sentence in your own memory and follow the link: the sentence finds your closest "
            "memories (the starts), and from them the partner's events that involve an entity the link treats as "
            "one on both sides (an alias, folded under your spelling). Use this when the user asks how their own "
            "memory relates to a partner team's and states no graph pattern; use `query_partner_memory_graph` for "
            "a stated pattern and `search_partner_memory` to read the partner alone. Reads the partner org and "
            "writes nothing; one call at a time per org (`reason: busy` otherwise). Args: sentence, link_id, limit "
            "(1-50, default 10). Returns `{status, link_id, remote_org, sentence, starts, connections: [{event_id, "
            "domain, summary, timestamp, score, side, reached_by: [{from_event, via, detail}]}]}`, or `{status: "
            "error, error, reason, detail}`. Partner content opens with `get_partner_memory_content`."
        ),
        input_model=PartnerConnectionsIn,
        output_model=PartnerConnectionsOut,
        handler=find_partner_memory_connections,
        returns="{ status, link_id, remote_org, sentence, starts, connections: [{ event_id, domain, summary, "
        "timestamp, score, side, reached_by }] } " + _ERROR,
        examples=(
            (
                "How our deploys relate to the partner's",
                {"sentence": "Our staging deploys moved to Kubernetes.", "link_id": "<link_id>"},
            ),
        ),
        **_READ,
    )
)
registry.register(
    ToolSpec(
        name="query_partner_memory_graph",
        title="Query the graph across a partner link",
        summary="The graph language across your org and a partner org, crossing through aliased entities.",
        description=(
            "Run the same graph query language across the caller's org and a partner org. Use this when the user "
            "asks how their own memory relates to a linked partner team's. Do not use it to read the partner alone; "
            "use `search_partner_memory` for that. Do not use it when the starting point is a sentence and no "
            "pattern is stated; use `find_partner_memory_connections` for that. Reads the partner org and writes "
            "nothing to either side. Calls are handled one at a time per org: a second link call issued while one "
            "is in flight comes back with `reason: busy` without running. Name match: `WHERE e.name CONTAINS $part` "
            "works here too, on `Entity.name` and `Tag.name`, ignoring letter case and full-width forms, two "
            "characters for a piece that is all ASCII and one for Hangul or Han. It runs on the rows the walk "
            "already returned, so an empty result over a `truncated` walk means the piece was not seen, not that it "
            "is absent. Entities the link has aliased fold into one node under the home spelling, so the partner's "
            "own spelling of a name is not what this compares against. Scoped start: `entity:` or `tag:` together "
            "with `text:`, and `tag:` alone, work here too and resolve in the caller's org only, as do name lists "
            "(any), `entity_all:` or `tag_all:` (all) and `entity:` with `tag:` (both), with nothing beyond that "
            "shape. `a.score`, `scoped_mode`, `filled`, `has_more`, `unresolved`, `entities_truncated` and "
            "`budget.caps` mean what they mean on `query_memory_graph`. `exact` measures every candidate but returns "
            "only the top `k`, and `has_more: true` says more candidates remain in scope. An uncovered scope adds "
            "`stage: start` to `truncated`, and `a.score` is null on hop-reached events and sorts last, so use "
            "`ORDER BY a.score DESC, a.id` for a stable order. 0 rows with `filled: false` means not confirmed, not "
            "absent. `MATCH` can be left out when the start itself is the answer, as in `START a = events(entity: "
            "$name, text: $q, k: 20) RETURN a, a.score ORDER BY a.score DESC, a.id`; with no walk it returns only "
            "the caller's own events. A missing arrow on a directed relation is filled in as on "
            "`query_memory_graph`, with a line in `notes`. Args: link_id: Which link to read through, from "
            "`list_partner_links`. query: The graph query text, same grammar and vocabulary as "
            "`query_memory_graph`. `START` resolves in the caller's org only; the walk crosses into the partner's "
            "events through entities the link has aliased, which count as one entity for `PARTICIPATED_IN` and "
            "`SHARES`. `NEXT`, `MEMBER_OF`, `CONNECTED`, and `RESOLVED_BY` stay within a side (and so do `SIMILAR`, "
            "`FAR` and `SAME_AS`). params: Values for `$name` references. Returns: `{status, link_id, remote_org, "
            "columns, rows, row_count, start, partial, truncated, plan, budget, notes}`, or `{status: error, error, "
            "reason, detail}` where `error` repeats the reason code. A query the grammar rejects also carries "
            "`{blocked_by: syntax|grammar|params, hint?, allowed_*}`, as on the home path (its `reason` is "
            "`query_rejected`). Returned events carry `side` (`remote` = partner, `home` = yours), and partner "
            "content opens with `get_partner_memory_content`. A `reason` names the state of the link, not a failure "
            "of the caller's own memory."
        ),
        input_model=PartnerGraphIn,
        output_model=PartnerGraphOut,
        handler=query_partner_memory_graph,
        returns="{ status, link_id, remote_org, columns, rows, row_count, start, partial, truncated, plan, budget, "
        "notes } " + _ERROR + " | { status: error, error, blocked_by, hint?, allowed_* }",
        examples=(
            (
                "Partner events sharing an aliased entity with mine",
                {
                    "link_id": "<link_id>",
                    "query": "START a = events(text: $q, k: 3) MATCH (a)-[:PARTICIPATED_IN]-(e)-[:PARTICIPATED_IN]-(b) "
                    "RETURN b, e ORDER BY b.id LIMIT 20",
                    "params": {"q": "staging deploys"},
                },
            ),
        ),
        **_READ,
    )
)
