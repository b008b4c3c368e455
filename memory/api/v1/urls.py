from __future__ import annotations

from django.urls import path

from memory.api.v1 import views

urlpatterns = [
    path("tools/<str:name>", views.ToolCallView.as_view(), name="tool-call"),
]
