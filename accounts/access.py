"""The access policy: the one module that says who may read, write or manage what.

Every surface asks here and nowhere else: the tool door and the tools (REST, MCP, stdio, task runs),
the console, the admin, the CLI, partner reads. Grants are read at call time, never remembered from
when a key was made: a member removed from the team that grants a project loses it at the next call.

    principal = a member (console session) or an access key (its member, narrowed by the key)

    member's org role       read                        write                       manage
    owner, admin            every project               every project               the enterprise
    auditor                 every project               nothing                     nothing
    member                  projects granted view       projects granted write      projects granted manage
    inactive (any role)     nothing                     nothing                     nothing

    an access key narrows its member, never widens:
      scopes                the key's scopes (``admin`` holds them all); a write tool needs a write scope
      folder-bound key      reads its folder and what is shared enterprise-wide; writes its folder only
      project key           reads its project and what is shared enterprise-wide; writes where the
                            member may write (its saves follow the member's Main target, seed rule)
      run key               bound to one task: asks and trains within that task's run

Memories inside a readable place are further filtered by their visibility (author, team, project,
enterprise) and layer: ``memory.selectors.visibility`` turns the rows above into the query; it takes
the project rule from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet
from guardian.core import ObjectPermissionChecker
from guardian.shortcuts import get_objects_for_user

from accounts.models import AccessKey, Member, OrgRole, Project, Scope
from accounts.selectors.members import member_auditor_enterprise
from core.errors import Forbidden, NotAuthenticated

WRITE_SCOPES = frozenset({Scope.MEMORY_WRITE, Scope.TASKS_WRITE})
READ_PERMISSION = "accounts.view_project"
WRITE_PERMISSION = "accounts.write_project"

MEMBERSHIP_MAY_NOT_WRITE = "membership may not write in this organization"
MEMBERSHIP_INACTIVE = "this membership is not active in this organization"
PROJECT_WRITE_DENIED = "this membership may not write in project '{project}'"
FOLDER_DENIED = "this access key is bound to folder '{folder}' and may not reach other folders"


# -- who the member is -------------------------------------------------------------------------------


def member_sees_every_project(member: Member) -> bool:
    """Owners, admins and auditors read every project of their enterprise."""
    return member.is_active and member.org_role in (OrgRole.OWNER, OrgRole.ADMIN, OrgRole.AUDITOR)


def member_may_manage(member: Member) -> bool:
    """Owners and admins change the enterprise's projects, teams, keys, links and jobs."""
    return member.is_active and member.org_role in (OrgRole.OWNER, OrgRole.ADMIN)


def member_may_write(member: Member) -> bool:
    """Whether the membership may write anything at all (auditors and inactive members may not)."""
    return member.is_active and member.org_role != OrgRole.AUDITOR


# -- projects ----------------------------------------------------------------------------------------


def projects_readable(*, member: Member) -> QuerySet[Project]:
    """Projects the member may read: all for owners, admins and auditors, else view grants."""
    if not member.is_active:
        return Project.objects.none()
    if member_sees_every_project(member):
        return Project.objects.all()
    return _granted(member, READ_PERMISSION)


def projects_writable(*, member: Member) -> QuerySet[Project]:
    """Projects the member may write: all for owners and admins, write grants for members, none else."""
    if not member_may_write(member):
        return Project.objects.none()
    if member_may_manage(member):
        return Project.objects.all()
    return _granted(member, WRITE_PERMISSION)


def projects_manageable(*, member: Member) -> QuerySet[Project]:
    """Projects the member manages: all for owners and admins, manage grants for members, none else."""
    if not member_may_write(member):
        return Project.objects.none()
    if member_may_manage(member):
        return Project.objects.all()
    return _granted(member, "accounts.manage_project")


def _granted(member: Member, permission: str) -> QuerySet[Project]:
    granted = get_objects_for_user(member.user, permission, klass=Project.objects.all())
    return Project.objects.filter(pk__in=granted.values("pk"))


def _project(project: Project | Any) -> Project | None:
    if isinstance(project, Project):
        return project
    return Project.objects.filter(pk=project).first()


def project_may_read(*, member: Member, project: Project | Any) -> bool:
    if not member.is_active:
        return False
    if member_sees_every_project(member):
        return True
    found = _project(project)
    return found is not None and ObjectPermissionChecker(member.user).has_perm("view_project", found)


def project_may_write(*, member: Member, project: Project | Any) -> bool:
    if not member_may_write(member):
        return False
    if member_may_manage(member):
        return True
    found = _project(project)
    return found is not None and ObjectPermissionChecker(member.user).has_perm("write_project", found)


def project_may_manage(*, member: Member, project: Project | Any) -> bool:
    if member_may_manage(member):
        return True
    if not member_may_write(member):
        return False
    found = _project(project)
    return found is not None and ObjectPermissionChecker(member.user).has_perm("manage_project", found)


