"""``member add|invite|deactivate|reactivate|grant|revoke|role|teams --enterprise <slug>``: people, from the
command line. The operator acts (no member): every rule but the last owner's is theirs (docs/people.md)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.models import Enterprise, Member, OrgRole, Project, Team
from accounts.services.people import (
    INVITATION_DAYS_DEFAULT,
    member_create,
    member_deactivate,
    member_grant_project,
    member_invite,
    member_reactivate,
    member_revoke_project,
    member_set_org_role,
    member_set_teams,
)
from core.errors import MnemosError
from core.tenancy import tenant_context


def _split(raw: str | None) -> list[str]:
    return [item.strip() for item in (raw or "").split(",") if item.strip()]


class Command(BaseCommand):
    help = "Add, invite, deactivate or reactivate members; change their org role, teams and project grants."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        roles = OrgRole.values

        def action(name: str, text: str, *, user: bool = True) -> CommandParser:
            p = sub.add_parser(name, help=text)
            p.add_argument("--enterprise", required=True, help="enterprise slug, e.g. demo")
            if user:
                p.add_argument("username")
            return p

        add = action("add", "add a user (made when new) as a member; a new user's password is printed once")
        add.add_argument("--role", choices=roles, default=OrgRole.MEMBER)
        add.add_argument("--teams", help="comma-separated team slugs")
        add.add_argument("--email", default="")
        add.add_argument("--password", help="for a new user (default: a generated one, printed)")
        invite = action("invite", "invite someone: prints the one-time sign-up link", user=False)
        invite.add_argument("--role", choices=roles, default=OrgRole.MEMBER)
        invite.add_argument("--teams", help="comma-separated team slugs")
        invite.add_argument("--email", default="", help="whom it is for (a note)")
        invite.add_argument("--days", type=int, default=INVITATION_DAYS_DEFAULT, help="1-30")
        action("deactivate", "deactivate a member: its keys and sessions stop at once")
        action("reactivate", "reactivate a deactivated member")
        role = action("role", "change a member's org role")
        role.add_argument("role", choices=roles)
        teams = action("teams", "set a member's teams (exactly these; empty: none)")
        teams.add_argument("teams", nargs="?", default="", help="comma-separated team slugs")
        for name, text in (("grant", "grant project permissions"), ("revoke", "revoke project permissions")):
            p = action(name, f"{text} to a member")
            p.add_argument("--project", required=True, help="project slug")
            p.add_argument("--permissions", default="view", help="comma-separated: view, write, manage")

    def handle(self, *args: Any, **options: Any) -> None:
        with tenant_context(enterprise_id=None, all_tenants=True, door="command"):
            enterprise = Enterprise.objects.filter(slug=options["enterprise"]).first()
        if enterprise is None:
            raise CommandError(f"no enterprise with slug {options['enterprise']!r}")
        try:
            with tenant_context(enterprise_id=enterprise.pk, door="command"):
                self._run(enterprise, options)
        except MnemosError as exc:
            raise CommandError(exc.message) from exc

    def _teams(self, raw: str | None) -> list[Team]:
        slugs = _split(raw)
        teams = list(Team.objects.select_related("group").filter(slug__in=slugs))
        missing = sorted(set(slugs) - {t.slug for t in teams})
        if missing:
            raise CommandError(f"no team {', '.join(missing)} in this enterprise")
        return teams

    def _member(self, username: str) -> Member:
        member = Member.objects.select_related("user").filter(user__username=username).first()
        if member is None:
            raise CommandError(f"no member {username!r} in this enterprise")
        return member

    def _run(self, enterprise: Enterprise, options: dict[str, Any]) -> None:
        action, out = options["action"], self.stdout.write
        if action == "invite":
            teams = self._teams(options["teams"])
            made = member_invite(
                actor=None,
                enterprise=enterprise,
                org_role=options["role"],
                teams=teams,
                email=options["email"],
                days=options["days"],
            )
            team_text = f" teams={','.join(t.slug for t in teams)}" if teams else ""
            out(
                f"invited {made.invitation.email or 'someone'} to {enterprise.slug} as {made.invitation.org_role}"
                f"{team_text}, until {made.invitation.expires_at:%Y-%m-%d %H:%M} UTC; the link works once:"
            )
            out(made.url)
            return
        if action == "add":
            member, password = member_create(
                actor=None,
                enterprise=enterprise,
                username=options["username"],
                password=options["password"],
                email=options["email"],
                org_role=options["role"],
                teams=self._teams(options["teams"]),
            )
            out(f"added {member.user.username} to {enterprise.slug} as {member.org_role}")
            if password:
                out(f"password (shown once): {password}")
            return
        member = self._member(options["username"])
        name = member.user.username
        if action == "deactivate":
            member_deactivate(actor=None, member=member)
            out(f"deactivated {name} in {enterprise.slug}: its access keys and sessions are refused")
        elif action == "reactivate":
            member_reactivate(actor=None, member=member)
            out(f"reactivated {name} in {enterprise.slug}")
        elif action == "role":
            previous = member.org_role
            member_set_org_role(actor=None, member=member, org_role=options["role"])
            out(f"{name}: org role {previous} -> {member.org_role}")
        elif action == "teams":
            teams = self._teams(options["teams"])
            member_set_teams(actor=None, member=member, teams=teams)
            out(f"{name}: teams {', '.join(sorted(t.slug for t in teams)) or '(none)'}")
        else:
            project = Project.objects.filter(slug=options["project"]).first()
            if project is None:
                raise CommandError(f"no project {options['project']!r} in this enterprise")
            permissions = _split(options["permissions"])
            change = member_grant_project if action == "grant" else member_revoke_project
            change(actor=None, member=member, project=project, permissions=permissions)
            verb = "granted" if action == "grant" else "revoked"
            out(f"{name}: {verb} {', '.join(permissions)} on {project.slug}")
