"""Where long work runs: the one rule every path (page, API, command) follows to start an import, a pre-labelling
or a study's second judge (docs/operations.md, "Background work").

With a broker (REDIS_URL or CELERY_BROKER_URL, tasks not eager) the task goes to a Celery worker, always: a web
process never runs long work, so a web restart cannot strand a job and the workers scale apart from the web.
Only in the embedded default (no broker: tasks eager) does it run in a thread of this process, so that the
request returns at once and its page shows the progress; BACKGROUND_IN_THREAD=false runs it inline instead
(tests, and commands that wait for the result).
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from celery import Task
from django.conf import settings
from django.db import connections, transaction

logger = logging.getLogger(__name__)


def runs_on_workers(task: Task) -> bool:
    """True when a broker is configured: the task will be delivered to a Celery worker."""
    return not task.app.conf.task_always_eager


def run_in_background(task: Task, *args: Any) -> None:
    """Start `task(*args)` once the current transaction commits (at once outside one): on a Celery worker when
    there is a broker; in the embedded default in a thread of this process, or inline if threads are off."""
    transaction.on_commit(lambda: _start(task, args))


def _start(task: Task, args: tuple[Any, ...]) -> None:
    if runs_on_workers(task):
        task.delay(*args)
    elif getattr(settings, "BACKGROUND_IN_THREAD", True):
        name = f"{task.name.rsplit('.', 1)[-1]}-{'-'.join(map(str, args))}"
        threading.Thread(target=_run_here, args=(task, args), name=name, daemon=True).start()
    else:
        task.apply(args=args, throw=True)


def _run_here(task: Task, args: tuple[Any, ...]) -> None:
    """A task in a thread of its own: its failures are logged (the task marks its job failed), and the thread's
    database connection is closed when it ends."""
    try:
        result = task.apply(args=args, throw=False)
        if result.failed():
            logger.error("%s%r failed in its thread: %r", task.name, args, result.result)
    finally:
        connections.close_all()
