from __future__ import annotations

from django.apps import AppConfig


class PartnersConfig(AppConfig):
    name = "partners"
    default_auto_field = "django.db.models.BigAutoField"
