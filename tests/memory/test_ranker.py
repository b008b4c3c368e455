"""The learned ranker (memory.ranker): its features, its shipped weights, and hybrid_rank's use of it."""

from __future__ import annotations

import json
import math

import pytest

from memory import ranker
from tests.memory.helpers import archive, ctx, save_event, tool


def _candidates(**overrides) -> ranker.Candidates:
    fields = {
        "fused": {"a": 2.0, "b": 1.0, "c": 0.5, "d": 0.25},
        "text": ["b", "a"],
        "vector": [("a", 0.9), ("c", 0.8), ("b", 0.5)],
        "cosines": {"a": 0.9, "b": 0.5, "c": 0.8},  # "d" has no vector yet
        "neighbours": [("a", "b"), ("c", "zz")],  # "zz" is no candidate
        "asks": ["c"],
        "named": ["a"],
        "timed": ["d"],
    }
    return ranker.Candidates(**(fields | overrides))


def test_each_feature_is_what_the_docstring_says():
    table = ranker.features(_candidates())
    assert list(table) == ["a", "b", "c", "d"]
    named = dict(zip(ranker.FEATURES, table["a"], strict=True))
    assert named == {
        "fused": 2.0,
        "vector": 1.0,  # the vector list's best
        "cosine_gap": 0.0,
        "named_time": 0.0,
        "text_rank": 0.5,  # second in the text channel
        "vector_rank": 1.0,
        "neighbour": 1.0,  # b's fused score
        "question": 0.0,
        "other_entity": 0.0,  # linked to the entity the query names
    }
    b, c, d = (dict(zip(ranker.FEATURES, table[k], strict=True)) for k in "bcd")
    assert b["vector"] == 0.0 and b["text_rank"] == 1.0 and b["neighbour"] == 2.0 and b["other_entity"] == 1.0
    assert math.isclose(b["cosine_gap"], 0.4) and math.isclose(c["vector"], 0.75)
    assert c["question"] == 1.0 and c["neighbour"] == 0.0 and c["vector_rank"] == 1 / 2
    # No vector: the farthest the vector list reaches, the nearest such a memory can be; found by no channel.
    assert math.isclose(d["cosine_gap"], 0.4) and d["vector"] == d["text_rank"] == d["vector_rank"] == 0.0
    assert d["named_time"] == 1.0
    # When the query names no entity the candidates carry, nobody is "another" entity's.
    assert all(row[-1] == 0.0 for row in ranker.features(_candidates(named=[])).values())


@pytest.mark.parametrize(
    "text, asks",
    [
        ("Did you adopt the dog?", True),
        ("¿Adoptaste al perro", True),
        ("你领养了那只狗吗？", True),
        ("I adopted the dog.", False),
    ],
)
def test_a_memory_asks_when_it_holds_a_question_mark(text, asks):
    assert ranker.asks(text) is asks


def test_the_shipped_model_loads_and_says_what_it_was_trained_on():
    model = ranker.load()
    assert model is not None and model.features == ranker.FEATURES
    assert all(math.isfinite(x) for x in (*model.mean, *model.weights, model.bias)) and min(model.scale) > 0
    assert "conv-26" in model.card["trained_on"] and model.card["held_out"]
    weight = dict(zip(model.features, model.weights, strict=True))
    # What the module's docstring explains the model by: asking, another entity's, a worse cosine cost;
    # the hand fusion's score and a strong neighbour gain.
    assert weight["question"] < 0 and weight["other_entity"] < 0 and weight["cosine_gap"] < 0
    assert weight["fused"] > 0 and weight["neighbour"] > 0
    scores = ranker.rank(_candidates(), model)
    assert set(scores) == {"a", "b", "c", "d"} and all(0.0 < s < 1.0 for s in scores.values())


def test_the_model_orders_the_candidates_given_and_the_rest_follow_in_the_fused_order():
    model = ranker.load()
    assert model is not None
    candidates = _candidates(reorder=["c", "d"])
    assert set(ranker.features(candidates)) == {"c", "d"}
    scores = ranker.rank(candidates, model)
    assert min(scores["c"], scores["d"]) > scores["a"] > scores["b"] > 0.0  # a and b: fused 2.0 and 1.0
    assert scores["c"] == ranker.rank(_candidates(), model)["c"]  # its features do not depend on reorder


def test_without_a_model_for_these_features_the_hand_fusion_stands(tmp_path, monkeypatch):
    other = tmp_path / "ranker.json"
    other.write_text(json.dumps({"features": ["fused", "length"], "mean": [0, 0], "scale": [1, 1]}))
    assert ranker.load(other) is None
    assert ranker.load(tmp_path / "missing.json") is None
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    assert ranker.load(broken) is None
    candidates = _candidates()
    assert ranker.rank(candidates) != candidates.fused  # the shipped model
    monkeypatch.setattr(ranker, "load", lambda path=ranker.WEIGHTS: None)
    assert ranker.rank(candidates) == candidates.fused


def _only(feature: str, weight: float) -> ranker.Model:
    """A model that reads one feature."""
    n = len(ranker.FEATURES)
    weights = tuple(weight if name == feature else 0.0 for name in ranker.FEATURES)
    return ranker.Model(ranker.FEATURES, (0.0,) * n, (1.0,) * n, weights, 0.0, {})


