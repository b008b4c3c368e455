"""Train the learned password tagger (``memory/guard/credential_model.py``) and write its weights and card.

    .venv/bin/python -m bench.guard.train_credentials [--l2 3e-6] [--iterations 500] [--target-fp 0.005] [--floor 0.93]

Data (``bench/guard/splits.py``):

- positives: the tokens of each password of the prose-credential sets (``PROSE_SETS``) that are not blind
  (``BLIND_PROSE``: never trained on, never read: the honest figure);
- negatives: every other candidate token of those sets (their ordinary notes are look-alikes written to
  trip a rule: "password reset link expires in 24h", "kargo takip kodu 7250183349"), and the candidates of
  ordinary writing (LoCoMo, BIPIA's clean e-mails, NotInject and the benign requests, code, Django's
  interface text): its tuning part, 80% train and 20% validation (``training_side``).

The threshold is chosen by leaving each prose set out in turn (its notes scored by a tagger trained on
the others): the lowest at which the tagger alters at most ``--target-fp`` of the left-out sets' ordinary
notes that the rules leave alone, pooled, and none of the ordinary writing of the validation side; and
never under ``--floor``. The card records each set's left-out recall beside the rules'.
"""

from __future__ import annotations

import argparse
import functools
import json
import time
from collections.abc import Sequence

import numpy as np

from bench.guard.splits import (
    BLIND_PROSE,
    PROSE_SET_NAMES,
    Item,
    benign_code,
    benign_interface_text,
    part,
    poisoning_sets,
    prose_credentials,
    training_side,
)
from bench.guard.train import fit, training_arguments
from memory.guard import guard_redact
from memory.guard.credential_model import CARD, WEIGHTS, candidates, features, rules_only, score
from memory.guard.lexicon import _trim

Note = tuple[str, str, str | None]  # set, text, the password (None: an ordinary note)


@functools.cache  # each fold trains on the same notes again: their features are computed once
def rows_of(text: str, secret: str | None) -> tuple[list[list[int]], list[int], list[tuple[int, int]]]:
    """Each candidate's features, its label (it overlaps the password) and its trimmed span (read only)."""
    span = None
    if secret:
        at = text.find(secret)
        span = (at, at + len(secret))
    rows, labels, spans = [], [], []
    for i, tokens, nearest in candidates(text):
        s, e = _trim(text, *tokens[i])
        rows.append(features(text, i, tokens, nearest))
        labels.append(int(span is not None and e > s and s < span[1] and span[0] < e))
        spans.append((s, e))
    return rows, labels, spans


def ordinary() -> list[Item]:
    """Ordinary writing, every text (the tagger reads only those with a credential, sign-in or code word)."""
    return [*(i for i in poisoning_sets() if not i.attack), *benign_code(), *benign_interface_text()]


def train(
    notes: Sequence[Note], texts: Sequence[str], *, l2: float, iterations: int
) -> tuple[np.ndarray, float]:
    rows: list[list[int]] = []
    labels: list[int] = []
    groups: list[str] = []
    for _, text, secret in notes:
        r, y, _ = rows_of(text, secret)
        rows += r
        labels += y
        groups += ["password" if label else "notes" for label in y]
    for text in texts:
        r, y, _ = rows_of(text, None)
        rows += r
        labels += y
        groups += ["ordinary"] * len(r)
    w, b = fit(rows, np.array(labels, dtype=np.float64), groups, l2=l2, iterations=iterations)
    return w.astype(np.float16).astype(np.float32), b  # as shipped


def found(text: str, secret: str, spans: Sequence[tuple[int, int]]) -> bool:
    """The password is no longer whole once any of ``spans`` touches it (bench/guard/heldout.py's measure)."""
    at = text.find(secret)
    return any(s < at + len(secret) and at < e for s, e in spans)


def main(argv: Sequence[str] | None = None) -> int:
    # Half the 1%: the left-out figure is optimistic. Each prose set's ordinary notes that the tagger
    # altered were read and their shapes fixed in the rules and the tagger's eligibility, so a left-out set is
    # easier than a new one: at a threshold chosen for 1% left out, the first (blind) measurement of each
    # set of session 38 found the tagger altering 2-6% of its ordinary notes (bench/RESULTS.md).
    # The floor: even at 0.5% the chosen threshold fell as the read sets' look-alikes were fixed (0.934 before
    # heldout23, 0.888 before heldout27), and each blind set's ordinary notes were altered by the tagger the
    # more, the lower it stood: 0 of 200 at 0.934, 1-4 of 200 at 0.906-0.911, 4 at 0.888 (session 38). Set
    # in session 39 from those first measurements, before heldout28 was measured.
    # L2 and iterations (session 44, chosen on five folds of the read sets, each scored by a tagger trained on the
    # other four, before any blind set was measured): 1e-5 / 400 found 4,700 of 5,090 with 33 of 4,720 ordinary
    # notes altered; 5e-6 / 400 4,712 / 32; 3e-6 / 500 4,720 / 32; 2e-6 / 600 4,728 / 34; 5e-6 / 800 4,722 / 36.
    args = training_arguments(argv, __doc__, l2=3e-6, iterations=500, target_fp=0.005, floor=0.93)
    started = time.perf_counter()
    with rules_only():  # the rules' verdicts, not the shipped tagger's
        return _train(args, started)


