"""agent.memories keeps a folder-bound key to its folder (and what is shared enterprise-wide), as every
other read does: ``app.sql_workspace`` is set by the SQL tool from the key's binding (empty = not bound)."""

from __future__ import annotations

import importlib

from django.db import migrations

# The view as 0005 made it; this migration appends the folder condition.
MEMORIES = importlib.import_module("memory.migrations.0005_agent_sql_views").MEMORIES.replace(
    "CREATE VIEW", "CREATE OR REPLACE VIEW"
)

FOLDER = """
  AND (NULLIF(current_setting('app.sql_workspace', true), '') IS NULL
       OR m.workspace_id = NULLIF(current_setting('app.sql_workspace', true), '')::uuid
       OR m.visibility = 'enterprise')
"""


class Migration(migrations.Migration):
    dependencies = [("memory", "0010_archivist_wake")]
    operations = [migrations.RunSQL(MEMORIES.rstrip() + FOLDER, MEMORIES)]
