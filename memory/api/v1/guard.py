"""Memory Guard over REST (scope admin): ``POST /v1/guard/check`` (what the guard would do to a text, storing
nothing), ``GET/PUT /v1/guard/settings`` (the learned detector's threshold), ``POST /v1/guard/reports``
(a false positive or a miss, kept for the next tuning round)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.api.v1.base import TenantAPIView
from core.errors import InvalidInput
from core.schema import extra_error
from memory.guard import guard_check
from memory.models import GuardReport, GuardReportKind
from memory.selectors.guard import GuardDetectorSettings, guard_detector_settings, guard_model_threshold
from memory.services.guard_settings import REPORT_NOTE_MAX, REPORT_TEXT_MAX, guard_report, guard_threshold_set


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
    decided_by = serializers.ChoiceField(
        choices=["rule", "model"], allow_null=True, help_text="What rejected it (null when accepted)."
    )
    score = serializers.FloatField(
        allow_null=True, help_text="The learned detector's score, accepted or not (null without a model)."
    )


def _parsed(incoming: serializers.Serializer[Any], refusal: str) -> dict[str, Any]:
    """The body as the serializer reads it, or the view's one refusal text (400)."""
    if not incoming.is_valid():
        raise InvalidInput(refusal, code="invalid_input")
    return dict(incoming.validated_data)


class GuardCheckView(TenantAPIView):
    required_scope = "admin"

    @extend_schema(
        request=GuardCheckIn,
        responses=GuardCheckOut,
        summary="Try Memory Guard on a text (nothing is stored)",
    )
    def post(self, request: Request) -> Response:
        text = _parsed(GuardCheckIn(data=request.data), 'send {"text": "..."} (at most 100,000 characters)')[
            "text"
        ]
        # At the enterprise's own threshold, as a save would be (the door loaded the enterprise).
        result = guard_check(text, model_threshold=guard_model_threshold())
        return Response(
            {
                "verdict": result.verdict,
                "reason": result.reason,
                "redactions": [{"rule": r.rule, "start": r.start, "end": r.end} for r in result.redactions],
                "text": result.text,
                "decided_by": result.decided_by,
                "score": result.score,
            }
        )


class GuardSettingsOut(serializers.Serializer[Any]):
    installed = serializers.BooleanField(
        help_text="Whether a learned detector is shipped (else the rules decide)."
    )
    threshold = serializers.FloatField(allow_null=True, help_text="The threshold in force.")
    chosen = serializers.FloatField(
        allow_null=True, help_text="The enterprise's own threshold; null: the model's default."
    )
    default = serializers.FloatField(allow_null=True)
    lowest = serializers.FloatField(allow_null=True)
    highest = serializers.FloatField(allow_null=True)
    set_by = serializers.CharField(allow_null=True, help_text="Who set it last (from the audit trail).")
    set_at = serializers.DateTimeField(allow_null=True)
    short = serializers.FloatField(
        allow_null=True,
        help_text="The model's own bar for a text of fewer than five words, whatever the threshold.",
    )
    short_in_force = serializers.FloatField(
        allow_null=True,
        help_text="What a text of fewer than five words must score: the short bar, or the threshold where higher.",
    )


class GuardSettingsIn(serializers.Serializer[Any]):
    threshold = serializers.FloatField(
        allow_null=True,
        help_text="Reject at this score or above, within the bounds; null: the model's default.",
    )


def _settings(detector: GuardDetectorSettings) -> dict[str, Any]:
    return {
        "installed": detector.installed,
        "threshold": detector.in_force,
        "chosen": detector.chosen,
        "default": detector.default,
        "lowest": detector.lowest,
        "highest": detector.highest,
        "set_by": detector.set_by,
        "set_at": detector.set_at,
        "short": detector.short,
        "short_in_force": detector.short_in_force,
    }


class GuardSettingsView(TenantAPIView):
    required_scope = "admin"

    @extend_schema(responses=GuardSettingsOut, summary="The learned detector's threshold and its bounds")
    def get(self, request: Request) -> Response:
        return Response(GuardSettingsOut(_settings(guard_detector_settings())).data)

    @extend_schema(
        request=GuardSettingsIn,
        responses=GuardSettingsOut,
        summary="Set the learned detector's threshold (owners and admins; audited)",
    )
    def put(self, request: Request) -> Response:
        refusal = 'send {"threshold": a number, or null for the model\'s default}'
        guard_threshold_set(value=_parsed(GuardSettingsIn(data=request.data), refusal)["threshold"])
        return Response(GuardSettingsOut(_settings(guard_detector_settings())).data)


class GuardReportIn(serializers.Serializer[Any]):
    kind = serializers.ChoiceField(choices=GuardReportKind.values)
    text = serializers.CharField(
        required=False,
        default="",
        allow_blank=True,
        trim_whitespace=False,
        help_text=f"The text (a miss needs it), at most {REPORT_TEXT_MAX:,} characters; secrets are redacted.",
    )
    note = serializers.CharField(
        required=False, default="", allow_blank=True, help_text=f"At most {REPORT_NOTE_MAX:,} characters."
    )
    guard_event_id = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=1,
        max_value=2**63 - 1,
        help_text="The rejection a false positive is about.",
    )


class GuardReportOut(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=GuardReportKind.values)
    text = serializers.CharField(help_text="As kept: secrets redacted.")
    note = serializers.CharField()
    guard_event_id = serializers.IntegerField(allow_null=True)
    created_at = serializers.DateTimeField()


class GuardReportsView(TenantAPIView):
    required_scope = "admin"

    @extend_schema(
        request=GuardReportIn,
        responses={
            201: GuardReportOut,
            404: extra_error("The rejection named is not one of this enterprise's guard events."),
            409: extra_error("The rejection is already reported as a false positive."),
        },
        summary="Report a false positive or a miss (owners and admins; kept for the next tuning round)",
    )
    def post(self, request: Request) -> Response:
        refusal = (
            'send {"kind": "false_positive" or "miss", "text": "...", "note": "...", "guard_event_id": <id>}'
        )
        report: GuardReport = guard_report(**_parsed(GuardReportIn(data=request.data), refusal))
        return Response(GuardReportOut(report).data, status=201)
