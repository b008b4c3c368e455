"""Console forms: they parse and check input; the services decide and write."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any, cast

from django import forms
from django.utils import timezone

from accounts.models import ALL_SCOPES
from accounts.services.enterprises import PROJECT_PERMISSIONS
from accounts.services.keys import TOOLSETS
from accounts.services.sso import GroupRule
from memory.models import Kind, Layer, Status

PERMISSION_CHOICES = [(name, name) for name in PROJECT_PERMISSIONS]


def _day_start(day: dt.date | None) -> dt.datetime | None:
    return None if day is None else dt.datetime.combine(day, dt.time.min, tzinfo=dt.UTC)


class ProjectCreateForm(forms.Form):
    slug = forms.SlugField(
        max_length=50, help_text="Short name used in links and by agents (letters, digits, -)."
    )
    name = forms.CharField(max_length=200)
    team = forms.ChoiceField(required=False, help_text="The team that may view and write it.")

    def __init__(self, *args: Any, teams: Sequence[Any] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["team"]).choices = [
            ("", "— no team —"),
            *[(str(t.pk), t.name) for t in teams],
        ]


class TeamCreateForm(forms.Form):
    slug = forms.SlugField(max_length=50)
    name = forms.CharField(max_length=200)


class TeamMemberForm(forms.Form):
    team = forms.ChoiceField()
    member = forms.ChoiceField()

    def __init__(
        self, *args: Any, teams: Sequence[Any] = (), members: Sequence[Any] = (), **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["team"]).choices = [(str(t.pk), t.name) for t in teams]
        cast(forms.ChoiceField, self.fields["member"]).choices = [
            (str(m.pk), m.user.username) for m in members
        ]


class GrantForm(forms.Form):
    holder = forms.ChoiceField(help_text="A team (all its members) or one member.")
    permissions = forms.MultipleChoiceField(choices=PERMISSION_CHOICES, widget=forms.CheckboxSelectMultiple)
    change = forms.ChoiceField(choices=[("grant", "Grant"), ("revoke", "Revoke")], initial="grant")

    def __init__(
        self, *args: Any, teams: Sequence[Any] = (), members: Sequence[Any] = (), **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["holder"]).choices = [
            ("Teams", [(f"team:{t.pk}", t.name) for t in teams]),
            ("Members", [(f"member:{m.pk}", m.user.username) for m in members]),
        ]


class KeyCreateForm(forms.Form):
    label = forms.CharField(
        max_length=200, required=False, help_text="Where this key lives (a laptop, a CI job)."
    )
    project = forms.ChoiceField()
    workspace = forms.CharField(
        max_length=200, required=False, help_text="Bind the key to one folder of the project (optional)."
    )
    scopes = forms.MultipleChoiceField(
        choices=[(s, s) for s in ALL_SCOPES],
        widget=forms.CheckboxSelectMultiple,
        initial=["memory:read", "memory:write"],
    )
    toolsets = forms.MultipleChoiceField(
        choices=[(t, t) for t in TOOLSETS],
        widget=forms.CheckboxSelectMultiple,
        required=False,
        help_text="None ticked: every toolset.",
    )
    expires = forms.DateField(
        required=False, widget=forms.DateInput(attrs={"type": "date"}), help_text="Optional last day of use."
    )

    def __init__(self, *args: Any, projects: Sequence[Any] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["project"]).choices = [
            (str(p.pk), f"{p.name} ({p.slug})") for p in projects
        ]

    def clean_expires(self) -> dt.date | None:
        day: dt.date | None = self.cleaned_data.get("expires")
        if day is not None and day < timezone.now().date():
            raise forms.ValidationError("The expiry date is in the past.")
        return day

    def expires_at(self) -> dt.datetime | None:
        day = self.cleaned_data.get("expires")
        return None if day is None else _day_start(day + dt.timedelta(days=1))


class MemorySearchForm(forms.Form):
    q = forms.CharField(required=False, label="Search", max_length=500)
    project = forms.ChoiceField(required=False)
    workspace = forms.CharField(required=False, max_length=200)
    layer = forms.ChoiceField(required=False, choices=[("", "any layer"), *Layer.choices])
    scope = forms.CharField(required=False, max_length=200)
    status = forms.ChoiceField(
        required=False, choices=[("", "any status"), *[c for c in Status.choices if c[0] != Status.FORGOTTEN]]
    )
    tag = forms.CharField(required=False, max_length=300)
    entity = forms.CharField(required=False, max_length=300)
    since = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
    until = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))

    def __init__(self, *args: Any, projects: Sequence[Any] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["project"]).choices = [
            ("", "any project"),
            *[(str(p.pk), p.slug) for p in projects],
        ]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("since") and data.get("until") and data["since"] > data["until"]:
            raise forms.ValidationError("'since' is after 'until'.")
        return data

    def bounds(self) -> tuple[dt.datetime | None, dt.datetime | None]:
        until = self.cleaned_data.get("until")
        return _day_start(self.cleaned_data.get("since")), _day_start(
            until + dt.timedelta(days=1) if until else None
        )


def split_list(text: str) -> list[str]:
    return [part.strip() for part in text.replace("\n", ",").split(",") if part.strip()]


class CorrectionForm(forms.Form):
    """What update_memory can correct, one comma-separated list per field."""

    add_entities = forms.CharField(
        required=False, help_text="name or name:type, comma-separated (type defaults to thing)."
    )
    remove_entities = forms.CharField(required=False, help_text="Entity names or ids.")
    add_tags = forms.CharField(required=False)
    remove_tags = forms.CharField(required=False)
    add_prev_events = forms.CharField(required=False, help_text="Ids of memories that come before this one.")
    remove_prev_events = forms.CharField(
        required=False, help_text="Ids to unlink from the front of this one."
    )
    add_resolved_by = forms.CharField(
        required=False, help_text="Ids of evidence memories that resolved this plan or intent (realization)."
    )
    revoke_resolved_by = forms.CharField(required=False, help_text="Ids of evidence links to take down.")
    add_entity_renames = forms.CharField(required=False, help_text="old>new pairs, comma-separated.")

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not any(data.get(name) for name in self.fields):
            raise forms.ValidationError("Nothing to correct: fill in at least one field.")
        for pair in split_list(data.get("add_entity_renames") or ""):
            if ">" not in pair:
                raise forms.ValidationError(f"A rename is written old>new; got {pair!r}.")
        return data

    def arguments(self, *, event_id: str) -> dict[str, Any]:
        """The update_memory arguments, exactly as an agent would send them."""
        data = self.cleaned_data
        args: dict[str, Any] = {"event_id": event_id}
        entities = []
        for item in split_list(data.get("add_entities") or ""):
            name, _, type_ = item.partition(":")
            entities.append({"name": name.strip(), "type": type_.strip() or "thing"})
        if entities:
            args["add_entities"] = entities
        for name in ("remove_entities", "add_tags", "remove_tags", "add_prev_events", "remove_prev_events"):
            if values := split_list(data.get(name) or ""):
                args[name] = values
        for name in ("add_resolved_by", "revoke_resolved_by"):
            if values := split_list(data.get(name) or ""):
                args[name] = [{"event_id": value} for value in values]
        renames = [
            {"old": old.strip(), "new": new.strip()}
            for old, _, new in (p.partition(">") for p in split_list(data.get("add_entity_renames") or ""))
        ]
        if renames:
            args["add_entity_renames"] = renames
        return args


class ForgetForm(forms.Form):
    reason = forms.CharField(required=False, max_length=500)


class AuditFilterForm(forms.Form):
    action = forms.CharField(
        required=False, max_length=100, help_text="Starts with, e.g. access_key or tool."
    )
    door = forms.ChoiceField(
        required=False,
        choices=[
            ("", "any door"),
            *[(d, d) for d in ("console", "tools", "rest", "celery", "admin", "command")],
        ],
    )
    actor = forms.CharField(required=False, max_length=150, label="Actor (username)")
    target = forms.CharField(required=False, max_length=100, label="Target id")
    since = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
    until = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
    reads = forms.BooleanField(required=False, label="Only reads (tool calls that returned memories)")

    def bounds(self) -> tuple[dt.datetime | None, dt.datetime | None]:
        until = self.cleaned_data.get("until")
        return _day_start(self.cleaned_data.get("since")), _day_start(
            until + dt.timedelta(days=1) if until else None
        )


class GuardFilterForm(forms.Form):
    action = forms.ChoiceField(
        required=False,
        choices=[("", "any"), ("reject", "rejected writes"), ("redact", "redactions"), ("rescan", "re-scan")],
    )
    rule = forms.CharField(required=False, max_length=100)


THRESHOLD_MISSING = "Enter a threshold, or reset it to the model's default."


class GuardThresholdForm(forms.Form):
    """The learned detector's threshold; the service checks the bounds (its text shows in place)."""

    threshold = forms.FloatField(
        required=False, widget=forms.NumberInput(attrs={"step": "0.001"}), label="Threshold"
    )
    reset = forms.BooleanField(required=False, widget=forms.HiddenInput)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not data.get("reset") and data.get("threshold") is None and not self.errors:
            raise forms.ValidationError(THRESHOLD_MISSING)
        return data

    def value(self) -> float | None:
        return None if self.cleaned_data["reset"] else self.cleaned_data["threshold"]


