#!/usr/bin/env bash
# The assessor load of the Label Studio peer harness ($PEER/bench.py), run against our platform in
# its production shape, then the ratios against the recorded Label Studio CE figures.
#
#   bash bench/assessor_load.sh                     # load phase, C=1,5,20, iters 300,100,50 (as LS's figures)
#   PHASES=import,load,export bash bench/assessor_load.sh
#   MODES="get piggyback" bash bench/assessor_load.sh   # also: submit's response carries the next pair
#   CONCURRENCY=1,2 ITERS=5,5 LOAD_TASKS=200 bash bench/assessor_load.sh   # a smoke run
#   bash bench/assessor_load.sh -- --keepalive      # anything after -- goes to bench.py
#   WITH_LABELSTUDIO=1 bash bench/assessor_load.sh  # first run Label Studio CE itself (the peer's run.sh:
#                                                   # installs it once under /tmp/lsbench, PostgreSQL + uwsgi,
#                                                   # same phases), then ours, and the ratios against that run
#
# Fresh PostgreSQL database ($BENCH_DB, default assess_loadbench, dropped and created), Redis db $BENCH_REDIS_DB
# (default 7) as Celery broker and cache, a Celery worker (solo pool: the import jobs), the deployed server
# (gunicorn with config/gunicorn.py: $WORKERS sync workers running config.wsgi; default 4, as Label Studio's
# uwsgi had 4 processes on these 2 cores; no access log, as
# LS ran with --disable-logging) on 127.0.0.1:$PORT, DEBUG off. Stops everything it started on exit.
# Results: var/loadbench/results/<stamp>-<mode>.jsonl (one bench.py JSON line each).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
if [ -z "${PEER:-}" ] || [ ! -f "$PEER/bench.py" ]; then
  echo "PEER must name the Label Studio peer harness's folder (the one holding bench.py), e.g. PEER=/path/to/peers/labelstudio" >&2
  exit 2
fi
PEER=$(cd "$PEER" && pwd)
LS_BASE=${LS_BASE:-$ROOT/bench/baselines/labelstudio/postgres-uwsgi-repeat-loadonly.jsonl}
PORT=${PORT:-8017}
WORKERS=${WORKERS:-4}
BENCH_DB=${BENCH_DB:-assess_loadbench}
BENCH_REDIS_DB=${BENCH_REDIS_DB:-7}
PHASES=${PHASES:-load}
CONCURRENCY=${CONCURRENCY:-1,5,20}
ITERS=${ITERS:-300,100,50}
LOAD_TASKS=${LOAD_TASKS:-10000}
IMPORT_SIZES=${IMPORT_SIZES:-10000}
EXPORT_N=${EXPORT_N:-10000}
MODES=${MODES:-get}
ASSESSORS=${ASSESSORS:-20}
EXTRA=()
if [ "${1:-}" = "--" ]; then shift; EXTRA=("$@"); fi

if [ "${WITH_LABELSTUDIO:-0}" = 1 ]; then
  # The two never run at the same time: 2 cores. Label Studio first, stopped by its own run.sh.
  echo "assessor_load: running Label Studio CE with the peer's run.sh (phases $PHASES)" >&2
  LS_DIR=${LSB_DIR:-/tmp/lsbench}
  bash "$PEER/run.sh" postgres uwsgi -- --phases "$PHASES" --concurrency "$CONCURRENCY" --iters "$ITERS" \
    --load-tasks "$LOAD_TASKS" --import-sizes "$IMPORT_SIZES" --export-n "$EXPORT_N" >&2
  LS_BASE=$(ls -t "$LS_DIR"/results/postgres-uwsgi-*.jsonl | head -n 1)
  echo "assessor_load: Label Studio result $LS_BASE" >&2
fi

OUT=$ROOT/var/loadbench
STAMP=$(date -u +%Y%m%d-%H%M%S)
mkdir -p "$OUT/results" "$OUT/logs" "$OUT/static"
PY=$ROOT/.venv/bin/python

