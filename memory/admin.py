"""Memory Guard and the data lifecycle in the auditors' admin: read-only, each enterprise sees its own rows."""

from __future__ import annotations

from accounts.admin import ReadOnlyAdmin, site
from memory.models import (
    DataExport,
    DataImport,
    Erasure,
    GuardEvent,
    GuardReport,
    LegalHold,
    RetentionPolicy,
)


class GuardEventAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "action", "decided_by", "score", "rules", "tool", "access_key", "memory"]
    list_filter = ["action", "decided_by"]


class GuardReportAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "kind", "reported_by", "guard_event"]
    list_filter = ["kind"]


site.register(GuardEvent, GuardEventAdmin)
site.register(GuardReport, GuardReportAdmin)


# The data lifecycle (docs/lifecycle.md): auditors see every hold (active and released), every policy,
# every erasure's tombstone, and what was exported and imported.


class LegalHoldAdmin(ReadOnlyAdmin):
    list_display = ["name", "target", "project", "entity", "tag", "created_by", "created_at", "released_at"]
    list_filter = ["target"]
    search_fields = ["name"]


class RetentionPolicyAdmin(ReadOnlyAdmin):
    list_display = ["name", "project", "layer", "kind", "max_age_days", "action", "enabled", "last_run_at"]
    list_filter = ["action", "enabled"]


class ErasureAdmin(ReadOnlyAdmin):
    list_display = [
        "created_at",
        "subject",
        "state",
        "requested_by",
        "confirmed_by",
        "done_at",
        "content_hash",
    ]
    list_filter = ["subject", "state"]


class DataExportAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "scope", "project", "member", "state", "done", "total", "expires_at"]
    list_filter = ["scope", "state"]


class DataImportAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "format", "project", "state", "position", "total", "created", "rejected"]
    list_filter = ["format", "state"]


site.register(LegalHold, LegalHoldAdmin)
site.register(RetentionPolicy, RetentionPolicyAdmin)
site.register(Erasure, ErasureAdmin)
site.register(DataExport, DataExportAdmin)
site.register(DataImport, DataImportAdmin)
