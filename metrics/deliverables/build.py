"""The deliverables zip, written entry after entry to a file or to the browser (never whole in memory), each
entry by the writer that owns its format, all of them over one reading of the scope's citations and of each
label set's labels (`_read_once`): qrels and NIST JSONL (`judging.exchange.export`), the judgment sheet with one column per
assessor (`judging.exchange.sheet`), run and per-(topic, run) scores (`metrics.exports`), the agreement report
(`metrics.reports`, as JSON and CSV) and the paper's figures (`metrics.figure_data` + `metrics.figures`).
`manifest.json`, written last, lists every file with its size and SHA-256, the label sets with their counts,
the campaign's settings, the platform's version and git commit, and the date."""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import time
import tomllib
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from django.conf import settings

from core.csvsafe import SafeCsvWriter
from judging.exchange.export import ExportFormat, judgments_export
from judging.exchange.qrels import QrelsLevel
from judging.exchange.selectors import ExportMaterial
from judging.exchange.sheet import sheet_write
from judging.label_set_pickers import label_set_describe
from judging.labels import CitationLabels, LabelSet, LabelSetKind, label_set_final, label_sets_available
from judging.models import Campaign
from judging.scope import Scope, scope_for
from metrics.exports import agreement_json, scores_csv, topic_scores_csv
from metrics.figure_data import FigureUnavailable, figure_make, file_stem
from metrics.figures import FORMATS, figure_bytes
from metrics.material import labels_get, material_get
from metrics.reports import agreement_report, scores_report
from metrics.topic_scores import topic_scores_report

CHUNK = 1 << 16
AGREEMENT_COLUMNS = (
    "a",
    "b",
    "unit",
    "n",
    "agreement",
    "kappa",
    "kappa_low",
    "kappa_high",
    "kappa_linear",
    "alpha_ordinal",
    "tau_precision",
    "tau_recall",
)


class _Hashing(io.RawIOBase):
    """A binary sink that passes bytes on to a zip entry and keeps their count and SHA-256."""

    def __init__(self, target: IO[bytes]) -> None:
        self.target = target
        self.sha = hashlib.sha256()
        self.size = 0

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        view = bytes(data)
        self.sha.update(view)
        self.size += len(view)
        self.target.write(view)
        return len(view)


@dataclass
class Deliverables:
    """What was written: the manifest's file entries and what was left out, with why."""

    files: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)  # seconds of the steps that are not one file


def _entry(zf: zipfile.ZipFile, done: Deliverables, name: str, write: Callable[[IO[str]], Any]) -> None:
    """One text entry, streamed into the zip through a UTF-8 writer."""
    start = time.perf_counter()
    with zf.open(name, "w", force_zip64=True) as raw:
        sink = _Hashing(raw)
        text = io.TextIOWrapper(io.BufferedWriter(sink, CHUNK), encoding="utf-8", newline="")
        rows = write(text)
        text.flush()
        text.detach()
    entry: dict[str, Any] = {
        "name": name,
        "bytes": sink.size,
        "sha256": sink.sha.hexdigest(),
        "seconds": round(time.perf_counter() - start, 2),
    }
    if isinstance(rows, int):
        entry["rows"] = rows
    done.files.append(entry)


def _binary_entry(zf: zipfile.ZipFile, done: Deliverables, name: str, data: bytes) -> None:
    with zf.open(name, "w") as raw:
        raw.write(data)
    done.files.append({"name": name, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()})


def platform_version() -> dict[str, str]:
    """The platform's version (pyproject.toml) and git commit, read now; "unknown" where they cannot be read."""
    base = Path(settings.BASE_DIR)
    try:
        version = str(tomllib.loads((base / "pyproject.toml").read_text())["project"]["version"])
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        version = "unknown"
    try:
        found = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=base, capture_output=True, text=True, timeout=10, check=False
        )
        commit = found.stdout.strip() if found.returncode == 0 and found.stdout.strip() else "unknown"
    except (OSError, subprocess.SubprocessError):
        commit = "unknown"
    return {"version": version, "git_commit": commit}


def _partners(campaign: Campaign, label_set: LabelSet) -> list[LabelSet]:
    """The sets the agreement report compares `label_set` with: the campaign's condition sets, its final set,
    and the LLM judges with labels (the post-edit judge first)."""
    found = [s for s in label_sets_available(campaign=campaign) if s.key != label_set.key]
    wanted = [s for s in found if s.kind in (LabelSetKind.CAMPAIGN, LabelSetKind.FINAL)]
    llms = [s for s in found if s.kind == LabelSetKind.JUDGE and s.judge_kind == "llm"]
    post_edit = campaign.post_edit_judge.name if campaign.post_edit_judge_id and campaign.post_edit_judge else None
    llms.sort(key=lambda s: (s.name != post_edit, s.spec))
    return llms + wanted


