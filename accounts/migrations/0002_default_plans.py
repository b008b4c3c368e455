"""The plan catalogue every deployment starts with."""

from __future__ import annotations

from typing import Any

from django.db import migrations

PLANS = [
    # slug, name, per project, per workspace, per enterprise, calls/min/project
    ("free", "Free", 1_000, 1_000, 5_000, 60),
    ("team", "Team", 100_000, 50_000, 1_000_000, 600),
    ("enterprise", "Enterprise", 2_000_000, 1_000_000, 20_000_000, 6_000),
]


def create_plans(apps: Any, schema_editor: Any) -> None:
    Plan = apps.get_model("accounts", "Plan")
    for slug, name, per_project, per_workspace, per_enterprise, per_minute in PLANS:
        Plan.objects.using(schema_editor.connection.alias).update_or_create(
            slug=slug,
            defaults={
                "name": name,
                "max_memories_per_project": per_project,
                "max_memories_per_workspace": per_workspace,
                "max_memories_per_enterprise": per_enterprise,
                "tool_calls_per_minute_per_project": per_minute,
            },
        )


class Migration(migrations.Migration):
    dependencies = [("accounts", "0001_initial")]
    operations = [migrations.RunPython(create_plans, migrations.RunPython.noop)]
