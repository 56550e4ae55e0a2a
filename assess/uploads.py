"""Writes for ImportJob: store an upload from a page or the API and hand its import to a Celery task.

The task runs `assess.importers.job_run.import_job_execute`, which also keeps the job's progress.
"""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils.text import get_valid_filename

from assess.importers.job_run import (
    ImportJobInvalid,
    heartbeats_kept,
    import_job_progress_start,
    import_job_stale_before,
)
from assess.models import ImportJob, ImportKind, ImportStatus
from assess.tasks import import_job_run
from core.background import run_in_background

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
            import_job_enqueue(job_id=job.pk)
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
    """Once committed, hand the job to a Celery worker (in a thread of this process only in the embedded
    default, so that the upload request returns at once): `core.background` decides."""
    run_in_background(import_job_run, job_id)


def import_job_resume(*, job: ImportJob) -> ImportJob:
    """Run again a job whose worker died (`import_job_stalled`): nothing of it was stored (its transaction was
    rolled back with its connection), and its uploads are still kept, so it starts again from its first line."""
    resumed = ImportJob.objects.filter(
        pk=job.pk, status=ImportStatus.RUNNING, heartbeat_at__lt=import_job_stale_before()
    ).update(status=ImportStatus.PENDING)
    job.refresh_from_db()
    if not resumed or not heartbeats_kept():
        raise ImportJobInvalid(
            f"import #{job.pk} is {job.get_status_display().lower()} and its worker is alive: nothing to resume"
            if job.status in (ImportStatus.PENDING, ImportStatus.RUNNING)
            else f"import #{job.pk} has ended ({job.get_status_display().lower()}): nothing to resume"
        )
    import_job_progress_start(job_id=job.pk, total=job.total_bytes)
    import_job_enqueue(job_id=job.pk)
    return job
