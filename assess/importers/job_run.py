"""Running an ImportJob (an upload from a page or the API): its import, its progress, its result.

Progress is written to the Django cache (Redis in production), never to the ImportJob row while the import
runs: the import's own transaction holds its writes back from every other connection until it commits.
Creating and enqueuing a job is `assess.uploads`; the Celery task calls `import_job_execute`.
"""

from __future__ import annotations

import logging
import shutil
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, InterfaceError, OperationalError, connection
from django.db.models import Q
from django.utils import timezone

from assess.importers.lines import InputFile
from assess.importers.passages import passages_fill_from_corpus, passages_import
from assess.importers.report import ImportRejected, ImportReport
from assess.importers.runs import RunFormat, RunOptions, runs_import
from assess.importers.topics import topics_import
from assess.models import ImportJob, ImportKind, ImportStatus

logger = logging.getLogger(__name__)

PROGRESS_INTERVAL_SECONDS = 0.5
PROGRESS_TTL_SECONDS = 24 * 3600


class ImportJobInvalid(ValueError):
    """An import job that cannot be created or run as asked (unknown kind, no files)."""


@dataclass(frozen=True)
class JobProgress:
    done: int
    total: int
    finished: bool = False

    @property
    def percent(self) -> int:
        if self.finished:
            return 100
        if not self.total:
            return 0
        # The files are read before the last batch is written: 100 % only once the job is done.
        return max(0, min(99, int(100 * self.done / self.total)))

    @property
    def writing(self) -> bool:
        """Every byte has been read; the import is writing its last batch and committing."""
        return not self.finished and self.total > 0 and self.done >= self.total


def _progress_key(job_id: int) -> str:
    return f"import-job:{job_id}:progress"


def import_job_progress(job: ImportJob) -> JobProgress:
    """The job's progress: from the cache while it runs, from the row once it has finished (or failed)."""
    if job.status == ImportStatus.DONE:
        return JobProgress(done=job.total_bytes, total=job.total_bytes, finished=True)
    if job.status in (ImportStatus.PENDING, ImportStatus.RUNNING):
        value = cache.get(_progress_key(job.pk))
        if isinstance(value, (list, tuple)) and len(value) == 2:
            return JobProgress(done=int(value[0]), total=int(value[1]))
    return JobProgress(done=job.done_bytes, total=job.total_bytes, finished=job.status == ImportStatus.FAILED)


def import_job_progress_start(*, job_id: int, total: int) -> None:
    cache.set(_progress_key(job_id), (0, total), timeout=PROGRESS_TTL_SECONDS)


class ProgressWriter:
    """The importers' `progress(done, total)` callback: writes to the cache at most every half second."""

    def __init__(self, job_id: int, interval: float = PROGRESS_INTERVAL_SECONDS) -> None:
        self.key = _progress_key(job_id)
        self.interval = interval
        self.last_write = 0.0
        self.last: tuple[int, int] = (0, 0)

    def __call__(self, done: int, total: int) -> None:
        self.last = (done, total)
        now = time.monotonic()
        if now - self.last_write >= self.interval or (total and done >= total):
            self.last_write = now
            cache.set(self.key, self.last, timeout=PROGRESS_TTL_SECONDS)


def heartbeats_kept() -> bool:
    """SQLite (the embedded default) lets one transaction write at a time, and the import's holds the database
    for its whole length: no heartbeat can be written beside it, so none is kept and no job is taken for dead."""
    return connection.vendor != "sqlite"


def import_job_stale_before() -> datetime:
    return timezone.now() - timedelta(seconds=settings.IMPORT_STALE_SECONDS)


def import_job_stalled(job: ImportJob) -> bool:
    """Running, but its worker has sent no heartbeat for IMPORT_STALE_SECONDS: it died (a SIGKILL, the machine
    lost), its import was rolled back with its connection, and the job can be resumed."""
    return (
        heartbeats_kept()
        and job.status == ImportStatus.RUNNING
        and job.heartbeat_at is not None
        and job.heartbeat_at < import_job_stale_before()
    )


class Heartbeat:
    """While an import runs, a thread stamps the job's `heartbeat_at` every IMPORT_HEARTBEAT_SECONDS on a
    connection of its own, so the stamp commits although the import's transaction has not."""

    def __init__(self, job_id: int) -> None:
        self.job_id = job_id
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._beat, name=f"import-job-{job_id}-heartbeat", daemon=True)

    def __enter__(self) -> Heartbeat:
        if heartbeats_kept():
            self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        if self.thread.is_alive():
            self.thread.join()

    def _beat(self) -> None:
        try:
            while not self.stop.wait(float(settings.IMPORT_HEARTBEAT_SECONDS)):
                try:
                    ImportJob.objects.filter(pk=self.job_id, status=ImportStatus.RUNNING).update(
                        heartbeat_at=timezone.now()
                    )
                except DatabaseError:
                    logger.warning("import job %s: heartbeat not written", self.job_id, exc_info=True)
        finally:
            connection.close()


