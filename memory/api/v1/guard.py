"""POST /v1/guard/check: what Memory Guard would do to a text, storing nothing (scope admin)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.api.v1.base import TenantAPIView
from core.errors import InvalidInput
from memory.guard import guard_check


class GuardCheckIn(serializers.Serializer[Any]):
    text = serializers.CharField(allow_blank=True, trim_whitespace=False, max_length=100_000)


class RedactionOut(serializers.Serializer[Any]):
    rule = serializers.CharField()
    start = serializers.IntegerField()
    end = serializers.IntegerField()


class GuardCheckOut(serializers.Serializer[Any]):
    verdict = serializers.ChoiceField(choices=["accept", "reject"])
    reason = serializers.CharField(allow_null=True)
    redactions = RedactionOut(many=True)
    text = serializers.CharField()


class GuardCheckView(TenantAPIView):
    required_scope = "admin"

    @extend_schema(
        request=GuardCheckIn,
        responses=GuardCheckOut,
        summary="Try Memory Guard on a text (nothing is stored)",
    )
    def post(self, request: Request) -> Response:
        incoming = GuardCheckIn(data=request.data)
        if not incoming.is_valid():
            raise InvalidInput('send {"text": "..."} (at most 100,000 characters)', code="invalid_input")
        result = guard_check(incoming.validated_data["text"])
        return Response(
            {
                "verdict": result.verdict,
                "reason": result.reason,
                "redactions": [{"rule": r.rule, "start": r.start, "end": r.end} for r in result.redactions],
                "text": result.text,
            }
        )
