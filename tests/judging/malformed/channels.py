"""The three channels an organizer has (the command, the upload page, the API), each trying one malformed file
and returning its errors as `file:line: field: text`; and the row counts that must not change."""

from __future__ import annotations

import html
import io
import re
from pathlib import Path

import pytest
from django.apps import apps
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from tests.judging.malformed.files import Bad

# Tables an attempt may write by design: the upload's own job record, the session of the signed-in client.
NOT_COMPARED = {"assess.importjob", "sessions.session"}


def row_counts() -> dict[str, int]:
    return {
        m._meta.label_lower: m.objects.count()
        for m in apps.get_models()
        if m._meta.label_lower not in NOT_COMPARED and m._meta.managed
    }


def write(case: Bad, folder: Path, generated) -> Path:
    path = folder / Path(case.name).name
    if callable(case.data):
        path.symlink_to(generated(case))
    else:
        path.write_bytes(case.data)
    return path


def upload_of(case: Bad, path: Path) -> SimpleUploadedFile:
    """The file as a browser sends it; the big ones stream from disk."""
    upload = SimpleUploadedFile(case.name, b"")
    upload.file = open(path, "rb")  # noqa: SIM115 - closed with the request
    upload.size = path.stat().st_size
    return upload


# --- the three channels: each returns the errors as `file:line: field: text` ---------------------------


def via_channel(channel: str, case: Bad, path: Path, client, api, django_capture_on_commit_callbacks) -> list[str]:
    """The errors of one refused import, through the command, the upload page or the API."""
    if channel == "command":
        return via_command(case, path)
    if channel == "page":
        return via_page(case, path, client, django_capture_on_commit_callbacks)
    return via_api(case, path, api, django_capture_on_commit_callbacks)


def via_command(case: Bad, path: Path) -> list[str]:
    err = io.StringIO()
    if case.kind in ("exchange", "nist-judgments"):
        fmt = "nist" if case.kind == "nist-judgments" else "exchange"
        args = ["import_judgments", str(path), "--format", fmt]
        args += [x for k, v in case.options.items() for x in (f"--{k}", v)]
    else:
        command = {"topics": "import_topics", "passages": "import_passages"}.get(case.kind, "import_runs")
        args = [command, str(path)] + (["--format", "nist"] if case.kind == "nist-runs" else [])
    with pytest.raises(CommandError, match="nothing was imported"):
        call_command(*args, stderr=err, stdout=io.StringIO(), verbosity=0)
    return [line.removeprefix("error: ") for line in err.getvalue().splitlines() if line.startswith("error: ")]


def via_page(case: Bad, path: Path, client, django_capture_on_commit_callbacks) -> list[str]:
    if case.kind in ("exchange", "nist-judgments"):
        fmt = "nist" if case.kind == "nist-judgments" else "exchange"
        response = client.post(
            "/judgments/import/", {"uploads": [upload_of(case, path)], "format": fmt, **case.options}
        )
        assert response.status_code == 400
        return [html.unescape(t) for t in _listed_errors(response.content.decode())]
    kind = "runs" if case.kind == "nist-runs" else case.kind
    data = {"kind": kind, "uploads": [upload_of(case, path)]}
    if case.kind == "nist-runs":
        data["format"] = "nist"
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/organize/upload/", data)
    if response.status_code == 400:  # refused by the form, before any import
        return [html.unescape(t) for t in _listed_errors(response.content.decode())]
    assert response.status_code == 302, response.content[:2000]
    page = client.get(response["Location"])
    assert page.status_code == 200
    body = page.content.decode()
    assert "failed" in body.lower()
    return [html.unescape(t) for t in _listed_errors(body)]


def _listed_errors(body: str) -> list[str]:
    """The errors a page lists, as `file:line: field: text`: the judgment result's list items, or the import
    job's table rows (file, line, field, message)."""
    items = re.findall(r'<li class="error">(.*?)</li>', body, re.S) or (
        re.findall(r"<li>([^<>]+)</li>", body) if "errorlist" in body else []
    )
    if items:
        return items
    errors = []
    for file, line, field_name, text in re.findall(
        r'<tr class="error"><td>(.*?)</td><td class="num">(.*?)</td><td><code>(.*?)</code></td><td>(.*?)</td></tr>',
        body,
        re.S,
    ):
        where = f"{file}:{line}" if line else file
        errors.append(f"{where}: {field_name}: {text}" if field_name else f"{where}: {text}")
    return errors


def via_api(case: Bad, path: Path, api, django_capture_on_commit_callbacks) -> list[str]:
    if case.kind in ("exchange", "nist-judgments"):
        fmt = "nist" if case.kind == "nist-judgments" else "exchange"
        response = api.post(
            "/api/metrics/judgments/import/", {"files": [upload_of(case, path)], "format": fmt, **case.options}
        )
        assert response.status_code == 400
        body = response.json()
        return [e["text"] for e in body["errors"]] if "errors" in body else _serializer_errors(body)
    kind = "runs" if case.kind == "nist-runs" else case.kind
    data = {"files": [upload_of(case, path)]}
    if case.kind == "nist-runs":
        data["format"] = "nist"
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(f"/api/imports/{kind}/", data)
    if response.status_code == 400:  # refused by the serializer, before any import
        return _serializer_errors(response.json())
    assert response.status_code == 202
    job = api.get(response["Location"]).json()
    assert job["status"] == "failed"
    return [e["text"] for e in job["errors"]]


def _serializer_errors(body) -> list[str]:
    """DRF's 400 body ({"files": {"0": ["..."]}}), flattened to its messages."""
    if isinstance(body, dict):
        return [m for v in body.values() for m in _serializer_errors(v)]
    if isinstance(body, list):
        return [m for v in body for m in _serializer_errors(v)]
    return [str(body)]


def expected_first_error(case: Bad, channel: str) -> str:
    """An empty file never reaches the importer through an upload: Django's file field refuses it."""
    if channel != "command" and case.data == b"":
        return "The submitted file is empty."
    return case.first_error
