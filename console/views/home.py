"""Sign-in, the enterprise picker and the home page (with Main on or paused)."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from accounts import access
from accounts.selectors.console import enterprise_choices
from accounts.services.targets import member_main_pause
from console.decorators import SESSION_ENTERPRISE, console_view
from console.types import ConsoleRequest


class SignInView(auth_views.LoginView):
    template_name = "console/login.html"
    redirect_authenticated_user = True

    def get_success_url(self) -> str:
        # A user of several enterprises picks one first (unless a link named where to go).
        url = super().get_success_url()
        if url == "/console/" and len(enterprise_choices(user_id=int(self.request.user.pk or 0))) > 1:
            return "/console/enterprises/"
        return url


class SignOutView(auth_views.LogoutView):
    pass


@console_view
def home(request: ConsoleRequest) -> HttpResponse:
    member = request.member
    return render(
        request, "console/home.html", {"member": member, "may_write": access.member_may_write(member)}
    )


def _posted_enterprise(request: HttpRequest) -> str | None:
    return request.POST.get("enterprise") if request.method == "POST" else None


@require_http_methods(["GET", "POST"])
@console_view(enterprise_from=_posted_enterprise, auditor_may_post=True)
def enterprises(request: ConsoleRequest) -> HttpResponse:
    """The enterprises this user belongs to; choosing one changes which the console shows."""
    if request.method == "POST":
        request.session[SESSION_ENTERPRISE] = str(request.member.enterprise_id)
        return redirect("console:home")
    choices = enterprise_choices(user_id=int(request.user.pk or 0))
    return render(request, "console/enterprises.html", {"choices": choices})


@require_POST
@console_view
def main_pause(request: ConsoleRequest) -> HttpResponse:
    """Main on or paused: while paused, connections not bound to a folder save to their own project."""
    member = request.member
    member_main_pause(member=member, paused=request.POST.get("paused") == "1")
    if request.htmx:
        return render(
            request,
            "console/home.html#main",
            {"member": member, "may_write": access.member_may_write(member)},
        )
    return redirect("console:home")