def test_hybrid_rank_hands_the_ranker_what_the_database_holds(client, world, alice, monkeypatch):
    ask = save_event(
        client, alice, "Did Sam adopt the quokka?", "Did Sam adopt the quokka Pip?", entities=["Sam"]
    )
    say = save_event(
        client,
        alice,
        "Sam adopted Pip.",
        "Yes, I adopted the quokka Pip.",
        entities=["Sam"],
        prev_event_id=ask,
    )
    other = save_event(client, alice, "Dana's quokka.", "Dana fed a quokka at the zoo.", entities=["Dana"])
    unembedded = save_event(client, alice, "Quokka note", "A quokka note nobody embedded yet.")
    archive(world, ask, say, other)
    seen: list[ranker.Candidates] = []
    real_rank = ranker.rank

    def spy(candidates, model=None):
        seen.append(candidates)
        return real_rank(candidates, model)

    monkeypatch.setattr(ranker, "rank", spy)
    body = tool(client, alice, "search_memory", {"query": "Did Sam adopt a quokka in May 2023?"}).json()
    assert {h["event_id"] for h in body["hits"]} == {ask, say, other, unembedded}
    (c,) = seen
    as_str = lambda ids: {str(pk) for pk in ids}  # noqa: E731
    assert as_str(c.fused) == {ask, say, other, unembedded}
    assert as_str(c.asks) == {ask}
    assert as_str(c.named) == {ask, say}  # linked to Sam, whom the query names
    assert {(str(a), str(b)) for a, b in c.neighbours} == {(ask, say)}
    assert as_str(c.cosines) == {ask, say, other}  # read exactly; the memory without a vector has none
    # The vector channel (HNSW, approximate: on three rows it may return two) agrees where it answered.
    assert c.vector and all(c.cosines[pk] == pytest.approx(cos, abs=1e-6) for pk, cos in c.vector)
    assert as_str(c.text) <= {ask, say, other, unembedded} and not c.timed  # saved today, not in May 2023
    assert c.reorder == sorted(c.fused, key=lambda pk: (-c.fused[pk], str(pk)))  # fewer than REORDER_DEPTH
    # The hits come in the ranker's order, scored by it.
    assert [h["score"] for h in body["hits"]] == sorted((h["score"] for h in body["hits"]), reverse=True)
    assert all(0.0 < h["score"] < 1.0 for h in body["hits"])


@pytest.mark.parametrize("weight", [-4.0, 4.0])
def test_the_order_is_the_models(client, world, alice, monkeypatch, weight):
    """A model that reads only whether a memory asks puts the asking one last, or first."""
    ask = save_event(client, alice, "Quokka question", "Did Sam adopt the quokka Pip at the shelter?")
    say = save_event(client, alice, "Quokka answer", "Sam adopted the quokka Pip at the shelter.")
    archive(world, ask, say)
    monkeypatch.setattr(ranker, "load", lambda path=ranker.WEIGHTS: _only("question", weight))
    hits = tool(client, alice, "search_memory", {"query": "quokka Pip shelter"}).json()["hits"]
    assert [h["event_id"] for h in hits] == ([say, ask] if weight < 0 else [ask, say])


def test_without_vectors_the_hand_fusion_orders(client, world, alice, monkeypatch):
    """No vector yet (or the embedder down): half the features are missing, so the hand fusion's order
    and scores stand."""
    first = save_event(client, alice, "Quokka", "A quokka at the shelter.")
    second = save_event(client, alice, "Quokka again", "Another quokka, the quokka Pip, at the shelter?")
    called = []
    monkeypatch.setattr(ranker, "rank", lambda *a, **k: called.append(a) or {})
    hits = tool(client, alice, "search_memory", {"query": "quokka shelter"}).json()["hits"]
    assert {h["event_id"] for h in hits} == {first, second} and not called
    assert max(h["score"] for h in hits) == 1.0  # the text channel's best, min-max normalised: no sigmoid
    with ctx(world):
        from memory.models import Memory

        assert not Memory.objects.filter(embedding__isnull=False).exists()


def test_only_the_best_of_the_hand_fusion_are_reordered(client, world, alice, monkeypatch):
    ids = [save_event(client, alice, f"Quokka {i}", f"Quokka sighting number {i}?") for i in range(4)]
    archive(world, *ids)
    monkeypatch.setattr(ranker, "REORDER_DEPTH", 2)
    seen: list[ranker.Candidates] = []
    real_rank = ranker.rank
    monkeypatch.setattr(ranker, "rank", lambda c, model=None: seen.append(c) or real_rank(c, model))
    hits = tool(client, alice, "search_memory", {"query": "quokka sighting"}).json()["hits"]
    (c,) = seen
    assert c.reorder is not None and len(c.reorder) == 2 and set(c.cosines) == set(c.reorder) == set(c.asks)
    assert {h["event_id"] for h in hits[:2]} == {str(pk) for pk in c.reorder}
    rest = [h for h in hits if h["event_id"] not in {str(pk) for pk in c.reorder}]
    assert [h["event_id"] for h in rest] == [
        str(pk) for pk in sorted(set(c.fused) - set(c.reorder), key=lambda pk: (-c.fused[pk], str(pk)))
    ]
