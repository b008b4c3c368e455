"""People and teams: invite, add, change org role, teams, project grants and job roles, deactivate.

Every change asks the access policy (``accounts.access``: owners and admins manage people; an owner is
made, changed or deactivated by an owner; no one raises their own role; the last active owner stays) and
is audited in its transaction. ``actor`` is the acting member; None is the operator at the command line
(``manage.py member``), to whom only the last owner's rule applies. docs/people.md.
"""

from __future__ import annotations

import hashlib
import secrets
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import password_validation
from django.contrib.auth.models import Group, User
from django.core import signing
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from accounts import access
from accounts.models import (
    Enterprise,
    Invitation,
    Member,
    OrgRole,
    Project,
    Role,
    RoleAssignment,
    Team,
    TeamMembership,
)
from accounts.services.audit import audit_record
from accounts.services.console_projects import project_revoke, team_open
from accounts.services.enterprises import PROJECT_PERMISSIONS, member_add, project_grant
from core.errors import Conflict, InvalidInput, NotFound, Unprocessable

INVITATION_SALT = "mnemos.invitation"
INVITATION_DAYS_DEFAULT = 7
INVITATION_DAYS_MAX = 30

UNKNOWN_ROLE = "unknown org role {role!r}; known roles: owner, admin, member, auditor"
BAD_DAYS = f"an invitation lasts 1 to {INVITATION_DAYS_MAX} days"
INVITATION_INVALID = "this invitation link is not valid"
INVITATION_USED = "this invitation link has already been used"
INVITATION_EXPIRED = "this invitation link has expired: ask an admin of the enterprise for a new one"
INVITATION_WITHDRAWN = "this invitation was withdrawn: ask an admin of the enterprise for a new one"
USERNAME_TAKEN = "this username is taken: choose another"
ALREADY_MEMBER = "'{username}' is already a member of this enterprise"
BAD_PERMISSION = "unknown project permission {name!r}; known: view, write, manage"


def _role(org_role: str) -> str:
    if org_role not in OrgRole.values:
        raise InvalidInput(UNKNOWN_ROLE.format(role=org_role), code="invalid_role")
    return org_role


def _active_owners() -> int:
    return Member.objects.filter(org_role=OrgRole.OWNER, is_active=True).count()


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


# -- invitations -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class InvitationMade:
    invitation: Invitation
    url: str  # the one-time sign-up link: shown once, never stored


def invitation_url(token: str) -> str:
    """The sign-up page for a token, under the public URL (as switch links are)."""
    return f"{settings.PUBLIC_URL}/console/join/{token}"


@transaction.atomic
def member_invite(
    *,
    actor: Member | None,
    enterprise: Enterprise,
    org_role: str = OrgRole.MEMBER,
    teams: Iterable[Team] = (),
    email: str = "",
    days: int = INVITATION_DAYS_DEFAULT,
) -> InvitationMade:
    """A pending invitation and its one-time sign-up link (a signed token naming the enterprise and the
    invitation, carrying a secret whose digest the row keeps). The link is returned once."""
    access.invite_check(actor=actor, org_role=_role(org_role))
    if not 1 <= days <= INVITATION_DAYS_MAX:
        raise InvalidInput(BAD_DAYS, code="invalid_days")
    secret = secrets.token_urlsafe(24)
    team_list = list(teams)
    invitation = Invitation.objects.create(
        enterprise=enterprise,
        email=email.strip()[:254],
        org_role=org_role,
        team_ids=[team.pk for team in team_list],
        digest=_digest(secret),
        invited_by=actor,
        expires_at=timezone.now() + timedelta(days=days),
    )
    token = signing.dumps(
        {"e": str(enterprise.pk), "i": str(invitation.pk), "s": secret}, salt=INVITATION_SALT, compress=True
    )
    audit_record(
        action="member.invite",
        target=invitation,
        details={"email": invitation.email, "org_role": org_role, "teams": [t.slug for t in team_list]},
    )
    return InvitationMade(invitation=invitation, url=invitation_url(token))


@dataclass(frozen=True)
class InvitationToken:
    enterprise_id: uuid.UUID
    invitation_id: uuid.UUID
    digest: str


def invitation_token_read(token: str) -> InvitationToken:
    """What a sign-up link names, before any tenant is known; a forged or garbled one is not found."""
    try:
        data = signing.loads(token, salt=INVITATION_SALT)
        return InvitationToken(
            enterprise_id=uuid.UUID(data["e"]), invitation_id=uuid.UUID(data["i"]), digest=_digest(data["s"])
        )
    except (signing.BadSignature, KeyError, TypeError, ValueError, AttributeError) as exc:
        raise NotFound(INVITATION_INVALID, code="invitation_invalid") from exc


