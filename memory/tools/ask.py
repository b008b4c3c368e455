"""memory.ask (seed enterprise-memory-tools): a question in, an answer with its evidence out."""

from __future__ import annotations

import uuid
from typing import Annotated

from pydantic import Field

from accounts import access
from core.errors import NotFound, Unprocessable
from core.registry import ToolCall, ToolSpec, registry
from memory.selectors.ask import MAX_LIMIT, RUN_BUDGET_CHARS, memory_ask
from memory.selectors.search import ReadScope
from memory.selectors.tasks import task_get
from memory.tools.common import ID_MAX, QUERY_MAX, Closed, RowId, stated


class AskIn(Closed):
    purpose: Annotated[str, stated(minLength=1)] = Field(
        max_length=QUERY_MAX,
        description="What you need it for: the question, in a sentence (up to 2000 characters).",
    )
    teamId: RowId | None = Field(
        default=None, description="Only this team's notes; honoured as given, never widened."
    )
    projectId: Annotated[str, stated(format="uuid")] | None = Field(
        default=None,
        max_length=ID_MAX,
        description="Only this project's notes (its id); honoured as given, never widened.",
    )
    limit: int | None = Field(
        default=None,
        strict=True,
        ge=1,
        le=MAX_LIMIT,
        description="At most this many notes: 1-50 (default 5); outside that range the call is refused.",
    )


class EvidenceNote(Closed):
    id: str = Field(description="The note's id.")
    layer: str = Field(description="task, member, role, team, project or enterprise.")
    sourceEventId: str | None = Field(description="The event the note was learned from.")
    text: str = Field(description="The note's text (cut when partial).")
    status: str = Field(description="unverified, stale, conflict or superseded.")
    score: float = Field(description="How well it matched, higher is better.")
    partial: bool | None = Field(
        default=None, description="Present (true) when the note was cut to fit one result."
    )
    chars: int | None = Field(default=None, description="The note's full length, when partial.")


class OmittedNote(Closed):
    id: str = Field(description="A note that matched and did not fit in one result.")
    layer: str = Field(description="Its layer.")
    sourceEventId: str | None = Field(description="The event it was learned from.")
    chars: int = Field(description="Its length.")


class AppliedFilters(Closed):
    teamId: int | None = Field(description="The team filter applied, as given.")
    projectId: str | None = Field(description="The project filter applied, as given.")
    layers: list[str] | None = Field(
        description="The layers read (a run reads task, team and enterprise); null = every readable layer."
    )
    limit: int = Field(description="The note limit applied.")


class AskUsage(Closed):
    evidenceReturned: int = Field(description="Notes in evidence.")
    evidenceOmitted: int = Field(description="Notes that matched and did not fit (runs only).")
    evidenceChars: int = Field(description="Characters of evidence returned.")


class AskOut(Closed):
    answer: str = Field(
        description="The answer; it names the notes it cites as [id]. Empty when not answered."
    )
    evidence: list[EvidenceNote] = Field(description="The notes behind the answer, best first.")
    appliedFilters: AppliedFilters = Field(description="The filters as applied.")
    status: str = Field(description="answered, insufficient_evidence, conflict or unavailable.")
    usage: AskUsage = Field(description="What the reply holds.")
    omitted: list[OmittedNote] | None = Field(
        default=None, description="In a run: notes that matched and did not fit."
    )


def _in_run(call: ToolCall) -> bool:
    """A run (MCP session, stdio, a run key) gets one bounded result; plain HTTP gets everything."""
    return call.surface in ("mcp", "stdio", "run")


