"""Enterprises, teams, projects, workspaces, members, roles, access keys, plans, audit.

Vocabulary (docs/concepts.md): tenant = account = org = enterprise;
department = team; folder = workspace.
"""

from __future__ import annotations

import uuid
from typing import Any, ClassVar

from django.conf import settings
from django.contrib.auth.models import Group
from django.contrib.postgres.fields import ArrayField
from django.core.exceptions import ObjectDoesNotExist
from django.db import models
from django.utils import timezone
from guardian.managers import GroupObjectPermissionManager, UserObjectPermissionManager
from guardian.models import GroupObjectPermissionBase, UserObjectPermissionBase

from core.tenancy import (
    KEY_DIGEST_SETTING,
    USER_SETTING,
    TenantManager,
    TenantModel,
)

_SIGNED_IN_USER = f"NULLIF(current_setting('{USER_SETTING}', true), '')::integer"


class Plan(models.Model):
    """A platform-wide catalogue entry (not tenant-owned): the limits a subscription buys."""

    slug = models.SlugField(unique=True)
    name = models.CharField(max_length=100)
    max_memories_per_project = models.PositiveIntegerField(default=10_000)
    max_memories_per_workspace = models.PositiveIntegerField(default=10_000)
    max_memories_per_enterprise = models.PositiveIntegerField(default=100_000)
    tool_calls_per_minute_per_project = models.PositiveIntegerField(default=600)

    def __str__(self) -> str:
        return self.name


class SubscriptionState(models.TextChoices):
    ACTIVE = "active", "Active"
    NONE = "none", "No subscription"
    GRACE = "grace", "Grace period (read-only)"
    SUSPENDED = "suspended", "Suspended"


class Enterprise(models.Model):
    """The tenant. Its own row is visible only inside its context (or to its members)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    slug = models.SlugField(unique=True)
    name = models.CharField(max_length=200)
    plan = models.ForeignKey(Plan, on_delete=models.PROTECT, related_name="enterprises")
    subscription_state = models.CharField(
        max_length=16, choices=SubscriptionState.choices, default=SubscriptionState.ACTIVE
    )
    # Memory Guard's learned detector rejects at this score or above; null: the shipped model's default.
    guard_model_threshold = models.FloatField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    objects: ClassVar[Any] = TenantManager()
    _tenant_field = "id"
    # A signed-in user sees the enterprises it is a member of, to choose one.
    rls_extra_condition = (
        f"id IN (SELECT enterprise_id FROM accounts_member WHERE user_id = {_SIGNED_IN_USER})"
    )

    class Meta:
        base_manager_name = "objects"

    def __str__(self) -> str:
        return self.slug

    @property
    def can_write(self) -> bool:
        return self.subscription_state == SubscriptionState.ACTIVE

    @property
    def can_read(self) -> bool:
        return self.subscription_state in (SubscriptionState.ACTIVE, SubscriptionState.GRACE)


class Team(TenantModel):
    """A department. Its django Group carries per-project permissions for its members."""

    slug = models.SlugField()
    name = models.CharField(max_length=200)
    group = models.OneToOneField(Group, on_delete=models.PROTECT, related_name="team", editable=False)

    class Meta(TenantModel.Meta):
        constraints = [models.UniqueConstraint(fields=["enterprise", "slug"], name="team_slug_unique")]

    def __str__(self) -> str:
        return self.name


class Role(TenantModel):
    """A job role (reviewer, on-call...). The role memory layer is keyed on it."""

    slug = models.SlugField()
    name = models.CharField(max_length=200)

    class Meta(TenantModel.Meta):
        constraints = [models.UniqueConstraint(fields=["enterprise", "slug"], name="role_slug_unique")]

    def __str__(self) -> str:
        return self.name


class Project(TenantModel):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    slug = models.SlugField()
    name = models.CharField(max_length=200)
    team = models.ForeignKey(Team, null=True, blank=True, on_delete=models.SET_NULL, related_name="projects")
    save_domain = models.CharField(max_length=200, blank=True, default="")
    save_group = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta(TenantModel.Meta):
        constraints = [models.UniqueConstraint(fields=["enterprise", "slug"], name="project_slug_unique")]
        permissions = [
            ("write_project", "Can write memories in the project"),
            ("manage_project", "Can manage the project"),
        ]

    def __str__(self) -> str:
        return self.slug


class _TenantUserPermissionManager(TenantManager[Any], UserObjectPermissionManager):  # type: ignore[misc]
    pass


class _TenantTeamPermissionManager(TenantManager[Any], GroupObjectPermissionManager):  # type: ignore[misc]
    pass


class PublicTarget(models.Model):
    """A project its enterprise published for every account to read (not tenant-owned).

    The platform-wide catalogue of public targets (such as the shared demo):
    it holds only what an outsider may see of the project, so the project's own
    row stays behind its tenant's RLS. Written only by ``project_publish``.
    """

    project_id = models.UUIDField(unique=True)
    enterprise_id = models.UUIDField(db_index=True)
    slug = models.SlugField()
    name = models.CharField(max_length=200)
    team = models.CharField(max_length=200, blank=True, default="")
    save_domain = models.CharField(max_length=200, blank=True, default="")
    save_group = models.CharField(max_length=200, blank=True, default="")
    published_at = models.DateTimeField(default=timezone.now, editable=False)

    def __str__(self) -> str:
        return self.slug


class ProjectUserPermission(TenantModel, UserObjectPermissionBase):
    """django-guardian object permission on a project, granted to a user (direct FK)."""

    content_object = models.ForeignKey(Project, on_delete=models.CASCADE)
    objects = _TenantUserPermissionManager()  # type: ignore[misc]

    class Meta(TenantModel.Meta, UserObjectPermissionBase.Meta):
        abstract = False

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.enterprise_id = self.content_object.enterprise_id
        super().save(*args, **kwargs)


class ProjectTeamPermission(TenantModel, GroupObjectPermissionBase):
    """django-guardian object permission on a project, granted to a team's group."""

    content_object = models.ForeignKey(Project, on_delete=models.CASCADE)
    objects = _TenantTeamPermissionManager()  # type: ignore[misc]

    class Meta(TenantModel.Meta, GroupObjectPermissionBase.Meta):
        abstract = False

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.enterprise_id = self.content_object.enterprise_id
        super().save(*args, **kwargs)


