"""Fixtures for partner links: alice's enterprise A consumes, bob's enterprise B provides."""

from __future__ import annotations

import pytest

from tests.partners.helpers import active_link


@pytest.fixture
def alice(world):
    """alice's access key in enterprise A (all scopes, project alpha)."""
    return world.alice.keys[world.a.enterprise.slug][1]


@pytest.fixture
def link(world):
    """An active link: B (bob's) provides project alpha to A (alice's)."""
    return active_link(world)
