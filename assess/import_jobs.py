"""Writes for ImportJob: store an upload from a page or the API and hand its import to a Celery task.

The task runs `assess.importers.jobs.import_job_execute`, which also keeps the job's progress.
"""

from __future__ import annotations

import logging
import shutil
import threading
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.core.files.uploadedfile import UploadedFile
from django.db import connections, transaction
from django.utils.text import get_valid_filename

from assess.importers.jobs import ImportJobInvalid, import_job_execute, import_job_fail, import_job_progress_start
from assess.models import ImportJob, ImportKind
from assess.tasks import import_job_run

logger = logging.getLogger(__name__)

UPLOADABLE_KINDS = (ImportKind.TOPICS, ImportKind.PASSAGES, ImportKind.RUNS)


def import_job_create(
    *,
    kind: str,
    uploaded_files: Sequence[UploadedFile],
    options: dict[str, Any] | None = None,
    user: AbstractBaseUser | AnonymousUser | None = None,
) -> ImportJob:
    """Store the uploads under MEDIA_ROOT, create the job, and enqueue its import once the row is committed.

    `options` for runs: format (trec|nist), group, task, priority, replace. For passages without files:
    corpus_dir, to fill the cited passages without text from an MS MARCO V2.1 segmented corpus.
    """
    options = dict(options or {})
    if kind not in UPLOADABLE_KINDS:
        raise ImportJobInvalid(f"unknown import kind {kind!r}")
    if not uploaded_files and not (kind == ImportKind.PASSAGES and options.get("corpus_dir")):
        raise ImportJobInvalid("no file to import")
    folder = Path(settings.MEDIA_ROOT) / "imports" / uuid.uuid4().hex
    folder.mkdir(parents=True, exist_ok=True)
    try:
        stored, total = _store_uploads(folder, uploaded_files)
        with transaction.atomic():
            job = ImportJob.objects.create(
                kind=kind,
                files=stored,
                options=options,
                total_bytes=total,
                created_by=user if isinstance(user, User) else None,
            )
            import_job_progress_start(job_id=job.pk, total=total)
            job_id = job.pk
            transaction.on_commit(lambda: import_job_enqueue(job_id=job_id))
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return job


def _store_uploads(folder: Path, uploaded_files: Sequence[UploadedFile]) -> tuple[list[dict[str, str]], int]:
    """Write each upload under `folder`; (their paths and names, their bytes in all)."""
    stored: list[dict[str, str]] = []
    total = 0
    for i, upload in enumerate(uploaded_files):
        name = Path(upload.name or f"upload-{i}").name
        path = folder / f"{i:03d}-{get_valid_filename(name) or 'upload'}"
        with open(path, "wb") as out:
            for chunk in upload.chunks():
                out.write(chunk)
        total += path.stat().st_size
        stored.append({"path": str(path), "name": name})
    return stored, total


def import_job_enqueue(*, job_id: int) -> None:
    """Hand the job to a Celery worker; in the embedded default (eager, no broker) run it in a thread so
    that the upload request returns at once and its page can show the progress."""
    eager = bool(import_job_run.app.conf.task_always_eager)
    if eager and getattr(settings, "IMPORT_TASKS_IN_THREAD", True):
        threading.Thread(target=_execute_in_thread, args=(job_id,), name=f"import-job-{job_id}", daemon=True).start()
    else:
        import_job_run.delay(job_id)


def _execute_in_thread(job_id: int) -> None:
    try:
        import_job_execute(job_id=job_id)
    except Exception:
        logger.exception("import job %s stopped", job_id)
        import_job_fail(job_id=job_id, text="the import stopped unexpectedly")
    finally:
        connections.close_all()
