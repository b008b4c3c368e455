"""``make bench-quick``: a regression guard to run before a commit (issue 23), in about five minutes.

    .venv/bin/python -m bench.quick [--record] [--skip locomo,scale,guard,archivist]

Four fixed slices, each printed beside the figure last recorded in ``bench/quick_baseline.json``:

1. **LoCoMo, one conversation** (``bench.locomo.run --limit 1 --no-analysis``: conv-26's turns saved through
   the API, the archivist after the saves, its questions searched): hit@10 and recall@10 over categories
   1-4 for Mnemos and for BM25 in the same run, and search p50/p95.
2. **Scale, 10k memories** (``bench.scale.run --sizes 10000``, fewer calls than the full bench): search,
   ask and save p50/p95 through the API.
3. **Guard, held-out halves** (``bench/guard/splits.py``; in process): poisoning recall of the attack sets
   and the share of benign texts rejected, passwords removed from the prose sets and ordinary notes
   altered, and ``guard_check`` p50 on a 1 kB note.
4. **The archivist** (``bench.archivist.run --backlog 320 --seconds 15``: a private ``serve`` on make run's
   defaults): vectors/s draining a backlog with nothing else running, and save → vector p95 at 20 saves/s.

``--record`` writes this run's figures as the new baseline (commit it with the change that moved them).
Timings move with the machine and its load: compare a run with one made on the same machine, and read a
latency change of under ~20% as noise. Not part of ``.ci/run``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / "bench" / "quick_baseline.json"
SLICES = ("locomo", "scale", "guard", "archivist")


def _run(args: list[str]) -> None:
    done = subprocess.run([sys.executable, "-m", *args], cwd=ROOT, env={**os.environ}, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} exited with {done.returncode}")


def locomo() -> dict[str, float]:
    _run(["bench.locomo.run", "--limit", "1", "--no-analysis"])
    summary = json.loads((ROOT / "bench" / "out" / "locomo" / "summary-limit1.json").read_text())
    systems = summary["systems"]
    mnemos, bm25 = systems["Mnemos search_memory (API)"]["1-4"], systems["BM25 (rank-bm25 0.2.2)"]["1-4"]
    rows = [json.loads(line) for line in (ROOT / "bench" / "out" / "locomo" / "locomo-limit1.jsonl").open()]
    latencies = sorted(row["latency_ms"] for row in rows)
    return {
        "locomo mnemos hit@10": mnemos["hit@10"],
        "locomo mnemos recall@10": mnemos["recall@10"],
        "locomo bm25 hit@10": bm25["hit@10"],
        "locomo bm25 recall@10": bm25["recall@10"],
        "locomo search p50 ms": statistics.median(latencies),
        "locomo search p95 ms": latencies[int(len(latencies) * 0.95) - 1],
    }


def scale() -> dict[str, float]:
    _run(
        [
            "bench.scale.run",
            "--sizes",
            "10000",
            "--queries",
            "100",
            "--asks",
            "30",
            "--timelines",
            "20",
            "--recall-queries",
            "20",
        ]
    )
    result = json.loads((ROOT / "bench" / "out" / "scale" / "summary-10000.json").read_text())["sizes"][
        "10000"
    ]
    out: dict[str, float] = {}
    for name in ("search", "ask", "save"):
        if f"{name}_ms" in result:
            out[f"10k {name} p50 ms"] = result[f"{name}_ms"]["p50"]
            out[f"10k {name} p95 ms"] = result[f"{name}_ms"]["p95"]
    return out


def guard() -> dict[str, float]:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings_test")
    import django

    django.setup()
    from bench.guard.splits import PROSE_SET_NAMES, poisoning_sets, prose_credentials
    from memory.guard import guard_check, guard_poisoning, guard_redact
    from memory.guard.model import load_model

    model = load_model()
    assert model is not None, "memory/guard/data/poisoning_model.* missing: run bench.guard.train"
    attacks = benign = caught = rejected = 0
    for item in poisoning_sets():
        if item.part != "held":
            continue
        decided = guard_poisoning(item.text) is not None or model.judge(item.text)[1]
        if item.attack:
            attacks, caught = attacks + 1, caught + int(decided)
        else:
            benign, rejected = benign + 1, rejected + int(decided)
    secrets = removed = ordinary = altered = 0
    for name in PROSE_SET_NAMES:
        if name == "tune":
            continue
        for entry in prose_credentials(name):
            stored = guard_redact(entry["text"])[0]
            if entry["label"] == "secret":
                secrets, removed = secrets + 1, removed + int(entry["secret"].strip("!?.#*@$") not in stored)
            else:
                ordinary, altered = ordinary + 1, altered + int(stored != entry["text"])
    note = ("We moved the staging database to the new cluster on Monday; Dana owns the runbook. " * 13)[:1024]
    for _ in range(20):
        guard_check(note)
    timings = []
    for _ in range(200):
        start = time.perf_counter()
        guard_check(note)
        timings.append((time.perf_counter() - start) * 1000)
    return {
        "guard poisoning recall (held out)": caught / attacks,
        "guard benign rejected (held out)": rejected / benign,
        "guard passwords removed (prose, not tune)": removed / secrets,
        "guard ordinary notes altered (prose)": altered / ordinary,
        "guard_check 1 kB p50 ms": statistics.median(timings),
    }


def archivist() -> dict[str, float]:
    out = ROOT / "bench" / "out" / "archivist"
    started = time.time()
    _run(["bench.archivist.run", "--backlog", "320", "--seconds", "15"])
    newest = max(out.glob("summary-*.json"), key=lambda path: path.stat().st_mtime)
    if newest.stat().st_mtime < started:
        raise SystemExit(f"bench.archivist.run wrote no summary under {out}")
    result = json.loads(newest.read_text())["engines"]["auto"]
    return {
        "archivist backlog vectors/s": result["backlog"]["vectors_per_s"],
        "archivist save to vector p95 at 20/s ms": result["sustained"]["save_to_vector_s"]["p95"] * 1000,
    }


def _better(name: str, now: float, before: float) -> str:
    if before == 0:
        return ""
    change = (now - before) / abs(before)
    higher = any(word in name for word in ("hit@10", "recall@10", "recall (", "removed", "vectors/s"))
    lower_is_good = name.endswith(" ms") or "rejected" in name or "altered" in name
    if abs(change) < 0.005:
        return "="
    good = (change > 0 and higher) or (change < 0 and lower_is_good)
    return f"{change:+.1%} " + ("better" if good else "worse")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--record", action="store_true", help="write this run as the new baseline")
    parser.add_argument(
        "--skip", default="", help="slices to leave out, comma-separated: " + ", ".join(SLICES)
    )
    args = parser.parse_args(argv)
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    unknown = skip - set(SLICES)
    if unknown:
        parser.error(f"unknown slice {sorted(unknown)[0]!r}: the slices are {', '.join(SLICES)}")
    started = time.perf_counter()
    figures: dict[str, float] = {}
    for name, measure in (("locomo", locomo), ("scale", scale), ("guard", guard), ("archivist", archivist)):
        if name not in skip:
            figures |= measure()
    baseline: dict[str, Any] = json.loads(BASELINE.read_text()) if BASELINE.exists() else {}
    before: dict[str, float] = baseline.get("figures", {})
    print(
        f"\nbench-quick ({time.perf_counter() - started:.0f} s); baseline: {baseline.get('recorded', 'none')}\n"
    )
    print("| figure | now | last recorded | change |\n|---|---|---|---|")
    for name, value in figures.items():
        old = before.get(name)
        shown = "-" if old is None else f"{old:.4g}"  # 4 significant digits: 1 rejection in 5,000 shows
        print(f"| {name} | {value:.4g} | {shown} | {'' if old is None else _better(name, value, old)} |")
    if args.record:
        from bench.locomo.harness import cpu_model

        cpu = cpu_model()
        merged = {**before, **figures}
        BASELINE.write_text(
            json.dumps({"recorded": time.strftime("%Y-%m-%d %H:%M"), "cpu": cpu, "figures": merged}, indent=1)
            + "\n"
        )
        print(f"\nrecorded as the new baseline: {BASELINE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