class GuardReportForm(forms.Form):
    """A false positive (on a rejection: the text is optional, nothing of it was stored) or a miss."""

    text = forms.CharField(
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Secrets in it are redacted before it is kept.",
    )
    note = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}), label="Note (optional)")


# -- the data lifecycle (docs/lifecycle.md, "Console"): the services check what the forms let through --

MAX_UPLOAD_BYTES = 1024**3  # as POST /v1/imports
UPLOAD_TOO_LARGE = f"The upload exceeds {MAX_UPLOAD_BYTES // 1024**2} MB."


def _project_choices(projects: Sequence[Any]) -> list[tuple[str, str]]:
    return [(p.slug, f"{p.name} ({p.slug})") for p in projects]


class ExportRequestForm(forms.Form):
    scope = forms.ChoiceField(
        choices=[
            ("member", "My own memories"),
            ("project", "One project"),
            ("enterprise", "The whole enterprise"),
        ],
        help_text="A project takes one you may manage; the whole enterprise an owner or admin.",
    )
    project = forms.ChoiceField(required=False, help_text="For a project export.")
    include_vectors = forms.BooleanField(
        required=False, label="Include vectors", help_text="With the embedding model and dimension."
    )

    def __init__(self, *args: Any, projects: Sequence[Any] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["project"]).choices = [
            ("", "— choose a project —"),
            *_project_choices(projects),
        ]


