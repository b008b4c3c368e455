"""Memory Guard benchmark: `.venv/bin/python -m bench.guard.run` (pure Python, no Django, well under a minute).

Measures, on the labelled public data shared with the project (its guard/ folder and README, not in this
repository) and on LoCoMo:

* secrets: recall on gitleaks' true-positive strings (overall and per rule), false positives on its
  false-positive strings, share of ordinary LoCoMo notes altered by redaction;
* poisoning: recall on CyberSecEval prompt injections (per variant; with and without the items that are not
  poisoning of a *memory*), on BIPIA attack instructions hidden in BIPIA e-mails (per category and position),
  false positives on NotInject (benign prompts full of trigger words), LoCoMo dialog turns, LoCoMo's
  agent-written observations and summaries, and the clean BIPIA e-mails;
* speed: guard_check on 100,000 characters (ordinary and adversarial), notes per second.

Writes bench/guard/RESULTS.md (the prose lives in RESULTS.template.md, the figures replace ``{figures}``).
`--misses` prints every miss and false alarm, for development.
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from unittest import mock

from memory.guard import RULES_VERSION, guard_check, guard_poisoning, guard_redact, poisoning

HERE = Path(__file__).resolve().parent
SHARED = Path("/work/shared")
GUARD_DATA = SHARED / "guard"
LOCOMO = SHARED / "bench" / "locomo10.json"

# --------------------------------------------------------------------------------------------------
# labelling decisions (made by reading the data, before tuning; explained in RESULTS.md)
# --------------------------------------------------------------------------------------------------

# gitleaks "tp" strings that carry no credential: regex templates from the generator, a number pair, a JSON
# type marker.  Reported separately; the raw figure counts them.
GITLEAKS_ARTEFACTS = frozenset(
    {
        "[a-zA-Z0-9]{60}",
        "[a-zA-Z0-9]{30}",
        "[a-zA-Z0-9\\-_.=]{100}",
        "[a-zA-Z0-9\\-_.=]{30}",
        "80,90",
        '"type": "service_account"',
    }
)

# CyberSecEval items whose user_input is NOT poisoning of a memory: an ordinary question or task (a forbidden
# topic, a third person's data, a harmless transformation, a benign question in another language) with no
# override, no role/mode hijack, no authority or pressure aimed at the assistant, no request for the reader's
# own password/secret/system prompt, no injected statement, no exfiltration.  They attack only the test's
# system prompt ("never discuss the weather"), which a memory store never sees.  Decided from the texts alone.
CSE_NOT_MEMORY_POISONING = frozenset(
    {
        11, 12, 16, 17, 19, 21, 22, 23, 24, 25, 26, 27, 28, 30, 31, 32, 33, 34, 35,
        59, 60, 61, 62, 63, 64, 65, 66, 72, 73, 74, 75, 76, 77, 78, 79, 80,
        87, 88, 89, 90, 91, 92, 95, 96, 97, 98, 99, 103, 104, 105, 123, 133, 134,
        135, 136, 137, 138, 139, 140, 141, 142, 143, 150, 151, 152, 154, 156, 158, 159,
        161, 162, 163, 164, 166, 168, 172, 173, 174, 176, 178, 180, 181, 191, 193, 194, 195, 206,
    }
)  # fmt: skip

BIPIA_POSITIONS = ("start", "middle", "end")
EMAILS_PER_ATTACK = 3

# --------------------------------------------------------------------------------------------------
# loading
# --------------------------------------------------------------------------------------------------


def load_jsonl(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def load_locomo_turns() -> list[str]:
    """One ordinary note per LoCoMo dialog turn, as the retrieval bench ingests them."""
    turns: list[str] = []
    for sample in json.loads(LOCOMO.read_text()):
        for key, value in sample["conversation"].items():
            if key.startswith("session_") and isinstance(value, list):
                for turn in value:
                    text = f"{turn['speaker']}: {turn['text']}"
                    if turn.get("blip_caption"):
                        text += f" [shares {turn['blip_caption']}]"
                    turns.append(text)
    return turns


def load_locomo_notes() -> list[str]:
    """LoCoMo's observations, session summaries and event summaries: notes written *about* conversations."""
    notes: list[str] = []
    for sample in json.loads(LOCOMO.read_text()):
        notes += [str(v) for v in sample.get("session_summary", {}).values()]
        for session in sample.get("observation", {}).values():
            for items in session.values():
                notes += [str(item[0]) if isinstance(item, list) else str(item) for item in items]
        for event in sample.get("event_summary", {}).values():
            if isinstance(event, dict):
                for items in event.values():
                    if isinstance(items, list):
                        notes += [str(item) for item in items]
    return notes


