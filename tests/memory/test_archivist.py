"""The archivist on the real worker and broker: embeddings, links, conflicts, staleness."""

from __future__ import annotations

import pytest

from core.dispatch import tool_dispatch
from core.tenancy import tenant_context
from memory.models import EntityCooccurrence, LinkKind, Memory, MemoryLink
from tests.live import running_worker, wait_for

pytestmark = pytest.mark.live


@pytest.fixture
def live_db(django_db_blocker):
    with django_db_blocker.unblock():
        yield


def _remember(secret, **arguments):
    outcome = tool_dispatch(secret=secret, name="remember", arguments=arguments, surface="rest")
    assert outcome.ok, outcome.error
    return outcome.output["id"]


def _save(secret, **arguments):
    outcome = tool_dispatch(secret=secret, name="save_memory", arguments=arguments, surface="rest")
    assert outcome.ok, outcome.error
    return outcome.output["event_id"]


def test_archivist_builds_what_the_write_did_not(committed_world, live_db):
    world = committed_world
    _, secret = world.alice.keys[world.a.enterprise.slug]
    workspace = "archivist-test"
    with running_worker():
        first = _remember(
            secret,
            content="Staging is deployed with the app-staging systemd unit.",
            fact_key="deploy-staging",
            workspace=workspace,
        )
        second = _remember(
            secret,
            content="Staging deploys run through docker compose now.",
            fact_key="deploy-staging",
            workspace=workspace,
        )
        old = _remember(
            secret,
            content="The runbook says restart nginx after deploys.",
            source_id="docs/runbook.md",
            source_hash="sha256:1",
            workspace=workspace,
        )
        new = _remember(
            secret,
            content="The runbook says reload nginx after deploys.",
            source_id="docs/runbook.md",
            source_hash="sha256:2",
            workspace=workspace,
        )
        similar = _remember(
            secret,
            content="Staging is deployed with the app-staging systemd unit on every merge.",
            workspace=workspace,
        )
        event = _save(
            secret,
            summary="Dana and Lee paired on the staging deploy.",
            content="Dana and Lee paired on it.",
            entities=[{"name": "Dana", "type": "person"}, {"name": "Lee", "type": "person"}],
            tags=[],
        )

        def done():
            with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
                ids = [first, second, old, new, similar, event]
                return (
                    Memory.objects.filter(pk__in=ids, embedding__isnull=False).count() == len(ids)
                    and MemoryLink.objects.filter(
                        src_id=similar, kind__in=[LinkKind.SIMILAR, LinkKind.DUPLICATE]
                    ).exists()
                    # The co-occurrence is the archivist's last step for a memory: wait for it too (a
                    # loaded machine showed the vectors and the link before it).
                    and EntityCooccurrence.objects.filter(a__name="Dana", b__name="Lee").exists()
                )

        wait_for(done, timeout=120, interval=0.5, what="the archivist")
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        status = dict(Memory.objects.filter(pk__in=[first, second, old, new]).values_list("pk", "status"))
        assert {str(k): v for k, v in status.items()} == {
            first: "conflict",
            second: "conflict",
            old: "stale",
            new: "unverified",
        }
        assert MemoryLink.objects.filter(kind=LinkKind.STALE, src_id=old, dst_id=new).exists()
        link = (
            MemoryLink.objects.filter(src_id=similar, kind__in=[LinkKind.SIMILAR, LinkKind.DUPLICATE])
            .order_by("-score")
            .first()
        )
        assert str(link.dst_id) == first
        memory = Memory.objects.get(pk=event)
        assert memory.embedding_dim == 384 and memory.embedding_model
        pair = EntityCooccurrence.objects.get(a__name="Dana", b__name="Lee")
        assert pair.count >= 1


