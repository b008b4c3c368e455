"""TaskRun.run_key becomes a one-to-one (each run key belongs to exactly one run), its reverse
AccessKey.run: after accounts 0007 dropped the field of that name."""

from __future__ import annotations

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("memory", "0013_taskrun_run_key_backfill"), ("accounts", "0007_accesskey_drop_task_run")]
    operations = [
        migrations.AlterField(
            model_name="taskrun",
            name="run_key",
            field=models.OneToOneField(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="run",
                to="accounts.accesskey",
            ),
        ),
    ]
