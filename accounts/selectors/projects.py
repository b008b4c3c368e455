"""Which projects a connection can save to or read, and where its saves go."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import prefetch_related_objects

from accounts import access
from accounts.models import AccessKey, Project, PublicTarget


@dataclass(frozen=True)
class TargetEntry:
    project: Project | None
    public: PublicTarget | None
    is_main: bool
    is_this_connection: bool

    @property
    def project_id(self) -> str:
        return str(self.project.pk if self.project else self.public.project_id)  # type: ignore[union-attr]

    @property
    def read_only(self) -> bool:
        return self.project is None


def _active_target(key: AccessKey) -> tuple[Project, str]:
    """The seed's rule, decided once: a key bound to a folder saves there ("folder"); any other key
    saves to its member's Main project while the member has one and has not paused it ("main");
    otherwise to the key's own project ("key_project")."""
    member = key.member
    if key.workspace_id is not None:
        return key.project, "folder"
    if member.main_project_id and not member.main_paused:
        return member.main_project, "main"  # type: ignore[return-value]
    return key.project, "key_project"


def project_active_target(*, key: AccessKey) -> Project:
    """Where this connection's saves go: its folder-bound project, else the member's Main, else its project."""
    return _active_target(key)[0]


@dataclass(frozen=True)
class SaveTarget:
    """Where a connection's saves go, and why (``whoami``, ``manage.py accesskey create``)."""

    project: Project
    folder: str | None  # the folder a folder-bound key saves into; None: the project's Main folder
    rule: str  # "folder", "main" or "key_project"
    reason: str


def save_target_explained(*, key: AccessKey) -> SaveTarget:
    """``project_active_target`` with the rule that chose it, in words a person reading a key expects."""
    project, rule = _active_target(key)
    folder = key.workspace.name if key.workspace is not None else None
    if rule == "folder":
        reason = f"this key is bound to folder '{folder}' of project '{project.slug}': every save goes there"
    elif rule == "main":
        reason = f"this key is not bound to a folder, so its saves go to the member's Main project '{project.slug}'"
        if project.pk != key.project_id:
            reason += f", not to '{key.project.slug}' (bind the key to a folder of '{key.project.slug}' to save there)"
    else:
        reason = (
            f"this key is not bound to a folder and its member has no active Main project, so its saves go to "
            f"the key's project '{project.slug}'"
        )
    return SaveTarget(project=project, folder=folder, rule=rule, reason=reason)


def save_targets_explained(*, keys: Iterable[AccessKey]) -> list[tuple[AccessKey, SaveTarget]]:
    """Each key with ``save_target_explained`` (the console's key list): what it reads beyond each key
    (its member, the member's Main project, its project and folder) is fetched for all the keys at once,
    with no query at all for what the keys came with (``select_related``)."""
    listed = list(keys)
    prefetch_related_objects(listed, "member__main_project", "project", "workspace")
    return [(key, save_target_explained(key=key)) for key in listed]


def project_targets_for(*, key: AccessKey) -> list[TargetEntry]:
    """Projects the key's member may read (the access policy), then public targets.

    The list is the account's (the seed: what "the signed-in account can save to or read", with switch
    links), also for a folder-bound key: names of projects, no memory of them."""
    member = key.member
    projects = list(access.projects_readable(member=member).select_related("team").order_by("slug"))
    entries = [
        TargetEntry(
            project=p,
            public=None,
            is_main=p.pk == member.main_project_id,
            is_this_connection=key.workspace_id is not None and p.pk == key.project_id,
        )
        for p in projects
    ]
    own = {p.pk for p in projects}
    publics = PublicTarget.objects.exclude(enterprise_id=key.enterprise_id).order_by("slug")
    entries += [
        TargetEntry(project=None, public=t, is_main=False, is_this_connection=False)
        for t in publics
        if t.project_id not in own
    ]
    return entries
