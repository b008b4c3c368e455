"""Single sign-on (docs/sso.md): the settings page, and the sign-in through an enterprise's IdP.

``sso_start`` and ``sso_callback`` are their own door: before anyone is signed in, the enterprise is the
one the user named (start) or the one the session's pending sign-in is for (callback, by its state), and
the view runs in that enterprise's tenant context only.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts import oidc
from accounts.selectors.sso import group_map_display, identity_provider_get, sso_enterprise_id
from accounts.services.sso import sso_authenticate, sso_configure, sso_provider_usable, sso_start
from console.decorators import (
    SESSION_ENTERPRISE,
    attempt,
    console_view,
    forbidden,
    may_manage,
    sees_everything,
)
from console.forms import SsoSettingsForm, SsoStartForm
from console.types import ConsoleRequest
from core.errors import MnemosError
from core.tenancy import tenant_context

OVERSIGHT_ONLY = "Only the enterprise's owners, admins and auditors see its single sign-on settings."
ADMINS_ONLY = "Only the enterprise's owners and admins change single sign-on."
NO_PROVIDER = "No identity provider is set up for {name!r}: sign in with your password."
NOT_STARTED = "This sign-in was not started in this browser, or was already used: start again."


def _settings_page(
    request: ConsoleRequest, *, form: SsoSettingsForm | None = None, status: int = 200, **extra: Any
) -> HttpResponse:
    provider = identity_provider_get()
    rules = group_map_display(provider)
    if form is None and provider is not None:
        form = SsoSettingsForm(
            initial={
                "issuer": provider.issuer,
                "client_id": provider.client_id,
                "allowed_domains": "\n".join(provider.allowed_domains),
                "default_org_role": provider.default_org_role,
                "group_map": "\n".join(
                    f"{rule['group']} = "
                    + ", ".join([*rule["teams"], *([f"role:{rule['org_role']}"] if rule["org_role"] else [])])  # type: ignore[misc]
                    for rule in rules
                ),
                "enabled": provider.enabled,
            }
        )
    context = {
        "provider": provider,
        "rules": rules,
        "may_manage": may_manage(request),
        "form": form or SsoSettingsForm(),
        "callback_url": oidc.callback_url(request),
        **extra,
    }
    return render(request, "console/sso.html", context, status=status)


@require_http_methods(["GET", "POST"])
@console_view
def sso_settings(request: ConsoleRequest) -> HttpResponse:
    if not sees_everything(request):
        return forbidden(request, OVERSIGHT_ONLY)
    if request.method == "GET":
        return _settings_page(request)
    if not may_manage(request):
        return forbidden(request, ADMINS_ONLY)
    form = SsoSettingsForm(request.POST)
    if not form.is_valid():
        return _settings_page(request, form=form, status=400)
    data = form.cleaned_data
    _, error = attempt(
        lambda: sso_configure(
            actor=request.member,
            enterprise=request.member.enterprise,
            issuer=data["issuer"],
            client_id=data["client_id"],
            client_secret=data["client_secret"],
            allowed_domains=data["allowed_domains"],
            default_org_role=data["default_org_role"],
            group_map=data["group_map"],
            enabled=data["enabled"],
        )
    )
    if error is not None:
        form.add_error(None, error.message[:1].upper() + error.message[1:] + ".")
        return _settings_page(request, form=form, status=error.http_status)
    return redirect("console:sso")


def _login_with(request: HttpRequest, *, error: str, status: int) -> HttpResponse:
    return render(
        request,
        "console/login.html",
        {"sso_form": SsoStartForm(request.POST or None), "sso_error": error, "next": ""},
        status=status,
    )


def _refused(request: HttpRequest, message: str, status: int) -> HttpResponse:
    return render(
        request,
        "console/message.html",
        {
            "title": "Single sign-on refused",
            "message": message[:1].upper() + message[1:] + ".",
            "back": "/console/login/",
        },
        status=status,
    )


@require_POST
def sso_begin(request: HttpRequest) -> HttpResponse:
    form = SsoStartForm(request.POST)
    if not form.is_valid():
        return _login_with(request, error="Name your enterprise.", status=400)
    name = form.cleaned_data["enterprise"]
    enterprise_id = sso_enterprise_id(slug=name)
    if enterprise_id is None:
        return _login_with(request, error=NO_PROVIDER.format(name=name), status=404)
    with tenant_context(enterprise_id=enterprise_id, door="sso"):
        try:
            provider = sso_provider_usable()
            enterprise = provider.enterprise
            url = sso_start(request=request, provider=provider)
        except MnemosError as exc:
            if exc.http_status == 404:
                return _login_with(request, error=NO_PROVIDER.format(name=name), status=404)
            return _login_with(
                request, error=exc.message[:1].upper() + exc.message[1:] + ".", status=exc.http_status
            )
    # A page, not a redirect: the login form's Content-Security-Policy (form-action 'self') would stop a
    # redirect to another origin; a link (and the refresh) is a plain navigation.
    return render(request, "console/sso_continue.html", {"url": url, "enterprise": enterprise})


sso_begin.tenant_door = True  # type: ignore[attr-defined]


@require_GET
def sso_callback(request: HttpRequest) -> HttpResponse:
    pending = oidc.pending_sign_in(request)
    if pending is None:
        return _refused(request, NOT_STARTED, 400)
    if request.GET.get("error"):
        message = request.GET.get("error_description") or request.GET["error"]
        return _refused(request, f"the identity provider answered: {message[:200]}", 401)
    with tenant_context(enterprise_id=pending.enterprise_id, door="sso"):
        member, error = attempt(
            lambda: sso_authenticate(request=request, provider=sso_provider_usable(), pending=pending)
        )
        if error is not None or member is None:
            return _refused(
                request, error.message if error else NOT_STARTED, error.http_status if error else 400
            )
        login(request, member.user, backend="django.contrib.auth.backends.ModelBackend")
        request.session[SESSION_ENTERPRISE] = str(member.enterprise_id)
    return redirect("console:home")


sso_callback.tenant_door = True  # type: ignore[attr-defined]