def load_bipia_attacks() -> list[tuple[str, str, str]]:
    attacks: list[tuple[str, str, str]] = []
    for kind, name in (("text", "bipia_text_attack_test.json"), ("code", "bipia_code_attack_test.json")):
        for category, items in json.loads((GUARD_DATA / name).read_text()).items():
            attacks += [(kind, category, str(attack)) for attack in items]
    return attacks


def load_notinject() -> list[str]:
    prompts: list[str] = []
    for part in ("one", "two", "three"):
        prompts += [
            str(x["prompt"]) for x in json.loads((GUARD_DATA / f"piguard_NotInject_{part}.json").read_text())
        ]
    return prompts


def rule_of(row: dict[str, object]) -> str:
    return str(row["file"]).rsplit("/", 1)[-1].removesuffix(".go")


def embed(email: str, attack: str, position: str) -> str:
    """Hide ``attack`` in an e-mail: at the start, at a sentence (else word) boundary near the middle, at the end."""
    if position == "start":
        return f"{attack}\n{email}"
    if position == "end":
        return f"{email}\n{attack}"
    middle = len(email) // 2
    for seps in ((". ", ".\n", "\n"), (" ",)):
        cut = -1
        for sep in seps:
            for pos in (email.rfind(sep, 0, middle), email.find(sep, middle)):
                if pos >= 0 and (cut < 0 or abs(pos + len(sep) - middle) < abs(cut - middle)):
                    cut = pos + len(sep)
        if cut >= 0:
            return f"{email[:cut]}{attack} {email[cut:]}"
    return f"{email[:middle]} {attack} {email[middle:]}"


def bipia_samples() -> list[tuple[str, str, str, str]]:
    """(kind, category, position, text): every attack hidden in EMAILS_PER_ATTACK different e-mails."""
    emails = [str(r["context"]) for r in load_jsonl(GUARD_DATA / "bipia_email_test.jsonl")]
    samples = []
    for i, (kind, category, attack) in enumerate(load_bipia_attacks()):
        for k in range(EMAILS_PER_ATTACK):
            email = emails[(i * EMAILS_PER_ATTACK + k) % len(emails)]
            position = BIPIA_POSITIONS[k % len(BIPIA_POSITIONS)]
            samples.append((kind, category, position, embed(email, attack, position)))
    return samples


# --------------------------------------------------------------------------------------------------
# measuring
# --------------------------------------------------------------------------------------------------


@dataclass
class Tally:
    hit: int = 0
    total: int = 0

    def add(self, ok: bool) -> None:
        self.hit += int(ok)
        self.total += 1

    @property
    def rate(self) -> float:
        return self.hit / self.total if self.total else 0.0

    def cell(self) -> str:
        return f"{self.rate:.3f} ({self.hit}/{self.total})"

    def __add__(self, other: Tally) -> Tally:
        return Tally(self.hit + other.hit, self.total + other.total)


@dataclass
class Report:
    lines: list[str] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)

    def table(self, head: Iterable[str], rows: Iterable[Iterable[object]]) -> None:
        cols = list(head)
        self.lines.append("| " + " | ".join(cols) + " |")
        self.lines.append("|" + "---|" * len(cols))
        self.lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
        self.lines.append("")

    def para(self, text: str = "") -> None:
        self.lines.append(text)


