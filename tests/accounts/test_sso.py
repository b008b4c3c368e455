"""Single sign-on (accounts.services.sso, accounts.oidc): configure, just-in-time members, the refusals, and
the ID token's verification by mozilla-django-oidc (signature, nonce) with the issuer, audience and expiry.

alice: admin of A. bob: auditor of A, admin of B. dave (here): member of A. The end-to-end flow against a
real OpenID provider is tests/console/test_browser_sso.py."""

from __future__ import annotations

import time
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from django.contrib.auth.models import User
from django.core.exceptions import SuspiciousOperation

from accounts import oidc
from accounts.models import AuditEvent, IdentityProvider, Member, OrgRole, SsoIdentity
from accounts.services.sso import (
    DOMAIN_REFUSED,
    GroupRule,
    sso_configure,
    sso_member_sign_in,
)
from core.errors import Forbidden, InvalidInput
from core.tenancy import tenant_context
from tests.conftest import add_person

pytestmark = pytest.mark.django_db

ISSUER = "https://idp.acme.example"


def _member(world: Any, person: str = "alice", slug: str = "a") -> Member:
    return getattr(world, person).members[getattr(world, slug).enterprise.slug]


def _as(member: Member) -> Any:
    return tenant_context(enterprise_id=member.enterprise_id, member=member, door="test")


def _configure(actor: Member, **overrides: Any) -> IdentityProvider:
    kwargs: dict[str, Any] = {
        "actor": actor,
        "enterprise": actor.enterprise,
        "issuer": ISSUER + "/",
        "client_id": "mnemos",
        "client_secret": "the-client-secret",
        "allowed_domains": ["A.example", "@corp.example"],
        "group_map": [GroupRule(group="platform-eng", teams=("platform",))],
        **overrides,
    }
    return sso_configure(**kwargs)


@pytest.fixture
def dave(world: Any) -> Any:
    return add_person("dave", [(world.a, OrgRole.MEMBER)])


# -- configure -------------------------------------------------------------------------------------------


def test_an_admin_configures_it_audited_and_the_secret_is_kept_encrypted(world: Any) -> None:
    alice = _member(world)
    with _as(alice):
        provider = _configure(alice)
        assert provider.issuer == ISSUER and provider.allowed_domains == ["a.example", "corp.example"]
        assert "the-client-secret" not in provider.secret_sealed
        assert oidc.secret_open(provider.secret_sealed) == "the-client-secret"
        event = AuditEvent.objects.get(action="sso.configure")
        assert event.actor_member_id == alice.pk and event.details["secret_changed"] is True
        assert "the-client-secret" not in str(event.details)
        # A blank secret keeps the stored one.
        again = _configure(alice, client_secret="", client_id="mnemos-2")
        assert again.pk == provider.pk and oidc.secret_open(again.secret_sealed) == "the-client-secret"
        assert IdentityProvider.objects.count() == 1


def test_an_auditor_or_a_member_may_not_configure_it(world: Any, dave: Any) -> None:
    for member in (_member(world, "bob"), dave.members[world.a.enterprise.slug]):
        with _as(member), pytest.raises(Forbidden) as refused:
            _configure(member)
        assert refused.value.code == "sso_manage_denied"


@pytest.mark.parametrize(
    ("overrides", "code"),
    [
        ({"issuer": "http://idp.acme.example"}, "invalid_issuer"),
        ({"allowed_domains": []}, "invalid_domain"),
        ({"allowed_domains": ["not a domain"]}, "invalid_domain"),
        ({"default_org_role": "owner"}, "invalid_role"),
        ({"group_map": [GroupRule(group="x", teams=("nope",))]}, "unknown_team"),
        ({"group_map": [GroupRule(group="x", org_role="owner")]}, "invalid_role"),
        ({"client_secret": ""}, "secret_required"),
    ],
)
def test_bad_settings_are_refused(world: Any, overrides: dict[str, Any], code: str) -> None:
    alice = _member(world)
    with _as(alice), pytest.raises(InvalidInput) as refused:
        _configure(alice, **overrides)
    assert refused.value.code == code


# -- just-in-time members --------------------------------------------------------------------------------


def _claims(
    sub: str = "idp-ada", email: str = "ada@a.example", groups: Any = ("platform-eng",)
) -> dict[str, Any]:
    return {"sub": sub, "email": email, "email_verified": True, "groups": list(groups)}