# -- what a key narrows ------------------------------------------------------------------------------


def key_is_folder_bound(key: AccessKey | None) -> bool:
    return key is not None and key.workspace_id is not None


def key_may_reach(*, key: AccessKey | None, workspace_id: Any) -> bool:
    """Whether a key's binding lets it touch a row in this folder (writes, and reads by id)."""
    if key is None or key.workspace_id is None:
        return True
    return str(workspace_id) == str(key.workspace_id)


def key_may_use_project(*, key: AccessKey | None, project_id: Any) -> bool:
    """A folder-bound key names no project but its own (a filter never widens it)."""
    if key is None or key.workspace_id is None:
        return True
    return str(project_id) == str(key.project_id)


KEY_MEMBER_DEACTIVATED = "this access key's member was deactivated in this organization"


def key_member_active_check(key: AccessKey) -> None:
    """Refuse (401) a key whose member was deactivated: the REST door and the MCP tool list ask it on
    every call, so it stops working at once (the tool door refuses its calls by the seed's texts)."""
    if not key.member.is_active:
        raise NotAuthenticated(KEY_MEMBER_DEACTIVATED, code="member_deactivated")


def key_has_scope(key: AccessKey, scope: str) -> bool:
    return scope in key.scopes or Scope.ADMIN in key.scopes


# -- rows --------------------------------------------------------------------------------------------


def place_may_write(
    *, member: Member, key: AccessKey | None, project: Project | Any, workspace_id: Any
) -> bool:
    """Write (save into, correct, forget) a row in this folder: the member's grant now, and the key's binding."""
    return key_may_reach(key=key, workspace_id=workspace_id) and project_may_write(
        member=member, project=project
    )


def place_write_check(*, member: Member, key: AccessKey | None, project: Project, workspace_id: Any) -> None:
    """Refuse (403, "your role here may not") a write into this folder that the policy does not allow."""
    if not member_may_write(member):  # the seed's text, for an auditor and an inactive membership alike
        raise Forbidden(MEMBERSHIP_MAY_NOT_WRITE, code="membership_may_not_write")
    if not key_may_reach(key=key, workspace_id=workspace_id):
        raise Forbidden(FOLDER_DENIED.format(folder=_folder_name(key)), code="workspace_forbidden")
    if not project_may_write(member=member, project=project):
        raise Forbidden(PROJECT_WRITE_DENIED.format(project=project.slug), code="project_write_denied")


def _folder_name(key: AccessKey | None) -> str:
    workspace = key.workspace if key is not None else None
    return workspace.name if workspace is not None else ""


def key_may_be_made(*, member: Member, project: Project, scopes: list[str]) -> bool:
    """A key never holds more than its member: it needs a project the member may read, and one it may
    write when the key carries a write scope and the member writes at all (an auditor's write scopes
    are inert: the door refuses its writes by role)."""
    if not project_may_read(member=member, project=project):
        return False
    writes = any(s in WRITE_SCOPES or s == Scope.ADMIN for s in scopes)
    if writes and member_may_write(member):
        return project_may_write(member=member, project=project)
    return True


# -- tasks -------------------------------------------------------------------------------------------


def _key_may_reach_task(key: AccessKey | None, task: Any) -> bool:
    """A run key (the ``run_key`` of one run) reaches only its run's task; any other key every task."""
    bound = key.bound_task_id if key is not None else None
    return bound is None or str(bound) == str(task.pk)


def task_may_read(*, member: Member, key: AccessKey | None, task: Any) -> bool:
    """Ask a task's memory: read on its project; a run key only its own task; a folder-bound key only
    a task of its own project."""
    if not _key_may_reach_task(key, task):
        return False
    return key_may_use_project(key=key, project_id=task.project_id) and project_may_read(
        member=member, project=task.project_id
    )


def task_may_run(*, member: Member, key: AccessKey | None, task: Any) -> bool:
    """Start or finish a run, or train its notes: write on the task's project. A run key is made for the
    task's project without a folder, so a folder-bound key may not start one (it would widen the key)."""
    if key_is_folder_bound(key):
        return False
    if not _key_may_reach_task(key, task):
        return False
    return project_may_write(member=member, project=task.project_id)


TASK_RUN_DENIED = "this membership may not run or train this task: it needs write on the task's project"


def task_run_check(*, member: Member, key: AccessKey | None, task: Any) -> None:
    """Refuse (403) a run start, finish or train the policy does not allow."""
    if not task_may_run(member=member, key=key, task=task):
        raise Forbidden(TASK_RUN_DENIED, code="task_write_denied")


# -- people ------------------------------------------------------------------------------------------

