"""Settings for type checking (``[tool.django-stubs]`` in pyproject.toml): mypy's Django plugin imports
the settings to read the apps and models, and must not start a database for it.

mypy ends with ``os._exit`` (no ``atexit``), so the throwaway embedded server the test settings start
was never stopped: one PostgreSQL left running per ``make lint``. A ``DATABASE_URL`` that names a server
nobody connects to keeps the embedded one from starting (the base settings, not the test ones, which make temporary folders); the plugin opens no connection.
"""

from __future__ import annotations

import os

os.environ["DATABASE_URL"] = "postgresql://mnemos_owner@127.0.0.1:1/mnemos"

from config.settings import *  # noqa: F403