def test_first_sign_in_makes_a_member_with_the_default_role_and_mapped_teams(world: Any) -> None:
    alice = _member(world)
    with _as(alice):
        provider = _configure(alice, default_org_role="auditor")
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="sso"):
        member = sso_member_sign_in(provider=provider, claims=_claims())
        assert member.enterprise_id == world.a.enterprise.pk and member.org_role == OrgRole.AUDITOR
        assert [team.slug for team in member.teams.all()] == ["platform"]
        assert member.user.username == "ada@a.example" and not member.user.has_usable_password()
        assert member.user.groups.filter(pk=world.a.team.group_id).exists()
        again = sso_member_sign_in(provider=provider, claims=_claims())
        assert again.pk == member.pk
        assert SsoIdentity.objects.count() == 1
        assert AuditEvent.objects.filter(action="sso.member_join").count() == 1
        assert AuditEvent.objects.filter(action="sso.sign_in").count() == 2


def test_a_group_may_give_an_org_role(world: Any) -> None:
    alice = _member(world)
    with _as(alice):
        provider = _configure(
            alice,
            group_map=[
                GroupRule(group="platform-eng", teams=("platform",)),
                GroupRule(group="mnemos-admins", org_role="admin"),
            ],
        )
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="sso"):
        member = sso_member_sign_in(provider=provider, claims=_claims(groups=["mnemos-admins"]))
        assert member.org_role == OrgRole.ADMIN and not member.teams.exists()
        # A later sign-in adds a newly mapped team (and never removes one).
        member = sso_member_sign_in(provider=provider, claims=_claims(groups=["platform-eng"]))
        assert [team.slug for team in member.teams.all()] == ["platform"]


def test_a_domain_not_allowed_is_refused_and_nobody_is_made(world: Any) -> None:
    alice = _member(world)
    with _as(alice):
        provider = _configure(alice)
    users = User.objects.count()
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="sso"):
        with pytest.raises(Forbidden) as refused:
            sso_member_sign_in(provider=provider, claims=_claims(email="eve@evil.example"))
        assert refused.value.message == DOMAIN_REFUSED.format(domain="evil.example")
        with pytest.raises(Forbidden) as unverified:
            sso_member_sign_in(provider=provider, claims={**_claims(), "email_verified": False})
        assert unverified.value.code == "sso_no_email"
        assert not SsoIdentity.objects.exists()
    assert User.objects.count() == users


def test_an_existing_account_is_never_taken_over_by_an_asserted_address(world: Any) -> None:
    alice = _member(world)
    alice.user.email = "alice@a.example"
    alice.user.save()
    with _as(alice):
        provider = _configure(alice)
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="sso"):
        member = sso_member_sign_in(provider=provider, claims=_claims(sub="x", email="alice@a.example"))
    assert member.user_id != alice.user_id


def test_the_idp_of_a_never_signs_anyone_into_b(world: Any) -> None:
    alice, bob_b = _member(world), _member(world, "bob", "b")
    with _as(alice):
        provider_a = _configure(alice)
    with _as(bob_b):
        provider_b = _configure(bob_b, client_id="mnemos-b")
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="sso"):
        in_a = sso_member_sign_in(provider=provider_a, claims=_claims())
    with tenant_context(enterprise_id=world.b.enterprise.pk, door="sso"):
        # The same subject at B's IdP is B's own user: A's identities are not even visible here.
        assert not SsoIdentity.objects.filter(pk__in=[i.pk for i in [in_a]]).exists()
        in_b = sso_member_sign_in(provider=provider_b, claims=_claims())
        assert in_b.enterprise_id == world.b.enterprise.pk and in_b.user_id != in_a.user_id
        assert not Member.objects.filter(user_id=in_a.user_id).exists()
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="sso"):
        assert not Member.objects.filter(user_id=in_b.user_id).exists()


def test_a_deactivated_member_is_refused(world: Any) -> None:
    alice = _member(world)
    with _as(alice):
        provider = _configure(alice)
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="sso"):
        member = sso_member_sign_in(provider=provider, claims=_claims())
        Member.objects.filter(pk=member.pk).update(is_active=False)
        with pytest.raises(Forbidden) as refused:
            sso_member_sign_in(provider=provider, claims=_claims())
        assert refused.value.code == "member_deactivated"


# -- the ID token, verified by the library ----------------------------------------------------------------


