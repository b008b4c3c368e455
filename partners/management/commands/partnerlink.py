"""``partnerlink``: operators set up partner links, local or remote (docs/partners.md).

partnerlink request --enterprise acme --provider <org uuid> --consumer <org uuid>
partnerlink provide --enterprise globex --consumer-org <uuid> [--link-id <uuid>] [--project alpha]...
partnerlink consume --enterprise acme --provider-org <uuid> --link-id <uuid> --url https://... --credential mnp_...
partnerlink consent --enterprise acme --link-id <uuid> --version 1 [--partner]
partnerlink expose  --enterprise globex --link-id <uuid> [--project alpha]... [--save-domain d]... [--memory <uuid>]...
partnerlink alias   --enterprise acme --link-id <uuid> --home Kubernetes --partner K8s
partnerlink suspend|resume|revoke --enterprise acme --link-id <uuid>
partnerlink list    --enterprise acme
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.models import Enterprise
from core.errors import MnemosError
from core.tenancy import tenant_context
from partners.selectors.links import partner_links_list
from partners.services import links as services
from partners.services.remote import partner_link_consume_remote, partner_link_provide_remote


class Command(BaseCommand):
    help = "Set up and manage partner links (remote ones included) as the operator."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)

        def command(name: str, text: str) -> CommandParser:
            p = sub.add_parser(name, help=text)
            p.add_argument("--enterprise", required=True, help="the enterprise acted for: slug or id")
            return p

        request = command("request", "a local link between two enterprises of this deployment")
        request.add_argument("--provider", required=True)
        request.add_argument("--consumer", required=True)
        provide = command("provide", "the provider row of a remote link; prints its credential once")
        provide.add_argument("--consumer-org", required=True, help="the consumer's org id on its deployment")
        provide.add_argument("--consumer-name", default="")
        provide.add_argument("--link-id")
        provide.add_argument("--project", action="append", default=[])
        provide.add_argument("--save-domain", action="append", default=[])
        consume = command("consume", "the consumer row of a remote link")
        consume.add_argument("--provider-org", required=True, help="the provider's org id on its deployment")
        consume.add_argument("--provider-name", default="")
        consume.add_argument("--link-id", required=True)
        consume.add_argument("--url", required=True, help="the provider deployment's base URL (https://...)")
        consume.add_argument("--credential", required=True)
        consent = command("consent", "record this enterprise's consent (or, --partner, the remote partner's)")
        consent.add_argument("--link-id", required=True)
        consent.add_argument("--version", type=int, required=True)
        consent.add_argument("--partner", action="store_true")
        expose = command("expose", "what the link opens (provider side)")
        expose.add_argument("--link-id", required=True)
        expose.add_argument("--project", action="append", default=[])
        expose.add_argument("--save-domain", action="append", default=[])
        expose.add_argument("--memory", action="append", default=[])
        alias = command("alias", "fold a partner entity under a home entity (consumer side)")
        alias.add_argument("--link-id", required=True)
        alias.add_argument("--home", required=True)
        alias.add_argument("--partner", required=True)
        for name in ("suspend", "resume", "revoke"):
            command(name, f"{name} a link").add_argument("--link-id", required=True)
        command("list", "the enterprise's links, both sides")

    def handle(self, *args: Any, **options: Any) -> None:
        enterprise = self._enterprise(options["enterprise"])
        try:
            with tenant_context(enterprise_id=enterprise.pk, door="command"):
                self._run(enterprise, options)
        except MnemosError as exc:
            raise CommandError(exc.message) from exc

    def _enterprise(self, ref: str) -> Enterprise:
        with tenant_context(enterprise_id=None, all_tenants=True, door="command"):
            found = Enterprise.objects.filter(slug=ref).first()
            if found is None:
                try:
                    found = Enterprise.objects.filter(pk=ref).first()
                except Exception:  # noqa: BLE001 - not a uuid: simply no such enterprise
                    found = None
        if found is None:
            raise CommandError(f"no enterprise {ref!r}")
        return found

    def _run(self, enterprise: Enterprise, options: dict[str, Any]) -> None:
        action = options["action"]
        me: dict[str, Any] = {"actor": None, "enterprise_id": enterprise.pk}
        if action == "request":
            row = services.partner_link_request(
                provider_id=options["provider"], consumer_id=options["consumer"], **me
            )
            self.stdout.write(f"link {row.link_id} requested (pending until both owners consent)")
        elif action == "provide":
            row, credential = partner_link_provide_remote(
                provider_id=enterprise.pk,
                consumer_org_id=options["consumer_org"],
                consumer_name=options["consumer_name"],
                link_id=options["link_id"],
            )
            if options["project"] or options["save_domain"]:
                services.partner_link_exposure_set(
                    link_id=row.link_id,
                    projects=options["project"],
                    save_domains=options["save_domain"],
                    **me,
                )
            self.stdout.write(
                f"link {row.link_id} provided by {enterprise.slug}; its credential (shown once):"
            )
            self.stdout.write(credential)
        elif action == "consume":
            row = partner_link_consume_remote(
                consumer_id=enterprise.pk,
                provider_org_id=options["provider_org"],
                provider_name=options["provider_name"],
                link_id=options["link_id"],
                url=options["url"],
                credential=options["credential"],
            )
            self.stdout.write(f"link {row.link_id} consumed by {enterprise.slug} from {row.remote_url}")
        elif action == "consent":
            row = services.partner_link_consent(
                link_id=options["link_id"], version=options["version"], for_partner=options["partner"], **me
            )
            self.stdout.write(f"link {row.link_id}: {row.status}, contract version {row.contract_version}")
        elif action == "expose":
            services.partner_link_exposure_set(
                link_id=options["link_id"],
                projects=options["project"],
                save_domains=options["save_domain"],
                memory_ids=options["memory"],
                **me,
            )
            self.stdout.write("exposure set")
        elif action == "alias":
            services.partner_link_alias_add(
                link_id=options["link_id"], home_name=options["home"], partner_name=options["partner"], **me
            )
            self.stdout.write("alias added")
        elif action in ("suspend", "resume", "revoke"):
            change = getattr(services, f"partner_link_{action}")
            row = change(link_id=options["link_id"], **me)
            self.stdout.write(f"link {row.link_id}: {row.status}")
        else:
            for state in partner_links_list(enterprise_id=enterprise.pk):
                self.stdout.write(
                    f"{state.link_id} {state.side} partner={state.partner_org_id} status={state.status} "
                    f"usable={state.usable} blocked={state.blocked_reason or '-'} version={state.contract_version}"
                )
