#!/usr/bin/env bash
# Install what the tests need (venv, Chromium, PostgreSQL, Redis), start the services, lint, and run the tests.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/venv.sh test
if [ ! -x /usr/bin/chromium ]; then
  echo "installing Debian's Chromium for the browser tests" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
bash scripts/services.sh

export DATABASE_URL="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/assess_platform}"
export REDIS_URL="${TEST_REDIS_URL:-redis://127.0.0.1:6379/15}"
export CELERY_TASK_ALWAYS_EAGER=true
export DJANGO_ALLOW_ASYNC_UNSAFE=true

bash scripts/lint.sh
set +e
.venv/bin/pytest --create-db "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: that is a failure" >&2
  exit 1
fi
exit "$status"
