"""Mnemos settings. Everything is read from the environment; defaults are the embedded ones."""

from __future__ import annotations

import os
from pathlib import Path

import django_stubs_ext
from csp.constants import NONCE, NONE, SELF

from core.dbserver import database_settings
from core.env import env_bool, env_float, env_int, env_list, env_str, transport_security
from core.queues import task_routes

# The embedder's C engine (OpenMP) spins on every core by default: next to a database and a worker on a
# 2-core machine that made one query's embedding p95 694 ms; one thread measured p50 25 / p95 44 ms.
os.environ.setdefault("OMP_NUM_THREADS", env_str("MNEMOS_EMBEDDER_THREADS", "1"))
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

# Generic admin/manager classes (ModelAdmin[Model]) at runtime, as django-stubs types them.
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("MNEMOS_VAR_DIR", str(BASE_DIR / "var")))

DEBUG = env_bool("MNEMOS_DEBUG", False)
SECRET_KEY = env_str("MNEMOS_SECRET_KEY", "")
if not SECRET_KEY:
    # A stable per-installation key under var/, made on first start.
    _key_file = VAR_DIR / "secret_key"
    if not _key_file.exists():
        import secrets

        VAR_DIR.mkdir(parents=True, exist_ok=True)
        _key_file.write_text(secrets.token_urlsafe(50))
        _key_file.chmod(0o600)
    SECRET_KEY = _key_file.read_text().strip()

ALLOWED_HOSTS = env_list("MNEMOS_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("MNEMOS_CSRF_TRUSTED_ORIGINS", [])
PUBLIC_URL = env_str("MNEMOS_PUBLIC_URL", "http://127.0.0.1:8000").rstrip("/")

# HTTPS (core/env.py transport_security): Secure cookies and HSTS default on when the public URL is
# https:// or MNEMOS_BEHIND_HTTPS_PROXY says a TLS-terminating proxy sets X-Forwarded-Proto; the
# embedded http://127.0.0.1 keeps them off, so `make run` signs in over plain http.
_transport = transport_security(public_url=PUBLIC_URL)
SESSION_COOKIE_SECURE = _transport.secure_cookies
CSRF_COOKIE_SECURE = _transport.secure_cookies
SECURE_HSTS_SECONDS = _transport.hsts_seconds
SECURE_HSTS_INCLUDE_SUBDOMAINS = _transport.hsts_include_subdomains
SECURE_HSTS_PRELOAD = _transport.hsts_preload
# Trusted only when the operator says the proxy sets it: otherwise any client could claim https.
SECURE_PROXY_SSL_HEADER = _transport.proxy_ssl_header
# Django's defaults, stated so a change to them is a visible one.
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Content-Security-Policy (django-csp) on every response: scripts and styles from our own /static/
# only, no inline code (the console has none, templates/console/base.html turns off htmx's injected
# indicator style). NONCE is added only to a response whose template asked for request.csp_nonce:
# the API docs' Swagger UI (templates/drf_spectacular/swagger_ui.html). The admin's change lists carry
# one inline <style> (a no-op without list actions, which this admin has none of): refused, harmless.
CONTENT_SECURITY_POLICY: dict[str, object] = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        "style-src": [SELF, NONCE],
        "img-src": [SELF, "data:"],
        "object-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}

# What `serve` (core) runs on a first start: the demo enterprises (an app's service, named here).
SERVE_DEMO_SEED = "accounts.services.demo.demo_seed"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "django.contrib.humanize",
    "rest_framework",
    "drf_spectacular",
    "guardian",
    "django_htmx",
    "template_partials",
    "drf_spectacular_sidecar",
    "core",
    "accounts",
    "events",
    "memory",
    "partners",
    "console",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Serves the console's own static files (htmx, CSS) from the apps' static folders, no CDN.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # After WhiteNoise: the static files themselves need no policy.
    "csp.middleware.CSPMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = database_settings()
# Reads of read-only tool calls and console pages on DATABASE_REPLICA_URLS' standbys (core/dbrouting.py).
DATABASE_ROUTERS = ["core.dbrouting.ReplicaRouter"]
# A replica further behind than this is skipped; its state is checked at most this often; a caller's
# reads stay on the primary this long after its last write (at least the two others together).
REPLICA_MAX_LAG_SECONDS = env_float("MNEMOS_REPLICA_MAX_LAG_SECONDS", 5.0, minimum=0)
REPLICA_CHECK_SECONDS = env_float("MNEMOS_REPLICA_CHECK_SECONDS", 1.0, minimum=0)
READ_YOUR_WRITES_SECONDS = env_float("MNEMOS_READ_YOUR_WRITES_SECONDS", 10.0, minimum=0)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "guardian.backends.ObjectPermissionBackend",
]
# No guardian anonymous user: anonymous callers never hold object permissions.
ANONYMOUS_USER_NAME = None
GUARDIAN_RAISE_403 = False

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "/console/login/"
LOGIN_REDIRECT_URL = "/console/"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
# WhiteNoise finds static files in the apps directly: no collectstatic step before `make run`
# (it also serves STATIC_ROOT, and warns when that folder is missing).
WHITENOISE_USE_FINDERS = True
STATIC_ROOT.mkdir(parents=True, exist_ok=True)

