"""Account tools: list_memory_projects."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from accounts.selectors.projects import TargetEntry, project_active_target, project_targets_for
from accounts.switch_links import switch_token, switch_url
from core.registry import ToolCall, ToolSpec, registry


class Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ListMemoryProjectsIn(Closed):
    """No arguments: the account and the connection come from the access key."""


class ProjectEntry(Closed):
    project: str = Field(
        description="The project's slug, the name `assert_project` on save_memory compares against."
    )
    team: str | None = Field(
        description="The team (department) that owns the project; locate memories by it."
    )
    save_domain: str = Field(description="The domain saves to this project are filed under.")
    save_group: str = Field(description="The group within the domain saves are filed under.")
    is_main: bool = Field(description="This is the account-wide Main target.")
    is_this_connection: bool = Field(description="This connection is folder-bound to this project.")
    read_only: bool | None = Field(
        default=None, description="Present (true) on public targets the account can read but does not own."
    )
    switch_url: str = Field(description="Console page where the user's click performs the switch.")
    switch_link: str = Field(description="The same URL as a clickable Markdown link to show the user.")


class ListMemoryProjectsOut(Closed):
    projects: list[ProjectEntry] = Field(description="Projects the account can save to or read.")
    main_project: str | None = Field(
        description="Slug of the account-wide Main target, null when none is set."
    )
    main_paused: bool | None = Field(
        default=None, description="Present (true) when the user switched Main off in the console."
    )
    display: str = Field(description="A Markdown list of the projects, ready to show the user.")
    note: str = Field(description="How switching works: only the user's click on a switch_link switches.")


NOTE = (
    "Switching happens only when the user clicks a project's switch_link and confirms in the console; "
    "this tool cannot switch. Saves go to the project marked is_this_connection when the connection is "
    "folder-bound, else to Main. Locate memories by team, not by an exact project name."
)


def _entry(call: ToolCall, entry: TargetEntry) -> ProjectEntry:
    project, public = entry.project, entry.public
    token = switch_token(
        enterprise_id=call.enterprise.pk,
        member_id=call.member.pk,
        key_id=call.access_key.pk,
        project_id=entry.project_id,
    )
    url = switch_url(token)
    slug = project.slug if project else public.slug  # type: ignore[union-attr]
    fields: dict[str, object] = {
        "project": slug,
        "team": (project.team.name if project.team else None) if project else (public.team or None),  # type: ignore[union-attr]
        "save_domain": project.save_domain if project else public.save_domain,  # type: ignore[union-attr]
        "save_group": project.save_group if project else public.save_group,  # type: ignore[union-attr]
        "is_main": entry.is_main,
        "is_this_connection": entry.is_this_connection,
        "switch_url": url,
        "switch_link": f"[Switch to {slug}]({url})",
    }
    if entry.read_only:
        fields["read_only"] = True
    return ProjectEntry(**fields)  # type: ignore[arg-type]


def _display(entries: list[ProjectEntry], active: str) -> str:
    lines = []
    for e in entries:
        marks = [
            m
            for m, on in (
                ("Main", e.is_main),
                ("this connection", e.is_this_connection),
                ("read-only", bool(e.read_only)),
            )
            if on
        ]
        saving = " ← saves go here" if e.project == active and not e.read_only else ""
        team = f" (team {e.team})" if e.team else ""
        tag = f" [{', '.join(marks)}]" if marks else ""
        lines.append(f"- **{e.project}**{team}{tag}{saving}: {e.switch_link}")
    return "\n".join(lines) if lines else "No projects are visible to this account."


def list_memory_projects(call: ToolCall, args: ListMemoryProjectsIn) -> ListMemoryProjectsOut:
    key = call.access_key
    entries = [_entry(call, e) for e in project_targets_for(key=key)]
    member = call.member
    main = member.main_project.slug if member.main_project_id else None  # type: ignore[union-attr]
    active = project_active_target(key=key).slug
    fields: dict[str, object] = {
        "projects": entries,
        "main_project": main,
        "display": _display(entries, active),
        "note": NOTE,
    }
    if member.main_paused:
        fields["main_paused"] = True
    return ListMemoryProjectsOut(**fields)  # type: ignore[arg-type]


registry.register(
    ToolSpec(
        name="list_memory_projects",
        toolset="aiakiv",
        title="List memory projects",
        summary="List the projects this account can save to or read, with links that switch the target.",
        description=(
            "List the projects the signed-in account can save to or read. Use this when the user asks which "
            "projects they have, which one they are saving to, or wants to move their saves elsewhere. It does "
            "not perform the switch: the user's click on a project's `switch_link` is the switch. Read-only. "
            "Returns: `{projects: [{project, team, save_domain, save_group, is_main, is_this_connection, "
            "read_only?, switch_url, switch_link}], main_project, main_paused?, display, note}`. Each "
            "`switch_link` is a clickable link; the user's click on it, confirmed in the Mnemos console, performs "
            "the switch. `is_main` marks the account-wide target; `is_this_connection` marks the project this "
            "connection is folder-bound to. Entries with `read_only` are public targets the account can read "
            "without owning them, such as a shared demo. `main_paused`, when present, means the user switched "
            "Main off in the console. A wanted memory is located by its `team`, not by an exact project name."
        ),
        input_model=ListMemoryProjectsIn,
        output_model=ListMemoryProjectsOut,
        scope="memory:read",
        handler=list_memory_projects,
        read_only=True,
        idempotent=True,
        retry="Safe: repeating the call changes nothing.",
        returns=(
            "{ projects: [{ project, team, save_domain, save_group, is_main, is_this_connection, read_only?, "
            "switch_url, switch_link }], main_project, main_paused?, display, note }"
        ),
        examples=(("List my projects", {}),),
    )
)