class ImportUploadForm(forms.Form):
    file = forms.FileField(
        help_text="A Mnemos export (.jsonl), a Mem0 export (.json), or a .zip of Markdown/text files."
    )
    format = forms.ChoiceField(
        choices=[
            ("mnemos", "Mnemos export (JSONL)"),
            ("mem0", "Mem0 export (JSON)"),
            ("markdown", "Markdown or text files (.zip, or one file)"),
        ]
    )
    project = forms.ChoiceField(help_text="The project the memories go into (one you may write).")
    workspace = forms.CharField(
        required=False, max_length=200, initial="default", label="Folder", help_text="Empty: default."
    )
    split_headings = forms.BooleanField(
        required=False, label="One memory per heading", help_text="Markdown: instead of one per file."
    )

    def __init__(self, *args: Any, projects: Sequence[Any] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["project"]).choices = _project_choices(projects)

    def clean_workspace(self) -> str:
        return str(self.cleaned_data.get("workspace") or "").strip() or "default"

    def clean_file(self) -> Any:
        upload = self.cleaned_data["file"]
        if upload.size > MAX_UPLOAD_BYTES:
            raise forms.ValidationError(UPLOAD_TOO_LARGE)
        return upload


class RetentionPolicyForm(forms.Form):
    name = forms.CharField(max_length=200)
    project = forms.ChoiceField(required=False, help_text="Empty: every project of the enterprise.")
    layer = forms.ChoiceField(required=False, choices=[("", "any layer"), *Layer.choices])
    kind = forms.ChoiceField(required=False, choices=[("", "any kind"), *Kind.choices])
    max_age_days = forms.IntegerField(
        min_value=1,
        max_value=36_500,
        label="Older than (days)",
        help_text="Counted from when it was recorded.",
    )
    action = forms.ChoiceField(
        choices=[("forget", "forget (soft)"), ("erase", "erase (hard, a tombstone only)")]
    )

    def __init__(self, *args: Any, projects: Sequence[Any] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["project"]).choices = [
            ("", "— every project —"),
            *_project_choices(projects),
        ]


