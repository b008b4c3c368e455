"""ToolCallWindow moves from memory to accounts with the tool door's gate: the state only, the table
(memory_toolcallwindow, its rows, constraint and RLS policy) stays as it is."""

from __future__ import annotations

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("accounts", "0005_accesskey_run"), ("memory", "0011_agent_sql_folder")]
    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="ToolCallWindow",
                    fields=[
                        ("id", models.BigAutoField(primary_key=True, serialize=False)),
                        ("window_start", models.DateTimeField()),
                        ("calls", models.PositiveIntegerField(default=0)),
                        (
                            "enterprise",
                            models.ForeignKey(
                                editable=False,
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="+",
                                to="accounts.enterprise",
                            ),
                        ),
                        (
                            "project",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE, related_name="+", to="accounts.project"
                            ),
                        ),
                    ],
                    options={
                        "abstract": False,
                        "base_manager_name": "objects",
                        "db_table": "memory_toolcallwindow",
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("project", "window_start"), name="toolcallwindow_unique_minute"
                            )
                        ],
                    },
                ),
            ],
            database_operations=[],
        )
    ]