def invitation_usable(*, token: InvitationToken, for_update: bool = False) -> Invitation:
    """Inside the token's tenant context: its invitation, or why it signs no one up (404 unknown, 409 used,
    withdrawn or expired)."""
    rows = Invitation.objects.select_related("enterprise")
    if for_update:
        rows = rows.select_for_update(of=("self",))
    invitation = rows.filter(pk=token.invitation_id, digest=token.digest).first()
    if invitation is None:
        raise NotFound(INVITATION_INVALID, code="invitation_invalid")
    if invitation.accepted_at is not None:
        raise Conflict(INVITATION_USED, code="invitation_used")
    if invitation.revoked_at is not None:
        raise Conflict(INVITATION_WITHDRAWN, code="invitation_withdrawn")
    if invitation.expires_at <= timezone.now():
        raise Conflict(INVITATION_EXPIRED, code="invitation_expired")
    return invitation


def _user_create(*, username: str, password: str, email: str = "") -> User:
    username = username.strip()
    try:
        User.username_validator(username)
    except ValidationError as exc:
        raise InvalidInput(" ".join(exc.messages), code="invalid_username") from exc
    if not username or len(username) > 150:
        raise InvalidInput("a username is 1 to 150 characters", code="invalid_username")
    if User.objects.filter(username__iexact=username).exists():
        raise Conflict(USERNAME_TAKEN, code="username_taken")
    user = User(username=username, email=email)
    try:
        password_validation.validate_password(password, user)
    except ValidationError as exc:
        raise InvalidInput(" ".join(exc.messages), code="invalid_password") from exc
    user.set_password(password)
    user.save()
    return user


@transaction.atomic
def invitation_accept(*, token: InvitationToken, username: str, password: str) -> Member:
    """The invitee signs up: a new user, a member with the invited org role and teams; the link is spent."""
    invitation = invitation_usable(token=token, for_update=True)
    user = _user_create(username=username, password=password, email=invitation.email)
    teams = list(Team.objects.filter(pk__in=invitation.team_ids))
    member = member_add(
        enterprise=invitation.enterprise, user=user, org_role=invitation.org_role, teams=teams
    )
    invitation.accepted_at = timezone.now()
    invitation.accepted_member = member
    invitation.save(update_fields=["accepted_at", "accepted_member"])
    audit_record(action="member.invitation_accept", target=invitation, details={"member": str(member.pk)})
    return member


@transaction.atomic
def invitation_withdraw(*, actor: Member | None, invitation: Invitation) -> Invitation:
    access.invite_check(actor=actor, org_role=invitation.org_role)
    if invitation.accepted_at is None and invitation.revoked_at is None:
        invitation.revoked_at = timezone.now()
        invitation.save(update_fields=["revoked_at"])
        audit_record(action="member.invitation_withdraw", target=invitation)
    return invitation


# -- members -----------------------------------------------------------------------------------------


@transaction.atomic
def member_create(
    *,
    actor: Member | None,
    enterprise: Enterprise,
    username: str,
    password: str | None = None,
    email: str = "",
    org_role: str = OrgRole.MEMBER,
    teams: Iterable[Team] = (),
) -> tuple[Member, str | None]:
    """Add a user (made when new, with ``password`` or a generated one, returned once) as a member."""
    access.invite_check(actor=actor, org_role=_role(org_role))
    user = User.objects.filter(username=username.strip()).first()
    generated = None
    if user is None:
        generated = None if password else secrets.token_urlsafe(12)
        user = _user_create(username=username, password=password or generated or "", email=email)
    elif Member.objects.filter(user=user).exists():
        raise Conflict(ALREADY_MEMBER.format(username=user.username), code="already_member")
    return member_add(enterprise=enterprise, user=user, org_role=org_role, teams=list(teams)), generated


@transaction.atomic
def member_set_org_role(*, actor: Member | None, member: Member, org_role: str) -> Member:
    access.member_change_check(
        actor=actor, target=member, org_role=_role(org_role), active_owners=_active_owners()
    )
    previous = member.org_role
    if previous != org_role:
        member.org_role = org_role
        member.save(update_fields=["org_role"])
        audit_record(action="member.org_role", target=member, details={"from": previous, "to": org_role})
    return member