def import_job_execute(*, job_id: int) -> ImportJob | None:
    """Run the job's import. Idempotent: a job that has finished, is gone, or is running on a live worker is
    left alone, so a duplicate delivery never imports twice at once.

    A job whose worker died (its heartbeat is stale) is run again: its import was rolled back with it.
    Transient database errors propagate so that the task can retry.
    """
    now = timezone.now()
    claimable = Q(status=ImportStatus.PENDING) | Q(
        status=ImportStatus.RUNNING, heartbeat_at__lt=import_job_stale_before()
    )
    if not heartbeats_kept():
        claimable |= Q(status=ImportStatus.RUNNING)
    started = ImportJob.objects.filter(claimable, pk=job_id).update(status=ImportStatus.RUNNING, heartbeat_at=now)
    if not started:
        return ImportJob.objects.filter(pk=job_id).first()
    job = ImportJob.objects.get(pk=job_id)
    progress = ProgressWriter(job_id)
    try:
        with Heartbeat(job_id):
            report = _run_import(job, progress)
    except ImportRejected as exc:
        _finish(job_id, status=ImportStatus.FAILED, report=exc.report, done=progress.last[0])
    except (OperationalError, InterfaceError):
        raise
    except Exception as exc:
        logger.exception("import job %s failed", job_id)
        import_job_fail(job_id=job_id, text=f"the import stopped: {type(exc).__name__}: {exc}", done=progress.last[0])
    else:
        if job.files:
            _finish(job_id, status=ImportStatus.DONE, report=report, done=job.total_bytes)
        else:  # a corpus fill counts passages, not bytes
            _finish(job_id, status=ImportStatus.DONE, report=report, done=progress.last[1], total=progress.last[1])
    _remove_uploads(job)
    return ImportJob.objects.filter(pk=job_id).first()


def import_job_fail(*, job_id: int, text: str, done: int | None = None) -> None:
    """Mark a job failed for a reason that is not in its files (the import stopped)."""
    error = {"file": "", "line": None, "field": "", "message": text, "text": text}
    _finish(job_id, status=ImportStatus.FAILED, errors=[error], done=done)


def _run_import(job: ImportJob, progress: ProgressWriter) -> ImportReport:
    files = [InputFile.of(f["path"], f["name"]) for f in job.files]
    opts = job.options or {}
    if job.kind == ImportKind.TOPICS:
        return topics_import(files=files, progress=progress)
    if job.kind == ImportKind.PASSAGES:
        if not files and opts.get("corpus_dir"):
            return passages_fill_from_corpus(corpus_dir=opts["corpus_dir"], progress=progress)
        return passages_import(files=files, progress=progress)
    if job.kind == ImportKind.RUNS:
        priority = opts.get("priority")
        return runs_import(
            files=files,
            fmt=opts.get("format") or RunFormat.TREC,
            options=RunOptions(
                group=opts.get("group") or None,
                task=opts.get("task") or None,
                priority=int(priority) if priority not in (None, "") else None,
                replace=bool(opts.get("replace")),
            ),
            progress=progress,
        )
    raise ImportJobInvalid(f"import kind {job.kind!r} cannot be run as an upload")


def _finish(
    job_id: int,
    *,
    status: str,
    report: ImportReport | None = None,
    errors: list[dict[str, Any]] | None = None,
    done: int | None = None,
    total: int | None = None,
) -> None:
    fields: dict[str, Any] = {"status": status, "finished_at": timezone.now()}
    if total is not None:
        fields["total_bytes"] = total
    if report is not None:
        as_dict = report.as_dict()
        fields["errors"] = as_dict["errors"]
        fields["warnings"] = as_dict["warnings"]
        fields["summary"] = {"counts": as_dict["counts"], "warning_count": as_dict["warning_count"]}
    if errors is not None:
        fields["errors"] = errors
    if done is not None:
        fields["done_bytes"] = done
    ImportJob.objects.filter(pk=job_id).update(**fields)
    cache.delete(_progress_key(job_id))


def _remove_uploads(job: ImportJob) -> None:
    """The stored uploads are only needed until the import has run; the database holds the result."""
    folders = {Path(f["path"]).parent for f in job.files}
    root = (Path(settings.MEDIA_ROOT) / "imports").resolve()
    for folder in folders:
        if folder.resolve().parent == root:
            shutil.rmtree(folder, ignore_errors=True)