export DATABASE_URL="postgres://postgres@127.0.0.1:5432/$BENCH_DB"
export REDIS_URL="redis://127.0.0.1:6379/$BENCH_REDIS_DB"
unset CELERY_BROKER_URL CELERY_TASK_ALWAYS_EAGER DJANGO_ALLOW_ASYNC_UNSAFE
export DEBUG=false SECRET_KEY="loadbench-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"
export ALLOWED_HOSTS=127.0.0.1,localhost LOG_LEVEL=WARNING
# The load measures the server, not the API's per-user throttle (docs/operations.md, "Logins").
export API_THROTTLE_USER=1000000/min
export MEDIA_ROOT=$OUT/uploads DATA_DIR=$OUT STATIC_ROOT=$OUT/static

PIDS=()
stop_platform() {
  local pid
  for pid in ${PIDS[@]+"${PIDS[@]}"}; do
    kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in ${PIDS[@]+"${PIDS[@]}"}; do
    for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  PIDS=()
}
trap stop_platform EXIT INT TERM

log() { echo "[$(date -u +%H:%M:%S)] $*" >&2; }

# A fresh database, accounts, the Celery worker and gunicorn: every mode starts from the same empty platform.
start_platform() {
  log "fresh database $BENCH_DB"
  psql -h 127.0.0.1 -U postgres -q -c "DROP DATABASE IF EXISTS $BENCH_DB" -c "CREATE DATABASE $BENCH_DB" 2>/dev/null
  redis-cli -h 127.0.0.1 -p 6379 -n "$BENCH_REDIS_DB" flushdb >/dev/null
  rm -rf "$MEDIA_ROOT"
  $PY manage.py migrate --noinput -v0
  $PY bench/bench_users.py "$ASSESSORS" --workers-out "$OUT/workers.json" --admin-out "$OUT/admin_token" >&2
  .venv/bin/celery -A config worker --pool=solo --loglevel=WARNING >>"$OUT/logs/celery-$STAMP.log" 2>&1 &
  PIDS+=($!)
  GUNICORN_ACCESS_LOG="" .venv/bin/gunicorn -c config/gunicorn.py --bind "127.0.0.1:$PORT" \
    --workers "$WORKERS" --timeout 600 \
    --error-logfile "$OUT/logs/gunicorn-$STAMP.log" &
  PIDS+=($!)
  for _ in $(seq 1 150); do
    curl -fs -o /dev/null "http://127.0.0.1:$PORT/accounts/login/" && break
    sleep 0.2
  done
  curl -fs -o /dev/null "http://127.0.0.1:$PORT/accounts/login/" || { log "gunicorn did not start"; exit 1; }
  # Every gunicorn worker imports the URLconf (and the SDKs behind it) on its first request: not measured.
  local warm=() pid
  for _ in $(seq 1 $((WORKERS * 3))); do
    curl -fs -o /dev/null -H "Authorization: Token $(cat "$OUT/admin_token")" \
      "http://127.0.0.1:$PORT/api/assignments/?limit=1" &
    warm+=($!)
  done
  for pid in "${warm[@]}"; do wait "$pid" || true; done
  log "platform up on 127.0.0.1:$PORT (gunicorn x$WORKERS, Celery worker, PostgreSQL $BENCH_DB, Redis db $BENCH_REDIS_DB)"
}

bash scripts/services.sh
FILES=()
for mode in $MODES; do
  start_platform
  file="$OUT/results/$STAMP-$mode.jsonl"
  log "bench.py, next mode $mode; machine: $(uptime)"
  ASSESS_BENCH_NEXT=$mode BENCH_WORKER_TOKENS="$OUT/workers.json" PYTHONPATH="$ROOT/bench" \
    $PY "$PEER/bench.py" --adapter ls_adapter:AssessPlatformAdapter --url "http://127.0.0.1:$PORT" \
    --token "$(cat "$OUT/admin_token")" --worker-tokens "$OUT/workers.json" --phases "$PHASES" \
    --import-sizes "$IMPORT_SIZES" --load-tasks "$LOAD_TASKS" --concurrency "$CONCURRENCY" --iters "$ITERS" \
    --export-n "$EXPORT_N" --label "db=postgres server=gunicorn-sync-x$WORKERS next=$mode" --out "$file" \
    ${EXTRA[@]+"${EXTRA[@]}"} >/dev/null
  log "machine after: $(uptime)"
  stop_platform
  FILES+=("$file")
done

$PY "$PEER/summarize.py" --base "$LS_BASE" "${FILES[@]}"
echo
echo "results: ${FILES[*]}"