class Workspace(TenantModel):
    """A folder inside a project. A deleted workspace's name can never be reused there."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="workspaces")
    name = models.CharField(max_length=200)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    deleted_at = models.DateTimeField(null=True, blank=True)

    class Meta(TenantModel.Meta):
        # Deleted rows stay, so the constraint also keeps their names from coming back.
        constraints = [
            models.UniqueConstraint(fields=["project", "name"], name="workspace_name_unique_in_project")
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def is_deleted(self) -> bool:
        return self.deleted_at is not None


class OrgRole(models.TextChoices):
    OWNER = "owner", "Owner"
    ADMIN = "admin", "Admin"
    MEMBER = "member", "Member"
    AUDITOR = "auditor", "Auditor"


class Member(TenantModel):
    """A user in an enterprise. A user may be a member of several enterprises."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    org_role = models.CharField(max_length=16, choices=OrgRole.choices, default=OrgRole.MEMBER)
    is_active = models.BooleanField(default=True)
    teams = models.ManyToManyField(Team, through="TeamMembership", related_name="members", blank=True)
    roles = models.ManyToManyField(Role, through="RoleAssignment", related_name="members", blank=True)
    # The account-wide Main target: where saves go when a connection is not folder-bound.
    main_project = models.ForeignKey(
        Project, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    main_paused = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    # A signed-in user sees its own memberships before an enterprise is chosen.
    rls_extra_condition = f"user_id = {_SIGNED_IN_USER}"

    class Meta(TenantModel.Meta):
        constraints = [models.UniqueConstraint(fields=["enterprise", "user"], name="member_unique_user")]

    def __str__(self) -> str:
        return f"{self.user} @ {self.enterprise_id}"

    # Who may do what is the access policy's to say (accounts/access.py), not the model's.


class TeamMembership(TenantModel):
    member = models.ForeignKey(Member, on_delete=models.CASCADE)
    team = models.ForeignKey(Team, on_delete=models.CASCADE)

    class Meta(TenantModel.Meta):
        constraints = [models.UniqueConstraint(fields=["member", "team"], name="team_membership_unique")]


class RoleAssignment(TenantModel):
    member = models.ForeignKey(Member, on_delete=models.CASCADE)
    role = models.ForeignKey(Role, on_delete=models.CASCADE)

    class Meta(TenantModel.Meta):
        constraints = [models.UniqueConstraint(fields=["member", "role"], name="role_assignment_unique")]


class Invitation(TenantModel):
    """A pending invitation to join the enterprise: a one-time sign-up link (accounts.services.people).

    Only a SHA-256 digest of the link's secret is stored; the link is shown once. Used (``accepted_at``),
    withdrawn (``revoked_at``) or past ``expires_at``, it signs no one up."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    email = models.CharField(max_length=254, blank=True, default="")
    org_role = models.CharField(max_length=16, choices=OrgRole.choices, default=OrgRole.MEMBER)
    # The teams the new member joins (ids of this enterprise's teams; a team deleted since is skipped).
    team_ids = ArrayField(models.BigIntegerField(), default=list, blank=True)
    digest = models.CharField(max_length=64, unique=True, editable=False)
    invited_by = models.ForeignKey(Member, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    expires_at = models.DateTimeField()
    accepted_at = models.DateTimeField(null=True, blank=True)
    accepted_member = models.ForeignKey(
        Member, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    revoked_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"invitation {self.email or self.pk} ({self.org_role})"


class IdentityProvider(TenantModel):
    """The enterprise's OpenID Connect identity provider for console sign-in (docs/sso.md).

    One per enterprise. The client secret is kept encrypted (``secret_sealed``, Fernet from SECRET_KEY);
    ``group_map`` maps the IdP's ``groups`` claim values to teams and optionally an org role:
    ``[{"group": "platform-eng", "team_ids": [3], "org_role": ""}]``."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    issuer = models.URLField(max_length=500)
    client_id = models.CharField(max_length=255)
    secret_sealed = models.TextField(editable=False)
    allowed_domains = ArrayField(models.CharField(max_length=253), default=list, blank=True)
    default_org_role = models.CharField(max_length=16, choices=OrgRole.choices, default=OrgRole.MEMBER)
    group_map = models.JSONField(default=list, blank=True)
    enabled = models.BooleanField(default=True)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta(TenantModel.Meta):
        constraints = [models.UniqueConstraint(fields=["enterprise"], name="identity_provider_one")]

    def __str__(self) -> str:
        return f"identity provider {self.issuer}"


class SsoDirectory(models.Model):
    """Which enterprises sign in through an identity provider, by slug (not tenant-owned).

    The sign-in page names an enterprise before any tenant is known; the enterprise's own row and its
    ``IdentityProvider`` stay behind RLS. Holds only the slug, the id and whether it is on; written only
    by ``accounts.services.sso.sso_configure``."""

    enterprise_id = models.UUIDField(unique=True)
    slug = models.SlugField(unique=True)
    enabled = models.BooleanField(default=True)

    def __str__(self) -> str:
        return self.slug


class SsoIdentity(TenantModel):
    """Who an IdP's subject (``sub``) is here: the user it signed in (found or made just in time)."""

    provider = models.ForeignKey(IdentityProvider, on_delete=models.CASCADE, related_name="identities")
    subject = models.CharField(max_length=255)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    email = models.CharField(max_length=254, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    last_sign_in_at = models.DateTimeField(default=timezone.now)

    class Meta(TenantModel.Meta):
        constraints = [models.UniqueConstraint(fields=["provider", "subject"], name="sso_identity_subject")]

    def __str__(self) -> str:
        return f"{self.subject} via {self.provider_id}"


class Scope(models.TextChoices):
    MEMORY_READ = "memory:read"
    MEMORY_WRITE = "memory:write"
    TASKS_READ = "tasks:read"
    TASKS_WRITE = "tasks:write"
    PARTNERS_READ = "partners:read"
    ADMIN = "admin"


ALL_SCOPES: tuple[str, ...] = tuple(Scope.values)


class AccessKey(TenantModel):
    """An agent's connection: a member's key for one project, maybe bound to one workspace.

    Only a SHA-256 digest of the secret is stored; the secret is shown once.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    member = models.ForeignKey(Member, on_delete=models.CASCADE, related_name="access_keys")
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="access_keys")
    workspace = models.ForeignKey(
        Workspace, null=True, blank=True, on_delete=models.CASCADE, related_name="access_keys"
    )
    label = models.CharField(max_length=200, blank=True, default="")
    scopes = ArrayField(models.CharField(max_length=32, choices=Scope.choices), default=list)
    # Empty means every toolset.
    toolsets = ArrayField(models.CharField(max_length=32), default=list, blank=True)
    prefix = models.CharField(max_length=16, editable=False)
    digest = models.CharField(max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    # Set by the tool door after a write call, only where read replicas are configured: the key's next
    # reads stay on the primary for MNEMOS_READ_YOUR_WRITES_SECONDS (core/dbrouting.py).
    last_write_at = models.DateTimeField(null=True, blank=True, editable=False)

    # The key door sees exactly the key whose secret it was handed.
    rls_extra_condition = f"digest = NULLIF(current_setting('{KEY_DIGEST_SETTING}', true), '')"

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.label or 'key'})"

    # A run key is the key of exactly one run: ``memory.TaskRun.run_key`` (a one-to-one whose reverse
    # is ``run``). Read it through these two, which never import memory (the layers: accounts is below
    # it). The doors load the key with its run (``access_key_load``), so neither costs a statement
    # there; elsewhere the first read costs one and is cached on the instance.

    @property
    def bound_run(self) -> Any | None:
        """The run this key was minted for (a run key), or None for every other key."""
        try:
            return self.run
        except ObjectDoesNotExist:
            return None

    @property
    def bound_task_id(self) -> uuid.UUID | None:
        """The task of the run this key was minted for, or None: a run key asks and trains only it."""
        run = self.bound_run
        return run.task_id if run is not None else None


class ToolCallWindow(TenantModel):
    """Tool calls counted per project per minute, for the plan's rate limit (the tool door's gate).

    Its table keeps the name it was created under in memory (moved here with the gate, issue 17)."""

    id = models.BigAutoField(primary_key=True)
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="+")
    window_start = models.DateTimeField()
    calls = models.PositiveIntegerField(default=0)

    class Meta(TenantModel.Meta):
        db_table = "memory_toolcallwindow"
        constraints = [
            models.UniqueConstraint(fields=["project", "window_start"], name="toolcallwindow_unique_minute")
        ]


class AuditEvent(TenantModel):
    """Append-only: the application role holds INSERT and SELECT on it, nothing more."""

    id = models.BigAutoField(primary_key=True)
    actor_member = models.ForeignKey(
        Member, null=True, blank=True, on_delete=models.DO_NOTHING, related_name="+", db_constraint=False
    )
    access_key = models.ForeignKey(
        AccessKey, null=True, blank=True, on_delete=models.DO_NOTHING, related_name="+", db_constraint=False
    )
    session_key = models.CharField(max_length=64, blank=True, default="")
    door = models.CharField(max_length=32, blank=True, default="")
    action = models.CharField(max_length=100)
    target_type = models.CharField(max_length=100, blank=True, default="")
    target_id = models.CharField(max_length=100, blank=True, default="")
    request_id = models.CharField(max_length=64, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now, editable=False, db_index=True)
    details = models.JSONField(default=dict, blank=True)

    class Meta(TenantModel.Meta):
        indexes = [models.Index(fields=["enterprise", "-created_at"], name="audit_enterprise_time")]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M:%S} {self.action}"


class JobRun(TenantModel):
    """One run of a background job, keyed for idempotency: a repeat finds it done."""

    id = models.BigAutoField(primary_key=True)
    name = models.CharField(max_length=100)
    key = models.CharField(max_length=200)
    state = models.CharField(max_length=16, default="done")
    attempts = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    finished_at = models.DateTimeField(null=True, blank=True)
    result = models.JSONField(default=dict, blank=True)

    class Meta(TenantModel.Meta):
        constraints = [
            models.UniqueConstraint(fields=["enterprise", "name", "key"], name="jobrun_unique_key")
        ]


class JobState(models.TextChoices):
    PENDING = "pending", "pending"
    FAILED = "failed", "failed"


class Job(TenantModel):
    """The outbox: one piece of background work, written in the transaction of the change that needs it.

    ``accounts.tasks.enqueue`` writes the row and sends the message after the commit; the job's own
    transaction deletes the row when its work is done (``TenantTask``). So a row outlives only work
    not yet done: a message lost with a broker, a worker killed mid-job, a database outage. The sweeper
    (``accounts.jobs_sweep``) sends again every pending row past ``due_at``; a job that failed for good
    stays, ``failed``, for the console and ``manage.py jobs`` to show and re-run.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    task = models.CharField(max_length=200)
    # The job's keyword arguments, ids only (enterprise_id and job_id are added when it is sent).
    kwargs = models.JSONField(default=dict)
    state = models.CharField(max_length=16, choices=JobState.choices, default=JobState.PENDING)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    sent_at = models.DateTimeField(default=timezone.now)
    # When the sweeper may send it again: the last send plus a wait that doubles with every send.
    due_at = models.DateTimeField()
    sends = models.PositiveIntegerField(default=1)
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.TextField(blank=True, default="")
    failed_at = models.DateTimeField(null=True, blank=True)

    class Meta(TenantModel.Meta):
        indexes = [
            models.Index(fields=["due_at"], condition=models.Q(state="pending"), name="job_pending_due"),
            models.Index(fields=["enterprise", "state", "created_at"], name="job_enterprise_state"),
        ]

    def __str__(self) -> str:
        return f"{self.task} ({self.state})"
