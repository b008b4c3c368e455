"""query_memories_with_sql and describe_memory_schema: the seed's contract and the public bypass families."""

from __future__ import annotations

import pytest

from accounts.models import AuditEvent
from core.tenancy import tenant_context
from tests.memory.helpers import tool


@pytest.fixture
def alice(world):
    return world.alice.keys[world.a.enterprise.slug][1]


@pytest.fixture
def data(client, world, alice):
    ids = []
    for i, tags in enumerate((["deploy/staging"], ["deploy/prod"], ["social"])):
        response = tool(
            client,
            alice,
            "save_memory",
            {
                "summary": f"note {i}",
                "content": f"content {i}",
                "entities": [{"name": "Dana", "type": "person"}],
                "tags": tags,
            },
        )
        ids.append(response.json()["event_id"])
    # Another tenant's memory that no query may reach.
    bob_b = world.bob.keys[world.b.enterprise.slug][1]
    foreign = tool(
        client,
        bob_b,
        "save_memory",
        {"summary": "globex secret plan", "content": "globex", "entities": [], "tags": ["deploy/x"]},
    )
    return ids, foreign.json()["event_id"]


def sql(client, secret, query, **extra):
    return tool(client, secret, "query_memories_with_sql", {"sql": query, **extra})


def test_counts_and_aggregates(client, world, alice, data):
    body = sql(client, alice, "SELECT count(*) AS n FROM agent.memories").json()
    assert body == {"columns": ["n"], "rows": [[3]], "row_count": 1, "truncated": False}
    grouped = sql(
        client,
        alice,
        "WITH t AS (SELECT path, id FROM agent.tags) SELECT t.path, count(*) FROM agent.memory_tags mt "
        "JOIN t ON t.id = mt.tag_id GROUP BY t.path ORDER BY t.path",
    ).json()
    assert grouped["rows"] == [["deploy/prod", 1], ["deploy/staging", 1], ["social", 1]]


def test_another_tenants_rows_never_appear_by_any_join(client, world, alice, data):
    _, foreign = data
    for query in (
        "SELECT id FROM agent.memories",
        "SELECT m.id FROM agent.memories m JOIN agent.memory_entities me ON me.memory_id = m.id",
        "SELECT path FROM agent.tags",
        "SELECT src_id FROM agent.links",
        "SELECT name FROM agent.teams",
        "SELECT slug FROM agent.projects",
    ):
        text = str(sql(client, alice, query).json())
        assert foreign not in text and "globex" not in text and "deploy/x" not in text, query
    assert sql(client, alice, f"SELECT count(*) FROM agent.memories WHERE id = '{foreign}'").json()[
        "rows"
    ] == [[0]]


def test_max_rows_wraps_and_keeps_a_lower_limit(client, world, alice, data):
    capped = sql(client, alice, "SELECT id FROM agent.memories", max_rows=2).json()
    assert capped["row_count"] == 2 and capped["truncated"] is True
    lower = sql(client, alice, "SELECT id FROM agent.memories LIMIT 1", max_rows=2).json()
    assert lower["row_count"] == 1 and lower["truncated"] is False


