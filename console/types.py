"""The request a console view receives, as the type checker should see it."""

from __future__ import annotations

from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails

from accounts.models import Member


class ConsoleRequest(HttpRequest):
    """A request inside ``console_view``: the door has set ``member`` (the signed-in user's
    membership in the chosen enterprise) and django-htmx's middleware ``htmx`` (django-htmx's own
    pattern for typing it). Only an annotation: Django builds a plain ``HttpRequest``."""

    member: Member
    htmx: HtmxDetails
