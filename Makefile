# Common tasks. `make demo` starts the platform; `make test` installs what the tests need and runs them.
.PHONY: demo test test-fast lint fmt worker serve bench-ingest migrate bench-soak

PY := .venv/bin/python

demo:
	bash scripts/demo.sh

test:
	bash scripts/test.sh

# The inner loop: everything but the browser, the Celery worker, the benchmark and the fault tests (make test runs all).
test-fast:
	bash scripts/test.sh -m "not browser and not celery_worker and not bench and not faults"

lint:
	bash scripts/venv.sh test && bash scripts/lint.sh

fmt:
	.venv/bin/ruff format . && .venv/bin/ruff check --fix .

migrate:
	$(PY) manage.py migrate

serve:
	$(PY) manage.py runserver 127.0.0.1:8000

worker:
	.venv/bin/celery -A config worker --loglevel=info --concurrency=4

bench-ingest:
	bash scripts/venv.sh test && bash scripts/services.sh && $(PY) bench/ingest.py

.PHONY: bench-prelabel
bench-prelabel:
	bash scripts/venv.sh test && bash scripts/services.sh && $(PY) bench/prelabel.py

# The Label Studio peer's assessor load (next + submit, C=1,5,20) against gunicorn + PostgreSQL, with ratios.
.PHONY: bench-assessor
bench-assessor:
	bash scripts/venv.sh test && bash bench/assessor_load.sh

.PHONY: bench-metrics
bench-metrics:
	bash scripts/venv.sh test && bash scripts/services.sh && $(PY) bench/metrics.py

# Label Studio CE first (installed once under /tmp/lsbench by the peer harness), then ours, then the ratios.
.PHONY: bench-assessor-ls
bench-assessor-ls:
	bash scripts/venv.sh test && bash scripts/services.sh && WITH_LABELSTUDIO=1 bash bench/assessor_load.sh

# The judging load: N = 1, 5, 20 simulated assessors (own processes, logged-in sessions) doing submit-and-next
# on the judging page against gunicorn (config/gunicorn.py) + PostgreSQL, then N = 20 paced at 100/s.
.PHONY: bench-judge
bench-judge:
	bash scripts/venv.sh test && bash scripts/services.sh && $(PY) bench/judge.py

# Keydown to next card painted, in Chromium, while bench/judge.py's 20 assessors load the same gunicorn server.
.PHONY: bench-keystroke
bench-keystroke:
	bash scripts/venv.sh test && bash scripts/services.sh && $(PY) bench/keystroke.py

# A day under load: 50 assessors at a human pace for 20 minutes against gunicorn + PostgreSQL + its own Redis + a
# Celery worker pre-labelling meanwhile; one web worker SIGKILLed and Redis restarted during the run.
# MINUTES=1 for a shorter run.
bench-soak:
	bash scripts/venv.sh test && bash scripts/services.sh && $(PY) bench/soak.py --minutes $(or $(MINUTES),20)

# campaign_deliverables on a campaign of about a million judgments (its own database, assess_bench_deliv).
.PHONY: bench-deliverables
bench-deliverables:
	bash scripts/venv.sh test && bash scripts/services.sh && $(PY) bench/deliverables.py