@pytest.mark.parametrize(
    "query, rule",
    [
        ("SELECT 1; SELECT 2", "one_statement"),
        ("SELECT 1; COMMIT", "one_statement"),
        ("COMMIT", "select_only"),
        ("ROLLBACK", "select_only"),
        ("DELETE FROM agent.memories", "select_only"),
        ("UPDATE agent.memories SET content = 'x'", "select_only"),
        ("INSERT INTO agent.memories (id) VALUES (gen_random_uuid())", "select_only"),
        ("WITH d AS (DELETE FROM agent.memories RETURNING id) SELECT * FROM d", "select_only"),
        ("EXPLAIN ANALYZE SELECT 1", "select_only"),
        ("COPY (SELECT 1) TO STDOUT", "select_only"),
        ("LOCK TABLE agent.memories", "select_only"),
        ("SET ROLE mnemos_owner", "select_only"),
        ("RESET ROLE", "select_only"),
        (
            "SELECT set_config('app.enterprise_id', '00000000-0000-0000-0000-000000000000', true)",
            "allowed_functions",
        ),
        ("SELECT pg_sleep(10)", "allowed_functions"),
        ("SELECT * FROM dblink('dbname=x', 'select 1') AS t(a int)", "agent_views_only"),
        ("SELECT pg_read_file('/etc/passwd')", "allowed_functions"),
        ("SELECT lo_import('/etc/passwd')", "allowed_functions"),
        ("SELECT query_to_xml('select * from accounts_accesskey', true, true, '')", "allowed_functions"),
        ("SELECT * FROM pg_catalog.pg_roles", "agent_views_only"),
        ("SELECT * FROM pg_class", "agent_views_only"),
        ("SELECT * FROM information_schema.tables", "agent_views_only"),
        ("SELECT * FROM public.memory_memory", "agent_views_only"),
        ("SELECT * FROM memory_memory", "agent_views_only"),
        ("SELECT * FROM accounts_accesskey", "agent_views_only"),
        ("SELECT 'memory_memory'::regclass", "no_catalogs"),
        ("SELECT id FROM agent.memories FOR UPDATE", "no_locking"),
        ("SELECT id INTO TEMP stolen FROM agent.memories", "no_into"),
        ("SELECT 1 /* ; DELETE FROM agent.memories */ ; -- x\n DROP TABLE x", "one_statement"),
        ("SELECT current_setting('app.enterprise_id')", "allowed_functions"),
        ("", "one_statement"),
        ("SELEC 1", "syntax"),
    ],
)
def test_bypass_families_are_refused_by_rule(client, world, alice, data, query, rule):
    response = sql(client, alice, query)
    assert response.status_code == 422, response.content
    body = response.json()
    assert body["code"] == "sql_refused" and body["rule"] == rule, body
    assert body["error"].startswith(f"query refused by rule {rule}: ")


def test_recursive_cte_bomb_is_stopped_by_the_timeout(client, world, alice, data):
    response = sql(
        client,
        alice,
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r",
        timeout_ms=200,
    )
    assert response.status_code == 422
    assert response.json()["rule"] == "timeout"
    # The call after it works: the timeout, role and read-only mode did not leak.
    assert sql(client, alice, "SELECT count(*) FROM agent.memories").json()["rows"] == [[3]]


def test_invisible_memories_do_not_appear(client, world, alice, data):
    # bob reads A as an auditor: alice's author-only memory is not his to see.
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        from memory.models import Memory

        Memory.objects.filter(pk=data[0][0]).update(visibility="author")
    bob_a = world.bob.keys[world.a.enterprise.slug][1]
    assert sql(client, bob_a, "SELECT count(*) FROM agent.memories").json()["rows"] == [[2]]
    assert sql(client, alice, "SELECT count(*) FROM agent.memories").json()["rows"] == [[3]]


def test_describe_memory_schema(client, world, alice):
    body = tool(client, alice, "describe_memory_schema", {}).json()
    views = {v["name"]: v for v in body["views"]}
    assert set(views) == {
        "memories",
        "entities",
        "memory_entities",
        "tags",
        "memory_tags",
        "links",
        "projects",
        "teams",
    }
    columns = {c["name"]: c for c in views["memories"]["columns"]}
    assert columns["content"]["type"] == "text" and columns["content"]["meaning"]
    assert "count" in body["functions"] and any(r.startswith("select_only") for r in body["rules"])


def test_sql_reads_are_audited(client, world, alice, data):
    tool(
        client,
        alice,
        "query_memories_with_sql",
        {"sql": "SELECT id FROM agent.memories"},
        HTTP_X_REQUEST_ID="sql-1",
    )
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        event = AuditEvent.objects.get(request_id="sql-1")
    assert set(event.details["read_ids"]) == set(data[0])
