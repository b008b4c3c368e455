#!/usr/bin/env bash
# The peer's own virtualenv, bench/peers/.venv (Mem0 OSS, torch CPU, spaCy, fastembed), and fastembed's local
# Qdrant/bm25 cache under bench/peers/.cache/: idempotent, reinstalls only when requirements.txt changed.
# Kept apart from the product's .venv so torch never enters it. Needs python3.11 and the package registry.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$here/.venv"
stamp="$venv/.installed"
want="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"

if [ ! -x "$venv/bin/python" ]; then
  "${PEER_PYTHON:-python3.11}" -m venv "$venv"
fi
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  "$venv/bin/python" -m pip install --quiet --upgrade pip
  "$venv/bin/python" -m pip install --quiet -r "$here/requirements.txt"
  echo "$want" > "$stamp"
fi
"$venv/bin/python" "$here/mem0_locomo.py" --prepare-only