class HoldCreateForm(forms.Form):
    target = forms.ChoiceField(choices=[("project", "a project"), ("entity", "an entity"), ("tag", "a tag")])
    ref = forms.CharField(
        max_length=300,
        label="Which",
        help_text="A project's slug, an entity's name (any spelling), or a tag's path (the tags below it too).",
    )
    name = forms.CharField(max_length=200, help_text="E.g. the matter or case it is for.")
    reason = forms.CharField(required=False, max_length=5000, widget=forms.Textarea(attrs={"rows": 2}))


class ErasureRequestForm(forms.Form):
    subject = forms.ChoiceField(
        choices=[("entity", "every memory naming an entity"), ("member", "a member's memories")]
    )
    entity = forms.CharField(
        required=False, max_length=300, label="Entity", help_text="Its name, any spelling (a data subject)."
    )
    member = forms.ChoiceField(required=False, label="Member")
    reason = forms.CharField(required=False, max_length=5000, widget=forms.Textarea(attrs={"rows": 2}))

    def __init__(self, *args: Any, members: Sequence[Any] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["member"]).choices = [
            ("", "— choose a member —"),
            *[(str(m.pk), m.user.username) for m in members],
        ]


# -- people, teams, tasks (console/views/people.py, teams.py, tasks.py) -------------------------------

ORG_ROLE_CHOICES = [("member", "Member"), ("admin", "Admin"), ("auditor", "Auditor"), ("owner", "Owner")]


def _choices(rows: Sequence[Any], label: str = "name") -> list[tuple[str, str]]:
    return [(str(row.pk), str(getattr(row, label))) for row in rows]


class InviteForm(forms.Form):
    email = forms.CharField(
        max_length=254, required=False, help_text="Whom it is for (a note; no mail is sent)."
    )
    org_role = forms.ChoiceField(choices=ORG_ROLE_CHOICES, initial="member", label="Org role")
    teams = forms.MultipleChoiceField(required=False, widget=forms.CheckboxSelectMultiple)
    days = forms.IntegerField(
        min_value=1, max_value=30, initial=7, help_text="The link works once, for 1-30 days."
    )

    def __init__(self, *args: Any, teams: Sequence[Any] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.MultipleChoiceField, self.fields["teams"]).choices = _choices(teams)


class MemberChangeForm(forms.Form):
    org_role = forms.ChoiceField(choices=ORG_ROLE_CHOICES, label="Org role")
    teams = forms.MultipleChoiceField(required=False, widget=forms.CheckboxSelectMultiple)
    job_roles = forms.MultipleChoiceField(
        required=False, widget=forms.CheckboxSelectMultiple, label="Job roles"
    )

    def __init__(
        self, *args: Any, teams: Sequence[Any] = (), roles: Sequence[Any] = (), **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.MultipleChoiceField, self.fields["teams"]).choices = _choices(teams)
        cast(forms.MultipleChoiceField, self.fields["job_roles"]).choices = _choices(roles)


class MemberGrantForm(forms.Form):
    project = forms.ChoiceField()
    permissions = forms.MultipleChoiceField(choices=PERMISSION_CHOICES, widget=forms.CheckboxSelectMultiple)
    change = forms.ChoiceField(choices=[("grant", "Grant"), ("revoke", "Revoke")], initial="grant")

    def __init__(self, *args: Any, projects: Sequence[Any] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["project"]).choices = _choices(projects, "slug")