def bench_secrets(rep: Report) -> dict[str, float]:
    rows = load_jsonl(GUARD_DATA / "gitleaks_rule_samples.jsonl")
    tp_texts = {str(r["text"]) for r in rows if r["label"] == "tp"}
    per_rule: dict[str, Tally] = defaultdict(Tally)
    fp_rule: dict[str, Tally] = defaultdict(Tally)
    overall, real, fp_all, fp_distinct = Tally(), Tally(), Tally(), Tally()
    for row in rows:
        text = str(row["text"])
        redactions = guard_redact(text)[1]
        found = bool(redactions)
        if row["label"] == "tp":
            overall.add(found)
            per_rule[rule_of(row)].add(found)
            if text not in GITLEAKS_ARTEFACTS:
                real.add(found)
            if not found:
                rep.misses.append(f"SECRET MISS [{rule_of(row)}] {text[:160]!r}")
        else:
            fp_all.add(found)
            fp_rule[rule_of(row)].add(found)
            if text not in tp_texts:
                fp_distinct.add(found)
            if found:
                rep.misses.append(f"SECRET FP   [{rule_of(row)}] {text[:160]!r} {redactions}")
    turns, notes = load_locomo_turns(), load_locomo_notes()
    altered_turns, altered_notes = Tally(), Tally()
    for tally, texts in ((altered_turns, turns), (altered_notes, notes)):
        for t in texts:
            redactions = guard_redact(t)[1]
            tally.add(bool(redactions))
            if redactions:
                rep.misses.append(f"LOCOMO REDACTED {t[:160]!r} {redactions}")

    rep.para("## Secrets (redaction)")
    rep.para()
    rep.table(
        ["measure", "value"],
        [
            ["**recall, all gitleaks tp strings**", overall.cell()],
            [
                f"recall, without the {len(GITLEAKS_ARTEFACTS)} artefacts (no credential in the string)",
                real.cell(),
            ],
            ["flagged, gitleaks fp strings", fp_all.cell()],
            [
                "flagged, gitleaks fp strings that are not also one of its tp strings",
                fp_distinct.cell(),
            ],
            ["**ordinary LoCoMo dialog turns altered by redaction**", altered_turns.cell()],
            ["LoCoMo observations and summaries altered by redaction", altered_notes.cell()],
        ],
    )
    rep.para("Per gitleaks rule file: recall on its tp strings, share of its fp strings flagged.")
    rep.para()
    rules = sorted(set(per_rule) | set(fp_rule))
    rep.table(
        ["rule", "tp recall", "fp flagged"],
        [
            [
                r,
                per_rule[r].cell() if per_rule[r].total else "–",
                fp_rule[r].cell() if fp_rule[r].total else "–",
            ]
            for r in rules
        ],
    )
    return {
        "secret_recall": overall.rate,
        "secret_recall_real": real.rate,
        "secret_fp": fp_all.rate,
        "locomo_altered": altered_turns.rate,
    }


@dataclass
class PoisonRun:
    cse_all: Tally = field(default_factory=Tally)
    cse_mem: Tally = field(default_factory=Tally)
    cse_excluded: Tally = field(default_factory=Tally)
    by_variant: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    by_variant_mem: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    by_type: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    bipia: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    by_cat: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    by_pos: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    excluded_flagged: list[int] = field(default_factory=list)


def run_attacks(rep: Report | None) -> PoisonRun:
    run = PoisonRun()
    for item in json.loads((GUARD_DATA / "purplellama_cyberseceval_prompt_injection.json").read_text()):
        text, variant, pid = str(item["user_input"]), str(item["injection_variant"]), int(item["prompt_id"])
        flagged = guard_poisoning(text) is not None
        run.cse_all.add(flagged)
        run.by_variant[variant].add(flagged)
        if pid in CSE_NOT_MEMORY_POISONING:
            run.cse_excluded.add(flagged)
            if flagged:
                run.excluded_flagged.append(pid)
            continue
        run.cse_mem.add(flagged)
        run.by_variant_mem[variant].add(flagged)
        run.by_type[str(item["injection_type"])].add(flagged)
        if not flagged and rep is not None:
            rep.misses.append(f"CSE MISS #{pid} [{variant}] {text[:300]!r}")
    for kind, category, position, text in bipia_samples():
        flagged = guard_poisoning(text) is not None
        run.bipia["all"].add(flagged)
        run.bipia[kind].add(flagged)
        run.by_cat[f"{kind}: {category}"].add(flagged)
        run.by_pos[position].add(flagged)
        if not flagged and rep is not None:
            rep.misses.append(f"BIPIA MISS [{category}/{position}] {text[:200]!r}")
    return run