REST_FRAMEWORK: dict[str, object] = {
    # drf-spectacular, plus the REST door's refusals on every operation (every status, its Error body).
    "DEFAULT_SCHEMA_CLASS": "core.schema.TenantAutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": [],
    "UNAUTHENTICATED_USER": None,
    # JSON only, with the size (TOOL_BODY_MAX_BYTES) and depth limits of every JSON route: 413 and 400
    # as {"error", "code"}, never a RecursionError.
    "DEFAULT_PARSER_CLASSES": ["accounts.api.v1.parsers.LimitedJSONParser"],
}
SPECTACULAR_SETTINGS: dict[str, object] = {
    "TITLE": "Mnemos API",
    "DESCRIPTION": "Enterprise memory for AI agents.",
    "VERSION": "1.0.0",
    # 3.1 speaks JSON Schema 2020-12, the dialect of the tools' pydantic schemas.
    "OAS_VERSION": "3.1.0",
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "SERVE_INCLUDE_SCHEMA": False,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "core.openapi.add_tool_paths",
    ],
}

# Celery: Redis (or any broker) when CELERY_BROKER_URL is set; otherwise kombu's
# filesystem transport under var/broker, so a real worker runs with no server.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "")
# Data lifecycle files (docs/lifecycle.md): exports to download, uploaded imports.
LIFECYCLE_DIR = Path(env_str("MNEMOS_LIFECYCLE_DIR", str(VAR_DIR / "lifecycle")))
EXPORT_LINK_SECONDS = env_int("MNEMOS_EXPORT_LINK_SECONDS", 24 * 3600, minimum=60)
# Lines an export job writes per step (one transaction): its progress a person watches, and what a killed
# worker redoes (docs/lifecycle.md, "Export").
EXPORT_CHUNK_LINES = env_int("MNEMOS_EXPORT_CHUNK_LINES", 2000, minimum=1)
# Items an import job handles in one transaction (memory/services/imports.py): its checkpoint step.
IMPORT_CHUNK = env_int("MNEMOS_IMPORT_CHUNK", 500, minimum=1)
BROKER_DIR = Path(env_str("MNEMOS_BROKER_DIR", str(VAR_DIR / "broker")))
# How long the embedded broker's worker sleeps when it may take nothing. kombu's default, 1 s, held it to
# a job a second (with acks_late and a prefetch of one it looks again only after the sleep); 0.02 runs
# archivist-sized jobs at 90% of Redis's pace for 1.6% of a core idle (bench/RESULTS.md, issue 18).
BROKER_POLL_SECONDS = env_float("MNEMOS_BROKER_POLL_SECONDS", 0.02, minimum=0.001)
CELERY_TASK_ALWAYS_EAGER = False
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_DEFAULT_QUEUE = env_str("MNEMOS_CELERY_QUEUE", "mnemos")
# One queue a kind of work (core/queues.py, docs/scaling.md): a worker fleet can give the archivist's
# embedding its own machines. Tasks not named here go to the default queue.
WORK_KINDS: dict[str, tuple[str, ...]] = {
    "archivist": ("memory.archivist_drain", "memory.archivist_process", "memory.embedding_reindex"),
    "guard": ("memory.guard_rescan",),
    "io": ("memory.import_step", "memory.export_step", "memory.retention_apply"),
    "webhooks": ("events.dispatch", "events.deliver"),
}
CELERY_TASK_ROUTES = task_routes(CELERY_TASK_DEFAULT_QUEUE, WORK_KINDS)
# The outbox (accounts.models.Job, docs/operations.md "Background jobs"): a pending job is sent again
# once it has waited JOBS_STALE_SECONDS since its last send (the wait doubles with every send, at most
# 10 minutes); the sweeper looks every JOBS_SWEEP_SECONDS (Celery beat; serve runs it in the worker),
# at most JOBS_SWEEP_BATCH jobs a sweep. A transient database error is retried JOBS_TRANSIENT_RETRIES
# times with back-off (1, 2, 4 ... 60 s) before the row is left to the sweeper.
JOBS_STALE_SECONDS = env_int("MNEMOS_JOBS_STALE_SECONDS", 30, minimum=1)
JOBS_SWEEP_SECONDS = env_int("MNEMOS_JOBS_SWEEP_SECONDS", 15, minimum=1)
JOBS_SWEEP_BATCH = env_int("MNEMOS_JOBS_SWEEP_BATCH", 500, minimum=1)
JOBS_TRANSIENT_RETRIES = env_int("MNEMOS_JOBS_TRANSIENT_RETRIES", 10, minimum=0)
# Webhooks (docs/events.md): a failed delivery is tried again after WEBHOOK_RETRY_BASE_SECONDS x 4^(n-1)
# (or the receiver's longer Retry-After), at most WEBHOOK_MAX_ATTEMPTS tries; an endpoint whose
# deliveries fail WEBHOOK_DISABLE_AFTER times in a row is disabled and its admins told. Receivers on
# loopback or private networks are refused unless MNEMOS_WEBHOOK_ALLOW_PRIVATE_NETWORKS (SSRF).
WEBHOOK_RETRY_BASE_SECONDS = env_float("MNEMOS_WEBHOOK_RETRY_BASE_SECONDS", 5.0, minimum=0.0)
WEBHOOK_MAX_ATTEMPTS = env_int("MNEMOS_WEBHOOK_MAX_ATTEMPTS", 6, minimum=1)
WEBHOOK_DISABLE_AFTER = env_int("MNEMOS_WEBHOOK_DISABLE_AFTER", 5, minimum=1)
WEBHOOK_TIMEOUT_SECONDS = env_float("MNEMOS_WEBHOOK_TIMEOUT_SECONDS", 10.0, minimum=0.1)
WEBHOOK_ALLOW_PRIVATE_NETWORKS = env_bool("MNEMOS_WEBHOOK_ALLOW_PRIVATE_NETWORKS", False)

