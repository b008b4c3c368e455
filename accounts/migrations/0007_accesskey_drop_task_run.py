"""AccessKey.task and AccessKey.run go: a run's key is TaskRun.run_key (a one-to-one, memory 0014), whose
reverse is AccessKey.run. memory 0013 first binds back every run its key still named."""

from __future__ import annotations

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("accounts", "0006_toolcallwindow"), ("memory", "0013_taskrun_run_key_backfill")]
    operations = [
        migrations.RemoveField(model_name="accesskey", name="run"),
        migrations.RemoveField(model_name="accesskey", name="task"),
    ]
