from __future__ import annotations

from django.urls import path

from accounts.api.v1 import views

urlpatterns = [
    path("whoami", views.WhoAmIView.as_view(), name="whoami"),
    path("audit-events", views.AuditEventListView.as_view(), name="audit-events"),
    path("audit-events/<int:event_id>", views.AuditEventDetailView.as_view(), name="audit-event"),
]
