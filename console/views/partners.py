"""Partner links: request, consent and re-consent, suspend, resume, revoke, expiry, exposure, aliases.

Both sides see the same state: each reads its own row, which the partner services keep equal
to the other side's in every shared field, and both consents are on each row.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any, cast

from django import forms
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from accounts.selectors.console import projects_by_slug
from console.decorators import attempt, console_view, forbidden, may_manage, not_found
from console.forms import split_list
from console.types import ConsoleRequest
from partners.selectors.links import PartnerLinkState, partner_links_list
from partners.services import links as services

ADMINS_ONLY = "Only the enterprise's owners and admins change partner links."


class LinkRequestForm(forms.Form):
    partner = forms.UUIDField(
        label="Partner organisation id", help_text="They find it on their Partners page."
    )
    direction = forms.ChoiceField(
        choices=[
            ("provide", "We provide: the partner's agents read what we expose"),
            ("consume", "We consume: our agents read what the partner exposes"),
        ]
    )
    expires = forms.DateField(
        required=False, widget=forms.DateInput(attrs={"type": "date"}), help_text="Optional last day."
    )


class ExpiryForm(forms.Form):
    expires = forms.DateField(
        required=False, widget=forms.DateInput(attrs={"type": "date"}), help_text="Empty: no expiry."
    )


class ExposureForm(forms.Form):
    projects = forms.MultipleChoiceField(required=False, widget=forms.CheckboxSelectMultiple)
    save_domains = forms.CharField(required=False, help_text="Comma-separated save domains.")
    memory_ids = forms.CharField(
        required=False, help_text="Ids of memories shared explicitly (even when not enterprise-wide)."
    )


class AliasForm(forms.Form):
    home_name = forms.CharField(max_length=300, label="Our spelling")
    partner_name = forms.CharField(max_length=300, label="Partner's spelling")


class BumpForm(forms.Form):
    version = forms.IntegerField(min_value=1, label="New contract version")


def link_summary(state: PartnerLinkState) -> tuple[bool, str]:
    """Whether reading through the link works now, and why not, in words both sides understand.

    The provider's own row always says ``principal_not_active`` (nothing is read *here* through a
    link we provide); what the provider wants to know is whether the partner can read.
    """
    missing = [
        who
        for who, flag in (("us", state.reconsent["mine"]), ("the partner", state.reconsent["partner"]))
        if flag
    ]
    if state.status in ("suspended", "revoked"):
        return False, f"The link is {state.status}."
    if missing:
        return (
            False,
            f"Waiting for consent at contract version {state.required_version} from {' and '.join(missing)}.",
        )
    if state.status != "active":
        return False, f"The link is {state.status}."
    if state.expires_at is not None and state.expires_at <= timezone.now():
        return False, "The link has expired."
    if not state.consumer_principal_active:
        return False, "The consuming side has switched reading through this link off."
    if state.side == "consumer" and state.blocked_reason == "remote_org_unavailable":
        return False, "The partner's deployment was unreachable on the last call."
    reader = "the partner's agents read" if state.side == "provider" else "our agents read"
    return True, f"Active: {reader} what the provider exposes."


def _end_of(day: dt.date | None) -> dt.datetime | None:
    return (
        None if day is None else dt.datetime.combine(day + dt.timedelta(days=1), dt.time.min, tzinfo=dt.UTC)
    )


def _list_page(request: ConsoleRequest, *, status: int = 200, **extra: Any) -> HttpResponse:
    member = request.member
    context = {
        "rows": [(s, *link_summary(s)) for s in partner_links_list(enterprise_id=member.enterprise_id)],
        "my_org_id": member.enterprise_id,
        "may_manage": may_manage(request),
        "form": LinkRequestForm(),
        **extra,
    }
    return render(request, "console/partners.html", context, status=status)


@require_http_methods(["GET", "POST"])
@console_view
def partners(request: ConsoleRequest) -> HttpResponse:
    if request.method == "GET":
        return _list_page(request)
    if not may_manage(request):
        return forbidden(request, ADMINS_ONLY)
    member = request.member
    form = LinkRequestForm(request.POST)
    if not form.is_valid():
        return _list_page(request, form=form, status=400)
    mine, theirs = member.enterprise_id, form.cleaned_data["partner"]
    provider, consumer = (mine, theirs) if form.cleaned_data["direction"] == "provide" else (theirs, mine)
    link, error = attempt(
        lambda: services.partner_link_request(
            actor=member,
            provider_id=provider,
            consumer_id=consumer,
            expires_at=_end_of(form.cleaned_data["expires"]),
        )
    )
    if error is not None:
        form.add_error("partner" if error.code == "partner_org_not_found" else None, error.message)
        return _list_page(request, form=form, status=error.http_status)
    return redirect("console:partner", link_id=link.link_id)  # type: ignore[union-attr]


def _state(request: ConsoleRequest, link_id: str) -> PartnerLinkState | None:
    member = request.member
    return next(
        (s for s in partner_links_list(enterprise_id=member.enterprise_id) if str(s.link_id) == link_id), None
    )


def _project_choices(request: ConsoleRequest) -> list[tuple[str, str]]:
    member = request.member
    return [(str(p.pk), f"{p.name} ({p.slug})") for p in projects_by_slug(member=member)]


def _detail(
    request: ConsoleRequest, state: PartnerLinkState, *, status: int = 200, **extra: Any
) -> HttpResponse:
    exposure = state.exposure or {}
    exposure_form = ExposureForm(
        initial={
            "projects": exposure.get("projects", []),
            "save_domains": ", ".join(exposure.get("save_domains", [])),
            "memory_ids": ", ".join(exposure.get("memory_ids", [])),
        }
    )
    choices = _project_choices(request)
    cast(forms.ChoiceField, exposure_form.fields["projects"]).choices = choices
    context = {
        "link": state,
        "summary": link_summary(state),
        "provider": state.side == "provider",
        "may_manage": may_manage(request),
        "exposed_projects": [label for value, label in choices if value in exposure.get("projects", [])],
        "exposure_form": exposure_form,
        "expiry_form": ExpiryForm(
            initial={
                "expires": (state.expires_at - dt.timedelta(days=1)).date() if state.expires_at else None
            }
        ),
        "alias_form": AliasForm(),
        "bump_form": BumpForm(initial={"version": state.contract_version + 1}),
        **extra,
    }
    return render(request, "console/partner.html", context, status=status)


Change = Callable[[], Any]


def _change(request: ConsoleRequest, state: PartnerLinkState) -> Change | str:
    """The service call a posted action stands for, or the form error to show."""
    member = request.member
    link_id, action, post = state.link_id, request.POST.get("action", ""), request.POST
    simple = {
        "suspend": services.partner_link_suspend,
        "resume": services.partner_link_resume,
        "revoke": services.partner_link_revoke,
    }
    if action in simple:
        return lambda: simple[action](actor=member, link_id=link_id)
    if action == "consent":
        return lambda: services.partner_link_consent(
            actor=member, link_id=link_id, version=state.required_version
        )
    if action == "principal":
        return lambda: services.partner_link_principal_set(
            actor=member, link_id=link_id, active=post.get("active") == "1"
        )
    if action == "expiry":
        form = ExpiryForm(post)
        if not form.is_valid():
            return "Give the expiry as a date."
        return lambda: services.partner_link_expiry_set(
            actor=member, link_id=link_id, expires_at=_end_of(form.cleaned_data["expires"])
        )
    if action == "bump":
        bump = BumpForm(post)
        if not bump.is_valid():
            return "The contract version is a whole number, 1 or more."
        return lambda: services.partner_link_contract_bump(
            actor=member, link_id=link_id, version=bump.cleaned_data["version"]
        )
    if action == "exposure":
        exposure = ExposureForm(post)
        cast(forms.ChoiceField, exposure.fields["projects"]).choices = _project_choices(request)
        if not exposure.is_valid():
            return "Choose projects from the list."
        return lambda: services.partner_link_exposure_set(
            actor=member,
            link_id=link_id,
            projects=exposure.cleaned_data["projects"],
            save_domains=split_list(exposure.cleaned_data["save_domains"]),
            memory_ids=split_list(exposure.cleaned_data["memory_ids"]),
        )
    if action in ("alias_add", "alias_remove"):
        alias = AliasForm(post)
        if not alias.is_valid():
            return "An alias needs our spelling and the partner's."
        service = (
            services.partner_link_alias_add if action == "alias_add" else services.partner_link_alias_remove
        )
        return lambda: service(actor=member, link_id=link_id, **alias.cleaned_data)
    return "Unknown action."


@require_http_methods(["GET", "POST"])
@console_view
def partner(request: ConsoleRequest, link_id: str) -> HttpResponse:
    state = _state(request, link_id)
    if state is None:
        return not_found(request, "This partner link does not exist.")
    if request.method == "GET":
        return _detail(request, state)
    if not may_manage(request):
        return forbidden(request, ADMINS_ONLY)
    change = _change(request, state)
    if isinstance(change, str):
        return _detail(request, state, action_error=change, status=400)
    _, error = attempt(change)
    if error is not None:
        return _detail(request, state, action_error=error.message, status=error.http_status)
    if request.htmx:
        return _detail(request, _state(request, link_id) or state)
    return redirect("console:partner", link_id=state.link_id)
