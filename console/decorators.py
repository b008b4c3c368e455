"""The console door: every console view is wrapped by ``console_view``."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse

from accounts.models import Member
from accounts.selectors.members import member_enterprises
from accounts.tenancy import tenant_context

SESSION_ENTERPRISE = "mnemos_enterprise_id"


def chosen_membership(request: HttpRequest) -> dict[str, Any] | None:
    """The membership the session chose, else the user's first active one."""
    rows = member_enterprises(user_id=int(request.user.pk or 0))
    wanted = request.session.get(SESSION_ENTERPRISE)
    for row in rows:
        if str(row["enterprise_id"]) == wanted:
            return row
    return rows[0] if rows else None


def console_view(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Sign-in required; the view runs in the chosen enterprise's context, one transaction."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        membership = chosen_membership(request)
        if membership is None:
            return HttpResponse("You are not a member of any enterprise.", status=403)
        with tenant_context(
            enterprise_id=membership["enterprise_id"],
            session_key=request.session.session_key or "",
            request_id=request.headers.get("X-Request-Id"),
            door="console",
        ) as ctx:
            member = Member.objects.select_related("user").get(pk=membership["id"])
            ctx.member = member
            request.member = member  # type: ignore[attr-defined]
            response = view(request, *args, **kwargs)
            # Templates render lazily: render inside the context and transaction.
            if hasattr(response, "render") and not getattr(response, "is_rendered", True):
                response.render()
            return response

    wrapper.tenant_door = True  # type: ignore[attr-defined]
    return wrapper
