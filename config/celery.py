"""The Celery application. Tasks live in each app's ``tasks.py``."""

from __future__ import annotations

import os
from typing import Any

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("mnemos")
app.config_from_object("django.conf:settings", namespace="CELERY")


def _broker_options() -> dict[str, Any]:
    from django.conf import settings

    if settings.CELERY_BROKER_URL:
        return {"broker_url": settings.CELERY_BROKER_URL}
    base = settings.BROKER_DIR
    folders = {name: base / name for name in ("queue", "processed", "control")}
    for folder in folders.values():
        folder.mkdir(parents=True, exist_ok=True)
    return {
        "broker_url": "filesystem://localhost//",
        "broker_transport_options": {
            "data_folder_in": str(folders["queue"]),
            "data_folder_out": str(folders["queue"]),
            "processed_folder": str(folders["processed"]),
            "store_processed": False,
            "control_folder": str(folders["control"]),
        },
    }


@app.on_after_configure.connect
def _configure_broker(sender: Celery, **_: Any) -> None:
    sender.conf.update(_broker_options())


app.autodiscover_tasks()
