"""gunicorn's settings for the web process: `gunicorn -c config/gunicorn.py`.

Django alone, under WSGI, in sync workers: every request (the judging keystroke included) goes through
Django's own request cycle and middleware. bench/judge.py measured sync, threaded (gthread) and ASGI (uvicorn)
workers on the judging load; sync workers served the most judgments per CPU second, and a keystroke's request
is short (a few milliseconds of work, most of it CPU), so a thread or an event loop per worker buys nothing but
switching (docs/operations.md, bench/README.md). Two workers per core: one computes while the other waits on
PostgreSQL."""

import multiprocessing
import os

wsgi_app = "config.wsgi:application"
# An empty variable counts as unset, as in config/settings.py (docker-compose.yml passes every one through).
bind = os.environ.get("GUNICORN_BIND") or "0.0.0.0:8000"
workers = int(os.environ.get("WEB_CONCURRENCY") or 2 * multiprocessing.cpu_count())
worker_class = "sync"
timeout = 120
backlog = 2048
# One line per request on stdout; GUNICORN_ACCESS_LOG="" turns it off (the benchmarks do, as Label Studio's did).
accesslog = os.environ.get("GUNICORN_ACCESS_LOG", "-") or None