def _counts(label_set: LabelSet, labels: CitationLabels) -> dict[str, Any]:
    codes = labels.codes
    return {
        **label_set_describe(label_set),
        "FS": int((codes == 2).sum()),
        "PS": int((codes == 1).sum()),
        "NS": int((codes == 0).sum()),
        "not_judged": int(labels.not_judged.sum()),
        "tied": int(labels.tied.sum()),
        "unit": "citations in scope",
    }


def _agreement_csv(out: IO[str], reports: list[dict[str, Any]]) -> int:
    writer = SafeCsvWriter(out)
    writer.writerow(AGREEMENT_COLUMNS)
    for r in reports:
        labels = r["labels"]
        ci = labels.get("kappa_ci") or (None, None)
        writer.writerow(
            [
                r["a"],
                r["b"],
                r["unit"],
                labels["n"],
                labels["agreement"],
                labels["kappa"],
                ci[0],
                ci[1],
                labels["kappa_linear"],
                labels["alpha_ordinal"],
                r["tau"].get("precision"),
                r["tau"].get("recall"),
            ]
        )
    return len(reports)


def _read_once(scope: Scope) -> ExportMaterial:
    """The scope's citations (`metrics.material`, kept between requests) and, as each set is first asked for,
    its labels, read once for every entry of the zip."""
    material = material_get(scope)
    labels: dict[str, CitationLabels] = {}

    def labels_of(label_set: LabelSet) -> CitationLabels:
        if label_set.key not in labels:
            labels[label_set.key] = labels_get(label_set, material)
        return labels[label_set.key]

    return ExportMaterial(
        answers={pk: (topic_id, run_id) for pk, (topic_id, run_id, _) in material.answers.items()},
        citation_id=material.citation_id,
        citation_answer=material.citation_answer,
        citation_sentence_index=material.citation_sentence_index,
        citation_slot=material.citation_slot,
        citation_passage=material.citation_passage,
        citation_pair=material.citation_pair,
        labels_of=labels_of,
    )


def campaign_settings(campaign: Campaign) -> dict[str, Any]:
    """What the manifest records of the campaign."""
    out: dict[str, Any] = {
        "name": campaign.name,
        "depth": campaign.depth,
        "runs": sorted(campaign.runs.values_list("run_id", flat=True)),
        "topics": sorted(campaign.topics.values_list("topic_id", flat=True)),
        "post_edit_judge": campaign.post_edit_judge.name
        if campaign.post_edit_judge_id and campaign.post_edit_judge
        else None,
        "highlight_evidence": campaign.highlight_evidence,
        "guidelines_sha256": hashlib.sha256(campaign.guidelines.encode()).hexdigest(),
        "built_at": campaign.built_at.isoformat() if campaign.built_at else None,
        "build_summary": campaign.build_summary,
        "queue_order": campaign.queue_order,
        "archived_at": campaign.archived_at.isoformat() if campaign.archived_at else None,
    }
    return out


def deliverables_write(
    target: IO[bytes] | Path, *, campaign: Campaign, label_set: LabelSet, resamples: int = 1000
) -> Deliverables:
    """Write the campaign's deliverables for `label_set` as one zip into `target` (a path or a binary file)."""
    done = Deliverables()
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
        for _ in _entries(zf, done, campaign=campaign, label_set=label_set, resamples=resamples):
            pass
    return done


