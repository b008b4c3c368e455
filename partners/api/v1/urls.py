from __future__ import annotations

from django.urls import path

from partners.api.v1 import views

urlpatterns = [
    path("partners/serve", views.PartnerServeView.as_view(), name="partner-serve"),
]