# Mail (only notices to admins, such as a disabled webhook): sent over SMTP when MNEMOS_EMAIL_HOST is set,
# otherwise not sent at all (the console and the audit trail still show what it would have said).
EMAIL_HOST = env_str("MNEMOS_EMAIL_HOST", "")
EMAIL_BACKEND = (
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.dummy.EmailBackend"
)
EMAIL_PORT = env_int("MNEMOS_EMAIL_PORT", 587, minimum=1)
EMAIL_HOST_USER = env_str("MNEMOS_EMAIL_USER", "")
EMAIL_HOST_PASSWORD = env_str("MNEMOS_EMAIL_PASSWORD", "")
EMAIL_USE_TLS = env_bool("MNEMOS_EMAIL_TLS", True)
EMAIL_TIMEOUT = 10
DEFAULT_FROM_EMAIL = env_str("MNEMOS_EMAIL_FROM", "mnemos@localhost")
CELERY_BEAT_SCHEDULE = {
    "jobs-sweep": {
        "task": "accounts.jobs_sweep",
        "schedule": float(JOBS_SWEEP_SECONDS),
        # A sweep that waited past the next one is dropped: sweeps never pile up behind an outage.
        "options": {"expires": float(JOBS_SWEEP_SECONDS)},
    },
    # Retention (docs/lifecycle.md): every enterprise's enabled policies, applied in batches, audited.
    # Beat keeps its schedule in a file; a missed run is made up by the next (each run takes what is due).
    "retention-sweep": {
        "task": "memory.retention_sweep",
        "schedule": float(env_int("MNEMOS_RETENTION_SWEEP_SECONDS", 3600, minimum=1)),
        "options": {"expires": 600.0},
    },
}
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
# A send that cannot reach the broker gives up quickly: the job is in the outbox and the sweeper sends it.
CELERY_BROKER_CONNECTION_TIMEOUT = 2.0
# The worker (the archivist's embedder) runs at this niceness, so saves and searches come first and
# the archivist takes what CPU they leave (bench/RESULTS.md, write throughput). 0 keeps it level.
WORKER_NICE = env_int("MNEMOS_WORKER_NICE", 10)
# How long /healthz waits for workers' pings (core/health.py: the whole report comes within 1.5 s).
HEALTH_WORKER_TIMEOUT = float(env_int("MNEMOS_HEALTH_WORKER_TIMEOUT_MS", 1000, minimum=1)) / 1000.0

# One JSON object a line (core/logs.py, docs/operations.md "Metrics and logs"); the access lines (tool
# calls, HTTP requests, jobs) at INFO unless MNEMOS_ACCESS_LOG=false.
LOGGING: dict[str, object] = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"json": {"()": "core.logs.json_formatter"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "json"}},
    "root": {"handlers": ["console"], "level": env_str("MNEMOS_LOG_LEVEL", "WARNING")},
    "loggers": {"mnemos.access": {"level": "INFO" if env_bool("MNEMOS_ACCESS_LOG", True) else "WARNING"}},
}
# GET /metrics (core/metrics_http.py): the bearer token a scrape must carry; empty, loopback only.
METRICS_TOKEN = env_str("MNEMOS_METRICS_TOKEN", "")

# How long a switch_link from list_memory_projects stays valid.
SWITCH_LINK_MAX_AGE = env_int("MNEMOS_SWITCH_LINK_MAX_AGE_S", 24 * 3600)
# Largest JSON body a REST tool call may send.
TOOL_BODY_MAX_BYTES = env_int("MNEMOS_TOOL_BODY_MAX_BYTES", 2 * 1024 * 1024)

# Partner links (docs/partners.md): the platform's minimum contract version, and how remote
# partner deployments are reached (https only unless allowed for development; extra CA bundle).
PARTNER_MIN_CONTRACT_VERSION = env_int("MNEMOS_PARTNER_MIN_CONTRACT_VERSION", 1, minimum=1)
PARTNER_ALLOW_HTTP = env_bool("MNEMOS_PARTNER_ALLOW_HTTP", False)
PARTNER_CA_BUNDLE = env_str("MNEMOS_PARTNER_CA_BUNDLE", "")
