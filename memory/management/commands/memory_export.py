"""``memory_export``: an export (docs/export-format.md) written here and now, to a file or stdout, with a
progress bar on stderr. An operator's command: it reads in one transaction, the database's view of one
moment, and is audited in the enterprise as ``export.command``."""

from __future__ import annotations

import sys
from typing import IO, Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from accounts.models import Enterprise, Member, Project
from accounts.services.audit import audit_record
from core.tenancy import tenant_context
from memory.models import ExportScope
from memory.services.export_writer import ExportSpec, export_write, memories_in_scope


class Command(BaseCommand):
    help = (
        "Export an enterprise (default), one of its projects (--project) or one member's own memories "
        "(--member) as Mnemos JSONL (docs/export-format.md)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--enterprise", required=True, help="the enterprise's slug")
        which = parser.add_mutually_exclusive_group()
        which.add_argument("--project", help="export only this project (its slug)")
        which.add_argument("--member", help="export only the memories of this member (their e-mail)")
        parser.add_argument("--vectors", action="store_true", help="include each memory's vector")
        parser.add_argument("--out", help="write to this file (default: stdout)")
        parser.add_argument("--quiet", action="store_true", help="no progress bar")

    def handle(self, *args: Any, **options: Any) -> None:
        with tenant_context(enterprise_id=None, all_tenants=True, door="command"):
            enterprise = Enterprise.objects.filter(slug=options["enterprise"]).first()
        if enterprise is None:
            raise CommandError(f"no enterprise with slug {options['enterprise']!r}")
        out: IO[bytes] = open(options["out"], "wb") if options["out"] else sys.stdout.buffer  # noqa: SIM115
        try:
            with tenant_context(enterprise_id=enterprise.pk, door="command"):
                spec = self._spec(enterprise, options)
                total = memories_in_scope(spec).count()
                with Progress(
                    TextColumn("exporting memories"),
                    BarColumn(),
                    MofNCompleteColumn(),
                    TimeRemainingColumn(),
                    console=Console(stderr=True, quiet=options["quiet"]),
                    transient=False,
                ) as progress:
                    bar = progress.add_task("export", total=total)
                    digest = export_write(out, spec=spec, progress=lambda n: progress.advance(bar, n))
                audit_record(
                    action="export.command",
                    target_type="memory.dataexport",
                    details={
                        "scope": spec.scope,
                        "project": options["project"],
                        "member": options["member"],
                        "include_vectors": spec.include_vectors,
                        "memories": digest.counts.get("memory", 0),
                        "sha256_lines": digest.hash.hexdigest(),
                    },
                )
        finally:
            if options["out"]:
                out.close()
            else:
                out.flush()
        self.stderr.write(
            f"exported {digest.counts.get('memory', 0)} memories, {digest.lines + 1} lines"
            + (f" to {options['out']}" if options["out"] else "")
        )

    def _spec(self, enterprise: Enterprise, options: dict[str, Any]) -> ExportSpec:
        project_id = member_id = None
        scope = ExportScope.ENTERPRISE
        if options["project"]:
            project = Project.objects.filter(slug=options["project"]).first()
            if project is None:
                raise CommandError(f"no project {options['project']!r} in {enterprise.slug}")
            scope, project_id = ExportScope.PROJECT, project.pk
        elif options["member"]:
            member = Member.objects.filter(user__email__iexact=options["member"]).first()
            if member is None:
                raise CommandError(f"no member {options['member']!r} in {enterprise.slug}")
            scope, member_id = ExportScope.MEMBER, member.pk
        return ExportSpec(
            scope=scope,
            enterprise_id=enterprise.pk,
            project_id=project_id,
            member_id=member_id,
            include_vectors=options["vectors"],
            cutoff=timezone.now(),
        )
