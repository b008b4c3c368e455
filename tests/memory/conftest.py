"""Fixtures the memory tests share."""

from __future__ import annotations

import pytest


@pytest.fixture
def alice(world):
    """alice's access key in enterprise A (all scopes, project alpha)."""
    return world.alice.keys[world.a.enterprise.slug][1]
