#!/usr/bin/env bash
# ruff (format check + lint), mypy, the import contracts (.importlinter) and eslint (static/js), as CI runs them.
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/ruff format --check .
.venv/bin/ruff check .
# ppi-python (requirements/test.txt) installs a top-level `tests` package: the project's own must come first.
PYTHONPATH=. .venv/bin/mypy .
.venv/bin/lint-imports --no-cache
# The pages' JavaScript (eslint.config.mjs; installed from package-lock.json by scripts/venv.sh).
if [ ! -x node_modules/.bin/eslint ]; then
  echo "eslint is not installed: run bash scripts/venv.sh test (npm ci)" >&2
  exit 1
fi
node_modules/.bin/eslint static/js
# The size limits (scripts/sizes.py: modules <= 500 lines, functions <= 60, outside migrations).
.venv/bin/python scripts/sizes.py
