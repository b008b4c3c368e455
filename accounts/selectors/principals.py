"""Principals: the members a handle or a principal id stands for (search_memory's ``principal``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib.auth.models import User
from django.db.models import Q

from accounts.models import Member, Team


@dataclass(frozen=True)
class Principals:
    """What a principal text names: its member ids, or, when it names several principals, the candidates."""

    member_ids: list[int] = field(default_factory=list)
    # The candidates, only when the handle matched more than one member or team (member_ids is empty then).
    members: list[Member] = field(default_factory=list)
    teams: list[Team] = field(default_factory=list)


def principal_resolve(*, principal: str) -> Principals:
    """``member:<id>`` or ``team:<id>`` as given, else a handle: a user's email or username, a team's name or slug.

    A team stands for its members. A handle that matches several members and teams comes back as those
    candidates; one that matches nothing (or an id that names no one) has no member ids.
    """
    text = principal.strip()
    kind, _, raw = text.partition(":")
    if kind in ("member", "team") and raw.isdigit():
        if kind == "member":
            return Principals(member_ids=[int(raw)] if Member.objects.filter(pk=int(raw)).exists() else [])
        team = Team.objects.filter(pk=int(raw)).first()
        return Principals(member_ids=list(team.members.values_list("pk", flat=True)) if team else [])
    users = User.objects.filter(Q(email__iexact=text) | Q(username__iexact=text)).values_list("pk", flat=True)
    members = list(Member.objects.filter(user_id__in=list(users)).select_related("user"))
    teams = list(Team.objects.filter(Q(name__iexact=text) | Q(slug__iexact=text)))
    if len(members) + len(teams) > 1:
        return Principals(members=members, teams=teams)
    if members:
        return Principals(member_ids=[members[0].pk])
    if teams:
        return Principals(member_ids=list(teams[0].members.values_list("pk", flat=True)))
    return Principals()