PEOPLE_ADMINS_ONLY = "only the enterprise's owners and admins manage people and teams"
OWNERS_ONLY = "only an owner may make an owner, or change or deactivate one"
NO_SELF_ESCALATION = "a member may not raise their own org role"
NO_SELF_DEACTIVATION = "a member may not deactivate themselves"
LAST_OWNER = "the enterprise's last active owner may not be demoted or deactivated"

ROLE_RANK = {OrgRole.AUDITOR: 0, OrgRole.MEMBER: 1, OrgRole.ADMIN: 2, OrgRole.OWNER: 3}


def people_manage_check(*, actor: Member) -> None:
    """Refuse (403) anyone but an active owner or admin: they invite, change and deactivate people."""
    if not member_may_manage(actor):
        raise Forbidden(PEOPLE_ADMINS_ONLY, code="people_manage_denied")


def people_read_check(*, actor: Member) -> None:
    """Refuse (403) a list of the enterprise's people to anyone but its owners, admins and auditors."""
    if not member_sees_every_project(actor):
        raise Forbidden(PEOPLE_ADMINS_ONLY, code="people_manage_denied")


def invite_check(*, actor: Member | None, org_role: str) -> None:
    """Invite someone with this org role: owners and admins; an owner only by an owner (None: the operator)."""
    if actor is None:
        return
    people_manage_check(actor=actor)
    if org_role == OrgRole.OWNER and actor.org_role != OrgRole.OWNER:
        raise Forbidden(OWNERS_ONLY, code="owner_only")


def member_change_check(
    *,
    actor: Member | None,
    target: Member,
    org_role: str | None = None,
    deactivate: bool = False,
    active_owners: int = 0,
) -> None:
    """Refuse (403) a change of ``target``'s org role, teams, grants or job roles, or its deactivation,
    that the policy does not allow: owners and admins only; an owner is made, changed or deactivated by
    an owner only; no one raises their own role or deactivates themselves; the last active owner stays
    (``active_owners``: how many active owners the enterprise has now, counted by the caller).

    ``actor`` None is the operator at the command line (``manage.py member``): every rule but the last
    owner's is theirs to judge."""
    if actor is not None:
        people_manage_check(actor=actor)
        touches_owner = target.org_role == OrgRole.OWNER or org_role == OrgRole.OWNER
        if touches_owner and (org_role is not None or deactivate) and actor.org_role != OrgRole.OWNER:
            raise Forbidden(OWNERS_ONLY, code="owner_only")
        if target.pk == actor.pk:
            if deactivate:
                raise Forbidden(NO_SELF_DEACTIVATION, code="self_deactivation")
            if org_role is not None and ROLE_RANK[OrgRole(org_role)] > ROLE_RANK[OrgRole(actor.org_role)]:
                raise Forbidden(NO_SELF_ESCALATION, code="self_escalation")
    leaves_owners = deactivate or (org_role is not None and org_role != OrgRole.OWNER)
    if target.org_role == OrgRole.OWNER and target.is_active and leaves_owners and active_owners <= 1:
        raise Forbidden(LAST_OWNER, code="last_owner")


# -- tasks: who changes them -------------------------------------------------------------------------

TASK_CHANGE_DENIED = (
    "this membership may not create or change tasks in project '{project}': it needs manage on it"
)


def task_may_change(*, member: Member, key: AccessKey | None, project: Project | Any) -> bool:
    """Create a task, or a new version of one (its layer grants): manage on the task's project; a
    folder-bound or run key may not (a task's layers reach beyond one folder)."""
    if key_is_folder_bound(key) or (key is not None and key.bound_task_id is not None):
        return False
    return project_may_manage(member=member, project=project)


def task_change_check(*, member: Member, key: AccessKey | None, project: Project) -> None:
    if not task_may_change(member=member, key=key, project=project):
        raise Forbidden(TASK_CHANGE_DENIED.format(project=project.slug), code="task_change_denied")


# -- the auditors' admin -----------------------------------------------------------------------------


@dataclass(frozen=True)
class AdminReach:
    """What the read-only admin shows a user: one enterprise's records, or every enterprise's."""

    enterprise_id: str | None
    all_tenants: bool


def admin_reach(*, user: Any) -> AdminReach | None:
    """A superuser reads every enterprise; a signed-in user holding an auditor membership reads that
    enterprise; anyone else may not enter (None)."""
    if not (user.is_active and user.is_authenticated):
        return None
    if user.is_superuser:
        return AdminReach(enterprise_id=None, all_tenants=True)
    enterprise_id = member_auditor_enterprise(user_id=user.pk)
    return AdminReach(enterprise_id=enterprise_id, all_tenants=False) if enterprise_id else None


def admin_may_enter(*, user: Any) -> bool:
    return admin_reach(user=user) is not None
