#!/usr/bin/env bash
# ruff (format check + lint) and mypy, as CI runs them.
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/ruff format --check .
.venv/bin/ruff check .
.venv/bin/mypy .
