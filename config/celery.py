"""The Celery application. Tasks live in each app's ``tasks.py``."""

from __future__ import annotations

import os
from typing import Any

from celery import Celery
from celery.signals import setup_logging, worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("mnemos")
app.config_from_object("django.conf:settings", namespace="CELERY")


def _broker_options() -> dict[str, Any]:
    from django.conf import settings

    if settings.CELERY_BROKER_URL:
        return {"broker_url": settings.CELERY_BROKER_URL}
    from core import broker

    base = settings.BROKER_DIR
    folders = {name: base / name for name in ("queue", "processed", "control")}
    for folder in folders.values():
        folder.mkdir(parents=True, exist_ok=True)
    return {
        # kombu's filesystem transport, writing each message whole before it appears (core/broker.py).
        "broker_url": f"{broker.SCHEME}://localhost//",
        "broker_transport_options": {
            "data_folder_in": str(folders["queue"]),
            "data_folder_out": str(folders["queue"]),
            "processed_folder": str(folders["processed"]),
            "store_processed": False,
            "control_folder": str(folders["control"]),
            "polling_interval": settings.BROKER_POLL_SECONDS,
        },
    }


@app.on_after_configure.connect
def _configure_broker(sender: Celery, **_: Any) -> None:
    sender.conf.update(_broker_options())


@setup_logging.connect
def _django_logging(**_: Any) -> None:
    """The worker logs as every process does (settings.LOGGING: JSON lines, core/logs.py), which Django
    applied at setup: Celery's own handlers and format stay out."""


@worker_process_init.connect
def _lower_priority(**_: Any) -> None:
    """The worker's pool processes (the jobs, the archivist's embedder) yield the CPU to the web server.
    Its main process stays level: it answers /healthz's ping, and at niceness 10 under a full load it
    missed the ping's deadline and a healthy instance read red (bench/chaos, mixed_load)."""
    from django.conf import settings

    if settings.WORKER_NICE > 0 and hasattr(os, "nice"):
        os.nice(settings.WORKER_NICE)


app.autodiscover_tasks()
