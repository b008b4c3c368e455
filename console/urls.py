from __future__ import annotations

from django.urls import path

from console import views

urlpatterns = [
    path("", views.home, name="home"),
    path("login/", views.SignInView.as_view(), name="login"),
    path("logout/", views.SignOutView.as_view(), name="logout"),
    path("switch/<str:token>", views.switch, name="switch"),
    path("tools/", views.tools, name="tools"),
]
