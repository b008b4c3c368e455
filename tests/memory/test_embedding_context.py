"""A memory's vector is of its text with the memory before it in its sequence as context
(memory.services.archivist.embedding_contexts), and goes back to the archivist whenever that context
changes: the previous memory forgotten, erased or redacted, a sequence link added or removed."""

from __future__ import annotations

import numpy as np
import pytest

from memory.embedding import get_embedder
from memory.models import Layer, Memory
from memory.services.archivist import embedding_contexts, embedding_text
from tests.memory.helpers import archive, ctx, save_event, tool

QUESTION = "Shall we hike the ridge trail next month?"
ANSWER = "Yes, let's do it when the weather is cooler."


def _memory(world, pk: str) -> Memory:
    with ctx(world):
        return Memory.objects.get(pk=pk)


def _vector_of(text: str) -> np.ndarray:
    return np.asarray(get_embedder().embed_passages([text])[0], dtype=np.float32)


@pytest.fixture
def pair(client, world, alice):
    """A question and its answer saved as its continuation (prev_event_id), both archived."""
    question = save_event(client, alice, QUESTION, QUESTION)
    answer = save_event(client, alice, ANSWER, ANSWER, prev_event_id=question)
    archive(world, question, answer)
    return question, answer


def test_the_answer_is_embedded_with_the_question_before_it(world, pair):
    question, answer = pair
    stored = _memory(world, answer)
    with ctx(world):
        assert embedding_contexts([stored]) == {stored.pk: QUESTION}
        assert embedding_contexts([_memory(world, question)]) == {}
    # The context first; the summary, being the content's opening, is not repeated beside it.
    assert embedding_text(stored, QUESTION) == f"{QUESTION}\n{ANSWER}"
    expected = _vector_of(f"{QUESTION}\n{ANSWER}")
    assert np.allclose(np.asarray(stored.embedding), expected, atol=1e-5)
    alone = _vector_of(f"{ANSWER}\n{ANSWER}")
    assert not np.allclose(np.asarray(stored.embedding), alone, atol=1e-3)
    # The first of a sequence has no context: its vector is what it was before contexts existed.
    assert np.allclose(
        np.asarray(_memory(world, question).embedding), _vector_of(f"{QUESTION}\n{QUESTION}"), atol=1e-5
    )


@pytest.mark.parametrize(
    "change",
    [{"layer": Layer.MEMBER}, {"visibility": "enterprise"}, {"scope": "private"}],
    ids=["another layer", "another visibility", "another scope"],
)
def test_a_previous_memory_with_other_readers_is_no_context(world, pair, change):
    """A context never carries text that a reader of the memory could not read itself."""
    question, answer = pair
    with ctx(world):
        Memory.objects.filter(pk=question).update(**change)
        assert embedding_contexts([Memory.objects.get(pk=answer)]) == {}


def _waiting(world, pk: str) -> bool:
    memory = _memory(world, pk)
    return memory.embedding is None and memory.embedding_model == "" and memory.archivist_waiting


def test_forgetting_the_previous_memory_sends_the_next_back_for_a_vector_without_it(
    client, world, alice, pair
):
    question, answer = pair
    assert tool(client, alice, "forget", {"id": question}).status_code == 200
    assert _waiting(world, answer)
    archive(world, answer)
    assert np.allclose(
        np.asarray(_memory(world, answer).embedding), _vector_of(f"{ANSWER}\n{ANSWER}"), atol=1e-5
    )


def test_erasing_the_previous_memory_sends_the_next_back(world, pair):
    from memory.services.erasure import memories_hard_delete

    question, answer = pair
    with ctx(world):
        memories_hard_delete(memory_ids=[question])
    assert _waiting(world, answer)
    archive(world, answer)
    assert np.allclose(
        np.asarray(_memory(world, answer).embedding), _vector_of(f"{ANSWER}\n{ANSWER}"), atol=1e-5
    )


def test_a_sequence_link_added_or_removed_sends_the_memory_back(client, world, alice, pair):
    _, answer = pair
    third = save_event(client, alice, "Bring water.", "Bring water.")
    archive(world, third)
    assert not _waiting(world, third)
    body = tool(client, alice, "update_memory", {"event_id": third, "add_prev_events": [answer]}).json()
    assert body["added_prev_events"] == [answer]
    assert _waiting(world, third) and not _waiting(world, answer)
    archive(world, third)
    assert np.allclose(
        np.asarray(_memory(world, third).embedding),
        _vector_of(f"{ANSWER}\nBring water."),
        atol=1e-5,
    )
    # Linking it again changes nothing, so nothing is sent back.
    tool(client, alice, "update_memory", {"event_id": third, "add_prev_events": [answer]})
    assert not _waiting(world, third)
    body = tool(client, alice, "update_memory", {"event_id": third, "remove_prev_events": [answer]}).json()
    assert body["removed_prev_events"] == [answer] and _waiting(world, third)


def test_a_redaction_by_a_rescan_sends_the_memory_and_the_next_back(world, pair):
    from memory.services.maintenance import guard_rescan

    question, answer = pair
    with ctx(world):
        Memory.objects.filter(pk=question).update(
            content="Shall we hike? The gate code: 7391, password is Tango2021!", guard_version="old"
        )
        Memory.objects.filter(pk=answer).update(guard_version="old")
        guard_rescan()
        redacted = Memory.objects.get(pk=question)
    assert "Tango2021!" not in redacted.content
    assert _waiting(world, question) and _waiting(world, answer)
