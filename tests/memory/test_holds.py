"""Legal holds on the real database: a hold on a project, an entity or a tag blocks forget (the tool over
REST and the console), erasure and retention; a release lifts it; who may; audited; other tenants untouched."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import AuditEvent, OrgRole
from core.errors import Conflict, Forbidden, InvalidInput, NotFound
from memory.models import LegalHold, Memory
from memory.selectors.holds import holds_active, holds_list
from memory.services.erasure import erasure_confirm, erasure_request
from memory.services.holds import hold_check, hold_create, hold_release
from memory.services.retention import retention_apply, retention_plan, retention_policy_create
from tests.conftest import add_person
from tests.memory.helpers import ctx, save_event, tool

pytestmark = pytest.mark.django_db

HELD = "memory is under legal hold '{name}' ({label}): it cannot be forgotten, erased or aged out"


def _alice(world):
    return world.alice.members[world.a.enterprise.slug]


def _forget(client, secret, memory_id):
    return tool(client, secret, "forget", {"id": memory_id, "reason": "cleanup"})


@pytest.fixture
def saved(client, world, alice):
    """Three of alice's events in A's project alpha: one names Dana, one is tagged legal/contracts, one neither."""
    return {
        "dana": save_event(
            client, alice, "Dana signed the lease", "Dana signed the office lease.", entities=["Dana"]
        ),
        "contract": save_event(
            client,
            alice,
            "Vendor contract renewed",
            "The vendor contract runs to 2028.",
            tags=["legal/contracts"],
        ),
        "plain": save_event(client, alice, "Lunch moved", "Team lunch moved to Thursday."),
    }


def test_a_project_hold_blocks_the_forget_tool_and_a_release_lifts_it(client, world, alice, saved):
    with ctx(world):
        hold = hold_create(
            member=_alice(world), target="project", ref="alpha", name="Litigation 2026", reason="case 12-345"
        )
    refused = _forget(client, alice, saved["plain"])
    assert refused.status_code == 409
    body = refused.json()
    assert body["error"] == HELD.format(name="Litigation 2026", label="project alpha")
    assert body["code"] == "legal_hold" and body["hold_id"] == str(hold.pk)
    with ctx(world):
        assert Memory.objects.get(pk=saved["plain"]).forgotten_at is None
        hold_release(member=_alice(world), hold_id=hold.pk, note="case closed")
        assert not holds_active().exists()
        # Released, it stays on record; a second release changes nothing.
        again = hold_release(member=_alice(world), hold_id=hold.pk)
        assert again.released_at is not None and LegalHold.objects.count() == 1
        actions = list(
            AuditEvent.objects.filter(action__startswith="legal_hold.")
            .order_by("id")
            .values_list("action", flat=True)
        )
        assert actions == ["legal_hold.create", "legal_hold.release"]
        created = AuditEvent.objects.get(action="legal_hold.create")
        assert created.details["project"] == "alpha" and created.details["name"] == "Litigation 2026"
    assert _forget(client, alice, saved["plain"]).status_code == 200


def test_an_entity_hold_covers_only_memories_naming_it(client, world, alice, saved):
    with ctx(world):
        hold_create(member=_alice(world), target="entity", ref="dana", name="Dana's claim")
    refused = _forget(client, alice, saved["dana"])
    assert refused.status_code == 409
    assert refused.json()["error"] == HELD.format(name="Dana's claim", label="entity Dana")
    assert _forget(client, alice, saved["plain"]).status_code == 200
    with ctx(world):
        # The audit names the entity by id only (an erasure may remove the name later).
        details = AuditEvent.objects.get(action="legal_hold.create").details
        assert "entity_id" in details and "Dana" not in str({k: v for k, v in details.items() if k != "name"})


def test_a_tag_hold_covers_the_tags_below_it(client, world, alice, saved):
    with ctx(world):
        hold_create(member=_alice(world), target="tag", ref="legal", name="Contracts audit")
    refused = _forget(client, alice, saved["contract"])
    assert refused.status_code == 409
    assert refused.json()["error"] == HELD.format(name="Contracts audit", label="tag legal")
    assert _forget(client, alice, saved["dana"]).status_code == 200


def test_the_console_forget_answers_with_the_hold(client, world, saved):
    with ctx(world):
        hold_create(member=_alice(world), target="project", ref="alpha", name="Litigation 2026")
    client.force_login(world.alice.user)
    response = client.post(f"/console/memories/{saved['plain']}/forget/", {"reason": "x"})
    assert response.status_code == 409
    assert "under legal hold &#x27;Litigation 2026&#x27; (project alpha)" in response.content.decode()
    with ctx(world):
        assert Memory.objects.get(pk=saved["plain"]).forgotten_at is None


def test_a_hold_blocks_erasure(client, world, saved):
    with ctx(world):
        hold = hold_create(member=_alice(world), target="tag", ref="legal/contracts", name="Contracts audit")
        # The vendor contract names Dana too now: erasing Dana would erase a held memory.
        from memory.models import Entity, MemoryEntity

        MemoryEntity.objects.create(
            enterprise_id=world.a.enterprise.pk,
            memory_id=saved["contract"],
            entity=Entity.objects.get(key="dana"),
        )
        erasure = erasure_request(member=_alice(world), subject="entity", entity_ref="Dana")
        assert erasure.counts["preview"]["held"]["hold_id"] == str(hold.pk)
        with pytest.raises(Conflict) as refused:
            erasure_confirm(member=_alice(world), erasure_id=erasure.pk)
        assert refused.value.code == "legal_hold"
        assert "legal hold 'Contracts audit' (tag legal/contracts)" in refused.value.message
        assert Memory.objects.filter(pk__in=[saved["dana"], saved["contract"]]).count() == 2
        hold_release(member=_alice(world), hold_id=hold.pk)
        done = erasure_confirm(member=_alice(world), erasure_id=erasure.pk)
        assert (
            done.state == "done"
            and not Memory.objects.filter(pk__in=[saved["dana"], saved["contract"]]).exists()
        )


def test_a_hold_on_the_entity_itself_blocks_its_erasure(client, world, saved):
    with ctx(world):
        hold_create(member=_alice(world), target="entity", ref="Dana", name="Dana's claim")
        erasure = erasure_request(member=_alice(world), subject="entity", entity_ref="Dana")
        with pytest.raises(Conflict) as refused:
            erasure_confirm(member=_alice(world), erasure_id=erasure.pk)
        assert refused.value.message == HELD.format(name="Dana's claim", label="entity Dana")


def test_a_hold_keeps_memories_from_retention_and_is_counted(client, world, saved):
    with ctx(world):
        Memory.objects.update(created_at=timezone.now() - timedelta(days=40))
        policy = retention_policy_create(member=_alice(world), name="old events", max_age_days=30)
        hold_create(member=_alice(world), target="entity", ref="Dana", name="Dana's claim")
        (plan,) = retention_plan().policies
        assert plan.would_go == 2 and plan.held == 1
        batch = retention_apply()
        assert batch.applied == {str(policy.pk): 2} and batch.held == {str(policy.pk): 1}
        assert Memory.objects.get(pk=saved["dana"]).forgotten_at is None
        assert Memory.objects.filter(forgotten_at__isnull=False).count() == 2


def test_hold_check_over_a_queryset_names_how_many(client, world, saved):
    with ctx(world):
        hold_create(member=_alice(world), target="project", ref="alpha", name="Everything")
        with pytest.raises(Conflict) as refused:
            hold_check(memories=Memory.objects.all(), action="erase")
        assert refused.value.message == (
            "3 memories are under legal hold 'Everything' (project alpha): they cannot be forgotten, erased or aged out"
        )
        hold_check(memories=Memory.objects.none(), action="erase")  # nothing held: no refusal


def test_only_owners_and_admins_place_or_release_holds(client, world, saved):
    dave = add_person("dave", [(world.a, OrgRole.MEMBER)]).members[world.a.enterprise.slug]
    bob_auditor = world.bob.members[world.a.enterprise.slug]
    with ctx(world):
        for member in (dave, bob_auditor):
            with pytest.raises(Forbidden) as refused:
                hold_create(member=member, target="project", ref="alpha", name="x")
            assert refused.value.message == "only an owner or an admin may place or release a legal hold"
        hold = hold_create(member=_alice(world), target="project", ref="alpha", name="Litigation 2026")
        with pytest.raises(Forbidden):
            hold_release(member=dave, hold_id=hold.pk)
        # The auditor sees it (the read-only admin lists it too: tests/accounts/test_admin.py).
        assert [h.name for h in holds_list()] == ["Litigation 2026"]


def test_bad_input_gets_the_exact_text(client, world, saved):
    member = _alice(world)
    with ctx(world):
        cases = [
            (
                {"target": "folder", "ref": "alpha", "name": "x"},
                InvalidInput,
                "target must be one of: project, entity, tag",
            ),
            (
                {"target": "project", "ref": "alpha", "name": "  "},
                InvalidInput,
                "a legal hold needs a name (1 to 200 characters)",
            ),
            (
                {"target": "project", "ref": "gamma", "name": "x"},
                NotFound,
                "no project 'gamma' in this enterprise",
            ),
            (
                {"target": "entity", "ref": "Nobody", "name": "x"},
                NotFound,
                "no entity 'Nobody' in this enterprise",
            ),
            ({"target": "tag", "ref": "nope", "name": "x"}, NotFound, "no tag 'nope' in this enterprise"),
        ]
        for arguments, error, text in cases:
            with pytest.raises(error) as refused:
                hold_create(member=member, **arguments)
            assert refused.value.message == text
        with pytest.raises(NotFound) as missing:
            hold_release(member=member, hold_id="not-a-uuid")
        assert missing.value.message == "legal hold not found"


def test_a_hold_in_one_enterprise_leaves_another_untouched(client, world, saved, bob_b):
    theirs = save_event(client, bob_b, "Globex note", "Globex keeps its own notes.")
    bob_admin_b = world.bob.members[world.b.enterprise.slug]
    with ctx(world):
        hold = hold_create(member=_alice(world), target="project", ref="alpha", name="Litigation 2026")
    with ctx(world, "b"):
        assert not holds_active().exists()
        # A's hold is not found from B (another tenant's object is a missing one).
        with pytest.raises(NotFound):
            hold_release(member=bob_admin_b, hold_id=hold.pk)
    assert _forget(client, bob_b, theirs).status_code == 200