@transaction.atomic
def member_set_teams(*, actor: Member | None, member: Member, teams: Iterable[Team]) -> Member:
    """The member's teams become exactly these (their project grants follow through the teams' groups)."""
    access.member_change_check(actor=actor, target=member)
    wanted = {team.pk: team for team in teams}
    current = {
        tm.team_id: tm.team for tm in TeamMembership.objects.filter(member=member).select_related("team")
    }
    added = [wanted[pk] for pk in wanted.keys() - current.keys()]
    removed = [current[pk] for pk in current.keys() - wanted.keys()]
    TeamMembership.objects.filter(member=member, team_id__in=[t.pk for t in removed]).delete()
    TeamMembership.objects.bulk_create(
        [TeamMembership(enterprise_id=member.enterprise_id, member=member, team=t) for t in added]
    )
    if removed:
        member.user.groups.remove(*[t.group for t in removed])
    if added:
        member.user.groups.add(*[t.group for t in added])
    if added or removed:
        audit_record(
            action="member.teams",
            target=member,
            details={"added": sorted(t.slug for t in added), "removed": sorted(t.slug for t in removed)},
        )
    return member


@transaction.atomic
def member_set_job_roles(*, actor: Member | None, member: Member, roles: Iterable[Role]) -> Member:
    """The member's job roles (the role memory layer's holders) become exactly these."""
    access.member_change_check(actor=actor, target=member)
    wanted = {role.pk: role for role in roles}
    current = set(RoleAssignment.objects.filter(member=member).values_list("role_id", flat=True))
    added, removed = wanted.keys() - current, current - wanted.keys()
    RoleAssignment.objects.filter(member=member, role_id__in=removed).delete()
    RoleAssignment.objects.bulk_create(
        [RoleAssignment(enterprise_id=member.enterprise_id, member=member, role=wanted[pk]) for pk in added]
    )
    if added or removed:
        audit_record(
            action="member.job_roles",
            target=member,
            details={"roles": sorted(role.slug for role in wanted.values())},
        )
    return member


def _permissions(permissions: Iterable[str]) -> list[str]:
    names = list(dict.fromkeys(permissions))
    for name in names:
        if name not in PROJECT_PERMISSIONS:
            raise InvalidInput(BAD_PERMISSION.format(name=name), code="invalid_permission")
    if not names:
        raise InvalidInput("name at least one permission: view, write, manage", code="invalid_permission")
    return names


@transaction.atomic
def member_grant_project(
    *, actor: Member | None, member: Member, project: Project, permissions: Iterable[str]
) -> None:
    """Grant the member view / write / manage on one project (a guardian user permission)."""
    access.member_change_check(actor=actor, target=member)
    project_grant(project=project, member=member, permissions=_permissions(permissions))


@transaction.atomic
def member_revoke_project(
    *, actor: Member | None, member: Member, project: Project, permissions: Iterable[str]
) -> None:
    access.member_change_check(actor=actor, target=member)
    project_revoke(project=project, member=member, permissions=_permissions(permissions))


@transaction.atomic
def member_deactivate(*, actor: Member | None, member: Member) -> Member:
    """At once: its access keys are refused by every door, its console sessions see nothing of the
    enterprise (both read ``is_active`` on every call). Its keys, teams and grants are kept for
    ``member_reactivate``."""
    access.member_change_check(actor=actor, target=member, deactivate=True, active_owners=_active_owners())
    if member.is_active:
        member.is_active = False
        member.save(update_fields=["is_active"])
        audit_record(action="member.deactivate", target=member, details={"user": member.user.username})
    return member


@transaction.atomic
def member_reactivate(*, actor: Member | None, member: Member) -> Member:
    access.member_change_check(actor=actor, target=member)
    if not member.is_active:
        member.is_active = True
        member.save(update_fields=["is_active"])
        audit_record(action="member.reactivate", target=member, details={"user": member.user.username})
    return member


# -- teams -------------------------------------------------------------------------------------------


def _team_name(name: str) -> str:
    name = name.strip()
    if not name or len(name) > 200:
        raise Unprocessable("a team's name is 1 to 200 characters", code="invalid_name")
    return name


@transaction.atomic
def team_add(*, actor: Member | None, enterprise: Enterprise, slug: str, name: str) -> Team:
    if actor is not None:
        access.people_manage_check(actor=actor)
    return team_open(enterprise=enterprise, slug=slug, name=_team_name(name))


@transaction.atomic
def team_rename(*, actor: Member | None, team: Team, name: str) -> Team:
    if actor is not None:
        access.people_manage_check(actor=actor)
    name = _team_name(name)
    previous = team.name
    if previous != name:
        team.name = name
        team.save(update_fields=["name"])
        audit_record(action="team.rename", target=team, details={"from": previous, "to": name})
    return team


@transaction.atomic
def team_delete(*, actor: Member | None, team: Team) -> None:
    """The team goes, and with its group the grants it gave; its projects and tasks keep no team."""
    if actor is not None:
        access.people_manage_check(actor=actor)
    group: Group = team.group
    audit_record(action="team.delete", target=team, details={"slug": team.slug, "name": team.name})
    team.delete()
    group.delete()
