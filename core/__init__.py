"""The platform core: plumbing every app stands on, and no models of its own.

errors (one hierarchy, stable codes), inputs (what every door refuses before parsing), tenancy (the
tenant context, TenantModel and its manager, RLS), compiled (the one hot query compiled once), env
(typed settings readers), the embedded PostgreSQL (dbserver, bootstrap, db_security), health, the tool
registry, the ASGI glue and `serve`. Apps import core; core imports no app.
"""