def _train(args: argparse.Namespace, started: float) -> int:
    sets = [name for name in PROSE_SET_NAMES if name not in BLIND_PROSE]
    notes: list[Note] = [
        (name, row["text"], row.get("secret") if row["label"] == "secret" else None)
        for name in sets
        for row in prose_credentials(name)
    ]
    tune = [i for i in ordinary() if part(i.dataset, i.key) == "tune"]
    texts = [i.text for i in tune if training_side(i) == "train"]
    validation = [i.text for i in tune if training_side(i) == "validation"]

    # Leave each set out: its notes scored by a tagger trained on the others.
    left_out: list[tuple[str, str, str | None, list[tuple[float, tuple[int, int]]], bool]] = []
    for name in sets:
        w, b = train([n for n in notes if n[0] != name], texts, l2=args.l2, iterations=args.iterations)
        for _, text, secret in (n for n in notes if n[0] == name):
            r, _, spans = rows_of(text, secret)
            by_rules = guard_redact(text)[0]
            ruled = secret.strip("!?.#*@$") not in by_rules if secret else by_rules != text
            left_out.append(
                (name, text, secret, [(score(w, b, f), s) for f, s in zip(r, spans, strict=True)], ruled)
            )
        print(f"  left out {name}: {time.perf_counter() - started:.0f} s", flush=True)

    w, b = train(notes, texts, l2=args.l2, iterations=args.iterations)
    ordinary_scores = [max((score(w, b, f) for f in rows_of(t, None)[0]), default=0.0) for t in validation]
    ordinary_scores = [s for s, t in zip(ordinary_scores, validation, strict=True) if guard_redact(t)[0] == t]
    benign = sorted(
        max((v for v, _ in scored), default=0.0)
        for _, _, secret, scored, ruled in left_out
        if not secret and not ruled
    )
    allowed = int(args.target_fp * len(benign))
    threshold = max(
        benign[-(allowed + 1)] + 1e-6 if len(benign) > allowed else 0.5,
        max(ordinary_scores, default=0.0) + 1e-6,
        args.floor,
    )
    for t in (0.5, 0.7, 0.8, 0.9, 0.95, threshold):
        gained = sum(not x[4] and found(x[1], x[2], [s for v, s in x[3] if v >= t]) for x in left_out if x[2])
        extra = sum(not x[4] and any(v >= t for v, _ in x[3]) for x in left_out if not x[2])
        print(
            f"  at {t:.4f}: passwords the rules miss found (left out) {gained}, ordinary notes altered {extra}/{len(benign)}"
        )
    per_set = {}
    for name in sets:
        mine = [x for x in left_out if x[0] == name]
        secrets = [x for x in mine if x[2]]
        rules = sum(x[4] for x in secrets)
        both = sum(x[4] or found(x[1], x[2] or "", [s for v, s in x[3] if v >= threshold]) for x in secrets)
        altered = sum(x[4] or any(v >= threshold for v, _ in x[3]) for x in mine if not x[2])
        per_set[name] = {
            "passwords": len(secrets),
            "rules": rules,
            "rules_and_tagger_left_out": both,
            "ordinary_notes": len(mine) - len(secrets),
            "ordinary_notes_altered_left_out": altered,
        }
        print(
            f"  {name}: rules {rules}/{len(secrets)}, with the tagger (left out) {both}/{len(secrets)}, notes altered {altered}/{len(mine) - len(secrets)}"
        )
    WEIGHTS.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(WEIGHTS, weights=w.astype(np.float16), bias=np.float64(b))
    card = {
        "version": time.strftime("%Y.%m.%d"),
        "kind": "logistic regression over hashed features of candidate tokens near a credential, sign-in, code or lock word (memory/guard/credential_model.py)",
        "threshold": round(threshold, 6),
        "training": {
            "command": "python -m bench.guard.train_credentials",
            "prose_sets": sets,
            "blind_prose_sets_never_used": list(BLIND_PROSE),
            "ordinary": "the tuning part of LoCoMo's turns, BIPIA's clean e-mails, NotInject, the benign requests, code and interface text (bench/guard/splits.py), 80% train, 20% validation",
            "l2": args.l2,
            "iterations": args.iterations,
            "target_fp": args.target_fp,
            "floor": args.floor,
        },
        "threshold_rule": "the lowest at which the left-out sets' ordinary notes the rules leave alone are altered at most target_fp of the time, pooled, and no ordinary text of the validation side is; never under floor",
        "left_out": per_set,
        "provenance": {
            "prose sets": "bench/guard/data/prose_credentials_*.jsonl, written for this bench (sessions 27-38; heldout8-17 by helpers that never read the rules)",
            "ordinary": "as bench/guard/train.py's card: LoCoMo (snap-research), BIPIA and NotInject (MIT), gitleaks' strings (MIT), Django 5.2's source and catalogues (BSD-3-Clause)",
        },
    }
    CARD.write_text(json.dumps(card, indent=2) + "\n")
    print(
        f"threshold {threshold:.4f}; wrote {WEIGHTS.name}, {CARD.name} in {time.perf_counter() - started:.0f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
