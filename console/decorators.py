"""The console door: every console view is wrapped by ``console_view``."""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

from django.contrib.auth.views import redirect_to_login
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from accounts import access
from accounts.models import Member
from accounts.selectors.members import member_enterprises
from console.types import ConsoleRequest
from core.dbrouting import replica_aliases, replica_for_reads, wrote_recently
from core.dispatch import run_again_on_lock_conflict
from core.errors import WRITE_CONFLICT, MnemosError, lock_conflict
from core.tenancy import tenant_context

SESSION_ENTERPRISE = "mnemos_enterprise_id"
EnterpriseFrom = Callable[..., str | None]


def chosen_membership(request: HttpRequest, *, wanted: str | None = None) -> dict[str, Any] | None:
    """The membership for ``wanted`` (or the session's choice), else the user's first active one."""
    rows = member_enterprises(user_id=int(request.user.pk or 0))
    if wanted is not None:
        return next((row for row in rows if str(row["enterprise_id"]) == wanted), None)
    chosen = request.session.get(SESSION_ENTERPRISE)
    return next((row for row in rows if str(row["enterprise_id"]) == chosen), rows[0] if rows else None)


def not_found(request: HttpRequest, message: str = "Not found.") -> HttpResponse:
    return render(request, "console/message.html", {"title": "Not found", "message": message}, status=404)


def forbidden(request: HttpRequest, message: str) -> HttpResponse:
    """403 is only for "your role here may not" (a foreign object is not found)."""
    return render(request, "console/message.html", {"title": "Not allowed", "message": message}, status=403)


SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
LAST_WRITE_SESSION_KEY = "mnemos_last_write"


def _replica_for(request: ConsoleRequest) -> str | None:
    """A replica for a page that changes nothing, unless this session wrote within the read-your-writes window."""
    if request.method not in SAFE_METHODS or not replica_aliases():
        return None
    if wrote_recently(request.session.get(LAST_WRITE_SESSION_KEY)):
        return None
    return replica_for_reads()


READ_ONLY_ROLE = "Your role in this enterprise can see everything here but change nothing."


def conflict(request: HttpRequest) -> HttpResponse:
    """409: the database cancelled every attempt to let other writers finish (``core.errors.WRITE_CONFLICT``)."""
    message = WRITE_CONFLICT[0].upper() + WRITE_CONFLICT[1:] + "."
    return render(request, "console/message.html", {"title": "Try again", "message": message}, status=409)


def _run(
    request: ConsoleRequest,
    membership: dict[str, Any],
    inner: Callable[..., HttpResponse],
    auditor_may_post: bool,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> HttpResponse:
    """One attempt: the view in the enterprise's context and one transaction, its page rendered inside."""
    with tenant_context(
        enterprise_id=membership["enterprise_id"],
        session_key=request.session.session_key or "",
        request_id=request.headers.get("X-Request-Id"),
        door="console",
        read_alias=_replica_for(request),
    ) as ctx:
        member = Member.objects.select_related("user", "main_project", "enterprise__plan").get(
            pk=membership["id"]
        )
        ctx.member = member
        request.member = member
        if request.method == "POST" and not access.member_may_write(member) and not auditor_may_post:
            response = forbidden(request, READ_ONLY_ROLE)
        else:
            response = inner(request, *args, **kwargs)
        # Templates render lazily: render inside the context and transaction.
        if hasattr(response, "render") and not getattr(response, "is_rendered", True):
            response.render()
        if request.method not in SAFE_METHODS and replica_aliases():
            # This session's next pages read the primary for a while (read-your-writes).
            request.session[LAST_WRITE_SESSION_KEY] = time.time()
        return response


def console_view(
    view: Callable[..., HttpResponse] | None = None,
    *,
    enterprise_from: EnterpriseFrom | None = None,
    auditor_may_post: bool = False,
) -> Any:
    """Sign-in required; the view runs in one enterprise's context and transaction, again (up to
    ``LOCK_CONFLICT_ATTEMPTS`` in all) when the database cancels that transaction to break a deadlock.

    ``enterprise_from(request, **kwargs)`` may name the enterprise a URL is about
    (a signed link); a user who is not a member there gets "not found".
    A POST from a membership that may not write (an auditor) is refused with 403
    unless ``auditor_may_post`` (choosing an enterprise changes no data).
    """

    def decorate(inner: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(inner)
        def wrapper(request: ConsoleRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            wanted = enterprise_from(request, **kwargs) if enterprise_from else None
            membership = chosen_membership(request, wanted=wanted)
            if membership is None:
                return not_found(request, "There is nothing here for this account.")

            def rewind_uploads() -> None:
                for _, uploads in request.FILES.lists():
                    for upload in uploads:
                        upload.seek(0)  # the next attempt reads an uploaded file from its start again

            try:
                return run_again_on_lock_conflict(
                    lambda: _run(request, membership, inner, auditor_may_post, args, kwargs),
                    before_again=rewind_uploads,
                )
            except Exception as exc:
                if lock_conflict(exc):  # cancelled on every attempt
                    return conflict(request)
                raise

        wrapper.tenant_door = True  # type: ignore[attr-defined]
        return wrapper

    return decorate(view) if view is not None else decorate


T = TypeVar("T")


def attempt(action: Callable[[], T]) -> tuple[T | None, MnemosError | None]:
    """Run one service call in a savepoint: on a refusal nothing of it stays, and the error is shown in place."""
    try:
        with transaction.atomic():
            return action(), None
    except MnemosError as exc:
        exc.record_after_rollback()
        return None, exc


def may_manage(request: ConsoleRequest) -> bool:
    """Owners and admins change the enterprise's projects, teams, keys and jobs."""
    return access.member_may_manage(request.member)


def sees_everything(request: ConsoleRequest) -> bool:
    """Owners, admins and auditors see the whole enterprise (audit, guard, every key)."""
    return access.member_sees_every_project(request.member)
