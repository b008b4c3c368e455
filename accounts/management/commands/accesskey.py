"""``accesskey create``: a new access key, printed alone on the last line."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from accounts.models import AccessKey, Enterprise, Member, OrgRole, Project
from accounts.selectors.projects import save_target_explained
from accounts.services.keys import access_key_create, access_key_revoke
from core.errors import MnemosError
from core.tenancy import tenant_context


def _split(raw: str | None) -> list[str] | None:
    return [item.strip() for item in raw.split(",") if item.strip()] if raw else None


class Command(BaseCommand):
    help = "Create or revoke access keys (agents' connections)."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        create = sub.add_parser("create", help="create a key; the key is the last line printed")
        create.add_argument("--enterprise", required=True, help="enterprise slug, e.g. demo")
        create.add_argument("--project", help="project slug (default: the enterprise's first project)")
        create.add_argument("--scopes", help="comma-separated scopes (default: all)")
        create.add_argument("--workspace", help="bind the key to this workspace (created if new)")
        create.add_argument("--user", help="the member's username (default: the first owner or admin)")
        create.add_argument("--label", default="created with manage.py accesskey")
        create.add_argument("--toolsets", help="comma-separated toolsets (default: all)")
        create.add_argument("--expires-days", type=int, help="expire after this many days (1-36500)")
        revoke = sub.add_parser("revoke", help="revoke a key by its prefix")
        revoke.add_argument("--enterprise", required=True)
        revoke.add_argument("prefix")

    def handle(self, *args: Any, **options: Any) -> None:
        with tenant_context(enterprise_id=None, all_tenants=True, door="command"):
            enterprise = Enterprise.objects.filter(slug=options["enterprise"]).first()
        if enterprise is None:
            raise CommandError(f"no enterprise with slug {options['enterprise']!r}")
        try:
            with tenant_context(enterprise_id=enterprise.pk, door="command"):
                if options["action"] == "revoke":
                    key = AccessKey.objects.filter(prefix=options["prefix"]).first()
                    if key is None:
                        raise CommandError(f"no access key with prefix {options['prefix']!r}")
                    access_key_revoke(key=key)
                    self.stdout.write(f"revoked {key.prefix}")
                    return
                self._create(enterprise, options)
        except MnemosError as exc:
            raise CommandError(exc.message) from exc

    def _create(self, enterprise: Enterprise, options: dict[str, Any]) -> None:
        projects = Project.objects.order_by("created_at", "slug")
        project = projects.filter(slug=options["project"]).first() if options["project"] else projects.first()
        if project is None:
            raise CommandError(f"no project {options['project']!r} in {enterprise.slug}")
        members = Member.objects.select_related("user").filter(is_active=True).order_by("created_at")
        if options["user"]:
            member = members.filter(user__username=options["user"]).first()
        else:
            member = members.filter(org_role__in=[OrgRole.OWNER, OrgRole.ADMIN]).first()
        if member is None:
            raise CommandError("no such active member in this enterprise")
        expires = options["expires_days"]
        if expires is not None and not 1 <= expires <= 36_500:
            raise CommandError("--expires-days must be between 1 and 36500")
        key, secret = access_key_create(
            member=member,
            project=project,
            scopes=_split(options["scopes"]),
            workspace_name=options["workspace"],
            label=options["label"],
            toolsets=_split(options["toolsets"]),
            expires_at=timezone.now() + timedelta(days=expires) if expires is not None else None,
        )
        self.stdout.write(
            f"key {key.prefix} for {member.user.username} on {enterprise.slug}/{project.slug}"
            f"{'/' + key.workspace.name if key.workspace else ''} scopes={','.join(key.scopes)}"
        )
        target = save_target_explained(key=key)
        self.stdout.write(
            f"saves go to {target.project.slug}{'/' + target.folder if target.folder else ''}: {target.reason}"
        )
        self.stdout.write(secret)
