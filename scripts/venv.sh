#!/usr/bin/env bash
# Create .venv (Python 3.11) and install the pinned requirements given as $1 (base or test).
set -euo pipefail
cd "$(dirname "$0")/.."
req="requirements/${1:-base}.txt"
PY="${PYTHON:-python3.11}"
command -v "$PY" >/dev/null 2>&1 || PY=python3
# Some machines' pip configuration names local package folders that may be absent; pip then warns once per
# package ("Location ... is ignored"). Those lines say nothing about this project: keep the output readable.
quiet_pip() { .venv/bin/pip "$@" 2> >(grep -v "^WARNING: Location '.*' is ignored" >&2); }
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
  quiet_pip install -q --upgrade pip
fi
stamp=".venv/.installed-$(basename "$req" .txt)"
if [ ! -f "$stamp" ] || [ "$req" -nt "$stamp" ] || [ requirements/base.txt -nt "$stamp" ]; then
  quiet_pip install -q -r "$req"
  touch "$stamp"
fi
