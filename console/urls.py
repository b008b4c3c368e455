from __future__ import annotations

from django.urls import path

from console.views import home, jobs, keys, memories, oversight, partners, projects, switch

urlpatterns = [
    path("", home.home, name="home"),
    path("login/", home.SignInView.as_view(), name="login"),
    path("logout/", home.SignOutView.as_view(), name="logout"),
    path("enterprises/", home.enterprises, name="enterprises"),
    path("main/", home.main_pause, name="main"),
    path("projects/", projects.projects, name="projects"),
    path("projects/<str:project_id>/", projects.project, name="project"),
    path("keys/", keys.keys, name="keys"),
    path("keys/<str:key_id>/revoke/", keys.key_revoke, name="key_revoke"),
    path("memories/", memories.memories, name="memories"),
    path("memories/<str:memory_id>/", memories.memory, name="memory"),
    path("memories/<str:memory_id>/correct/", memories.memory_correct, name="memory_correct"),
    path("memories/<str:memory_id>/forget/", memories.memory_forget_view, name="memory_forget"),
    path("partners/", partners.partners, name="partners"),
    path("partners/<str:link_id>/", partners.partner, name="partner"),
    path("guard/", oversight.guard, name="guard"),
    path("guard/progress/", oversight.guard_progress, name="guard_progress"),
    path("guard/rescan/", oversight.guard_rescan, name="guard_rescan"),
    path("guard/threshold/", oversight.guard_threshold, name="guard_threshold"),
    path("guard/events/<str:event_id>/report/", oversight.guard_false_positive, name="guard_false_positive"),
    path("guard/reports/", oversight.guard_reports, name="guard_reports"),
    path("audit/", oversight.audit, name="audit"),
    path("audit.csv", oversight.audit_csv, name="audit_csv"),
    path("usage/", oversight.usage, name="usage"),
    path("jobs/", jobs.jobs, name="jobs"),
    path("jobs/<str:job_id>/rerun/", jobs.job_rerun_view, name="job_rerun"),
    path("switch/<str:token>", switch.switch, name="switch"),
    path("tools/", switch.tools, name="tools"),
]
