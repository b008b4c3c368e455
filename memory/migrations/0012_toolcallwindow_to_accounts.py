"""ToolCallWindow now belongs to accounts (accounts 0006): memory lets go of its state, not of the table."""

from __future__ import annotations

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("memory", "0011_agent_sql_folder"), ("accounts", "0006_toolcallwindow")]
    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[migrations.DeleteModel(name="ToolCallWindow")])
    ]
