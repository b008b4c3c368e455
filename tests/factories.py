"""factory_boy factories for the common objects, each made through its service.

A factory's ``_create`` calls the service the application itself calls (``enterprise_create``,
``team_create``, ``project_create``, ``member_add``, ``access_key_create``) inside a tenant context of
the object's enterprise, so its audit event is written and RLS holds as in production; none writes a
row by hand. Every field has a default, so ``ProjectFactory.create()`` alone makes a project in a new
enterprise; ``tests/conftest.py`` builds alice, bob and charlie's world from these. ``Factory.create``
is typed (it returns the factory's type parameter); calling the factory itself is not, to mypy.
"""

from __future__ import annotations

import uuid
from typing import Any

import factory
from django.contrib.auth.models import User

from accounts.models import AccessKey, Enterprise, Member, OrgRole, Project, Team
from accounts.services.enterprises import enterprise_create, member_add, project_create, team_create
from accounts.services.keys import access_key_create
from core.tenancy import tenant_context


class UserFactory(factory.Factory[User]):
    """A Django user (global, no tenant); ``password`` is the plain text, stored hashed."""

    class Meta:
        model = User

    username = factory.Sequence(lambda n: f"user-{n}")
    email = factory.LazyAttribute(lambda o: f"{o.username}@example.com")
    password = factory.LazyFunction(lambda: f"pw-{uuid.uuid4().hex}")  # pass one to sign in with it

    @classmethod
    def _create(cls, model_class: type[User], *args: Any, **kwargs: Any) -> User:
        return model_class.objects.create_user(*args, **kwargs)


class EnterpriseFactory(factory.Factory[Enterprise]):
    class Meta:
        model = Enterprise

    slug = factory.Sequence(lambda n: f"enterprise-{n}")
    name = factory.LazyAttribute(lambda o: f"Enterprise {o.slug}")

    @classmethod
    def _create(cls, model_class: type[Enterprise], *args: Any, **kwargs: Any) -> Enterprise:
        # A new tenant has no context yet: enterprise_create enters its own inside this one.
        with tenant_context(enterprise_id=None, all_tenants=True, door="test"):
            return enterprise_create(**kwargs)


class TeamFactory(factory.Factory[Team]):
    class Meta:
        model = Team

    enterprise = factory.SubFactory(EnterpriseFactory)
    slug = factory.Sequence(lambda n: f"team-{n}")
    name = factory.LazyAttribute(lambda o: o.slug.title())

    @classmethod
    def _create(cls, model_class: type[Team], *args: Any, **kwargs: Any) -> Team:
        with tenant_context(enterprise_id=kwargs["enterprise"].pk, door="test"):
            return team_create(**kwargs)


class ProjectFactory(factory.Factory[Project]):
    class Meta:
        model = Project

    enterprise = factory.SubFactory(EnterpriseFactory)
    slug = factory.Sequence(lambda n: f"project-{n}")
    name = factory.LazyAttribute(lambda o: o.slug.title())
    team = None

    @classmethod
    def _create(cls, model_class: type[Project], *args: Any, **kwargs: Any) -> Project:
        with tenant_context(enterprise_id=kwargs["enterprise"].pk, door="test"):
            return project_create(**kwargs)


class MemberFactory(factory.Factory[Member]):
    class Meta:
        model = Member

    enterprise = factory.SubFactory(EnterpriseFactory)
    user = factory.SubFactory(UserFactory)
    org_role = OrgRole.MEMBER
    teams = ()
    main_project = None

    @classmethod
    def _create(cls, model_class: type[Member], *args: Any, **kwargs: Any) -> Member:
        with tenant_context(enterprise_id=kwargs["enterprise"].pk, door="test"):
            return member_add(**kwargs)


class AccessKeyFactory(factory.Factory[tuple[AccessKey, str]]):
    """Makes ``(key, secret)``, as ``access_key_create`` returns them: the secret is shown only once."""

    class Meta:
        model = AccessKey

    # An admin may hold a key to any project of the enterprise; a member only to one its teams may read.
    member = factory.SubFactory(MemberFactory, org_role=OrgRole.ADMIN)
    project = factory.SubFactory(ProjectFactory, enterprise=factory.SelfAttribute("..member.enterprise"))
    label = ""

    @classmethod
    def _create(cls, model_class: type[AccessKey], *args: Any, **kwargs: Any) -> tuple[AccessKey, str]:
        with tenant_context(enterprise_id=kwargs["member"].enterprise_id, door="test"):
            return access_key_create(**kwargs)