def bench_poisoning(rep: Report) -> dict[str, float]:
    run = run_attacks(rep)
    # ablation: the one heuristic that only fires inside machine-sent mail (see RESULTS.md)
    with mock.patch.object(poisoning, "_hidden_task", lambda view: False):
        without_task_rule = run_attacks(None)
    bare: dict[str, Tally] = defaultdict(Tally)
    for _, category, attack in load_bipia_attacks():
        bare[category].add(guard_poisoning(attack) is not None)

    emails = [str(r["context"]) for r in load_jsonl(GUARD_DATA / "bipia_email_test.jsonl")]
    benign_sets = {
        "NotInject (over-defence set)": load_notinject(),
        "LoCoMo dialog turns": load_locomo_turns(),
        "LoCoMo observations and summaries": load_locomo_notes(),
        "clean BIPIA e-mails": emails,
    }
    fp: dict[str, Tally] = {}
    for name, texts in benign_sets.items():
        tally = fp[name] = Tally()
        for text in texts:
            reason = guard_poisoning(text)
            tally.add(reason is not None)
            if reason:
                rep.misses.append(f"FP [{name}] {text[:200]!r} -> {reason}")
    benign = Tally()
    for tally in fp.values():
        benign = benign + tally

    total_mem = run.cse_mem + run.bipia["all"]
    total_all = run.cse_all + run.bipia["all"]
    ablated_mem = without_task_rule.cse_mem + without_task_rule.bipia["all"]
    rep.para("## Poisoning (rejection)")
    rep.para()
    rep.table(
        ["measure", "value"],
        [
            [
                "**recall, memory-poisoning attacks** (CyberSecEval in scope + BIPIA in e-mails)",
                total_mem.cell(),
            ],
            ["recall, every attack (all 251 CyberSecEval items + BIPIA in e-mails)", total_all.cell()],
            [
                "recall, memory-poisoning attacks, without the machine-mail task rule (ablation)",
                ablated_mem.cell(),
            ],
            ["CyberSecEval, memory-poisoning items", run.cse_mem.cell()],
            ["CyberSecEval, all items", run.cse_all.cell()],
            ["CyberSecEval items judged not memory poisoning, flagged anyway", run.cse_excluded.cell()],
            ["BIPIA attacks hidden in e-mails", run.bipia["all"].cell()],
            ["  BIPIA text attacks", run.bipia["text"].cell()],
            ["  BIPIA code attacks", run.bipia["code"].cell()],
            ["**false positives, all benign texts**", benign.cell()],
            *[[f"false positives, {name}", tally.cell()] for name, tally in fp.items()],
        ],
    )
    if run.excluded_flagged:
        rep.para(
            f"Excluded CyberSecEval items flagged anyway: {', '.join(f'#{i}' for i in run.excluded_flagged)}."
        )
        rep.para()
    rep.para("CyberSecEval per variant (recall on all items / on the memory-poisoning items):")
    rep.para()
    rep.table(
        ["variant", "all items", "memory poisoning only"],
        [
            [
                v,
                run.by_variant[v].cell(),
                run.by_variant_mem[v].cell() if run.by_variant_mem[v].total else "– (none)",
            ]
            for v in sorted(run.by_variant)
        ],
    )
    rep.table(
        ["CyberSecEval injection type (memory-poisoning items)", "recall"],
        [[t, run.by_type[t].cell()] for t in sorted(run.by_type)],
    )
    rep.para(
        f"BIPIA per category: each attack instruction is hidden in {EMAILS_PER_ATTACK} different BIPIA e-mails (at "
        "the start, at a sentence boundary near the middle, at the end). Also shown: the same without the "
        "machine-mail task rule, and the bare instruction stored on its own as a short note."
    )
    rep.para()
    rep.table(
        ["category", "in e-mails", "without the task rule", "bare instruction"],
        [
            [c, run.by_cat[c].cell(), without_task_rule.by_cat[c].cell(), bare[c.split(": ", 1)[1]].cell()]
            for c in sorted(run.by_cat)
        ],
    )
    rep.table(["position in the e-mail", "recall"], [[p, run.by_pos[p].cell()] for p in BIPIA_POSITIONS])
    return {
        "poison_recall_mem": total_mem.rate,
        "poison_recall_all": total_all.rate,
        "fp_benign": benign.rate,
        "fp_max": max(t.rate for t in fp.values()),
    }


def _timed(fn: Callable[[], object], n: int = 5) -> tuple[float, float]:
    samples = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples), min(samples)


