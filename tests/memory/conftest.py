"""Fixtures the memory tests share."""

from __future__ import annotations

import pytest

from tests.memory.graph_helpers import build_corpus, build_hidden


@pytest.fixture
def alice(world):
    """alice's access key in enterprise A (all scopes, project alpha)."""
    return world.alice.keys[world.a.enterprise.slug][1]


@pytest.fixture
def bob_b(world):
    """bob's access key in enterprise B (all scopes)."""
    return world.bob.keys[world.b.enterprise.slug][1]


@pytest.fixture
def corpus(client, world, alice):
    """The query_memory_graph tests' five events (``build_corpus``); test_read.py has a corpus of its own."""
    return build_corpus(client, world, alice)


@pytest.fixture
def hidden(client, world, corpus, bob_b):
    """dana's author-only memory and tenant B's, wired into every relation of the graph corpus."""
    return build_hidden(client, world, corpus, bob_b)
