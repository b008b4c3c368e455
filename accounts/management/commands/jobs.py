"""``jobs``: the outbox for an operator: what waits and what failed, per enterprise; a re-run; a sweep now."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.models import Enterprise, JobState
from accounts.selectors.jobs import jobs_list, jobs_overview
from accounts.services.jobs import job_rerun
from accounts.tasks import jobs_sweep
from core.errors import MnemosError
from core.tenancy import tenant_context


class Command(BaseCommand):
    help = "Background jobs: list what waits and what failed, run failed jobs again, or sweep now."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action")
        listing = sub.add_parser("list", help="per enterprise: jobs waiting and failed (the default)")
        listing.add_argument("--failed", action="store_true", help="also list every failed job")
        rerun = sub.add_parser("rerun", help="run failed jobs again")
        rerun.add_argument("--enterprise", required=True, help="enterprise slug")
        rerun.add_argument("job_ids", nargs="*", help="the failed jobs' ids (default: every failed job)")
        sub.add_parser("sweep", help="send every job past its due time now (what the sweeper does)")

    def handle(self, *args: Any, **options: Any) -> None:
        action = options["action"] or "list"
        if action == "sweep":
            self.stdout.write(f"sent {jobs_sweep.apply().get()} job(s) again")
            return
        with tenant_context(enterprise_id=None, all_tenants=True, door="command"):
            enterprises = list(Enterprise.objects.order_by("slug").values_list("pk", "slug"))
        if action == "rerun":
            self._rerun(enterprises, options)
            return
        for enterprise_id, slug in enterprises:
            with tenant_context(enterprise_id=enterprise_id, door="command"):
                overview = jobs_overview()
                failed = jobs_list(state=JobState.FAILED) if options.get("failed") else []
            oldest = (
                f", oldest since {overview.oldest_pending:%Y-%m-%d %H:%M:%S}"
                if overview.oldest_pending
                else ""
            )
            self.stdout.write(f"{slug}: {overview.pending} waiting{oldest}, {overview.failed} failed")
            for job in failed:
                self.stdout.write(
                    f"  {job.pk}  {job.task}  {job.failed_at:%Y-%m-%d %H:%M:%S}  {job.last_error}"
                )

    def _rerun(self, enterprises: list[tuple[Any, str]], options: dict[str, Any]) -> None:
        found = [pk for pk, slug in enterprises if slug == options["enterprise"]]
        if not found:
            raise CommandError(f"no enterprise with slug {options['enterprise']!r}")
        try:
            with tenant_context(enterprise_id=found[0], door="command"):
                ids = options["job_ids"] or [job.pk for job in jobs_list(state=JobState.FAILED, limit=10_000)]
                for job_id in ids:
                    job_rerun(job_id=job_id)
        except MnemosError as exc:
            raise CommandError(exc.message) from exc
        self.stdout.write(f"running {len(ids)} job(s) again")
