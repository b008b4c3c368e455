from __future__ import annotations

from django.urls import path

from accounts.api.v1 import people, views

urlpatterns = [
    path("whoami", views.WhoAmIView.as_view(), name="whoami"),
    path("audit-events", views.AuditEventListView.as_view(), name="audit-events"),
    path("audit-events/<int:event_id>", views.AuditEventDetailView.as_view(), name="audit-event"),
    path("members", people.MembersView.as_view(), name="members"),
    path("members/<int:member_id>", people.MemberView.as_view(), name="member"),
    path("teams", people.TeamsView.as_view(), name="teams"),
    path("teams/<int:team_id>", people.TeamView.as_view(), name="team"),
    path("projects/<uuid:project_id>/grants", people.ProjectGrantsView.as_view(), name="project-grants"),
]