def ask(call: ToolCall, args: AskIn) -> AskOut:
    if not args.purpose.strip():
        raise Unprocessable("purpose must not be empty", code="purpose_empty")
    project_ids = None
    if args.projectId is not None:
        try:
            project_ids = (uuid.UUID(args.projectId),)
        except ValueError as exc:
            raise Unprocessable("projectId must be a project id", code="invalid_project_id") from exc
    key = call.access_key
    task_id = None
    if call.task_id:
        task = task_get(task_id=call.task_id)
        if task is None or not access.task_may_read(member=call.member, key=key, task=task):
            raise NotFound("task not found", code="not_found")
        task_id = task.pk
    # A run reads the task, team and enterprise layers; a filter narrows within them, never adds one.
    run_layers = task_id is not None
    # A folder-bound key asks within its folder whatever the filters say (they narrow, never widen).
    scope = ReadScope(
        member=call.member,
        key=key,
        project_ids=project_ids,
        workspace_id=key.workspace_id,
        include_enterprise_wide=project_ids is None,
        team_id=args.teamId,
        task_id=task_id,
        run_layers=run_layers,
    )
    in_run = _in_run(call)
    result = memory_ask(
        scope=scope, purpose=args.purpose, limit=args.limit, budget=RUN_BUDGET_CHARS if in_run else None
    )
    evidence = [
        EvidenceNote(
            id=str(e.memory.pk),
            layer=e.memory.layer,
            sourceEventId=e.memory.source_event_id,
            text=e.text,
            status=e.memory.status,
            score=round(e.score, 6),
            partial=True if e.partial else None,
            chars=len(e.memory.content) if e.partial else None,
        )
        for e in result.evidence
    ]
    call.read_ids = [n.id for n in evidence]
    fields = {
        "answer": result.answer,
        "evidence": evidence,
        "appliedFilters": AppliedFilters(
            teamId=args.teamId,
            projectId=args.projectId,
            layers=["task", "team", "enterprise"] if run_layers else None,
            limit=args.limit or 5,
        ),
        "status": result.status,
        "usage": AskUsage(
            evidenceReturned=len(evidence),
            evidenceOmitted=len(result.omitted),
            evidenceChars=sum(len(n.text) for n in evidence),
        ),
    }
    if in_run:
        fields["omitted"] = [
            OmittedNote(id=str(m.pk), layer=m.layer, sourceEventId=m.source_event_id, chars=len(m.content))
            for m in result.omitted
        ]
    return AskOut(**fields)  # type: ignore[arg-type]


registry.register(
    ToolSpec(
        name="memory.ask",
        query_argument="purpose",
        toolset="enterprise",
        title="Ask enterprise memory",
        summary="Ask enterprise memory a question, and get an answer with its evidence.",
        description=(
            "Ask enterprise memory a question and get an answer with the evidence behind it. Pass purpose (what "
            "you need it for) and, to restrict the search, teamId or projectId — an explicit filter is honoured as "
            "given and never widened, so omit both to search the whole enterprise. Returns answer, evidence, "
            "appliedFilters, status and usage. A status of unavailable means memory could not be asked: carry on "
            "without it, and never read it as memory knowing nothing. In a run the reply always fits one result: "
            "evidence holds the notes that fit, whole; a first note too long on its own is cut and marked partial, "
            "with chars as its full length; and omitted names each note that matched and is not there. answer "
            "names the notes cited, and their text is in evidence only. Pass limit to get at most that many notes. "
            "Asking never stores anything."
        ),
        input_model=AskIn,
        output_model=AskOut,
        handler=ask,
        scope="tasks:read",
        read_only=True,
        idempotent=True,
        retry="Safe: repeating the call changes nothing. Asking never stores anything.",
        called_by=("a run", "the API"),
        returns=(
            "{ answer, evidence, appliedFilters, status, usage }. status is answered, insufficient_evidence "
            "(nothing in scope), conflict (notes disagree) or unavailable (memory could not be asked: no answer and "
            "no evidence, and not the same as knowing nothing). A run reads a fixed set of layers (task, team and "
            "enterprise): a filter narrows within them and never adds one. A run also gets omitted: [{ id, layer, "
            "sourceEventId, chars }] for each note that matched and did not fit in one result, and "
            "usage.evidenceOmitted. Over HTTP nothing is left out, and answer carries the text of every note."
        ),
        examples=(
            (
                "How has this task handled flaky checks before",
                {"purpose": "How has this task handled flaky checks before?"},
            ),
            ("At most three notes", {"purpose": "What does the trial include?", "limit": 3}),
        ),
        api_routes=("GET /v1/tasks/:taskId/memory/ask (tasks:read)",),
    )
)
