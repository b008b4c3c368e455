"""Import a Mnemos export, a Mem0 export or a folder of Markdown/text files into a project, here.

The same chunks the import job runs (memory/services/imports.py), one transaction each, with a
progress bar; the bad lines are printed with their numbers and reasons at the end.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from accounts.models import Enterprise, Member, OrgRole, Project
from core.errors import MnemosError
from core.tenancy import tenant_context
from memory.models import DataImport, ImportFormat, TransferState
from memory.services.imports import import_request, import_run_here


def _member(who: str | None) -> Member:
    members = Member.objects.select_related("user").filter(is_active=True)
    if who:
        found = members.filter(user__email__iexact=who).first() or members.filter(user__username=who).first()
        if found is None:
            raise CommandError(f"no active member '{who}' in this enterprise")
        return found
    found = members.filter(org_role=OrgRole.OWNER).order_by("pk").first()
    if found is None:
        raise CommandError("this enterprise has no active owner: name the importing member with --member")
    return found


def problem_line(problem: dict[str, Any]) -> str:
    where = f"{problem['source']}:{problem['line']}" if problem.get("source") else f"line {problem['line']}"
    return f"  {where}: {problem['reason']}"


class Command(BaseCommand):
    help = "Import memories from a Mnemos export, a Mem0 export or a folder (or .zip) of Markdown/text files."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", help="the export file, or the folder / .zip of Markdown or text files")
        parser.add_argument("--format", required=True, choices=ImportFormat.values)
        parser.add_argument("--enterprise", required=True, help="the enterprise's slug")
        parser.add_argument("--project", required=True, help="the project's slug")
        parser.add_argument("--workspace", default="default", help="the folder (default: default)")
        parser.add_argument(
            "--member", help="e-mail or user name of the importing member (default: the enterprise's owner)"
        )
        parser.add_argument(
            "--split-headings", action="store_true", help="Markdown: one memory per heading, not per file"
        )
        parser.add_argument("--no-progress", action="store_true", help="no progress bar (logs, CI)")

    def handle(self, *args: Any, **options: Any) -> None:
        with tenant_context(enterprise_id=None, all_tenants=True, door="command"):
            enterprise = Enterprise.objects.filter(slug=options["enterprise"]).first()
        if enterprise is None:
            raise CommandError(f"no enterprise with slug '{options['enterprise']}'")
        enterprise_id = str(enterprise.pk)
        path = Path(options["path"]).expanduser()
        try:
            with tenant_context(enterprise_id=enterprise_id, door="command"):
                project = Project.objects.filter(slug=options["project"]).first()
                if project is None:
                    raise CommandError(f"no project with slug '{options['project']}' in {enterprise.slug}")
                data_import = import_request(
                    member=_member(options["member"]),
                    project=project,
                    format=options["format"],
                    source=path.resolve(),
                    original_name=path.name,
                    workspace=options["workspace"],
                    split_headings=options["split_headings"],
                    start=False,
                )
        except MnemosError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"import {data_import.pk}: {data_import.total} item(s) from {path.name}")
        with Progress(
            TextColumn("[bold]importing"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[counts]}"),
            TimeRemainingColumn(),
            disable=options["no_progress"],
        ) as progress:
            bar = progress.add_task("import", total=data_import.total, counts="")

            def step(done: DataImport) -> None:
                progress.update(
                    bar,
                    completed=done.position,
                    counts=f"{done.created} new, {done.duplicates} dup, {done.rejected + done.errors} bad",
                )

            done = import_run_here(import_id=str(data_import.pk), enterprise_id=enterprise_id, progress=step)
        self.stdout.write(
            f"{done.state}: {done.created} created, {done.duplicates} duplicate(s), "
            f"{done.rejected} rejected, {done.errors} error(s)"
        )
        if done.problems:
            self.stdout.write(
                f"bad lines ({done.rejected + done.errors}, the first {len(done.problems)} shown):"
            )
            for problem in done.problems:
                self.stdout.write(problem_line(problem))
        if done.state == TransferState.FAILED:
            raise CommandError(f"the import failed: {done.error}")
