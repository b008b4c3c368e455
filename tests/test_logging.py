"""Structured logs (core/logs.py): one JSON object a line with the request id, the request id carried
into a job's lines, and no memory content or secret in any line."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import structlog

from core.logs import ACCESS_LOGGER, json_formatter
from tests.memory.helpers import archive, tool

AWS_KEY_ID = "AKIAZ7Q4L2M9X3C8V5B1"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq3e8Lk2Jd"


@pytest.fixture
def json_log() -> Iterator[Callable[[], list[dict[str, Any]]]]:
    """Every line any logger writes, at every level, through the formatter settings.LOGGING uses."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(json_formatter())
    root, access = logging.getLogger(), logging.getLogger(ACCESS_LOGGER)
    levels = (root.level, access.level)
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    access.setLevel(logging.DEBUG)

    def lines() -> list[dict[str, Any]]:
        return [json.loads(line) for line in stream.getvalue().splitlines() if line.strip()]

    lines.raw = stream.getvalue  # type: ignore[attr-defined]
    try:
        yield lines
    finally:
        root.removeHandler(handler)
        root.setLevel(levels[0])
        access.setLevel(levels[1])


def key(person, tenant) -> str:
    return person.keys[tenant.enterprise.slug][1]


def test_a_tool_call_line_carries_the_request_id(client, world, json_log):
    response = tool(
        client, key(world.alice, world.a), "remember", {"content": "a fact"}, HTTP_X_REQUEST_ID="trace-7"
    )
    assert response.status_code == 200
    [line] = [line for line in json_log() if line["event"] == "tool.call"]
    assert line["request_id"] == "trace-7"
    assert line["tool"] == "remember" and line["surface"] == "rest" and line["status"] == "ok"
    assert line["enterprise_id"] == str(world.a.enterprise.pk)
    assert line["level"] == "info" and line["logger"] == ACCESS_LOGGER
    assert line["timestamp"].endswith("Z") and isinstance(line["duration_ms"], float)


def test_a_refused_call_line_has_its_code_and_a_fresh_request_id(client, db, json_log):
    assert tool(client, "mnm_not_a_key", "remember", {"content": "x"}).status_code == 401
    [line] = [line for line in json_log() if line["event"] == "tool.call"]
    assert line["status"] != "ok" and len(line["request_id"]) == 32 and "enterprise_id" not in line


def test_plain_logging_lines_are_json_with_the_tenant_context(world, json_log):
    from core.tenancy import tenant_context

    with tenant_context(enterprise_id=world.a.enterprise.pk, request_id="ctx-1", door="test"):
        logging.getLogger("mnemos.test").warning("something %s", "odd", extra={"status": "x"})
    [line] = json_log()
    assert line["event"] == "something odd" and line["level"] == "warning" and line["status"] == "x"
    assert line["request_id"] == "ctx-1" and line["enterprise_id"] == str(world.a.enterprise.pk)


def test_the_request_id_reaches_the_jobs_lines(
    client, world, json_log, monkeypatch, django_capture_on_commit_callbacks
):
    """The save's jobs, sent as core.jobs sends them (their header included), run in-process."""
    from config.celery import app

    sent: list[dict[str, Any]] = []

    def send_task(name, kwargs=None, task_id=None, headers=None, **_):
        sent.append(headers or {})
        return app.tasks[name].apply(kwargs=kwargs, task_id=task_id, headers=headers)

    monkeypatch.setattr(app, "send_task", send_task)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = tool(
            client, key(world.alice, world.a), "remember", {"content": "x"}, HTTP_X_REQUEST_ID="trace-job"
        )
    assert response.status_code == 200
    for callback in callbacks:
        callback()
    assert sent and all(headers == {"mnemos_request_id": "trace-job"} for headers in sent)
    jobs = [line for line in json_log() if line["event"] == "job.done"]
    assert jobs, json_log()
    assert all(line["request_id"] == "trace-job" and line["task"] and line["job_id"] for line in jobs)
    assert structlog.contextvars.get_contextvars() == {}  # nothing bound outlives the job


def test_a_saved_secret_never_reaches_the_logs(client, world, json_log):
    content = f"deploy creds: aws_access_key_id={AWS_KEY_ID} aws_secret_access_key={AWS_SECRET}"
    secret = key(world.alice, world.a)
    saved = tool(client, secret, "remember", {"content": content}, HTTP_X_REQUEST_ID="trace-secret")
    assert saved.status_code == 200
    archive(world, str(saved.json()["id"]))
    assert tool(client, secret, "search_memory", {"query": AWS_KEY_ID}).status_code == 200
    # Code that would log content or a credential by mistake: the processor filters it.
    logging.getLogger("mnemos.test").error(
        "leaked %s", AWS_KEY_ID, extra={"content": content, "token": secret}
    )
    structlog.get_logger("mnemos.test").warning(
        "oops", content=content, note=AWS_SECRET, detail=f"k={AWS_KEY_ID}"
    )
    output = json_log.raw()  # type: ignore[attr-defined]
    assert any(line["event"] == "tool.call" for line in json_log())
    for needle in (AWS_KEY_ID, AWS_SECRET, secret, "deploy creds"):
        assert needle not in output
    assert '"content": "[filtered]"' in output and "[filtered:aws]" in output