@pytest.fixture(scope="module")
def signing_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _backend(signing_key: rsa.RSAPrivateKey, *, client_id: str = "mnemos") -> oidc.EnterpriseOIDCBackend:
    endpoints = oidc.Endpoints(
        issuer=ISSUER, authorization=f"{ISSUER}/a", token=f"{ISSUER}/t", jwks=f"{ISSUER}/jwks", userinfo=""
    )
    backend = oidc.EnterpriseOIDCBackend(
        endpoints=endpoints, client_id=client_id, client_secret="s", on_claims=lambda claims: claims
    )
    # The key the IdP's JWKS would give (the library's own setting for a pinned key).
    backend.OIDC_RP_IDP_SIGN_KEY = signing_key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return backend


def _token(signing_key: Any, **overrides: Any) -> str:
    now = int(time.time())
    claims = {"iss": ISSUER, "aud": "mnemos", "sub": "idp-ada", "iat": now, "exp": now + 300, "nonce": "n-1"}
    claims.update(overrides)
    claims = {k: v for k, v in claims.items() if v is not None}
    return jwt.encode(claims, signing_key, algorithm="RS256", headers={"kid": "k1"})


def test_a_good_token_is_accepted(signing_key: Any) -> None:
    claims = _backend(signing_key).verify_token(_token(signing_key), nonce="n-1")
    assert claims["sub"] == "idp-ada"


@pytest.mark.parametrize(
    "overrides",
    [
        {"exp": int(time.time()) - 3600},  # expired
        {"iss": "https://idp.globex.example"},  # another issuer
        {"aud": "mnemos-b"},  # issued to another enterprise's client
        {"nonce": "n-other"},  # not this sign-in's
        {"exp": None},  # no expiry
    ],
)
def test_a_wrong_token_is_refused(signing_key: Any, overrides: dict[str, Any]) -> None:
    with pytest.raises(SuspiciousOperation):
        _backend(signing_key).verify_token(_token(signing_key, **overrides), nonce="n-1")


def test_a_tampered_or_foreign_signed_token_is_refused(signing_key: Any) -> None:
    header, payload, signature = _token(signing_key).split(".")
    forged_payload = jwt.utils.base64url_encode(
        jwt.utils.base64url_decode(payload).replace(b"idp-ada", b"idp-eve")
    ).decode()
    with pytest.raises(SuspiciousOperation):
        _backend(signing_key).verify_token(f"{header}.{forged_payload}.{signature}", nonce="n-1")
    other_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    with pytest.raises(SuspiciousOperation):
        _backend(signing_key).verify_token(_token(other_key), nonce="n-1")
    unsigned = jwt.encode({"iss": ISSUER, "aud": "mnemos", "sub": "x", "nonce": "n-1"}, "", algorithm="none")
    with pytest.raises(SuspiciousOperation):
        _backend(signing_key).verify_token(unsigned, nonce="n-1")


# -- the console's doors ---------------------------------------------------------------------------------


def test_a_callback_that_was_not_started_here_signs_nobody_in(client: Any) -> None:
    response = client.get("/console/sso/callback/", {"code": "c", "state": "forged"})
    assert response.status_code == 400 and "_auth_user_id" not in client.session


def test_an_enterprise_without_an_idp_says_use_a_password(world: Any, client: Any) -> None:
    response = client.post("/console/sso/start/", {"enterprise": world.a.enterprise.slug})
    assert response.status_code == 404 and b"sign in with your password" in response.content
    response = client.post("/console/sso/start/", {"enterprise": "no-such-enterprise"})
    assert response.status_code == 404 and b"sign in with your password" in response.content


def test_the_settings_page_never_shows_the_secret_and_only_admins_change_it(world: Any, client: Any) -> None:
    alice = _member(world)
    with _as(alice):
        _configure(alice)
    client.force_login(alice.user)
    page = client.get("/console/sso/")
    assert page.status_code == 200 and b"platform-eng" in page.content
    assert b"the-client-secret" not in page.content
    posted = client.post(
        "/console/sso/",
        {
            "issuer": "https://idp.acme.example",
            "client_id": "mnemos",
            "allowed_domains": "a.example",
            "default_org_role": "member",
            "group_map": "platform-eng = nope",
            "enabled": "on",
        },
    )
    assert (
        posted.status_code == 400 and b"Unknown team &#x27;nope&#x27; in the group mapping." in posted.content
    )
    client.force_login(world.bob.user)  # auditor of A: reads, changes nothing
    assert client.get("/console/sso/").status_code == 200
    assert client.post("/console/sso/", {"issuer": "https://x.example"}).status_code == 403
