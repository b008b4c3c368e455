"""The REST door: every API view derives from ``TenantAPIView``.

It authenticates the bearer access key, checks the view's scope, and runs the
handler inside the key's tenant context (one transaction). Errors leave as
``{"error", "code"}`` JSON with a fitting status, never as a traceback.
"""

from __future__ import annotations

import sys
import uuid
from typing import Any, ClassVar

from django.core.exceptions import RequestDataTooBig
from django.db import transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.response import HttpResponseBase
from django.views import defaults
from rest_framework.exceptions import APIException
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import access
from accounts.models import AccessKey
from accounts.selectors.keys import access_key_door
from accounts.tasks import access_key_touch_soon
from core.errors import Forbidden, MnemosError, PayloadTooLarge, failure_error, unavailable_error
from core.http import bearer_secret, failure_response, request_id_from
from core.inputs import BODY_TOO_LARGE, arguments_check
from core.tenancy import current_tenant_or_none


# What the audit's request_id column holds (64 characters); anything else is not used (a fresh id is).
def query_check(request: HttpRequest) -> None:
    """The query string's names and values, refused (422) as the tool door refuses arguments."""
    for name, values in request.GET.lists():
        for value in values:
            arguments_check({name: value})


def scope_missing_message(scope: str) -> str:
    return f"this access key lacks the '{scope}' scope"


def check_scope(key: AccessKey, scope: str | None) -> None:
    if scope and scope not in key.scopes and "admin" not in key.scopes:
        raise Forbidden(scope_missing_message(scope), code="missing_scope", scope=scope)


class TenantAPIView(APIView):
    """Base of every REST view. Subclasses set ``required_scope`` and write ``handle_*``."""

    tenant_door: ClassVar[bool] = True
    required_scope: ClassVar[str | None] = None
    authentication_classes = []
    permission_classes = []

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        # DRF's own dispatch runs inside the tenant context, so parsing, the handler
        # and rendering all see one transaction.
        self.args, self.kwargs = args, kwargs
        drf_request = self.initialize_request(request, *args, **kwargs)
        self.request = drf_request
        self.headers = self.default_response_headers
        try:
            with access_key_door(
                secret=bearer_secret(request.headers.get("Authorization")),
                request_id=request_id_from(request.headers.get("X-Request-Id")),
                door="rest",
            ) as (_, key):
                access.key_member_active_check(key)
                check_scope(key, self.scope_for(drf_request))
                query_check(request)
                access_key_touch_soon(key)
                self.access_key = key
                response = super().dispatch(request, *args, **kwargs)
                if hasattr(response, "render") and not getattr(response, "is_rendered", True):
                    response.render()
                return response
        except Exception as exc:  # noqa: BLE001 - a refusal, or an outage or crash failure_error logs
            # The door's own statements and the commit run here, outside DRF's handle_exception.
            request_id = request_id_from(request.headers.get("X-Request-Id")) or uuid.uuid4().hex
            error = failure_error(exc, request_id=request_id, where=type(self).__name__)
            return self.finalize_response(drf_request, error_body(error))

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        # Authentication happened in dispatch; keep DRF's content negotiation and throttles.
        self.format_kwarg = self.get_format_suffix(**kwargs)
        neg = self.perform_content_negotiation(request)
        request.accepted_renderer, request.accepted_media_type = neg
        self.check_throttles(request)

    def scope_for(self, request: Request) -> str | None:
        return self.required_scope

    def handle_exception(self, exc: Exception) -> Response:
        # Nothing is half-written: any error rolls the request's transaction back.
        transaction.set_rollback(True)
        if isinstance(exc, RequestDataTooBig):  # Django's DATA_UPLOAD_MAX_MEMORY_SIZE, read by request.data
            exc = PayloadTooLarge(BODY_TOO_LARGE, code="payload_too_large")
        if isinstance(exc, MnemosError):
            return error_body(exc)
        if isinstance(exc, APIException):
            detail = exc.detail if isinstance(exc.detail, (dict, list)) else str(exc.detail)
            body: dict[str, Any] = {
                "error": str(detail),
                "code": exc.get_codes() if isinstance(exc.get_codes(), str) else "invalid_input",
            }
            if isinstance(detail, (dict, list)):
                body["detail"] = detail
            return Response(body, status=exc.status_code)
        context = current_tenant_or_none()
        request_id = context.request_id if context is not None else uuid.uuid4().hex
        return error_body(failure_error(exc, request_id=request_id, where=type(self).__name__))


def _api_path(request: HttpRequest) -> bool:
    return request.path_info.startswith("/v1/")


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """``handler404``: under /v1/ (a path no route matches, a malformed id) the API's JSON 404."""
    if _api_path(request):
        return JsonResponse({"error": "not found", "code": "not_found"}, status=404)
    return defaults.page_not_found(request, exception)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """``handler400`` (a suspicious request Django refused before any view): JSON under /v1/."""
    if _api_path(request):
        return JsonResponse({"error": "bad request", "code": "bad_request"}, status=400)
    return defaults.bad_request(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    """``handler500``, the last resort (an exception no door caught: a middleware's, another view's), never
    a traceback: JSON under /v1/ (503 for an outage, else 500 with the request id); elsewhere (the console,
    the admin) a plain 503 page for an outage, else Django's 500 page. Django has logged the traceback."""
    exc = sys.exc_info()[1] or RuntimeError("handler500 without an exception")
    if _api_path(request):
        return failure_response(request, exc, traceback=False)
    outage = unavailable_error(exc)
    if outage is not None:
        return HttpResponse(
            UNAVAILABLE_PAGE,
            status=outage.http_status,
            headers=outage.http_headers(),
            content_type="text/html",
        )
    return defaults.server_error(request)


UNAVAILABLE_PAGE = (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Mnemos is unavailable</title></head>'
    "<body><h1>Mnemos is unavailable for a moment</h1><p>A service it needs is down: try again in a few "
    "seconds.</p></body></html>"
)


def error_body(error: MnemosError) -> Response:
    """The REST door's error answer: ``{"error", "code", ...}`` with its status and headers."""
    return Response(error.as_dict(), status=error.http_status, headers=error.http_headers())