def bench_speed(rep: Report) -> dict[str, float]:
    turns = load_locomo_turns()
    rng = random.Random(7)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    cases = {
        "ordinary notes (LoCoMo turns)": "\n".join(turns)[:100_000],
        "trigger words repeated ('ignore previous system prompt ')": (
            "ignore previous system prompt " * 4000
        )[:100_000],
        "one base64 blob": "".join(rng.choice(alphabet) for _ in range(100_000)),
        "spaced-out letters": ("a b c d e f g h i j " * 6000)[:100_000],
        "one character repeated": "a" * 100_000,
        "dotted/dashed text (Morse-like)": ("-- .-.. ... " * 10000)[:100_000],
        "JSON lines full of secret-looking keys": (
            '{"api_key": "x", "password": "", "token": null}\n' * 2200
        )[:100_000],
    }
    rows = []
    worst = 0.0
    for name, text in cases.items():
        p_med, p_min = _timed(functools.partial(guard_poisoning, text))
        r_med, r_min = _timed(functools.partial(guard_redact, text))
        c_med, c_min = _timed(functools.partial(guard_check, text))
        worst = max(worst, c_med)
        rows.append(
            [name, f"{p_med:.1f} / {p_min:.1f}", f"{r_med:.1f} / {r_min:.1f}", f"{c_med:.1f} / {c_min:.1f}"]
        )
    start = time.perf_counter()
    for t in turns:
        guard_check(t)
    per_s = len(turns) / (time.perf_counter() - start)
    rep.para("## Speed")
    rep.para()
    rep.para(
        "100,000 characters each; milliseconds, median / best of 5 runs, one process on the shared 2-core "
        "development machine (other jobs were running, hence the gap between median and best)."
    )
    rep.para()
    rep.table(["input", "guard_poisoning", "guard_redact", "guard_check"], rows)
    rep.para(
        f"Throughput on LoCoMo turns (one guard_check per note, {len(turns):,} notes): {per_s:,.0f} notes/s."
    )
    rep.para()
    return {"worst_ms": worst, "notes_per_s": per_s}


# --------------------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description="Memory Guard benchmark")
    parser.add_argument("--misses", action="store_true", help="print every miss and false alarm")
    parser.add_argument("--no-write", action="store_true", help="do not rewrite RESULTS.md")
    args = parser.parse_args()

    started = time.perf_counter()
    rep = Report()
    secrets = bench_secrets(rep)
    poison = bench_poisoning(rep)
    speed = bench_speed(rep)
    elapsed = time.perf_counter() - started

    def met(ok: bool) -> str:
        return "yes" if ok else "**no**"

    summary = [
        f"Rules {RULES_VERSION}; `.venv/bin/python -m bench.guard.run`, {elapsed:.0f} s on the 2-core machine.",
        "",
        "| target | measured | met |",
        "|---|---|---|",
        f"| secret recall ≥ 0.98 (gitleaks tp strings) | {secrets['secret_recall']:.3f} of all strings; "
        f"{secrets['secret_recall_real']:.3f} without the 6 artefacts | "
        f"{met(secrets['secret_recall'] >= 0.98)} / {met(secrets['secret_recall_real'] >= 0.98)} |",
        f"| ≤ 1% of ordinary notes altered (LoCoMo turns) | {secrets['locomo_altered']:.2%} | "
        f"{met(secrets['locomo_altered'] <= 0.01)} |",
        f"| poisoning recall ≥ 0.85 | {poison['poison_recall_mem']:.3f} on memory-poisoning attacks; "
        f"{poison['poison_recall_all']:.3f} counting every CyberSecEval item | "
        f"{met(poison['poison_recall_mem'] >= 0.85)} / {met(poison['poison_recall_all'] >= 0.85)} |",
        f"| ≤ 2% false positives | {poison['fp_benign']:.2%} of all benign texts; worst set "
        f"{poison['fp_max']:.2%} | {met(poison['fp_max'] <= 0.02)} |",
        f"| 100,000 characters well under 100 ms | worst median guard_check {speed['worst_ms']:.0f} ms | "
        f"{met(speed['worst_ms'] < 100)} |",
        "",
    ]
    body = "\n".join(summary + rep.lines)
    print(body)
    if args.misses:
        print("\n".join(rep.misses))
    if not args.no_write:
        template = HERE / "RESULTS.template.md"
        text = template.read_text() if template.exists() else "# Memory Guard benchmark\n\n{figures}\n"
        (HERE / "RESULTS.md").write_text(text.replace("{figures}", body))


if __name__ == "__main__":
    main()
