"""The tool door over REST: list_memory_projects, subscription states, rate limit, scopes, errors."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel, ConfigDict, Field

from accounts import door
from accounts.models import AuditEvent, Plan, SubscriptionState
from accounts.services.enterprises import enterprise_set_subscription, project_grant
from accounts.services.keys import access_key_create
from accounts.services.targets import member_main_pause, project_publish
from accounts.switch_links import switch_token_read
from core.registry import registry
from core.tenancy import tenant_context
from tests.standin import standin_tool

URL = "/v1/tools/list_memory_projects"


def call(client, secret, url=URL, body=None, **headers):
    if secret:
        headers["HTTP_AUTHORIZATION"] = f"Bearer {secret}"
    data = body if isinstance(body, (str, bytes)) else json.dumps(body or {})
    return client.post(url, data=data, content_type="application/json", **headers)


def key_of(world, person, slug):
    return getattr(world, person).keys[slug]


def test_lists_the_projects_with_the_seed_fields(client, world):
    _, secret = key_of(world, "alice", world.a.enterprise.slug)
    response = call(client, secret)
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"projects", "main_project", "display", "note"}
    assert [p["project"] for p in body["projects"]] == ["alpha", "beta"]
    alpha = body["projects"][0]
    assert set(alpha) == {
        "project",
        "team",
        "save_domain",
        "save_group",
        "is_main",
        "is_this_connection",
        "switch_url",
        "switch_link",
    }
    assert alpha["team"] == "Platform" and alpha["is_main"] is True and alpha["is_this_connection"] is False
    assert alpha["switch_link"] == f"[Switch to alpha]({alpha['switch_url']})"
    assert body["main_project"] == "alpha"
    assert "switch_link" in body["note"] and "alpha" in body["display"]
    link = switch_token_read(alpha["switch_url"].rsplit("/", 1)[1])
    assert link.enterprise_id == world.a.enterprise.pk


def test_a_member_sees_only_projects_they_may_view(client, world):
    # dana is a plain member of A's Platform team: alpha through the team, not beta.
    from django.contrib.auth.models import User

    from accounts.services.enterprises import member_add
    from accounts.services.keys import access_key_create

    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        user = User.objects.create_user(username="dana", password="x")
        dana = member_add(enterprise=world.a.enterprise, user=user, teams=[world.a.team])
        _, secret = access_key_create(member=dana, project=world.a.project)
    assert [p["project"] for p in call(client, secret).json()["projects"]] == ["alpha"]
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        project_grant(project=world.a.other_project, member=dana, permissions=["view"])
    assert [p["project"] for p in call(client, secret).json()["projects"]] == ["alpha", "beta"]


def test_an_auditor_sees_every_project_as_every_read_does(client, world):
    # The auditor rule is the same on every surface (accounts/access.py): every project, no grant needed.
    _, secret = key_of(world, "bob", world.a.enterprise.slug)
    assert [p["project"] for p in call(client, secret).json()["projects"]] == ["alpha", "beta"]


def test_another_enterprises_projects_are_never_listed_unless_published(client, world):
    _, secret = key_of(world, "alice", world.a.enterprise.slug)
    ids = {p["switch_url"] for p in call(client, secret).json()["projects"]}
    assert all(
        str(world.b.project.pk) not in switch_token_read(u.rsplit("/", 1)[1]).project_id.hex for u in ids
    )
    with tenant_context(enterprise_id=world.b.enterprise.pk, door="test"):
        project_publish(project=world.b.other_project)
    projects = call(client, secret).json()["projects"]
    public = [p for p in projects if p.get("read_only")]
    assert len(public) == 1
    assert public[0]["project"] == "beta" and public[0]["save_domain"] == world.b.enterprise.slug
    assert public[0]["is_main"] is False and public[0]["is_this_connection"] is False
    # B itself lists its own published project as its own, not read-only.
    _, secret_b = key_of(world, "bob", world.b.enterprise.slug)
    assert not any(p.get("read_only") for p in call(client, secret_b).json()["projects"])


def test_folder_bound_connection_and_paused_main(client, world):
    member = world.alice.members[world.a.enterprise.slug]
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        _, secret = access_key_create(member=member, project=world.a.other_project, workspace_name="notes")
        member_main_pause(member=member, paused=True)
    body = call(client, secret).json()
    flags = {p["project"]: (p["is_main"], p["is_this_connection"]) for p in body["projects"]}
    assert flags == {"alpha": (True, False), "beta": (False, True)}
    assert body["main_paused"] is True


def test_unknown_tool_is_404(client, world):
    _, secret = key_of(world, "alice", world.a.enterprise.slug)
    response = call(client, secret, url="/v1/tools/no_such_tool")
    assert response.status_code == 404
    assert response.json() == {"error": "Unknown tool: no_such_tool", "code": "unknown_tool"}


def test_a_key_sees_only_its_toolsets(client, world):
    member = world.alice.members[world.a.enterprise.slug]
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        _, secret = access_key_create(member=member, project=world.a.project, toolsets=["remember"])
    response = call(client, secret)
    assert response.status_code == 404
    assert response.json()["code"] == "unknown_tool"


@pytest.mark.parametrize(
    "secret, status, code",
    [(None, 401, "missing_key"), ("mnm_bad_key", 401, "invalid_key")],
)
def test_bad_keys_are_401(client, world, secret, status, code):
    response = call(client, secret)
    assert response.status_code == status
    assert response.json()["code"] == code
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_a_key_without_the_scope_is_403(client, world):
    member = world.alice.members[world.a.enterprise.slug]
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        _, secret = access_key_create(member=member, project=world.a.project, scopes=["tasks:read"])
    response = call(client, secret)
    assert response.status_code == 403
    assert response.json() == {
        "error": "this access key lacks the 'memory:read' scope",
        "code": "missing_scope",
        "scope": "memory:read",
    }


def test_bad_arguments_and_bodies(client, world):
    _, secret = key_of(world, "alice", world.a.enterprise.slug)
    unknown = call(client, secret, body={"surprise": 1})
    assert unknown.status_code == 422
    assert unknown.json() == {"error": "surprise: unknown argument", "code": "invalid_arguments"}
    not_json = call(client, secret, body="{nope")
    assert not_json.status_code == 400 and not_json.json()["code"] == "invalid_json"
    not_object = call(client, secret, body="[1, 2]")
    assert not_object.status_code == 400
    assert not_object.json()["error"] == "request body must be a JSON object of the tool's arguments"


def test_too_large_body_is_413(client, world, settings):
    settings.TOOL_BODY_MAX_BYTES = 100
    _, secret = key_of(world, "alice", world.a.enterprise.slug)
    response = call(client, secret, body={"padding": "x" * 200})
    assert response.status_code == 413
    assert response.json() == {"error": "request body too large", "code": "payload_too_large"}


@pytest.mark.parametrize("value", ["", "x" * 257, "caf\u00e9", "tab\there"])
def test_invalid_idempotency_key_is_400(client, world, value):
    _, secret = key_of(world, "alice", world.a.enterprise.slug)
    response = call(client, secret, HTTP_X_IDEMPOTENCY_KEY=value)
    assert response.status_code == 400
    assert response.json() == {"error": "invalid X-Idempotency-Key", "code": "invalid_idempotency_key"}


def test_a_valid_idempotency_key_is_accepted(client, world):
    _, secret = key_of(world, "alice", world.a.enterprise.slug)
    assert call(client, secret, HTTP_X_IDEMPOTENCY_KEY="k" * 256).status_code == 200


def test_calls_and_refusals_are_audited(client, world):
    key, secret = key_of(world, "alice", world.a.enterprise.slug)
    call(client, secret, HTTP_X_REQUEST_ID="req-list-1")
    call(client, secret, body={"surprise": 1}, HTTP_X_REQUEST_ID="req-list-2")
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        ok = AuditEvent.objects.get(request_id="req-list-1")
        bad = AuditEvent.objects.get(request_id="req-list-2")
    assert (ok.action, ok.access_key_id, ok.door) == ("tool.call", key.pk, "tools")
    assert ok.details == {"tool": "list_memory_projects", "surface": "rest", "ok": True}
    assert bad.action == "tool.error" and bad.details["error_code"] == "invalid_arguments"


class _WriteIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(default="", description="Anything.")


class _WriteOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    ok: bool = Field(description="Done.")


@pytest.fixture
def write_tool():
    """A stand-in write tool, registered for one test, to exercise the write-side gates."""
    with standin_tool(
        "test_write",
        lambda call, args: _WriteOut(ok=True),
        _WriteIn,
        _WriteOut,
        read_only=False,
        scope="memory:write",
    ) as spec:
        yield spec


@pytest.mark.parametrize(
    "state, read_status, write_status, text",
    [
        (SubscriptionState.ACTIVE, 200, 200, None),
        (SubscriptionState.GRACE, 200, 403, door.NOTICE_GRACE),
        (SubscriptionState.NONE, 403, 403, door.NOTICE_NONE),
        (SubscriptionState.SUSPENDED, 403, 403, door.NOTICE_SUSPENDED),
    ],
)
def test_subscription_states(client, world, write_tool, state, read_status, write_status, text):
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        enterprise_set_subscription(enterprise=world.a.enterprise, state=state)
    _, secret = key_of(world, "alice", world.a.enterprise.slug)
    read = call(client, secret)
    write = call(client, secret, url="/v1/tools/test_write")
    assert (read.status_code, write.status_code) == (read_status, write_status)
    if text:
        assert write.json()["error"] == text
        assert text.startswith("[MMW Notice]: ")


def test_an_auditor_may_not_write(client, world, write_tool):
    _, secret = key_of(world, "bob", world.a.enterprise.slug)
    response = call(client, secret, url="/v1/tools/test_write")
    assert response.status_code == 403
    assert response.json()["error"] == "membership may not write in this organization"


def test_rate_limit_per_project_per_minute(client, world):
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        world.a.enterprise.plan = Plan.objects.create(
            slug="tiny", name="Tiny", tool_calls_per_minute_per_project=3
        )
        world.a.enterprise.save(update_fields=["plan"])
    _, secret = key_of(world, "alice", world.a.enterprise.slug)
    statuses = [call(client, secret).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    assert call(client, secret).json() == {
        "error": "MCP rate limit exceeded, project call limit exceeded",
        "code": "rate_limited",
    }
    # Another enterprise's project has its own budget.
    _, secret_b = key_of(world, "bob", world.b.enterprise.slug)
    assert call(client, secret_b).status_code == 200


def test_openapi_document_is_valid_and_lists_every_tool(client):
    from openapi_spec_validator import validate

    response = client.get("/v1/schema/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    document = json.loads(response.content)
    validate(document)
    for spec in registry.all():
        operation = document["paths"][f"/v1/tools/{spec.name}"]["post"]
        assert operation["x-scope"] == spec.scope
        assert set(operation["responses"]) >= {"200", "401", "403", "404", "422", "429"}
    assert "/v1/tools/{name}" not in document["paths"]
    assert client.get("/v1/docs/").status_code == 200


@pytest.fixture
def broken_tool():
    with standin_tool("test_broken", lambda call, args: 1 / 0, _WriteIn, _WriteOut) as spec:
        yield spec


def test_a_crash_is_a_clean_500_without_traceback(client, world, broken_tool):
    _, secret = key_of(world, "alice", world.a.enterprise.slug)
    response = call(client, secret, url="/v1/tools/test_broken", HTTP_X_REQUEST_ID="req-crash")
    assert response.status_code == 500
    assert response.json() == {
        "error": "internal error: the call was not completed and nothing was changed",
        "code": "internal_error",
        "request_id": "req-crash",  # the id the server's log line carries
    }
    assert "Traceback" not in response.content.decode() and "ZeroDivision" not in response.content.decode()
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        assert AuditEvent.objects.get(request_id="req-crash").action == "tool.error"
