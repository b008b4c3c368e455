"""Schema = server: schemathesis calls every operation of the live OpenAPI document, in process.

The document is the one /v1/schema/ serves; the calls go through the real WSGI application with
alice's key (admin of enterprise A), inside the test's transaction. A bounded, seeded run: every
answer must be documented (status, content type, body schema), and none may be a server error.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core import signals
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    ignored_auth,
    positive_data_acceptance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from accounts.models import AuditEvent, Plan
from config.wsgi import application
from core.tenancy import tenant_context
from memory.services.runs import task_run_start
from memory.services.tasks import task_create

SCHEMA_URL = "/v1/schema/?format=json"
EXAMPLES_PER_OPERATION = 25
ACCEPTED = ["2xx", "401", "403", "404", "409", "422", "429"]
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
    ignored_auth,
    positive_data_acceptance,
]
# Not negative_data_rejection: the schema is, by design, stricter than the server in places the seeds
# say so. The "clamped" integers (memory.tools.common.Clamped) publish their range and accept any integer,
# clamping it; query_memory_graph's stated bounds are the parser's, whose refusal is a 200 result.
CONFIG = schemathesis.Config.from_dict(
    {
        "seed": 16,
        "generation": {"mode": "all", "max-examples": EXAMPLES_PER_OPERATION, "deterministic": True},
        # No stateful links are declared; the coverage phase alone makes hundreds of cases per operation.
        "phases": {"coverage": {"enabled": False}, "stateful": {"enabled": False}},
        "checks": {
            # A schema-valid request is never malformed (400). 422 stays allowed: a JSON schema cannot say
            # "an id that exists", "exactly one of name or entity_id", a SQL or graph query's grammar, or
            # the inputs every surface refuses (NUL, unpaired surrogates: core.inputs).
            "positive_data_acceptance": {"expected-statuses": ACCEPTED},
        },
        "operations": [
            {
                # The cursor is opaque: only one the list handed out reads (accounts.selectors.audit).
                "include-path": "/v1/audit-events",
                "checks": {"positive_data_acceptance": {"expected-statuses": [*ACCEPTED, "400"]}},
            }
        ],
    }
)

# Loaded when the module is collected: the URLconf and the registry, no database.
api = schemathesis.openapi.from_wsgi(SCHEMA_URL, application, config=CONFIG)


@pytest.fixture
def in_process_requests() -> Iterator[None]:
    """The test's transaction stays open across requests (what django.test.Client does per request)."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


@pytest.fixture
def alice_key(world: Any) -> str:
    """alice's key in A, on a plan whose call and memory limits the run cannot reach."""
    enterprise = world.a.enterprise
    with tenant_context(enterprise_id=enterprise.pk, door="test"):
        enterprise.plan = Plan.objects.create(
            slug="fuzz",
            name="Fuzz",
            tool_calls_per_minute_per_project=1_000_000,
            max_memories_per_project=1_000_000,
            max_memories_per_workspace=1_000_000,
            max_memories_per_enterprise=1_000_000,
        )
        enterprise.save(update_fields=["plan"])
    return str(world.alice.keys[enterprise.slug][1])


@pytest.fixture
def known_ids(world: Any, alice_key: str) -> dict[str, str]:
    """Ids that exist in A, for the path parameters of half the calls: the task routes' answers
    (a run started, its finish, a train) are documented too, not only their 404."""
    enterprise = world.a.enterprise
    key, _ = world.alice.keys[enterprise.slug]
    with tenant_context(enterprise_id=enterprise.pk, member=key.member, access_key=key, door="test"):
        task = task_create(project=world.a.project, name="release check", goal="check releases")
        run = task_run_start(task=task, member=key.member, key=key).run
        event = AuditEvent.objects.order_by("-id").first()
    assert event is not None
    return {"task_id": str(task.pk), "taskId": str(task.pk), "run_id": str(run.pk), "event_id": str(event.pk)}


@api.given(use_known_ids=st.booleans())
@api.parametrize()
@settings(
    max_examples=EXAMPLES_PER_OPERATION,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
def test_every_answer_is_documented(
    case: schemathesis.Case,
    use_known_ids: bool,
    known_ids: dict[str, str],
    alice_key: str,
    in_process_requests: None,
) -> None:
    if use_known_ids and case.path_parameters:
        case.path_parameters = {
            name: known_ids.get(name, value) for name, value in case.path_parameters.items()
        }
    case.call_and_validate(headers={"Authorization": f"Bearer {alice_key}"}, checks=CHECKS)
