"""The provider deployment's end of a remote link: ``POST /v1/partners/serve``.

A door of its own (``tenant_door``): the per-link credential identifies exactly one provider row
(its digest, through ``identity_lookup``), and the read runs under that provider's tenant context
in ``partners.provider.provider_serve``, the same function a local link uses.
"""

from __future__ import annotations

import logging
from typing import Any

from django.http import HttpRequest, JsonResponse
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.csrf import csrf_exempt

from core.errors import MnemosError, NotAuthenticated, NotFound
from core.http import bearer_secret, error_response, json_arguments, request_id_from
from core.inputs import arguments_check
from core.tenancy import tenant_context
from partners.crypto import credential_digest
from partners.provider import provider_serve
from partners.selectors.links import provider_link_for_credential

logger = logging.getLogger(__name__)
INVALID_CREDENTIAL = "invalid partner credential"


@method_decorator(csrf_exempt, name="dispatch")
class PartnerServeView(View):
    tenant_door = True
    http_method_names = ["post"]

    def post(self, request: HttpRequest) -> JsonResponse:
        try:
            return JsonResponse(self._serve(request))
        except MnemosError as exc:
            return error_response(exc)

    def _serve(self, request: HttpRequest) -> dict[str, Any]:
        credential = bearer_secret(request.headers.get("Authorization"))
        if not credential:
            raise NotAuthenticated(INVALID_CREDENTIAL, code="invalid_credential")
        digest = credential_digest(credential)
        found = provider_link_for_credential(digest=digest)
        if found is None:
            raise NotAuthenticated(INVALID_CREDENTIAL, code="invalid_credential")
        enterprise_id, link_id = found
        body = json_arguments(request)
        arguments_check(body)  # the reads below pass the args to SQL: no NUL, no lone surrogate
        if str(body.get("link_id")) != str(link_id):
            raise NotFound("partner link not found", code="link_not_found")
        args = body.get("args") or {}
        if not isinstance(args, dict):
            args = {}
        with tenant_context(
            enterprise_id=enterprise_id,
            request_id=request_id_from(request.headers.get("X-Request-Id")),
            door="partners",
        ):
            return provider_serve(
                link_id=link_id,
                consumer_org_id=str(body.get("consumer_org_id") or ""),
                op=str(body.get("op") or ""),
                args=args,
            )
