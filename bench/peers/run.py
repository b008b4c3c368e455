"""Mnemos beside Mem0 OSS and BM25 on the LoCoMo protocol, in one run, scored by the same functions.

    .venv/bin/python -m bench.peers.run [--limit N] [--semantic-too] [--skip-setup]

One invocation, one conversation set (the first N of LoCoMo's ten; all ten without ``--limit``):

1. Mnemos: ``bench.locomo.run --no-analysis --no-passive-pass [--limit N]`` as a subprocess (the
   product's venv; its public API over HTTP on a throwaway cluster). It also computes the BM25 baseline
   over the same turn texts; its per-question JSONL and JSON summary (bench/out/locomo/) are read back.
2. Mem0 OSS 2.2.1, hybrid: ``bench/peers/mem0_locomo.py`` run by the peer's own venv
   (bench/peers/.venv, made by bench/peers/setup.sh, which this runs first: idempotent), so torch never
   enters the product's venv. ``--semantic-too`` adds Mem0 with its BM25 and entity boost off.
3. Every system's top 10 per question is scored here with ``bench.locomo.run.score`` (which is
   ``bench.embeddings.run.question_metrics`` + ``summarise``): hit@1/5/10, recall@10 and nDCG@10 over
   categories 1-4 (the headline), recall@10 over 1-5, as bench.locomo.run reports them; the Mnemos and
   BM25 figures are checked against what bench.locomo.run printed. Latencies are summarised with
   ``bench.locomo.harness.latency_summary`` for all.

The systems run one after another, never at once, on the same machine. Mnemos's search latency is its
HTTP call (client side, web server on loopback); Mem0's and BM25's are calls in process, and Mem0's is
dominated by Qdrant's embedded local mode in Python (see bench/peers/README.md).

Writes bench/out/peers/peers-{limitN|all}.json and .md (git-ignored), the table printed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.locomo.harness import cpu_model, latency_summary
from bench.locomo.run import LIVE, score, table

ROOT = Path(__file__).resolve().parents[2]
PEERS = ROOT / "bench" / "peers"
PEER_PY = PEERS / ".venv" / "bin" / "python"
LOCOMO_OUT = ROOT / "bench" / "out" / "locomo"
OUT = ROOT / "bench" / "out" / "peers"

Scores = dict[str, dict[str, float]]


def load_avg() -> float:
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")


def shown(cmd: Sequence[str]) -> str:
    """The command as one would type it from the repository root."""
    return shlex.join(str(Path(c).relative_to(ROOT)) if str(c).startswith(str(ROOT)) else str(c) for c in cmd)


def call(cmd: Sequence[str], commands: list[dict[str, Any]]) -> None:
    """Run ``cmd`` from the repository root, its output straight to ours; record it and its wall time."""
    print(f"\n$ {shown(cmd)}", flush=True)
    start, load_before = time.perf_counter(), load_avg()
    subprocess.run(list(cmd), cwd=ROOT, check=True)
    commands.append(
        {
            "command": shown(cmd),
            "wall_s": round(time.perf_counter() - start, 1),
            "load_avg": [round(load_before, 2), round(load_avg(), 2)],
        }
    )


def mnemos(
    limit: int | None, commands: list[dict[str, Any]], *, live: bool = False
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """bench.locomo.run in a subprocess (``live``: ``--archivist live``, whose JSONL also holds each
    question's live top 10); its summary and its per-question records."""
    tag = f"limit{limit}" if limit else "all"
    cmd = [sys.executable, "-m", "bench.locomo.run", "--no-analysis", "--no-passive-pass"]
    if live:
        cmd += ["--archivist", "live"]
    if limit:
        cmd += ["--limit", str(limit)]
    started = time.time()
    call(cmd, commands)
    summary_path, jsonl_path = LOCOMO_OUT / f"summary-{tag}.json", LOCOMO_OUT / f"locomo-{tag}.jsonl"
    for path in (summary_path, jsonl_path):
        if path.stat().st_mtime < started:
            raise RuntimeError(f"{path} was not written by this run")
    summary = json.loads(summary_path.read_text(encoding="utf-8"))
    with jsonl_path.open(encoding="utf-8") as fh:
        records = [json.loads(line) for line in fh if line.strip()]
    return summary, records


def mem0(limit: int | None, semantic: bool, commands: list[dict[str, Any]]) -> dict[str, Any]:
    mode = "semantic" if semantic else "hybrid"
    out = OUT / f"mem0-{mode}-{f'limit{limit}' if limit else 'all'}.json"
    cmd = [str(PEER_PY), str(PEERS / "mem0_locomo.py"), "--out", str(out)]
    if limit:
        cmd += ["--limit", str(limit)]
    if semantic:
        cmd.append("--semantic-only")
    started = time.time()
    call(cmd, commands)
    if out.stat().st_mtime < started:
        raise RuntimeError(f"{out} was not written by this run")
    result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    if result["llm_generate_response_calls"] != 0:
        raise AssertionError("Mem0 called its LLM")
    return result


def rows_of(records: Sequence[dict[str, Any]], key: str) -> list[tuple[int, Sequence[str], Sequence[str]]]:
    return [(int(r["category"]), r[key], r["gold"]) for r in records]


def same_questions(a: Sequence[dict[str, Any]], b: Sequence[dict[str, Any]]) -> None:
    """Both runs asked the same questions, in the same order, with the same gold."""
    left = [(r["conversation"], r["question"], r["category"], list(r["gold"])) for r in a]
    right = [(r["conversation"], r["question"], r["category"], list(r["gold"])) for r in b]
    if left != right:
        raise RuntimeError("Mnemos and Mem0 were not asked the same questions")


def check_against(summary: dict[str, Any], name: str, ours: Scores) -> None:
    """What bench.locomo.run reported for ``name`` and what we recomputed from its JSONL must agree."""
    theirs = summary["systems"].get(name)
    if theirs is None:
        raise RuntimeError(f"bench.locomo.run reported no system {name!r}")
    for part in ("1-4", "1-5"):
        for metric, value in theirs[part].items():
            if abs(value - ours[part][metric]) > 1e-9:
                raise RuntimeError(
                    f"{name} {part} {metric}: bench.locomo.run {value}, recomputed {ours[part][metric]}"
                )


def fmt(value: float | None, spec: str = ".3f") -> str:
    return "–" if value is None else format(value, spec)


def peer_table(systems: dict[str, Scores], extras: dict[str, dict[str, Any]]) -> str:
    """The one table: retrieval over categories 1-4, recall@10 over 1-5, ingest, search latency."""
    head = (
        "| system | hit@1 | hit@5 | hit@10 | recall@10 | nDCG@10 | recall@10 (1-5) "
        "| ingest memories/s | searchable memories/s | search p50 / p95 ms |"
    )
    lines = [head, "|---|" + "---:|" * 9]
    for name, s in systems.items():
        e = extras[name]
        lat = e.get("search")
        lines.append(
            f"| {name} | "
            + " | ".join(fmt(s["1-4"][m]) for m in ("hit@1", "hit@5", "hit@10", "recall@10", "ndcg@10"))
            + f" | {fmt(s['1-5']['recall@10'])} | {fmt(e.get('ingest'), '.1f')} | {fmt(e.get('searchable'), '.1f')}"
            + (f" | {lat['p50']:.1f} / {lat['p95']:.1f} ({e['where']}) |" if lat else " | – |")
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="the first N conversations (of 10)")
    parser.add_argument("--semantic-too", action="store_true", help="also Mem0 with BM25 and entities off")
    parser.add_argument("--skip-setup", action="store_true", help="use bench/peers/.venv as it is")
    parser.add_argument(
        "--live",
        action="store_true",
        help="Mnemos with bench.locomo.run --archivist live (saves at the team plan's rate, searched right "
        "after each conversation, then again once every vector is in): both rows",
    )
    args = parser.parse_args(argv)

    wall = time.perf_counter()
    tag = f"limit{args.limit}" if args.limit else "all"
    commands: list[dict[str, Any]] = []
    load_start = load_avg()
    if not args.skip_setup:
        call(["bash", str(PEERS / "setup.sh")], commands)

    summary, records = mnemos(args.limit, commands, live=args.live)
    peers = [mem0(args.limit, False, commands)]
    if args.semantic_too:
        peers.append(mem0(args.limit, True, commands))

    # ---- one scoring for all: bench.locomo.run.score over each system's top 10
    systems: dict[str, Scores] = {
        "Mnemos search_memory (API)": score(rows_of(records, "mnemos_top10")),
        "BM25 (bench.locomo.run's)": score(rows_of(records, "bm25_top10")),
    }
    check_against(summary, "Mnemos search_memory (API)", systems["Mnemos search_memory (API)"])
    check_against(summary, "BM25 (rank-bm25 0.2.2)", systems["BM25 (bench.locomo.run's)"])
    if args.live:
        systems[LIVE] = score(rows_of(records, "live_top10"))
        check_against(summary, LIVE, systems[LIVE])
    n = summary["turns"]
    vectors_s = summary["vectors"].get("from_first_save_s")
    extras: dict[str, dict[str, Any]] = {
        "Mnemos search_memory (API)": {
            "ingest": summary["ingest"]["memories_per_s"],
            "searchable": n / vectors_s if vectors_s else None,
            "search": summary["search_latency_ms"],
            "where": "HTTP",
        },
        "BM25 (bench.locomo.run's)": {"search": summary["bm25_latency_ms"], "where": "in process"},
    }
    if args.live:
        extras[LIVE] = {
            "ingest": summary["ingest"]["memories_per_s"],
            "search": summary["live"]["search_latency_ms"],
            "where": "HTTP",
        }
    for peer in peers:
        same_questions(records, peer["per_question"])
        name = peer["system"]
        systems[name] = score(rows_of(peer["per_question"], "top10"))
        rate = peer["ingest"]["memories_per_s"]
        extras[name] = {
            "ingest": rate,
            "searchable": rate,  # add() embeds and indexes before it returns
            "search": latency_summary([float(p["latency_ms"]) for p in peer["per_question"]]),
            "where": "in process",
        }

    cpu = cpu_model()
    n14 = int(systems["Mnemos search_memory (API)"]["1-4"]["n"])
    n15 = int(systems["Mnemos search_memory (API)"]["1-5"]["n"])
    wall_s = time.perf_counter() - wall
    header = (
        f"LoCoMo {', '.join(summary['conversations'])}: {n} turns, {summary['questions']} questions "
        f"(categories 1-4: n = {n14}; 1-5: n = {n15}). CPU: {cpu}, {os.cpu_count()} cores; "
        f"load {load_start:.2f} at the start, {load_avg():.2f} at the end; wall {wall_s:.0f} s."
    )
    notes = [
        "hit@k, recall@10, nDCG@10: categories 1-4; recall@10 (1-5): all five, as bench.locomo.run reports it.",
        "ingest: Mnemos = save_memory calls/s over HTTP (vectors come after, from the archivist); Mem0 = "
        "add(infer=False) calls/s in process (it embeds and indexes before returning). searchable: from the "
        "first save until every memory has its vector.",
        "search: Mnemos = the HTTP call, client side; Mem0 and BM25 = the call in process. Mem0's is Qdrant's "
        "embedded local mode scanning in Python (a Qdrant server would be faster).",
    ]
    for peer in peers:
        notes.append(
            f"{peer['system']}: LLM generate_response calls {peer['llm_generate_response_calls']}; BM25 active "
            f"{peer['bm25_active']}; entity boost tried on {peer['entity_boost_searches']} searches, boosted "
            f"something on {peer['entity_boost_searches_that_boosted']} (infer=False links no entities)."
        )
    main_table = peer_table(systems, extras)
    text = "\n".join(
        [
            header,
            "",
            main_table,
            "",
            *(f"- {note}" for note in notes),
            "",
            "All metrics (categories 1-4), then hit@10 per category:",
            "",
            table(systems),
            "",
            "Commands (from the repository root):",
            *(
                f"- `{c['command']}` ({c['wall_s']:.0f} s; 1-minute load {c['load_avg'][0]:.2f} before, "
                f"{c['load_avg'][1]:.2f} after)"
                for c in commands
            ),
        ]
    )
    print("\n" + text)

    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"peers-{tag}.md").write_text(text + "\n", encoding="utf-8")
    report = {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "conversations": summary["conversations"],
        "turns": n,
        "questions": summary["questions"],
        "systems": systems,
        "extras": extras,
        "mem0": [
            {k: v for k, v in p.items() if k != "per_question"}
            | {"ingest": p["ingest"] | {"add_ms": latency_summary(p["ingest"]["add_ms"])}}
            for p in peers
        ],
        "mnemos": {k: summary[k] for k in ("ingest", "vectors", "search_latency_ms", "settings")},
        "commands": commands,
        "load_avg": {"start": load_start, "end": load_avg()},
        "wall_s": wall_s,
    }
    (OUT / f"peers-{tag}.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    print(f"\nwrote {(OUT / f'peers-{tag}.md').relative_to(ROOT)} and peers-{tag}.json")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
