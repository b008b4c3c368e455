"""The demo data ``make run`` creates on first start: ``demo`` and ``demo-partner``."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

from django.contrib.auth.models import User
from django.db import transaction

from accounts.models import Enterprise, OrgRole
from accounts.services.enterprises import (
    enterprise_create,
    member_add,
    project_create,
    role_create,
    team_create,
)
from accounts.services.keys import access_key_create
from accounts.services.targets import project_publish
from core.tenancy import tenant_context

DEMO_SLUG = "demo"
PARTNER_SLUG = "demo-partner"


@dataclass
class DemoCredentials:
    created: bool
    logins: list[tuple[str, str, str]] = field(default_factory=list)  # enterprise, user, password
    access_key: str = ""


def _user(username: str) -> tuple[User, str]:
    password = secrets.token_urlsafe(12)
    user = User.objects.create_user(username=username, email=f"{username}@example.com", password=password)
    return user, password


def _seed_demo(creds: DemoCredentials) -> None:
    enterprise = enterprise_create(slug=DEMO_SLUG, name="Demo Enterprise")
    with tenant_context(enterprise_id=enterprise.pk, door="command"):
        platform = team_create(enterprise=enterprise, slug="platform", name="Platform")
        research = team_create(enterprise=enterprise, slug="research", name="Research")
        reviewer = role_create(enterprise=enterprise, slug="reviewer", name="Reviewer")
        handbook = project_create(enterprise=enterprise, slug="handbook", name="Handbook", team=platform)
        project_create(enterprise=enterprise, slug="infra", name="Infrastructure", team=platform)
        project_create(enterprise=enterprise, slug="discovery", name="Discovery", team=research)
        admin_user, admin_password = _user("demo-admin")
        admin = member_add(
            enterprise=enterprise,
            user=admin_user,
            org_role=OrgRole.OWNER,
            teams=[platform, research],
            roles=[reviewer],
            main_project=handbook,
        )
        auditor_user, auditor_password = _user("demo-auditor")
        member_add(enterprise=enterprise, user=auditor_user, org_role=OrgRole.AUDITOR)
        _, secret = access_key_create(member=admin, project=handbook, label="demo key (make run)")
    creds.logins += [(DEMO_SLUG, "demo-admin", admin_password), (DEMO_SLUG, "demo-auditor", auditor_password)]
    creds.access_key = secret


def _seed_partner(creds: DemoCredentials) -> None:
    enterprise = enterprise_create(slug=PARTNER_SLUG, name="Demo Partner Ltd")
    with tenant_context(enterprise_id=enterprise.pk, door="command"):
        team = team_create(enterprise=enterprise, slug="sales", name="Sales")
        project = project_create(enterprise=enterprise, slug="accounts", name="Accounts", team=team)
        # The shared public demo target every account lists as read_only.
        showcase = project_create(enterprise=enterprise, slug="public-demo", name="Public demo", team=team)
        project_publish(project=showcase)
        user, password = _user("partner-admin")
        member_add(
            enterprise=enterprise, user=user, org_role=OrgRole.OWNER, teams=[team], main_project=project
        )
    creds.logins.append((PARTNER_SLUG, "partner-admin", password))


@transaction.atomic
def demo_seed() -> DemoCredentials:
    """Create the demo enterprises once; a second call changes nothing."""
    with tenant_context(enterprise_id=None, all_tenants=True, door="command"):
        existing = set(
            Enterprise.objects.filter(slug__in=[DEMO_SLUG, PARTNER_SLUG]).values_list("slug", flat=True)
        )
        creds = DemoCredentials(created=not existing >= {DEMO_SLUG, PARTNER_SLUG})
        if DEMO_SLUG not in existing:
            _seed_demo(creds)
        if PARTNER_SLUG not in existing:
            _seed_partner(creds)
    return creds
