"""Test fixtures: the real embedded Postgres, RLS live, named people.

The session's cluster is throwaway (config.settings_test). The database is
made by the same bootstrap and migrations as production, migrations run as
the owner role, and every test connects as the application role.

alice: admin of enterprise A. bob: read-only (auditor) member of A and admin
of B. charlie: a user with no membership anywhere.
"""

from __future__ import annotations

import os
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import connections

from accounts.models import AccessKey, Enterprise, Member, OrgRole, Project, Team
from core.bootstrap import bootstrap_database
from tests.factories import (
    AccessKeyFactory,
    EnterpriseFactory,
    MemberFactory,
    ProjectFactory,
    TeamFactory,
    UserFactory,
)


@pytest.fixture(autouse=True)
def _touches_forgotten() -> None:
    """Each test starts with no key touch remembered by this process (accounts.tasks.access_key_touch_soon
    sends at most one a minute per key): a test's rolled-back key use must not hold back the next's."""
    from accounts.tasks import _touches_sent

    _touches_sent.clear()


@pytest.fixture(scope="session")
def django_db_setup(django_db_blocker: Any) -> Iterator[None]:
    with django_db_blocker.unblock():
        bootstrap_database()
        call_command("migrate", verbosity=0)
    if os.environ.get("MNEMOS_TEST_THROUGH_PGBOUNCER") != "1":
        yield
        return
    # `make test-pgbouncer`: this run's app-role connections through PgBouncer in transaction mode.
    bouncer = _pgbouncer_in_front()
    try:
        yield
    finally:
        connections.close_all()
        bouncer.stop()
    # The run's connections did pass through it.
    assert "login attempt: db=mnemos user=mnemos_app" in (bouncer.folder / "pgbouncer.log").read_text()


def _pgbouncer_in_front() -> Any:
    from django.conf import settings

    from core.dbserver import owned_embedded_postmaster, through_pooler
    from core.pooler import PgBouncer
    from tests.live import free_port

    primary = owned_embedded_postmaster()
    assert primary is not None, "the tests' embedded server"
    conf = settings.DATABASES["default"]
    bouncer = PgBouncer(
        server_host=primary.socket_dir,
        server_port=primary.port,
        dbname=conf["NAME"],
        users=[conf["USER"]],
        folder=Path(tempfile.mkdtemp(prefix="mnemos-pgbouncer-")),
        listen_port=free_port(),
        system_user=primary.system_user,
    )
    bouncer.start()
    connections.close_all()
    conf["HOST"], conf["PORT"] = "127.0.0.1", str(bouncer.port)
    through_pooler(conf)
    return bouncer


@dataclass
class Tenant:
    enterprise: Enterprise
    team: Team
    project: Project
    other_project: Project


@dataclass
class Person:
    user: User
    password: str
    members: dict[str, Member]
    keys: dict[str, tuple[AccessKey, str]]


def build_tenant(slug: str) -> Tenant:
    """An enterprise with team Platform, project alpha (Platform's) and project beta (no team's)."""
    enterprise = EnterpriseFactory.create(slug=slug)
    team = TeamFactory.create(enterprise=enterprise, slug="platform", name="Platform")
    return Tenant(
        enterprise=enterprise,
        team=team,
        project=ProjectFactory.create(enterprise=enterprise, slug="alpha", name="Alpha", team=team),
        other_project=ProjectFactory.create(enterprise=enterprise, slug="beta", name="Beta"),
    )


def add_person(username: str, memberships: list[tuple[Tenant, str]]) -> Person:
    """A user with ``role`` in each tenant, in its team, main project alpha and a key to it."""
    password = f"pw-{uuid.uuid4().hex}"
    user = UserFactory.create(username=username, password=password)
    person = Person(user=user, password=password, members={}, keys={})
    for tenant, role in memberships:
        member = MemberFactory.create(
            enterprise=tenant.enterprise,
            user=user,
            org_role=role,
            teams=[tenant.team],
            main_project=tenant.project,
        )
        person.members[tenant.enterprise.slug] = member
        person.keys[tenant.enterprise.slug] = AccessKeyFactory.create(
            member=member, project=tenant.project, label=f"{username} key"
        )
    return person


@dataclass
class World:
    a: Tenant
    b: Tenant
    alice: Person
    bob: Person
    charlie: Person


def build_world(suffix: str = "") -> World:
    a = build_tenant(f"acme{suffix}")
    b = build_tenant(f"globex{suffix}")
    alice = add_person(f"alice{suffix}", [(a, OrgRole.ADMIN)])
    bob = add_person(f"bob{suffix}", [(a, OrgRole.AUDITOR), (b, OrgRole.ADMIN)])
    charlie = add_person(f"charlie{suffix}", [])
    return World(a=a, b=b, alice=alice, bob=bob, charlie=charlie)


@pytest.fixture
def world(db: Any) -> World:
    return build_world()


@pytest.fixture(scope="session")
def committed_world(django_db_setup: Any, django_db_blocker: Any) -> Iterator[World]:
    """A world committed for real, for tests whose other processes must see it."""
    with django_db_blocker.unblock():
        yield build_world(suffix=f"-{uuid.uuid4().hex[:6]}")
