#!/usr/bin/env bash
# One command to a working platform on the embedded default: SQLite, Celery tasks in process,
# the demo set and the demo accounts loaded. Prints the URL.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/venv.sh base
unset DATABASE_URL REDIS_URL CELERY_BROKER_URL
export DEBUG="${DEBUG:-true}"
PORT="${PORT:-8000}"
mkdir -p var
.venv/bin/python manage.py migrate --noinput -v0
.venv/bin/python manage.py demo_load
echo
echo "Open http://127.0.0.1:${PORT}/ and log in with an account above (stop with Ctrl-C)."
echo "This is the embedded demo server; docs/operations.md says how to serve the platform to others."
# Django's own development-server banner says the same as the line above, in capitals.
export DJANGO_RUNSERVER_HIDE_WARNING=true
exec .venv/bin/python manage.py runserver --noreload "127.0.0.1:${PORT}"
