#!/usr/bin/env bash
# ruff (format check + lint), mypy and the import contracts (.importlinter), as CI runs them.
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/ruff format --check .
.venv/bin/ruff check .
# ppi-python (requirements/test.txt) installs a top-level `tests` package: the project's own must come first.
PYTHONPATH=. .venv/bin/mypy .
.venv/bin/lint-imports --no-cache