def test_archivist_is_idempotent(committed_world, live_db):
    from memory.tasks import archivist_process

    world = committed_world
    _, secret = world.alice.keys[world.a.enterprise.slug]
    memory_id = _remember(secret, content="Idempotent archivist run check note.", workspace="archivist-idem")
    kwargs = {"enterprise_id": str(world.a.enterprise.pk), "memory_id": memory_id}
    first = archivist_process.apply(kwargs=kwargs).get()
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        links = sorted(MemoryLink.objects.filter(src_id=memory_id).values_list("kind", "dst_id", "score"))
    second = archivist_process.apply(kwargs=kwargs).get()
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        again = sorted(MemoryLink.objects.filter(src_id=memory_id).values_list("kind", "dst_id", "score"))
    assert first["embedded"] == 1 and second["embedded"] == 0
    assert links == again


def test_two_batches_linking_to_each_others_memories_run_side_by_side(committed_world, live_db, monkeypatch):
    """Two workers' batches, each holding its rows, link to the other's memories (a link's foreign key
    takes FOR KEY SHARE on its dst): with the rows held FOR UPDATE this deadlocked; FOR NO KEY UPDATE
    lets both finish."""
    import threading

    from django.db import DatabaseError, connection, transaction

    from memory.services import archivist

    world = committed_world
    _, secret = world.alice.keys[world.a.enterprise.slug]
    ids = [
        _remember(
            secret, content=f"The staging deploy runs the app-staging unit, note {i}.", workspace="pairs"
        )
        for i in range(4)
    ]
    enterprise_id = world.a.enterprise.pk
    with tenant_context(enterprise_id=enterprise_id, door="test"), transaction.atomic():
        archivist.archivist_process_memories(memory_ids=ids)  # every vector in place, links made once

    both_hold_their_rows = threading.Barrier(2, timeout=20)
    real_embed = archivist.archivist_embed_many

    def embed_then_wait(memories):
        done = real_embed(memories)
        both_hold_their_rows.wait()
        return done

    monkeypatch.setattr(archivist, "archivist_embed_many", embed_then_wait)
    outcomes: dict[str, object] = {}

    def run(name: str, batch: list[str]) -> None:
        try:
            with tenant_context(enterprise_id=enterprise_id, door="test"), transaction.atomic():
                outcomes[name] = archivist.archivist_process_memories(memory_ids=batch)
        except DatabaseError as exc:  # a deadlock's OperationalError, reported below
            outcomes[name] = exc
        finally:
            connection.close()

    threads = [
        threading.Thread(target=run, args=("A", ids[0::2])),
        threading.Thread(target=run, args=("B", ids[1::2])),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert all(isinstance(o, dict) for o in outcomes.values()), outcomes
    assert outcomes["A"]["similar"] >= 2 and outcomes["B"]["similar"] >= 2  # type: ignore[index]
    with tenant_context(enterprise_id=enterprise_id, door="test"):
        crossing = MemoryLink.objects.filter(src_id__in=ids[0::2], dst_id__in=ids[1::2]).count()
        assert (
            crossing >= 1 and MemoryLink.objects.filter(src_id__in=ids[1::2], dst_id__in=ids[0::2]).exists()
        )


@pytest.mark.parametrize(
    "summary, content, embedded",
    [
        ("Deploys go", "Deploys go through the pipeline.", "Deploys go\nDeploys go through the pipeline."),
        ("", "Only content.", "Only content."),
        (
            "Staging is on app-staging.",
            "See docs/deploy.md.",
            "Staging is on app-staging.\nSee docs/deploy.md.",
        ),
    ],
)
def test_the_embedded_text_is_the_summary_then_the_content(summary, content, embedded):
    from memory.models import Memory
    from memory.services.archivist import embedding_text

    assert embedding_text(Memory(summary=summary, content=content)) == embedded


@pytest.mark.parametrize(
    "summary, content, embedded",
    [
        (
            "Yes, next month",
            "Yes, next month, when it is cooler.",
            "Hike?\nYes, next month, when it is cooler.",
        ),
        ("Agreed to hike", "Yes, next month.", "Hike?\nAgreed to hike\nYes, next month."),
        ("", "Yes.", "Hike?\nYes."),
    ],
)
def test_with_a_context_the_embedded_text_is_the_context_then_the_memory_once(summary, content, embedded):
    from memory.models import Memory
    from memory.services.archivist import embedding_text

    assert embedding_text(Memory(summary=summary, content=content), "Hike?") == embedded
