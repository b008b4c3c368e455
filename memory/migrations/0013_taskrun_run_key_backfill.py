"""Before AccessKey.task and AccessKey.run go (accounts 0007) and TaskRun.run_key becomes a one-to-one
(0014): a run key is its run's ``run_key``. Data only, in its own transaction (an ALTER TABLE after these
UPDATEs in one transaction would meet their deferred foreign-key checks).

1. A run whose ``run_key`` is empty while a key still names it (``accesskey.run_id``) gets that key back,
   unless another run already holds it.
2. One run per key (the one-to-one's unique constraint): where runs share a key, the run the key names
   keeps it, else the earliest; the others let go (SET NULL, as a deleted key would leave them).

The migration runs as the owner, under forced RLS: it reads and writes every tenant's rows.
"""

from __future__ import annotations

from django.db import migrations

BACKFILL = """
SELECT set_config('app.all_tenants', 'on', true);

UPDATE memory_taskrun AS r SET run_key_id = k.id
FROM accounts_accesskey AS k
WHERE k.run_id = r.id AND r.run_key_id IS NULL
  AND NOT EXISTS (SELECT 1 FROM memory_taskrun AS o WHERE o.run_key_id = k.id);

UPDATE memory_taskrun AS r SET run_key_id = NULL
FROM (
    SELECT o.id, row_number() OVER (
        PARTITION BY o.run_key_id ORDER BY (k.run_id = o.id) IS NOT TRUE, o.started_at, o.id
    ) AS n
    FROM memory_taskrun AS o LEFT JOIN accounts_accesskey AS k ON k.id = o.run_key_id
    WHERE o.run_key_id IS NOT NULL
) AS ranked
WHERE ranked.id = r.id AND ranked.n > 1;
"""


class Migration(migrations.Migration):
    dependencies = [("memory", "0012_toolcallwindow_to_accounts"), ("accounts", "0006_toolcallwindow")]
    operations = [migrations.RunSQL(BACKFILL, migrations.RunSQL.noop)]
