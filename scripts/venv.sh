#!/usr/bin/env bash
# Create .venv (Python 3.11) and install the pinned requirements given as $1 (base or test); for test, also
# the JavaScript lint tooling (package.json, pinned in package-lock.json) with npm ci.
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
if [ "${1:-base}" = "test" ]; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "npm is needed for eslint (scripts/lint.sh): install Node.js 20 or later" >&2
    exit 1
  fi
  if [ ! -x node_modules/.bin/eslint ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund --loglevel=error
  fi
fi
