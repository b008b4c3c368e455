"""The console's people: alice (admin of A), dave (member of A), bob (auditor of A), charlie (no access)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from accounts.models import OrgRole
from tests.conftest import Person, World, add_person
from tests.memory.helpers import save_event


@dataclass
class Console:
    world: World
    dave: Person
    alice_secret: str
    dave_secret: str
    memory_ids: list[str]

    def person(self, role: str) -> Person:
        return {
            "admin": self.world.alice,
            "member": self.dave,
            "auditor": self.world.bob,
            "outsider": self.world.charlie,
        }[role]


@pytest.fixture
def console(client, world) -> Console:
    dave = add_person("dave", [(world.a, OrgRole.MEMBER)])
    alice_secret = world.alice.keys[world.a.enterprise.slug][1]
    dave_secret = dave.keys[world.a.enterprise.slug][1]
    ids = [
        save_event(
            client,
            alice_secret,
            "Deploys go through the blue pipeline",
            "Production deploys go through the blue pipeline since March; the green one is retired.",
            entities=["Blue pipeline"],
            tags=["ops/deploy"],
        ),
        save_event(
            client,
            alice_secret,
            "Dana owns the billing service",
            "Dana is the owner of the billing service and reviews its changes.",
            entities=["Dana", "billing service"],
            tags=["people"],
        ),
        save_event(
            client,
            dave_secret,
            "Staging database is refreshed nightly",
            "The staging database is refreshed from a masked production snapshot every night.",
            tags=["ops/db"],
        ),
    ]
    return Console(world=world, dave=dave, alice_secret=alice_secret, dave_secret=dave_secret, memory_ids=ids)
