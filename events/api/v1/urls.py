from __future__ import annotations

from django.urls import path

from events.api.v1 import views

urlpatterns = [
    path("events", views.EventsView.as_view(), name="events"),
    path("webhooks", views.WebhooksView.as_view(), name="webhooks"),
    path("webhooks/<uuid:webhook_id>", views.WebhookView.as_view(), name="webhook"),
    path("webhooks/<uuid:webhook_id>/deliveries", views.DeliveriesView.as_view(), name="webhook-deliveries"),
    path("webhooks/deliveries/<uuid:delivery_id>/replay", views.ReplayView.as_view(), name="webhook-replay"),
]
