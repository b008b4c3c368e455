"""Memory: one kind of record under three dialects (event, record, note), and its graph.

Vocabulary (docs/concepts.md): a save_memory *event*, a remember *record* and a
memory.train *note* are all a ``Memory``. Entities, tags, sequence and
resolved-by links, similarity and co-occurrence are the graph around it.
"""

from __future__ import annotations

import uuid

from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from django.utils import timezone
from pgvector.django import VectorField

from core.tenancy import TenantModel


class Kind(models.TextChoices):
    FACT = "fact"
    INFERENCE = "inference"
    PREFERENCE = "preference"
    CORRECTION = "correction"


class Layer(models.TextChoices):
    TASK = "task"
    MEMBER = "member"
    ROLE = "role"
    TEAM = "team"
    PROJECT = "project"
    ENTERPRISE = "enterprise"


class Visibility(models.TextChoices):
    AUTHOR = "author"
    TEAM = "team"
    PROJECT = "project"
    ENTERPRISE = "enterprise"


class Status(models.TextChoices):
    UNVERIFIED = "unverified"
    STALE = "stale"
    CONFLICT = "conflict"
    SUPERSEDED = "superseded"
    FORGOTTEN = "forgotten"


class Task(TenantModel):
    """A task that runs (enterprise seed). Its versions may grant team or enterprise layers."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    project = models.ForeignKey("accounts.Project", on_delete=models.CASCADE, related_name="tasks")
    team = models.ForeignKey(
        "accounts.Team", null=True, blank=True, on_delete=models.SET_NULL, related_name="tasks"
    )
    name = models.CharField(max_length=200)
    goal = models.TextField(blank=True, default="")
    # A clone may not write the member or role layers, nor use a version's grant.
    clone_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="clones"
    )
    created_by = models.ForeignKey(
        "accounts.Member", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    def __str__(self) -> str:
        return self.name

    @property
    def is_clone(self) -> bool:
        return self.clone_of_id is not None


class TaskVersion(TenantModel):
    """A version of a task. ``grants``: [{"layer": "team"|"enterprise", "prefix": "<event id prefix>"}]."""

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    grants = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta(TenantModel.Meta):
        constraints = [models.UniqueConstraint(fields=["task", "number"], name="taskversion_unique_number")]


class Memory(TenantModel):
    # Read with a page (memory.selectors.search.memories_by_ids), not columns: whether it has a vector,
    # and its project's slug and folder's name.
    has_vector: bool
    project_slug: str
    workspace_name: str

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    project = models.ForeignKey("accounts.Project", on_delete=models.CASCADE, related_name="memories")
    workspace = models.ForeignKey("accounts.Workspace", on_delete=models.CASCADE, related_name="memories")
    team = models.ForeignKey(
        "accounts.Team", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    author = models.ForeignKey(
        "accounts.Member", null=True, on_delete=models.SET_NULL, related_name="memories"
    )
    access_key = models.ForeignKey(
        "accounts.AccessKey", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    task = models.ForeignKey(Task, null=True, blank=True, on_delete=models.SET_NULL, related_name="notes")
    role = models.ForeignKey(
        "accounts.Role", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False, db_index=True)
    timestamp = models.DateTimeField(default=timezone.now)

    summary = models.CharField(max_length=500, blank=True, default="")
    content = models.TextField()
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.FACT)
    layer = models.CharField(max_length=16, choices=Layer.choices, default=Layer.PROJECT)
    visibility = models.CharField(max_length=16, choices=Visibility.choices, default=Visibility.PROJECT)
    scope = models.CharField(max_length=200, default="shared")

    # Provenance. Null (not given) and "" differ in the contracts' answers, hence null=True on text.
    source = models.CharField(max_length=200, default="owner")
    source_id = models.CharField(max_length=1000, null=True, blank=True)  # noqa: DJ001
    source_hash = models.CharField(max_length=1000, null=True, blank=True)  # noqa: DJ001
    source_revision = models.CharField(max_length=1000, null=True, blank=True)  # noqa: DJ001
    origin = models.JSONField(null=True, blank=True)  # save_memory's source {provider, address, version}
    source_event_id = models.CharField(max_length=500, null=True, blank=True)  # noqa: DJ001
    source_event_revision = models.CharField(max_length=200, null=True, blank=True)  # noqa: DJ001

    fact_key = models.CharField(max_length=500, null=True, blank=True)  # noqa: DJ001
    fact_version = models.PositiveIntegerField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.UNVERIFIED)
    confidence = models.FloatField(default=0.5)
    derived_from = ArrayField(models.UUIDField(), default=list, blank=True)
    supersedes = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    # A memory it was derived from was forgotten.
    source_forgotten = models.BooleanField(default=False)
    forgotten_at = models.DateTimeField(null=True, blank=True)

    redactions = models.JSONField(default=list, blank=True)
    guard_version = models.CharField(max_length=40, blank=True, default="")

    embedding = VectorField(null=True, blank=True)
    # Saved and not yet handed to the archivist (the save's archivist_wake, then the archivist_drain task).
    archivist_waiting = models.BooleanField(db_default=False)
    embedding_model = models.CharField(max_length=200, blank=True, default="")
    embedding_dim = models.PositiveIntegerField(null=True, blank=True)
    search_vector = models.GeneratedField(
        # 'english': stems English and drops its stop words; words of other languages pass through
        # lower-cased and unstemmed, so they stay searchable word for word.
        expression=SearchVector("summary", "content", config="english"),
        output_field=SearchVectorField(),
        db_persist=True,
    )

    class Meta(TenantModel.Meta):
        indexes = [
            GinIndex(fields=["search_vector"], name="memory_search_vector"),
            models.Index(fields=["enterprise", "project", "-created_at"], name="memory_project_recent"),
            # The timeline walks the tenant's memories newest first and stops at the page, instead of
            # sorting every visible memory (the read scope ORs the project with enterprise-wide ones).
            models.Index(fields=["enterprise", "-timestamp", "-created_at"], name="memory_timeline"),
            models.Index(fields=["enterprise", "fact_key"], name="memory_fact_key"),
            models.Index(fields=["enterprise", "source_id"], name="memory_source_id"),
            # The archivist's queue: live memories still waiting for a vector, oldest first.
            models.Index(
                fields=["enterprise", "created_at"],
                name="memory_waiting_vector",
                condition=models.Q(embedding__isnull=True, forgotten_at__isnull=True),
            ),
            # What a drain hands to the archivist: a project's memories saved since the last one.
            models.Index(
                fields=["project", "created_at"],
                name="memory_archivist_waiting",
                condition=models.Q(archivist_waiting=True),
            ),
        ]

    def __str__(self) -> str:
        return self.summary[:60] or self.content[:60]

    @property
    def is_forgotten(self) -> bool:
        return self.forgotten_at is not None


class TermStat(TenantModel):
    """Per project, how many memories hold each search lexeme: the document frequencies of BM25.

    Kept by statement-level triggers on memory_memory (migration 0006), so every write path and bulk
    load counts the same way. The row with ``lexeme = ''`` holds the project's memory count in
    ``docs`` and the sum of their distinct-lexeme counts in ``length`` (for the average length).
    Forgotten memories stay counted until deleted: statistics, not visibility.
    """

    id = models.BigAutoField(primary_key=True)
    # No foreign key: a project's rows may be decremented while the project itself is being deleted.
    project_id = models.UUIDField()
    lexeme = models.TextField()
    docs = models.BigIntegerField(default=0)
    length = models.BigIntegerField(default=0)

    class Meta(TenantModel.Meta):
        constraints = [models.UniqueConstraint(fields=["project_id", "lexeme"], name="termstat_unique")]
        indexes = [models.Index(fields=["enterprise", "lexeme"], name="termstat_enterprise_lexeme")]


class MemoryCount(TenantModel):
    """Live (not forgotten) memories per project folder: what the plan's limits are checked against.

    Kept by statement-level triggers on memory_memory (migration 0007), so a save reads its limits from
    a few rows instead of counting the project, the folder and the enterprise. Exact for a project and
    its folders (the write path holds the project's lock); the enterprise's total is their sum.
    """

    id = models.BigAutoField(primary_key=True)
    # No foreign keys, as on TermStat: rows are decremented while a project is being deleted.
    project_id = models.UUIDField()
    workspace_id = models.UUIDField()
    live = models.BigIntegerField(default=0)

    class Meta(TenantModel.Meta):
        constraints = [
            models.UniqueConstraint(fields=["project_id", "workspace_id"], name="memorycount_unique")
        ]


class ArchivistWake(TenantModel):
    """Per project: a drain of its saved memories is on its way to the archivist (since ``pending_since``).

    A save wakes the archivist only when no drain is pending (``archivist_wake``, memory.services), so a burst
    of saves sends one job, not one per memory. Both the save and the drain hold the project's write
    lock while they read or reset it, so a memory is either in the drain or wakes the next one.
    """

    project = models.OneToOneField(
        "accounts.Project", on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    pending_since = models.DateTimeField(null=True, blank=True)


class Entity(TenantModel):
    """One canonical spelling per enterprise (``key`` is the case- and width-folded name)."""

    # Read with the query's entities (memory.selectors.search.entities_in), not a column: whether it is
    # on few enough memories for the entity channel.
    few_links: bool

    name = models.CharField(max_length=300)
    key = models.CharField(max_length=300)
    type = models.CharField(max_length=100, blank=True, default="")
    deprecated = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta(TenantModel.Meta):
        constraints = [models.UniqueConstraint(fields=["enterprise", "key"], name="entity_unique_key")]

    def __str__(self) -> str:
        return self.name


class EntityRename(TenantModel):
    """``old`` was renamed ``new``: a lookup by either name also finds the other."""

    old = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="+")
    new = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta(TenantModel.Meta):
        constraints = [models.UniqueConstraint(fields=["old", "new"], name="entityrename_unique_pair")]


class MemoryEntity(TenantModel):
    memory = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="entity_links")
    entity = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="memory_links")

    class Meta(TenantModel.Meta):
        constraints = [models.UniqueConstraint(fields=["memory", "entity"], name="memoryentity_unique")]


class Tag(TenantModel):
    """A node of the tag tree: ``path`` is a slash path; a node with children is a tag group."""

    path = models.CharField(max_length=300)
    name = models.CharField(max_length=100)
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="children"
    )

    class Meta(TenantModel.Meta):
        constraints = [models.UniqueConstraint(fields=["enterprise", "path"], name="tag_unique_path")]

    def __str__(self) -> str:
        return self.path


class MemoryTag(TenantModel):
    memory = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="tag_links")
    tag = models.ForeignKey(Tag, on_delete=models.CASCADE, related_name="memory_links")

    class Meta(TenantModel.Meta):
        constraints = [models.UniqueConstraint(fields=["memory", "tag"], name="memorytag_unique")]


class LinkKind(models.TextChoices):
    NEXT = "next"  # src comes before dst (sequence)
    RESOLVED_BY = "resolved_by"  # src (plan) resolved by dst (evidence)
    SIMILAR = "similar"  # archivist: cosine above the model's floor
    DUPLICATE = "duplicate"  # archivist: near-duplicate
    CONFLICT = "conflict"  # archivist: same fact_key, different content
    STALE = "stale"  # archivist: src made stale by dst (newer source_hash)


class MemoryLink(TenantModel):
    id = models.BigAutoField(primary_key=True)
    kind = models.CharField(max_length=16, choices=LinkKind.choices)
    src = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="links_out")
    dst = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="links_in")
    relation = models.CharField(max_length=50, blank=True, default="")
    score = models.FloatField(null=True, blank=True)
    # Sequence links that carry document structure from ingestion cannot be cut or rebuilt.
    protected = models.BooleanField(default=False)
    by_archivist = models.BooleanField(default=False)
    asserted_at = models.DateTimeField(default=timezone.now)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta(TenantModel.Meta):
        constraints = [models.UniqueConstraint(fields=["kind", "src", "dst"], name="memorylink_unique")]
        indexes = [models.Index(fields=["dst", "kind"], name="memorylink_dst_kind")]


class EntityCooccurrence(TenantModel):
    """CONNECTED: how many memories mention both entities (a < b by id)."""

    a = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="+")
    b = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="+")
    count = models.PositiveIntegerField(default=0)

    class Meta(TenantModel.Meta):
        constraints = [models.UniqueConstraint(fields=["a", "b"], name="entitycooccurrence_unique")]


class IdempotencyRecord(TenantModel):
    """A write's response, kept so a retry with the same key returns it (>= 24 hours)."""

    id = models.BigAutoField(primary_key=True)
    access_key = models.ForeignKey("accounts.AccessKey", on_delete=models.CASCADE, related_name="+")
    project = models.ForeignKey("accounts.Project", on_delete=models.CASCADE, related_name="+")
    workspace = models.CharField(max_length=200)
    key = models.CharField(max_length=300)
    tool = models.CharField(max_length=100)
    request_hash = models.CharField(max_length=64)
    response = models.JSONField(default=dict)
    created_at = models.DateTimeField(default=timezone.now, editable=False, db_index=True)

    class Meta(TenantModel.Meta):
        constraints = [
            models.UniqueConstraint(
                fields=["access_key", "project", "workspace", "key"], name="idempotency_unique"
            )
        ]


class GuardEvent(TenantModel):
    """What Memory Guard did: a rejected write, or redactions applied to a stored memory."""

    id = models.BigAutoField(primary_key=True)
    action = models.CharField(max_length=16)  # reject | redact | rescan
    memory = models.ForeignKey(Memory, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    access_key = models.ForeignKey(
        "accounts.AccessKey", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    tool = models.CharField(max_length=100, blank=True, default="")
    reason = models.CharField(max_length=500, blank=True, default="")
    rules = ArrayField(models.CharField(max_length=100), default=list, blank=True)
    rules_version = models.CharField(max_length=40, blank=True, default="")
    # What rejected it: "rule" (a poisoning rule) or "model" (the learned detector); blank for redactions.
    decided_by = models.CharField(max_length=8, blank=True, default="")
    score = models.FloatField(null=True, blank=True)  # the learned detector's score of the rejected text
    created_at = models.DateTimeField(default=timezone.now, editable=False, db_index=True)


class GuardReportKind(models.TextChoices):
    FALSE_POSITIVE = "false_positive", "false positive"
    MISS = "miss", "miss"


class GuardReport(TenantModel):
    """An operator's report that the guard got a text wrong: kept for the next tuning round, never
    read automatically (nothing in the write path looks at it)."""

    id = models.BigAutoField(primary_key=True)
    kind = models.CharField(max_length=16, choices=GuardReportKind.choices)
    text = models.TextField(blank=True, default="")  # as Memory Guard redacts it: no secret is kept
    note = models.TextField(blank=True, default="")
    # A false positive names the rejection it is about.
    guard_event = models.ForeignKey(
        GuardEvent, null=True, blank=True, on_delete=models.SET_NULL, related_name="reports"
    )
    reported_by = models.ForeignKey(
        "accounts.Member", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False, db_index=True)


class TaskRun(TenantModel):
    """One run of a task: it consults memory before its work and learns from it afterwards."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="runs")
    started_by = models.ForeignKey("accounts.Member", null=True, on_delete=models.SET_NULL, related_name="+")
    # The run's own key (each run key belongs to exactly one run; its reverse is AccessKey.run).
    run_key = models.OneToOneField(
        "accounts.AccessKey", null=True, blank=True, on_delete=models.SET_NULL, related_name="run"
    )
    state = models.CharField(max_length=16, default="running")  # running | finished
    outcome = models.TextField(blank=True, default="")
    learned = models.ForeignKey(Memory, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    started_at = models.DateTimeField(default=timezone.now, editable=False)
    finished_at = models.DateTimeField(null=True, blank=True)


# --- Data lifecycle (docs/lifecycle.md): imports, exports, retention, legal holds, erasure ---------


class TransferState(models.TextChoices):
    PENDING = "pending", "pending"
    RUNNING = "running", "running"
    DONE = "done", "done"
    FAILED = "failed", "failed"


class ExportScope(models.TextChoices):
    PROJECT = "project", "project"
    ENTERPRISE = "enterprise", "enterprise"
    MEMBER = "member", "member's own memories"


class DataExport(TenantModel):
    """One export run: a JSONL file (docs/export-format.md) written by a Celery job, downloadable
    through a signed link until ``expires_at``."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    scope = models.CharField(max_length=16, choices=ExportScope.choices)
    project = models.ForeignKey(
        "accounts.Project", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    member = models.ForeignKey(  # whose memories (scope member)
        "accounts.Member", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    include_vectors = models.BooleanField(default=False)
    state = models.CharField(max_length=16, choices=TransferState.choices, default=TransferState.PENDING)
    total = models.PositiveIntegerField(default=0)  # memories to write
    done = models.PositiveIntegerField(default=0)  # memories written so far
    path = models.CharField(max_length=500, blank=True, default="")  # under settings.LIFECYCLE_DIR
    size_bytes = models.BigIntegerField(default=0)
    sha256 = models.CharField(max_length=64, blank=True, default="")
    error = models.TextField(blank=True, default="")
    requested_by = models.ForeignKey(
        "accounts.Member", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False, db_index=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)


class ImportFormat(models.TextChoices):
    MNEMOS = "mnemos", "Mnemos export (JSONL)"
    MEM0 = "mem0", "Mem0 export (JSON)"
    MARKDOWN = "markdown", "Markdown or text files"


class DataImport(TenantModel):
    """One import run into a project's folder. The job reads ``path`` a chunk at a time; ``position``
    is the checkpoint (items already handled, committed with them), so a killed worker resumes there."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    format = models.CharField(max_length=16, choices=ImportFormat.choices)
    project = models.ForeignKey("accounts.Project", on_delete=models.CASCADE, related_name="+")
    workspace = models.CharField(max_length=200, default="default")
    path = models.CharField(max_length=500)  # the uploaded file or folder, under settings.LIFECYCLE_DIR
    original_name = models.CharField(max_length=300, blank=True, default="")
    state = models.CharField(max_length=16, choices=TransferState.choices, default=TransferState.PENDING)
    total = models.PositiveIntegerField(default=0)  # items in the source (counted before the first chunk)
    position = models.PositiveIntegerField(default=0)  # items handled: the resume point
    created = models.PositiveIntegerField(default=0)
    duplicates = models.PositiveIntegerField(default=0)
    rejected = models.PositiveIntegerField(default=0)
    errors = models.PositiveIntegerField(default=0)
    # [{line, reason}] for the first bad lines (capped; the counts above are complete).
    problems = models.JSONField(default=list, blank=True)
    error = models.TextField(blank=True, default="")  # why the whole run failed, when it did
    requested_by = models.ForeignKey(
        "accounts.Member", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    access_key = models.ForeignKey(  # the key the import writes under (the write path needs one)
        "accounts.AccessKey", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False, db_index=True)
    finished_at = models.DateTimeField(null=True, blank=True)


class ImportedRecord(TenantModel):
    """Which source item became which memory: a re-run of an import (or a resumed one) finds its items
    here and creates nothing new. Goes with the memory (erasure removes it)."""

    project = models.ForeignKey("accounts.Project", on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=300)  # format:source id (a Mnemos id, a Mem0 id, path#heading)
    memory = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="+")

    class Meta(TenantModel.Meta):
        constraints = [models.UniqueConstraint(fields=["project", "key"], name="imported_record_unique")]


class RetentionAction(models.TextChoices):
    FORGET = "forget", "forget (soft, kept for the audit trail)"
    ERASE = "erase", "erase (hard, a tombstone only)"


class RetentionPolicy(TenantModel):
    """Memories of a layer and/or kind older than ``max_age_days`` go (enterprise-wide, or one project)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    name = models.CharField(max_length=200)
    project = models.ForeignKey(  # null: every project of the enterprise
        "accounts.Project", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    layer = models.CharField(max_length=16, choices=Layer.choices, blank=True, default="")  # "": any
    kind = models.CharField(max_length=16, choices=Kind.choices, blank=True, default="")  # "": any
    max_age_days = models.PositiveIntegerField()
    action = models.CharField(max_length=8, choices=RetentionAction.choices, default=RetentionAction.FORGET)
    enabled = models.BooleanField(default=True)
    created_by = models.ForeignKey(
        "accounts.Member", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    last_run_at = models.DateTimeField(null=True, blank=True)
    last_run_count = models.PositiveIntegerField(default=0)


class HoldTarget(models.TextChoices):
    PROJECT = "project", "project"
    ENTITY = "entity", "entity"
    TAG = "tag", "tag"


class LegalHold(TenantModel):
    """While active (``released_at`` null), nothing under it may be forgotten, erased or aged out."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    name = models.CharField(max_length=200)
    target = models.CharField(max_length=16, choices=HoldTarget.choices)
    project = models.ForeignKey(
        "accounts.Project", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    entity = models.ForeignKey(Entity, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    tag = models.ForeignKey(Tag, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    reason = models.TextField(blank=True, default="")
    created_by = models.ForeignKey(
        "accounts.Member", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    released_at = models.DateTimeField(null=True, blank=True)
    released_by = models.ForeignKey(
        "accounts.Member", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta(TenantModel.Meta):
        constraints = [
            models.CheckConstraint(
                name="legal_hold_one_target",
                condition=(
                    models.Q(target="project", project__isnull=False, entity__isnull=True, tag__isnull=True)
                    | models.Q(target="entity", entity__isnull=False, project__isnull=True, tag__isnull=True)
                    | models.Q(target="tag", tag__isnull=False, project__isnull=True, entity__isnull=True)
                ),
            )
        ]


class ErasureSubject(models.TextChoices):
    MEMBER = "member", "a member's memories"
    ENTITY = "entity", "every memory naming an entity (a data subject)"


class ErasureState(models.TextChoices):
    REQUESTED = "requested", "requested (awaiting confirmation)"
    DONE = "done", "done"
    CANCELLED = "cancelled", "cancelled"


class Erasure(TenantModel):
    """A hard erasure, asked for then confirmed; once done, the tombstone that proves it: ids, counts,
    a hash of what was removed, who and when. It never keeps the content or the subject's name."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    subject = models.CharField(max_length=16, choices=ErasureSubject.choices)
    member = models.ForeignKey(  # the member whose memories (subject member)
        "accounts.Member", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    entity_id_erased = models.BigIntegerField(null=True, blank=True)  # the entity's id (subject entity)
    subject_hash = models.CharField(max_length=64, blank=True, default="")  # sha256 of the entity's key
    state = models.CharField(max_length=16, choices=ErasureState.choices, default=ErasureState.REQUESTED)
    reason = models.TextField(blank=True, default="")
    memory_ids = ArrayField(models.UUIDField(), default=list, blank=True)  # what was erased
    counts = models.JSONField(default=dict, blank=True)  # rows removed, per table
    content_hash = models.CharField(max_length=64, blank=True, default="")  # sha256 over the erased rows
    requested_by = models.ForeignKey(
        "accounts.Member", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    confirmed_by = models.ForeignKey(
        "accounts.Member", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False, db_index=True)
    done_at = models.DateTimeField(null=True, blank=True)
