"""Row-level security and grants, re-applied after every ``migrate``.

Driven by the model registry, so a new tenant-owned model is protected the
moment its table exists: nobody has to remember to write a policy.
"""

from __future__ import annotations

from typing import Any

from django.apps import AppConfig, apps
from django.conf import settings
from django.db import connections
from psycopg import sql

from core.dbserver import AGENT_SQL_ROLE

# Tables the app role may read and append to, but never change or remove.
APPEND_ONLY_TABLES = ("accounts_auditevent",)


def apply_database_security(sender: AppConfig, using: str = "default", **_: Any) -> None:
    # post_migrate comes once per app with models: act on the last one only.
    last = [config for config in apps.get_app_configs() if config.models_module is not None][-1]
    if sender.label != last.label:
        return
    from core.tenancy import rls_policy_sql, tenant_models

    connection = connections[using]
    app_role = settings.DATABASES["default"]["USER"]
    if connection.settings_dict["USER"] == app_role:
        raise RuntimeError("Migrations must run as the owner role (manage.py migrate does).")
    role = sql.Identifier(app_role).as_string(connection.connection)  # type: ignore[arg-type]
    with connection.cursor() as cursor:
        for model in tenant_models():
            for statement in rls_policy_sql(model):
                cursor.execute(statement)
        cursor.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {role}")
        cursor.execute(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {role}")
        cursor.execute(f"REVOKE TRUNCATE, REFERENCES, TRIGGER ON ALL TABLES IN SCHEMA public FROM {role}")
        for table in APPEND_ONLY_TABLES:
            cursor.execute(f'REVOKE UPDATE, DELETE, TRUNCATE ON "{table}" FROM {role}')
        # The SQL tool's role: SELECT on the agent views, nothing in public.
        agent = sql.Identifier(AGENT_SQL_ROLE).as_string(connection.connection)  # type: ignore[arg-type]
        cursor.execute("SELECT 1 FROM pg_namespace WHERE nspname = 'agent'")
        if cursor.fetchone() is not None:
            cursor.execute(f"REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {agent}")
            cursor.execute(f"GRANT USAGE ON SCHEMA agent TO {agent}")
            cursor.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA agent TO {agent}")
            cursor.execute(f"REVOKE ALL ON ALL TABLES IN SCHEMA agent FROM {role}")
