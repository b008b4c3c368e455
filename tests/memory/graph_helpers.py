"""What the query_memory_graph tests share: the corpus, the hidden memories, and the call helpers.

The corpus is saved through save_memory and embedded in-process by the archivist. Visibility is
checked with an author-only memory of dana's (a plain member) and another tenant's memory wired into
every relation (``build_hidden``).
"""

from __future__ import annotations

from typing import Any

from accounts.services.keys import access_key_create
from accounts.services.workspaces import workspace_get_or_create
from memory.models import Entity, EntityRename, LinkKind, Memory, MemoryLink
from memory.services.memories import MemoryDraft, memory_create
from tests.memory.helpers import archive as _archive
from tests.memory.helpers import ctx, tool
from tests.memory.helpers import save_event as _save

SEED_EXAMPLE = (
    "START a = events(text: $q, k: 3) MATCH (a)-[:PARTICIPATED_IN]-(e) -[:PARTICIPATED_IN]-(b) "
    "RETURN b, count(DISTINCT e) AS shared ORDER BY shared DESC LIMIT 20"
)
EVENT_KEYS = {"id", "summary", "timestamp", "order_index"}


def member_dana(world, tenant):
    """A plain member of the tenant's team (who may write its project), made on first use."""
    from django.contrib.auth.models import User

    from accounts.models import Member
    from accounts.services.enterprises import member_add

    found = Member.objects.filter(user__username=f"dana-{tenant.enterprise.slug}").first()
    if found is None:
        user = User.objects.create_user(username=f"dana-{tenant.enterprise.slug}", password="x")
        found = member_add(
            enterprise=tenant.enterprise, user=user, teams=[tenant.team], main_project=tenant.project
        )
    key = found.access_keys.first() or access_key_create(member=found, project=tenant.project)[0]
    return found, key


def note(world, text, *, member, entities=(), tags=(), visibility="project", layer="project", slug="a"):
    """A memory written by ``member`` (alice, or dana: a plain member) directly through the service."""
    tenant = getattr(world, slug)
    with ctx(world, slug):
        if member == "alice":
            author, (key, _) = (
                world.alice.members[tenant.enterprise.slug],
                world.alice.keys[tenant.enterprise.slug],
            )
        else:
            author, key = member_dana(world, tenant)
        memory = memory_create(
            draft=MemoryDraft(
                project=tenant.project,
                workspace=workspace_get_or_create(project=tenant.project, name="default"),
                author=author,
                access_key=key,
                content=text,
                summary=text[:500],
                layer=layer,
                visibility=visibility,
                entities=[(name, "thing") for name in entities],
                tags=list(tags),
            ),
            tool="test",
        )
    return str(memory.pk)


def graph(client, secret, query, **params):
    response = tool(client, secret, "query_memory_graph", {"query": query, "params": params})
    assert response.status_code == 200, response.content
    return response.json()


def ids_in(body: dict[str, Any]) -> set[str]:
    """Every event id anywhere in the rows."""
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            if "summary" in value and "id" in value:
                found.add(value["id"])
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, str) and len(value) == 36:
            found.add(value)

    walk(body["rows"])
    return found


def column(body: dict[str, Any], name: str) -> list[Any]:
    index = body["columns"].index(name)
    return [row[index] for row in body["rows"]]


def build_corpus(client, world, alice) -> dict[str, str]:
    """Five events saved through save_memory and embedded: deploy, rollback and its continuation
    rollback2, lunch, plan (the ``corpus`` fixture)."""
    ids = {
        "deploy": _save(
            client,
            alice,
            "Dana moved the staging deploy to the app-staging systemd unit.",
            "Staging now deploys through systemd (unit app-staging) instead of docker compose.",
            ["Dana", "app-staging"],
            ["deploy/staging"],
            timestamp="2026-01-01T10:00:00+00:00",
        ),
        "rollback": _save(
            client,
            alice,
            "Lee documented how to roll back a failed staging deploy.",
            "Rollback: systemctl stop app-staging, restore the previous release directory, start it again.",
            ["Lee", "app-staging", "Dana"],
            ["deploy/staging", "runbooks"],
            timestamp="2026-01-02T10:00:00+00:00",
        ),
        "lunch": _save(
            client,
            alice,
            "The team lunch moved to Thursday.",
            "Team lunch is on Thursdays from now on.",
            ["Team lunch", "서울 오피스", "北京团队", "ＡＰＩ Gateway"],
            ["social"],
            timestamp="2026-01-03T10:00:00+00:00",
        ),
    }
    ids["rollback2"] = _save(
        client,
        alice,
        "Second part of the rollback notes.",
        "Check the health endpoint after rollback.",
        ["Lee"],
        ["runbooks"],
        prev_event_id=ids["rollback"],
        timestamp="2026-01-04T10:00:00+00:00",
    )
    ids["plan"] = _save(
        client,
        alice,
        "Plan: move staging to systemd before the release.",
        "Release plan item: staging runs under systemd before the March release.",
        ["app-staging"],
        ["plan/release"],
        timestamp="2025-12-20T10:00:00+00:00",
    )
    _archive(world, *ids.values())
    return ids


def build_hidden(client, world, corpus, bob_b) -> dict[str, str]:
    """dana's author-only memory in A and a memory of tenant B, wired into every relation of alice's graph
    (the ``hidden`` fixture)."""
    secret = note(
        world,
        "Dana moved the staging deploy to the app-staging systemd unit.",
        member="dana",
        visibility="author",
        layer="member",
        entities=["Dana", "app-staging", "Secret Project"],
        tags=["deploy/staging", "hidden/topic"],
    )
    foreign = _save(
        client,
        bob_b,
        "Dana moved the staging deploy to the app-staging systemd unit.",
        "Staging now deploys through systemd (unit app-staging).",
        ["Dana", "app-staging", "Lee"],
        ["deploy/staging", "runbooks"],
    )
    _archive(world, secret)
    _archive(world, foreign, slug="b")
    with ctx(world):
        deploy, plan = Memory.objects.get(pk=corpus["deploy"]), Memory.objects.get(pk=corpus["plan"])
        hidden_memory = Memory.objects.get(pk=secret)
        MemoryLink.objects.create(kind=LinkKind.NEXT, src=deploy, dst=hidden_memory)
        MemoryLink.objects.create(kind=LinkKind.NEXT, src=hidden_memory, dst=deploy)
        MemoryLink.objects.create(
            kind=LinkKind.RESOLVED_BY, src=plan, dst=hidden_memory, relation="realization"
        )
        dana, secret_project = Entity.objects.get(name="Dana"), Entity.objects.get(name="Secret Project")
        EntityRename.objects.create(old=dana, new=secret_project)
    return {"secret": secret, "foreign": foreign}