class TeamRenameForm(forms.Form):
    name = forms.CharField(max_length=200)


class SignUpForm(forms.Form):
    username = forms.CharField(max_length=150)
    password = forms.CharField(widget=forms.PasswordInput, max_length=200)
    password_again = forms.CharField(widget=forms.PasswordInput, max_length=200, label="Password again")

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("password") and data.get("password") != data.get("password_again"):
            raise forms.ValidationError("The two passwords differ.")
        return data


GRANTS_HELP = (
    "One per line: a layer (team or enterprise) and an event id prefix, e.g. 'team ci-'. A run of this "
    "version may write that layer for events whose id starts with the prefix."
)


class TaskForm(forms.Form):
    project = forms.ChoiceField()
    name = forms.CharField(max_length=200)
    goal = forms.CharField(max_length=10_000, required=False, widget=forms.Textarea(attrs={"rows": 3}))
    grants = forms.CharField(
        max_length=4_000, required=False, widget=forms.Textarea(attrs={"rows": 3}), help_text=GRANTS_HELP
    )

    def __init__(self, *args: Any, projects: Sequence[Any] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["project"]).choices = _choices(projects, "slug")

    def clean_grants(self) -> list[dict[str, str]]:
        grants = []
        for line in str(self.cleaned_data.get("grants") or "").splitlines():
            if not line.strip():
                continue
            layer, _, prefix = line.strip().partition(" ")
            grants.append({"layer": layer.strip(), "prefix": prefix.strip()})
        return grants


class TaskEditForm(TaskForm):
    """An edit is a new version: name, goal and the version's grants (the project stays)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        del self.fields["project"]


class SsoSettingsForm(forms.Form):
    """The enterprise's identity provider (docs/sso.md); the service checks and stores it."""

    issuer = forms.CharField(
        max_length=500,
        help_text="The issuer URL; Mnemos reads <issuer>/.well-known/openid-configuration.",
    )
    client_id = forms.CharField(max_length=255, label="Client id")
    client_secret = forms.CharField(
        max_length=1000,
        required=False,
        widget=forms.PasswordInput(render_value=False),
        help_text="Stored encrypted and never shown again; leave blank to keep the current one.",
    )
    allowed_domains = forms.CharField(
        max_length=5000,
        label="Allowed e-mail domains",
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="One per line (or comma-separated): only these addresses may sign in.",
    )
    default_org_role = forms.ChoiceField(
        label="Default org role",
        choices=[("member", "Member"), ("auditor", "Auditor"), ("admin", "Admin")],
        help_text="The org role of a member made at first sign-in, unless a group below gives one.",
    )
    group_map = forms.CharField(
        max_length=20000,
        required=False,
        label="Groups to teams",
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text="One line per IdP group: group = team-slug, team-slug, role:admin",
    )
    enabled = forms.BooleanField(required=False, initial=True, label="Sign-in through this provider is on")

    def clean_allowed_domains(self) -> list[str]:
        text = self.cleaned_data["allowed_domains"]
        return [part for part in text.replace(",", "\n").split() if part]

    def clean_group_map(self) -> list[GroupRule]:
        rules = []
        for number, line in enumerate(self.cleaned_data["group_map"].splitlines(), start=1):
            if not line.strip():
                continue
            group, sep, targets = line.partition("=")
            if not sep or not group.strip():
                raise forms.ValidationError(f"line {number}: write group = team-slug, role:admin")
            names = [t.strip() for t in targets.split(",") if t.strip()]
            roles = [t.removeprefix("role:") for t in names if t.startswith("role:")]
            if len(roles) > 1:
                raise forms.ValidationError(f"line {number}: one role per group")
            teams = tuple(t for t in names if not t.startswith("role:"))
            rules.append(GroupRule(group=group.strip(), teams=teams, org_role=roles[0] if roles else ""))
        return rules


class SsoStartForm(forms.Form):
    enterprise = forms.CharField(max_length=100, label="Your enterprise's short name")
