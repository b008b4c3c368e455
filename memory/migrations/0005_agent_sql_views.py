"""The agent schema: the only relations query_memories_with_sql can read.

Each view applies the caller's visibility (from transaction-local settings the
tool sets and the query cannot change) on top of row-level security by tenant.
security_barrier keeps a query's own functions from seeing rows before the
views' conditions have filtered them.
"""

from __future__ import annotations

from django.db import migrations

UUIDS = "string_to_array(NULLIF(current_setting('{0}', true), ''), ',')::uuid[]"
INTS = "string_to_array(NULLIF(current_setting('{0}', true), ''), ',')::bigint[]"

MEMORIES = f"""
CREATE VIEW agent.memories WITH (security_barrier) AS
SELECT m.id, m.project_id, w.name AS workspace, m.team_id, m.author_id, m.task_id,
       m.created_at, m."timestamp", m.summary, m.content, m.kind, m.layer, m.visibility, m.scope,
       m.status, m.confidence, m.fact_key, m.fact_version, m.source, m.source_id, m.source_hash,
       m.source_revision, m.embedding_model IS NOT NULL AND m.embedding_model <> '' AS has_vector
FROM public.memory_memory m
JOIN public.accounts_workspace w ON w.id = m.workspace_id
WHERE m.forgotten_at IS NULL
  AND (
        m.visibility = 'enterprise'
     OR (m.project_id = ANY({UUIDS.format('app.sql_projects')})
         AND (m.visibility = 'project'
              OR (m.visibility = 'team' AND m.team_id = ANY({INTS.format('app.sql_teams')}))))
     OR (m.visibility = 'author' AND m.author_id = NULLIF(current_setting('app.sql_member', true), '')::bigint)
  )
  AND (m.layer <> 'role' OR m.role_id = ANY({INTS.format('app.sql_roles')}))
  AND (NULLIF(current_setting('app.sql_scope', true), '') IS NULL
       OR m.project_id = ANY({UUIDS.format('app.sql_scope')})
       OR m.visibility = 'enterprise')
"""

VIEWS = [
    "CREATE SCHEMA IF NOT EXISTS agent",
    MEMORIES,
    """
CREATE VIEW agent.memory_entities WITH (security_barrier) AS
SELECT me.memory_id, me.entity_id
FROM public.memory_memoryentity me
WHERE me.memory_id IN (SELECT id FROM agent.memories)
""",
    """
CREATE VIEW agent.entities WITH (security_barrier) AS
SELECT e.id, e.name, e.type
FROM public.memory_entity e
WHERE e.id IN (SELECT entity_id FROM agent.memory_entities)
""",
    """
CREATE VIEW agent.memory_tags WITH (security_barrier) AS
SELECT mt.memory_id, mt.tag_id
FROM public.memory_memorytag mt
WHERE mt.memory_id IN (SELECT id FROM agent.memories)
""",
    """
CREATE VIEW agent.tags WITH (security_barrier) AS
SELECT t.id, t.path, t.name, t.parent_id
FROM public.memory_tag t
WHERE EXISTS (
    SELECT 1 FROM public.memory_tag used
    WHERE used.id IN (SELECT tag_id FROM agent.memory_tags)
      AND (used.path = t.path OR used.path LIKE t.path || '/%')
)
""",
    """
CREATE VIEW agent.links WITH (security_barrier) AS
SELECT l.kind, l.src_id, l.dst_id, l.relation, l.score, l.asserted_at
FROM public.memory_memorylink l
WHERE l.revoked_at IS NULL
  AND l.src_id IN (SELECT id FROM agent.memories)
  AND l.dst_id IN (SELECT id FROM agent.memories)
""",
    f"""
CREATE VIEW agent.projects WITH (security_barrier) AS
SELECT p.id, p.slug, p.name, p.team_id, p.save_domain, p.save_group
FROM public.accounts_project p
WHERE p.id = ANY({UUIDS.format('app.sql_projects')})
""",
    """
CREATE VIEW agent.teams WITH (security_barrier) AS
SELECT t.id, t.slug, t.name FROM public.accounts_team t
""",
]


class Migration(migrations.Migration):
    dependencies = [("memory", "0004_taskrun"), ("accounts", "0005_accesskey_run")]
    operations = [migrations.RunSQL(sql, migrations.RunSQL.noop) for sql in VIEWS] + [
        migrations.RunSQL(migrations.RunSQL.noop, "DROP SCHEMA IF EXISTS agent CASCADE")
    ]
