"""A written set measured by the guard of any commit, in aggregates only (never a text): how blind sets are read.

    .venv/bin/python -m bench.guard.blind REF directives bench/guard/data/directives_heldout14.jsonl
    .venv/bin/python -m bench.guard.blind REF prose bench/guard/data/prose_credentials_heldout35.jsonl

``REF`` is a commit (its ``memory/guard`` imported from ``git archive`` into a temporary package) or ``WORK``
(the working tree). Directives: ``guard_check``'s rejections per group (attacks by kind, English and other
languages; the look-alikes with the ``meta`` group, security notes that quote attacks, apart). Prose: the share of
secrets no longer in the stored text, and of ordinary notes altered. A blind set (``splits.BLIND_DIRECTIVES``,
``splits.BLIND_PROSE``) is measured this way once by each commit named in bench/RESULTS.md, and never read.
"""

from __future__ import annotations

import importlib
import io
import json
import subprocess
import sys
import tarfile
import tempfile
from collections import defaultdict
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def guard_at(ref: str) -> ModuleType | None:
    """``memory.guard`` as it is at ``ref`` (its data files too, from ``git archive``), or in the working tree for
    ``WORK``; None where git cannot archive ``ref`` (a commit this clone lacks). Also bench/guard/heldout.py's."""
    if ref == "WORK":
        return importlib.import_module("memory.guard")
    name = "guard_" + ref.replace("-", "_")
    if name in sys.modules:
        return sys.modules[name]
    folder = Path(tempfile.mkdtemp(prefix="guard-at-"))
    archive = subprocess.run(
        ["git", "archive", ref, "memory/guard"], cwd=ROOT, capture_output=True, check=False
    )
    if archive.returncode:
        return None
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(folder, filter="data")
    (folder / "memory" / "guard").rename(folder / name)
    sys.path.insert(0, str(folder))
    return importlib.import_module(name)


def directives(guard: ModuleType, rows: list[dict[str, str]]) -> dict[str, list[int]]:
    cells: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in rows:
        rejected = guard.guard_check(row["text"]).verdict == "reject"
        language = "en" if row.get("lang", "en") == "en" else "other languages"
        if row["label"] == "attack":
            keys = ["attacks", f"attacks: {language}", f"attacks: {row['group']}"]
        else:
            keys = (
                ["meta"]
                if row["group"] == "meta"
                else ["look-alikes, meta apart", f"look-alikes: {language}"]
            )
        for key in keys:
            cells[key][0] += rejected
            cells[key][1] += 1
    return cells


def prose(guard: ModuleType, rows: list[dict[str, str]]) -> dict[str, list[int]]:
    cells: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in rows:
        stored = guard.guard_redact(row["text"])[0]
        if row["label"] == "secret":
            cells["secrets found"][0] += row["secret"].strip("!?.#*@$") not in stored
            cells["secrets found"][1] += 1
        else:
            cells["ordinary notes altered"][0] += stored != row["text"]
            cells["ordinary notes altered"][1] += 1
    return cells


def main(argv: list[str] | None = None) -> int:
    ref, kind, path = (argv if argv is not None else sys.argv[1:])[:3]
    rows = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    guard = guard_at(ref)
    if guard is None:
        raise SystemExit(f"git cannot archive {ref}")
    cells = (directives if kind == "directives" else prose)(guard, rows)
    for key in sorted(cells):
        hits, total = cells[key]
        print(f"{ref} {Path(path).stem} {key}: {hits / total:.3f} ({hits}/{total})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
