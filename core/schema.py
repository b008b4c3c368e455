"""The OpenAPI document says every status a route can answer, each with the one ``Error`` body.

drf-spectacular documents a view's success only. ``TenantAutoSchema`` (REST_FRAMEWORK's
DEFAULT_SCHEMA_CLASS) adds to every operation of a ``TenantAPIView`` the refusals its door and DRF
can give, so a new view is documented by default; a view that can refuse in more ways says so in
``extend_schema(responses={409: error_response("...")})``. The tool routes (``core.openapi``) use
the same body and helpers.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import ComponentRegistry, ResolvedComponent
from drf_spectacular.utils import OpenApiResponse

ERROR_COMPONENT = "Error"
# core.errors.MnemosError.as_dict, and TenantAPIView.handle_exception for DRF's own refusals.
ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "Every refusal's body: the text, a stable code, and the error's own details "
    "(a missing scope names it in `scope`; an invalid request body lists the fields in `detail`).",
    "required": ["error", "code"],
    "properties": {
        "error": {
            "type": "string",
            "description": "What went wrong, in the seed contracts' exact words where they give them.",
        },
        "code": {"type": "string", "description": "A stable machine-readable code."},
    },
    "additionalProperties": True,
}
ERROR_REF = {"$ref": f"#/components/schemas/{ERROR_COMPONENT}"}

ACCESS_KEY_SCHEME = "accessKey"
ACCESS_KEY_SCHEMA: dict[str, Any] = {
    "type": "http",
    "scheme": "bearer",
    "description": "A Mnemos access key: 'Authorization: Bearer <key>'.",
}
ACCESS_KEY_SECURITY: list[dict[str, list[str]]] = [{ACCESS_KEY_SCHEME: []}]
# Every door reads it (core.http.request_id_from): the audit's request id.
REQUEST_ID_PARAMETER: dict[str, Any] = {
    "name": "X-Request-Id",
    "in": "header",
    "required": False,
    "description": "Your id for this request, recorded in the audit when it is 1-64 printable ASCII "
    "characters (any other value is ignored, and a fresh id is recorded).",
    "schema": {"type": "string"},
}

UNAUTHENTICATED = "Missing, unknown, revoked or expired access key."
WWW_AUTHENTICATE = {
    "WWW-Authenticate": {
        "description": 'The scheme to authenticate with: `Bearer realm="mnemos"`.',
        "required": True,
        "schema": {"type": "string"},
    }
}

# core.errors.ServiceUnavailable: the database or the broker is down (docs/operations.md, "During an outage").
UNAVAILABLE = (
    "The database (`database_unavailable`) or the job broker (`broker_unavailable`) is unavailable for now: "
    "retry after `Retry-After` seconds."
)
RETRY_AFTER = {
    "Retry-After": {
        "description": "Seconds to wait before retrying.",
        "required": True,
        "schema": {"type": "integer"},
    }
}


def error_response(description: str, *, headers: dict[str, Any] | None = None) -> dict[str, Any]:
    """An OpenAPI response object whose body is the ``Error`` component."""
    response: dict[str, Any] = {
        "description": description,
        "content": {"application/json": {"schema": ERROR_REF}},
    }
    if headers:
        response["headers"] = headers
    return response


def extra_error(description: str) -> OpenApiResponse:
    """For ``extend_schema(responses={status: extra_error("...")})``: a refusal only this view gives."""
    return OpenApiResponse(response=ERROR_REF, description=description)


def register_components(components: dict[str, Any]) -> None:
    """The shared error body and the bearer scheme, for a postprocessing hook's ``components``."""
    components.setdefault("schemas", {}).setdefault(ERROR_COMPONENT, ERROR_SCHEMA)
    components.setdefault("securitySchemes", {}).setdefault(ACCESS_KEY_SCHEME, ACCESS_KEY_SCHEMA)


class TenantAutoSchema(AutoSchema):
    """AutoSchema that also documents the REST door's refusals (``accounts.api.v1.base``)."""

    def get_auth(self) -> list[dict[str, Any]]:
        if self._is_tenant_view():
            return ACCESS_KEY_SECURITY
        return list(super().get_auth())

    def get_operation(
        self, path: str, path_regex: str, path_prefix: str, method: str, registry: ComponentRegistry
    ) -> dict[str, Any] | None:
        operation = super().get_operation(path, path_regex, path_prefix, method, registry)
        if operation is None or not self._is_tenant_view():
            return operation
        registry.register_on_missing(
            ResolvedComponent(
                name=ERROR_COMPONENT,
                type=ResolvedComponent.SCHEMA,
                schema=ERROR_SCHEMA,
                object=ERROR_COMPONENT,
            )
        )
        registry.register_on_missing(
            ResolvedComponent(
                name=ACCESS_KEY_SCHEME,
                type=ResolvedComponent.SECURITY_SCHEMA,
                schema=ACCESS_KEY_SCHEMA,
                object=ACCESS_KEY_SCHEME,
            )
        )
        operation["parameters"] = [*operation.get("parameters", []), REQUEST_ID_PARAMETER]
        responses = operation["responses"]
        for status, response in self._door_refusals(operation).items():
            responses.setdefault(status, response)
        operation["responses"] = dict(sorted(responses.items()))
        return operation

    def _is_tenant_view(self) -> bool:
        """A view behind a tenant door (accounts.api.v1.base.TenantAPIView marks itself so): core names no app."""
        return bool(getattr(self.view, "tenant_door", False))

    def _door_refusals(self, operation: dict[str, Any]) -> dict[str, dict[str, Any]]:
        """What TenantAPIView, its parser and DRF answer before (or around) the view's own code."""
        refusals = {
            "400": error_response(
                "Malformed request: the body is not JSON (or nests too deep), or a parameter is invalid."
            ),
            # TenantAPIView renders the door's NotAuthenticated without DRF's WWW-Authenticate.
            "401": error_response(UNAUTHENTICATED),
            "406": error_response("The Accept header names no media type this API renders (JSON)."),
            "503": error_response(UNAVAILABLE, headers=RETRY_AFTER),
            # The door checks every query string, the parser every body (core.inputs.arguments_check).
            "422": error_response(
                "A parameter or the body carries NUL characters, unpaired surrogates or non-finite numbers, "
                "or the view's own rules refuse it."
            ),
        }
        if "requestBody" in operation:
            refusals["413"] = error_response("The request body is too large.")
            refusals["415"] = error_response("The body's Content-Type is not application/json.")
        if getattr(self.view, "required_scope", None):
            refusals["403"] = error_response(
                f"The access key lacks the '{self.view.required_scope}' scope, "  # type: ignore[attr-defined]
                "or the membership may not do this."
            )
        if any(p["in"] == "path" for p in operation["parameters"]):
            refusals["404"] = error_response(
                "No such object in this enterprise (another's is not found too)."
            )
        return refusals
