"""Memory Guard in the auditors' admin: read-only, each enterprise sees its own rows."""

from __future__ import annotations

from accounts.admin import ReadOnlyAdmin, site
from memory.models import GuardEvent, GuardReport


class GuardEventAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "action", "decided_by", "score", "rules", "tool", "access_key", "memory"]
    list_filter = ["action", "decided_by"]


class GuardReportAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "kind", "reported_by", "guard_event"]
    list_filter = ["kind"]


site.register(GuardEvent, GuardEventAdmin)
site.register(GuardReport, GuardReportAdmin)
