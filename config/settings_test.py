"""Test settings: a throwaway embedded cluster per test session (unless DATABASE_URL)."""

from __future__ import annotations

import os
import tempfile

os.environ.setdefault("MNEMOS_THROWAWAY_DB", "1")
# Without a broker URL the worker tests use a private filesystem broker.
os.environ.setdefault("MNEMOS_BROKER_DIR", tempfile.mkdtemp(prefix="mnemos-broker-"))
# Children of the test process (worker, web server) read the same settings.
os.environ.setdefault("MNEMOS_CELERY_QUEUE", "mnemos-test")
# Exports and imports (docs/lifecycle.md) write their files in a throwaway folder, shared with the children.
os.environ.setdefault("MNEMOS_LIFECYCLE_DIR", tempfile.mkdtemp(prefix="mnemos-lifecycle-"))

from config.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
