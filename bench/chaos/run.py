"""The chaos suite: each experiment against its own ``manage.py serve`` on loopback.

    .venv/bin/python -m bench.chaos.run [experiment ...] [--clients N] [--seconds S] [--quick] [--keep]

Experiments (all when none is named): worker_kill, db_kill, broker_restart, sigint_under_load,
idempotent_retries, mixed_load. Each prints a table and its checks (PASS/FAIL) and writes
bench/out/chaos/<experiment>.json (``<experiment>.quick.json`` with --quick) and serve's log beside it.
Exit status 1 when any check fails or an experiment could not run. See bench/chaos/README.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.chaos.experiments import EXPERIMENTS, RECOVERED, Options, Result, backlog_text
from bench.chaos.harness import OUT, ChaosError


def _seconds(value: float | None, *, missing: str) -> str:
    return missing if value is None else f"{value:.1f}"


def table(result: Result) -> str:
    """The experiment's figures and its checks, one per line."""
    mode = "quick" if result.quick else "full"
    pace = f"{result.rate:g} calls/s each" if result.rate else "closed loop"
    load = (
        f"{result.clients} client(s) at {pace}, {result.seconds:.0f} s"
        if result.seconds
        else f"{result.clients} calls x2"
    )
    errors = "; ".join(f"{kind} x{n}" for kind, n in result.errors.items()) or "none"
    calls = ", ".join(f"{op} {n}" for op, n in result.calls.items()) or "none"
    polls = sum(result.healthz_statuses.values())
    spread = f"p50 {result.healthz_ms.get('p50', 0):.0f}, p95 {result.healthz_ms.get('p95', 0):.0f}"
    slow = f"{spread}; {result.healthz_slow} of {polls} polls over 2 s"
    rows = [
        ("acknowledged", str(result.acknowledged)),
        ("present", str(result.present)),
        ("lost", str(result.lost)),
        ("duplicated", str(result.duplicated)),
        ("unacknowledged but saved", str(result.unacknowledged_present)),
        ("calls", calls),
        ("errors by kind", errors),
        ("html", str(result.html)),
        ("healthz max ms", f"{result.healthz_max_ms:.0f} ({slow}; statuses {result.healthz_statuses})"),
        (
            "recovery s",
            _seconds(result.recovery_s, missing="n/a" if RECOVERED not in result.checks else "never"),
        ),
        ("background drained s", _seconds(result.background_drained_s, missing="not within 2 min")),
        ("backlog at the end", backlog_text(result.backlog)),
        ("timings s", ", ".join(f"{k} {v}" for k, v in result.timings.items())),
    ]
    rows += [(key, json.dumps(value)) for key, value in result.extra.items()]
    width = max(len(name) for name, _ in rows)
    lines = [f"== {result.experiment} ({mode}: {load}) =="]
    lines += [f"{name:<{width}}  {value}" for name, value in rows]
    lines += [f"note: {note}" for note in result.notes]
    lines += [f"{'PASS' if ok else 'FAIL'}  {name}" for name, ok in result.checks.items()]
    lines.append(f"verdict: {'PASS' if result.verdict else 'FAIL'}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("experiments", nargs="*", metavar="experiment", help=", ".join(EXPERIMENTS))
    parser.add_argument("--clients", type=int, help="concurrent clients (default 4; --quick 2)")
    parser.add_argument(
        "--seconds", type=float, help="load length (default 60, mixed_load 180; --quick 10/20)"
    )
    parser.add_argument(
        "--rate", type=float, default=2.0, help="calls a second per client (default 2; 0: closed loop)"
    )
    parser.add_argument("--retries", type=int, default=200, help="concurrent calls per idempotency case")
    parser.add_argument("--quick", action="store_true", help="short versions (what tests/test_chaos.py runs)")
    parser.add_argument("--keep", action="store_true", help="keep each experiment's data directory")
    args = parser.parse_args(argv)
    unknown = [name for name in args.experiments if name not in EXPERIMENTS]
    if unknown:
        parser.error(f"unknown experiment(s) {', '.join(unknown)}; choose from {', '.join(EXPERIMENTS)}")
    options = Options(
        quick=args.quick,
        clients=args.clients,
        seconds=args.seconds,
        rate=args.rate,
        retries=args.retries,
        keep=args.keep,
    )
    OUT.mkdir(parents=True, exist_ok=True)
    failed = False
    for name in args.experiments or list(EXPERIMENTS):
        began = time.monotonic()
        try:
            result = EXPERIMENTS[name](options)
        except ChaosError as exc:
            print(f"== {name} ==\ncould not run: {exc}\nverdict: FAIL\n", flush=True)
            failed = True
            continue
        result.timings["experiment_s"] = round(time.monotonic() - began, 1)
        print(table(result) + "\n", flush=True)
        suffix = ".quick.json" if options.quick else ".json"
        (OUT / f"{name}{suffix}").write_text(json.dumps(result.as_json(), indent=2) + "\n", encoding="utf-8")
        failed = failed or not result.verdict
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
