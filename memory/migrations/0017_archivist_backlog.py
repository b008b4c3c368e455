"""``mnemos_archivist_backlog()``: the archivist's queue across enterprises, for ``/metrics``.

The app role sees one tenant's rows (row-level security), and a scrape needs the totals. The function
runs as its owner (SECURITY DEFINER; the owner is subject to the forced policies too) with
``app.all_tenants`` on for its one query only: it sets it back to the caller's value before it returns (a
function's own ``SET app.all_tenants`` clause needs a superuser on PostgreSQL 15+, and an error rolls the
setting back with the statement). It returns two numbers, never a row. EXECUTE is revoked from PUBLIC and granted to the app role only: the SQL tool's
role (agent views) cannot call it. The partial index ``memory_waiting_vector`` answers it.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import migrations

CREATE = """
CREATE OR REPLACE FUNCTION mnemos_archivist_backlog(OUT waiting bigint, OUT oldest_seconds double precision)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, public, pg_temp
AS $$
DECLARE
    previous text := coalesce(current_setting('app.all_tenants', true), '');
BEGIN
    PERFORM set_config('app.all_tenants', 'on', true);
    SELECT count(*), greatest(coalesce(extract(epoch FROM clock_timestamp() - min(m.created_at)), 0), 0)::double precision
      INTO waiting, oldest_seconds
      FROM public.memory_memory AS m
     WHERE m.embedding IS NULL AND m.forgotten_at IS NULL;
    PERFORM set_config('app.all_tenants', previous, true);
END
$$;
REVOKE ALL ON FUNCTION mnemos_archivist_backlog() FROM PUBLIC;
"""


def grant(apps: Any, schema_editor: Any) -> None:
    role = schema_editor.quote_name(settings.DATABASES["default"]["USER"])
    schema_editor.execute(f"GRANT EXECUTE ON FUNCTION mnemos_archivist_backlog() TO {role}")


class Migration(migrations.Migration):
    dependencies = [("memory", "0016_lifecycle")]

    operations = [
        migrations.RunSQL(CREATE, reverse_sql="DROP FUNCTION IF EXISTS mnemos_archivist_backlog()"),
        migrations.RunPython(grant, migrations.RunPython.noop),
    ]