class _Spool(io.RawIOBase):
    """A sink that keeps what the zip writes until it is taken: the zip sees an unseekable stream, so it writes
    each entry's sizes after its data and never goes back."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        self.chunks.append(bytes(data))
        return len(self.chunks[-1])

    def take(self) -> bytes:
        data = b"".join(self.chunks)
        self.chunks.clear()
        return data


def deliverables_stream(*, campaign: Campaign, label_set: LabelSet, resamples: int = 1000) -> Iterator[bytes]:
    """The same zip as `deliverables_write`, as bytes given out entry after entry while it is written (what
    the campaign page's button sends): memory holds one entry's compressed bytes at most."""
    spool = _Spool()
    with zipfile.ZipFile(spool, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
        for _ in _entries(zf, Deliverables(), campaign=campaign, label_set=label_set, resamples=resamples):
            if spool.chunks:
                yield spool.take()
    yield spool.take()


def _entries(
    zf: zipfile.ZipFile, done: Deliverables, *, campaign: Campaign, label_set: LabelSet, resamples: int
) -> Iterator[None]:
    """Write the entries one by one, pausing after each."""
    scope = scope_for(campaign=campaign)
    partners = _partners(campaign, label_set)
    material = _read_once(scope)
    yield from _judgment_entries(zf, done, campaign=campaign, scope=scope, label_set=label_set, material=material)
    yield from _score_entries(zf, done, scope=scope, label_set=label_set, resamples=resamples)
    start = time.perf_counter()
    yield from _agreement_entries(zf, done, scope=scope, label_set=label_set, partners=partners, resamples=resamples)
    yield from _figure_entries(zf, done, scope=scope, label_set=label_set, partners=partners)
    done.timings["agreement files and figures"] = round(time.perf_counter() - start, 2)
    _manifest_write(zf, done, campaign=campaign, scope=scope, label_set=label_set, partners=partners, material=material)


def _judgment_entries(
    zf: zipfile.ZipFile,
    done: Deliverables,
    *,
    campaign: Campaign,
    scope: Scope,
    label_set: LabelSet,
    material: ExportMaterial,
) -> Iterator[None]:
    """The label set's judgments: qrels (sentence and topic level), NIST JSONL and the judgment sheet."""
    for name, level in (("qrels.txt", QrelsLevel.SENTENCE), ("qrels-topic.txt", QrelsLevel.TOPIC)):
        _entry(
            zf,
            done,
            name,
            lambda out, level=level: judgments_export(  # type: ignore[misc]
                out, fmt=ExportFormat.QRELS, scope=scope, label_sets=[label_set], qrels_level=level, material=material
            ),
        )
        yield
    _entry(
        zf,
        done,
        "judgments-nist.jsonl",
        lambda out: judgments_export(
            out, fmt=ExportFormat.NIST, scope=scope, label_sets=[label_set], material=material
        ),
    )
    yield
    _entry(
        zf,
        done,
        "judgments.csv",
        lambda out: sheet_write(out, campaign=campaign, scope=scope, label_set=label_set, material=material),
    )
    yield


def _score_entries(
    zf: zipfile.ZipFile, done: Deliverables, *, scope: Scope, label_set: LabelSet, resamples: int
) -> Iterator[None]:
    """The runs' scores with their intervals (CSV and JSON) and the per-(topic, run) scores."""
    start = time.perf_counter()
    scores = scores_report(label_set=label_set, scope=scope, resamples=resamples)
    done.timings["scores (with intervals)"] = round(time.perf_counter() - start, 2)
    _entry(zf, done, "scores.csv", lambda out: scores_csv(out, [scores], intervals=True))
    _entry(zf, done, "scores.json", lambda out: agreement_json(out, scores.as_dict()))
    _entry(
        zf,
        done,
        "topic-scores.csv",
        lambda out: topic_scores_csv(out, [topic_scores_report(label_set=label_set, scope=scope)]),
    )
    yield


def _agreement_entries(
    zf: zipfile.ZipFile,
    done: Deliverables,
    *,
    scope: Scope,
    label_set: LabelSet,
    partners: list[LabelSet],
    resamples: int,
) -> Iterator[None]:
    """The label set's agreement with each partner (JSON and CSV); a pair that cannot be compared is skipped."""
    reports = []
    for other in partners:
        try:
            reports.append(agreement_report(a=label_set, b=other, scope=scope, resamples=resamples))
        except ValueError as exc:
            done.skipped.append({"what": f"agreement with {other.spec}", "why": str(exc)})
    _entry(
        zf,
        done,
        "agreement.json",
        lambda out: agreement_json(out, {"label_set": label_set.spec, "reports": reports}),
    )
    _entry(zf, done, "agreement.csv", lambda out: _agreement_csv(out, reports))
    yield


def _figure_entries(
    zf: zipfile.ZipFile, done: Deliverables, *, scope: Scope, label_set: LabelSet, partners: list[LabelSet]
) -> Iterator[None]:
    """The paper's figures of the label set against its first partner, in every format."""
    if not partners:
        done.skipped.append({"what": "figures", "why": "no other label set to draw the label set against"})
        return
    for name in ("scatter", "confusion", "distribution"):
        try:
            figure = figure_make(name, a=label_set, b=partners[0], scope=scope)
        except (FigureUnavailable, ValueError) as exc:
            done.skipped.append({"what": f"figure {name}", "why": str(exc)})
            continue
        for fmt in FORMATS:
            _binary_entry(zf, done, f"figures/{file_stem(name)}.{fmt}", figure_bytes(figure, fmt))
        yield


def _manifest_write(
    zf: zipfile.ZipFile,
    done: Deliverables,
    *,
    campaign: Campaign,
    scope: Scope,
    label_set: LabelSet,
    partners: list[LabelSet],
    material: ExportMaterial,
) -> None:
    """`manifest.json`, last: every file written with its size and SHA-256, the label sets, settings, version."""
    sets = [label_set] + ([label_set_final(campaign)] if label_set.kind != LabelSetKind.FINAL else []) + partners
    manifest = {
        "campaign": campaign_settings(campaign),
        "label_set": label_set.spec,
        "label_sets": [_counts(s, material.labels(s)) for s in sets],
        "scope": {"depth": scope.depth, "topics": len(scope.topic_ids or ()), "runs": len(scope.run_ids or ())},
        "figures_against": partners[0].spec if partners else None,
        "platform": platform_version(),
        "created_at": datetime.now(UTC).isoformat(),
        "files": done.files,
        "skipped": done.skipped,
        "seconds": done.timings,
    }
    data = (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode()
    with zf.open("manifest.json", "w") as raw:
        raw.write(data)
