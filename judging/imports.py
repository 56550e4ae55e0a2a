"""Judgment import (DESIGN §7): NIST's support-judgment JSONL and the judgments exchange file (CSV or JSONL).

One service for the command, the page and the API. All or nothing: every error names file, line and field,
and the whole import (including the answers a NIST file creates) is rolled back when there is any.
Each imported label becomes a Judgment made on its citation (`citation` set, `pair` from the citation).
"""

from __future__ import annotations

import csv
import io
import math
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import transaction
from django.db.models import Count

from assess.models import Answer, Citation
from assess.reading import (
    FileUnreadable,
    ImportRejected,
    ImportReport,
    ProgressCallback,
    files_total_size,
    iter_lines,
    read_json_lines,
)
from assess.services import InputFile, RunFormat, RunOptions, runs_import
from judging.models import NOT_JUDGED, Condition, Judge, JudgeKind, Judgment, JudgmentOrigin, Label
from judging.pairs import pairs_for_citations


class JudgmentFormat:
    NIST = "nist"
    EXCHANGE = "exchange"


NIST_SUPPORT: dict[str, str | None] = {"2": Label.FULL, "1": Label.PARTIAL, "0": Label.NONE, "-1": None}
LABEL_SPELLINGS: dict[str, str] = {
    "fs": Label.FULL,
    "ps": Label.PARTIAL,
    "ns": Label.NONE,
    "full support": Label.FULL,
    "partial support": Label.PARTIAL,
    "no support": Label.NONE,
}
EXCHANGE_REQUIRED = ("topic_id", "run_id", "sentence_index", "citation_slot")
BATCH_ANSWERS = 500
# Seconds spent on one label: finite (PostgreSQL stores infinity, which JSON cannot carry) and below a day.
SECONDS_LIMIT = 24 * 60 * 60


@dataclass(frozen=True)
class JudgmentImportOptions:
    judge: str | None = None  # every label goes to this judge; else the row's `judge` column names it
    kind: str | None = None  # for judges created by the import; default human
    condition: str | None = None  # default: the row's `condition` column, else blank
    label_field: str = "label"  # exchange format: the column that holds the label
    topics: frozenset[str] | None = None  # only labels for these topics are imported


@dataclass
class _Label:
    """One label read from a file, before its citation is known."""

    file: str
    line: int
    judge: str
    kind: str  # "" when neither the options nor the row say: an existing judge keeps its kind
    topic_id: str
    run_id: str
    sentence_index: int
    condition: str
    label: str
    slot: int | None = None  # exchange: the citation's slot
    reference: str | None = None  # NIST: the cited passage id (matched within the sentence)
    passage_id: str | None = None  # exchange: optional check of the citation's passage
    shown_label: str = ""
    seconds: float | None = None
    label_field: str = "label"


@dataclass
class _Resolved:
    citation: Citation
    row: _Label


@dataclass
class _State:
    report: ImportReport
    labels: list[_Label] = field(default_factory=list)
    judge_kinds: dict[str, tuple[str, str, int]] = field(default_factory=dict)  # name -> (kind, file, line)


def judgments_import(
    *,
    files: Iterable[InputFile | str | Path],
    fmt: str,
    options: JudgmentImportOptions | None = None,
    progress: ProgressCallback | None = None,
) -> ImportReport:
    """Import labels from NIST files or exchange files; raises ImportRejected (nothing changed) on any error."""
    inputs = [f if isinstance(f, InputFile) else InputFile.of(f) for f in files]
    options = options or JudgmentImportOptions()
    report = ImportReport()
    state = _State(report)
    _check_options(report, inputs, fmt, options)
    if report.errors:
        raise ImportRejected(report)
    total, offset = files_total_size([f.path for f in inputs]), 0
    with transaction.atomic():
        if fmt == JudgmentFormat.NIST:
            nist_lines: dict[str, dict[int, tuple[str, str]]] = {}
            for f in inputs:
                nist_lines[f.name] = _read_nist(state, f, options, progress, offset, total)
                offset += f.path.stat().st_size
            if not report.errors:
                _nist_create_missing_answers(state, inputs, nist_lines)
        else:
            for f in inputs:
                _read_exchange(state, f, options, progress, offset, total)
                offset += f.path.stat().st_size
        if not state.labels and not report.errors:
            report.error(inputs[0].name if inputs else "", None, "", "no labels found")
        resolved = _resolve_citations(state) if not report.errors else []
        unique = _collapse_duplicates(state, resolved)
        judges = _judges_ensure(state) if not report.errors else {}
        if report.errors:
            raise ImportRejected(report)
        _judgments_write(state, unique, judges)
    return report


def _check_options(report: ImportReport, inputs: list[InputFile], fmt: str, options: JudgmentImportOptions) -> None:
    first = inputs[0].name if inputs else ""
    if not inputs:
        report.error("", None, "", "no files given")
    if fmt not in (JudgmentFormat.NIST, JudgmentFormat.EXCHANGE):
        report.error(first, None, "format", f"unknown format {fmt!r} (nist or exchange)")
    if fmt == JudgmentFormat.NIST and not options.judge:
        report.error(first, None, "judge", "the NIST format needs a judge name (--judge)")
    if options.kind is not None and options.kind not in JudgeKind.values:
        report.error(first, None, "kind", f"unknown judge kind {options.kind!r} (human or llm)")
    if options.condition and options.condition not in Condition.values:
        report.error(first, None, "condition", f"unknown condition {options.condition!r}")


# --- NIST -----------------------------------------------------------------------------------------


def _read_nist(
    state: _State,
    f: InputFile,
    options: JudgmentImportOptions,
    progress: ProgressCallback | None,
    offset: int,
    total: int,
) -> dict[int, tuple[str, str]]:
    """Read the labels of one NIST file; return the (run, topic) of each line it imports."""
    report = state.report
    judge = options.judge or ""
    kind = options.kind or ""
    condition = options.condition or ""
    lines: dict[int, tuple[str, str]] = {}
    for number, obj in read_json_lines(report, f.path, f.name, progress=progress, offset=offset, total=total):
        run_id, topic_id = obj.get("run_id"), obj.get("topic_id")
        if not isinstance(run_id, str) or not run_id.strip():
            report.error(f.name, number, "run_id", f"missing field or not a string: {run_id!r}")
            continue
        if isinstance(topic_id, bool) or not isinstance(topic_id, (str, int)) or not str(topic_id).strip():
            report.error(f.name, number, "topic_id", f"missing field or not a string or number: {topic_id!r}")
            continue
        topic_id = str(topic_id).strip()
        if options.topics is not None and topic_id not in options.topics:
            continue
        lines[number] = (run_id.strip(), topic_id)
        sentences = obj.get("sentences")
        if not isinstance(sentences, list):
            report.error(f.name, number, "sentences", "missing field or not a list")
            continue
        for s, sent in enumerate(sentences):
            where = f"sentences[{s}]"
            if not isinstance(sent, dict):
                report.error(f.name, number, where, "expected an object")
                continue
            sid = sent.get("sentenceID", sent.get("sentenceId", s))
            if isinstance(sid, bool) or not isinstance(sid, int) or sid < 0:
                report.error(f.name, number, f"{where}.sentenceID", f"expected a non-negative integer, got {sid!r}")
                continue
            cites = sent.get("citations", [])
            if not isinstance(cites, list):
                report.error(f.name, number, f"{where}.citations", "expected a list")
                continue
            for c, cit in enumerate(cites):
                cwhere = f"{where}.citations[{c}]"
                if not isinstance(cit, dict):
                    report.error(f.name, number, cwhere, "expected an object")
                    continue
                ref = cit.get("reference")
                if not isinstance(ref, str) or not ref.strip():
                    report.error(f.name, number, f"{cwhere}.reference", "missing field or not a string")
                    continue
                support = cit.get("support")
                support_key = str(support).strip() if isinstance(support, (str, int)) else None
                if support_key is None or support_key not in NIST_SUPPORT:
                    report.error(
                        f.name, number, f"{cwhere}.support", f'expected "2", "1", "0" or "-1", got {support!r}'
                    )
                    continue
                label = NIST_SUPPORT[support_key]
                if label is None:
                    # Not judged is a value of this source (DESIGN §2): kept, so nothing fills it later.
                    report.add("not_judged")
                    label = NOT_JUDGED
                state.labels.append(
                    _Label(
                        file=f.name,
                        line=number,
                        judge=judge,
                        kind=kind,
                        topic_id=topic_id,
                        run_id=run_id.strip(),
                        sentence_index=sid,
                        condition=condition,
                        label=label,
                        reference=ref.strip(),
                        label_field=f"{cwhere}.support",
                    )
                )
    return lines


def _nist_create_missing_answers(
    state: _State, inputs: list[InputFile], lines: dict[str, dict[int, tuple[str, str]]]
) -> None:
    """Build the answers a NIST file names that are not loaded, with the run importer's NIST reading.

    The lines of answers already loaded are blanked out of a copy of the file, so that the importer's
    messages keep the original line numbers.
    """
    loaded = _loaded_answers({key for file_lines in lines.values() for key in file_lines.values()})
    for f in inputs:
        wanted = {number for number, key in lines[f.name].items() if key not in loaded}
        if not wanted:
            continue
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", suffix=".jsonl", delete=True) as tmp:
            for number, line in iter_lines(f.path):
                tmp.write((line if number in wanted else "") + "\n")
            tmp.flush()
            try:
                sub = runs_import(files=[InputFile(Path(tmp.name), f.name)], fmt=RunFormat.NIST, options=RunOptions())
            except ImportRejected as exc:
                sub = exc.report
            for e in sub.errors:
                state.report.error(e.file, e.line, e.field, e.text)
            for w in sub.warnings:
                state.report.warn(w.file, w.line, w.field, w.text)
            for key, n in sub.counts.items():
                state.report.add(key, n)


def _loaded_answers(keys: set[tuple[str, str]]) -> set[tuple[str, str]]:
    runs = {r for r, _ in keys}
    topics = {t for _, t in keys}
    return {
        (r, t)
        for r, t in Answer.objects.filter(run__run_id__in=runs, topic__topic_id__in=topics).values_list(
            "run__run_id", "topic__topic_id"
        )
        if (r, t) in keys
    }


# --- exchange -------------------------------------------------------------------------------------


def _exchange_rows(
    report: ImportReport, f: InputFile, progress: ProgressCallback | None, offset: int, total: int
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line, row) from a CSV file (header line first) or a JSONL file."""
    try:
        first = ""
        for _, line in iter_lines(f.path):
            if line.strip():
                first = line.strip()
                break
        if first.startswith("{"):
            yield from read_json_lines(report, f.path, f.name, progress=progress, offset=offset, total=total)
            return
        header: list[str] | None = None
        for number, line in iter_lines(f.path, progress=progress, offset=offset, total=total):
            if not line.strip():
                continue
            values = next(csv.reader(io.StringIO(line)))
            if header is None:
                header = [h.strip() for h in values]
                continue
            if len(values) != len(header):
                report.error(f.name, number, "", f"expected {len(header)} columns as in the header, got {len(values)}")
                continue
            yield number, dict(zip(header, values, strict=True))
    except FileUnreadable as exc:
        report.error(f.name, exc.line, "", exc.text)


def _read_exchange(
    state: _State,
    f: InputFile,
    options: JudgmentImportOptions,
    progress: ProgressCallback | None,
    offset: int,
    total: int,
) -> None:
    report = state.report
    label_field = options.label_field or "label"
    rows = 0
    for number, row in _exchange_rows(report, f, progress, offset, total):
        rows += 1
        n_errors = len(report.errors)
        values: dict[str, Any] = {}
        for name in EXCHANGE_REQUIRED:
            value = row.get(name)
            if value is None or (isinstance(value, str) and not value.strip()):
                report.error(f.name, number, name, "missing field")
            values[name] = value
        topic_id = values["topic_id"]
        if topic_id is not None and (isinstance(topic_id, bool) or not isinstance(topic_id, (str, int))):
            report.error(f.name, number, "topic_id", f"expected a string or a number, got {topic_id!r}")
        sentence_index = _as_index(report, f.name, number, "sentence_index", values["sentence_index"])
        slot = _as_index(report, f.name, number, "citation_slot", values["citation_slot"])
        raw_label = row.get(label_field)
        label = LABEL_SPELLINGS.get(raw_label.strip().lower()) if isinstance(raw_label, str) else None
        if raw_label is None or raw_label == "":
            report.error(f.name, number, label_field, "missing field")
        elif label is None:
            report.error(f.name, number, label_field, f"expected FS, PS or NS, got {raw_label!r}")
        judge = options.judge or row.get("judge")
        if not isinstance(judge, str) or not judge.strip():
            report.error(f.name, number, "judge", "missing field (or give a judge name with --judge)")
            judge = ""
        kind = options.kind or (row.get("judge_kind") or "")
        if kind and kind not in JudgeKind.values:
            report.error(f.name, number, "judge_kind", f"expected human or llm, got {kind!r}")
        condition = options.condition or (row.get("condition") or "")
        if condition not in Condition.values and condition != "":
            report.error(
                f.name, number, "condition", f"expected one of {', '.join(Condition.values)}, got {condition!r}"
            )
        shown = row.get("shown_label") or ""
        shown_label = LABEL_SPELLINGS.get(shown.strip().lower()) if isinstance(shown, str) and shown else ""
        if shown_label is None:
            report.error(f.name, number, "shown_label", f"expected FS, PS, NS or nothing, got {shown!r}")
        seconds = _as_seconds(report, f.name, number, row.get("seconds"))
        passage_id = row.get("passage_id") or None
        if len(report.errors) > n_errors or sentence_index is None or slot is None or label is None:
            continue
        topic = str(topic_id).strip()
        if options.topics is not None and topic not in options.topics:
            continue
        name = judge.strip()
        if kind and name in state.judge_kinds and state.judge_kinds[name][0] != kind:
            first_kind, first_file, first_line = state.judge_kinds[name]
            report.error(
                f.name,
                number,
                "judge_kind",
                f"judge {name} is {kind} here but {first_kind} at {first_file}:{first_line}",
            )
            continue
        if kind:
            state.judge_kinds.setdefault(name, (kind, f.name, number))
        state.labels.append(
            _Label(
                file=f.name,
                line=number,
                judge=name,
                kind=kind,
                topic_id=topic,
                run_id=str(values["run_id"]).strip(),
                sentence_index=sentence_index,
                condition=condition,
                label=label,
                slot=slot,
                passage_id=str(passage_id).strip() if passage_id else None,
                shown_label=shown_label or "",
                seconds=seconds,
                label_field=label_field,
            )
        )
    if rows == 0 and not any(e.file == f.name for e in report.errors):
        report.error(f.name, None, "", "no rows found")


def _as_index(report: ImportReport, file: str, line: int, name: str, value: Any) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        report.error(file, line, name, f"expected a non-negative integer, got {value!r}")
        return None
    if isinstance(value, int):
        number = value
    else:
        try:
            number = int(str(value).strip())
        except ValueError:
            report.error(file, line, name, f"expected a non-negative integer, got {value!r}")
            return None
    if number < 0:
        report.error(file, line, name, f"expected a non-negative integer, got {value!r}")
        return None
    return number


def _as_seconds(report: ImportReport, file: str, line: int, value: Any) -> float | None:
    if value is None or value == "":
        return None
    try:
        seconds = float(value)
    except (TypeError, ValueError, OverflowError):
        report.error(file, line, "seconds", f"expected a number, got {value!r}")
        return None
    if not math.isfinite(seconds) or not 0 <= seconds < SECONDS_LIMIT:
        report.error(file, line, "seconds", f"expected a number of seconds from 0 to below a day, got {value!r}")
        return None
    return seconds


# --- shared: find the citations, collapse duplicates, write -------------------------------------------


def _resolve_citations(state: _State) -> list[_Resolved]:
    """Find each label's citation: by slot (exchange) or by the cited passage within the sentence (NIST)."""
    report = state.report
    by_answer: dict[tuple[str, str], list[_Label]] = {}
    for lab in state.labels:
        by_answer.setdefault((lab.run_id, lab.topic_id), []).append(lab)
    keys = list(by_answer)
    resolved: list[_Resolved] = []
    for start in range(0, len(keys), BATCH_ANSWERS):
        batch = keys[start : start + BATCH_ANSWERS]
        answers = {
            (a.run.run_id, a.topic.topic_id): a
            for a in Answer.objects.select_related("run", "topic").filter(
                run__run_id__in={r for r, _ in batch}, topic__topic_id__in={t for _, t in batch}
            )
        }
        found = [answers[k].pk for k in batch if k in answers]
        sentence_counts: dict[int, int] = {}
        citations: dict[tuple[int, int], list[Citation]] = {}
        for c in (
            Citation.objects.select_related("sentence", "passage")
            .filter(sentence__answer_id__in=found)
            .order_by("sentence__answer_id", "sentence__index", "slot")
        ):
            citations.setdefault((c.sentence.answer_id, c.sentence.index), []).append(c)
        for answer_id, n in (
            Answer.objects.filter(pk__in=found).values_list("pk").annotate(n=Count("sentences")).values_list("pk", "n")
        ):
            sentence_counts[answer_id] = n
        for key in batch:
            answer = answers.get(key)
            for lab in by_answer[key]:
                if answer is None:
                    report.error(
                        lab.file,
                        lab.line,
                        "run_id",
                        f"run {lab.run_id} has no answer to topic {lab.topic_id} loaded (import the run first)",
                    )
                    continue
                citation = _citation_for(report, lab, answer.pk, sentence_counts.get(answer.pk, 0), citations)
                if citation is not None:
                    resolved.append(_Resolved(citation, lab))
    return resolved


def _citation_for(
    report: ImportReport,
    lab: _Label,
    answer_id: int,
    sentence_count: int,
    citations: dict[tuple[int, int], list[Citation]],
) -> Citation | None:
    index_field = (
        "sentence_index" if lab.slot is not None else lab.label_field.rsplit(".citations", 1)[0] + ".sentenceID"
    )
    if lab.sentence_index >= sentence_count:
        report.error(
            lab.file,
            lab.line,
            index_field,
            f"sentence {lab.sentence_index} is not in the loaded answer of run {lab.run_id} to topic {lab.topic_id} "
            f"({sentence_count} sentences)",
        )
        return None
    cites = citations.get((answer_id, lab.sentence_index), [])
    if lab.slot is not None:
        match = next((c for c in cites if c.slot == lab.slot), None)
        if match is None:
            report.error(
                lab.file,
                lab.line,
                "citation_slot",
                f"sentence {lab.sentence_index} of run {lab.run_id} on topic {lab.topic_id} has no citation in slot "
                f"{lab.slot} ({len(cites)} citations)",
            )
            return None
        if lab.passage_id and match.passage.passage_id != lab.passage_id:
            report.error(
                lab.file,
                lab.line,
                "passage_id",
                f"slot {lab.slot} cites {match.passage.passage_id}, not {lab.passage_id}",
            )
            return None
        return match
    match = next((c for c in cites if c.passage.passage_id == lab.reference), None)
    if match is None:
        report.error(
            lab.file,
            lab.line,
            lab.label_field.rsplit(".", 1)[0] + ".reference",
            f"sentence {lab.sentence_index} of run {lab.run_id} on topic {lab.topic_id} does not cite {lab.reference}",
        )
    return match


def _collapse_duplicates(state: _State, resolved: list[_Resolved]) -> list[_Resolved]:
    """Identical labels for the same (judge, citation) collapse; different ones are an error naming both lines."""
    seen: dict[tuple[str, int], _Resolved] = {}
    for item in resolved:
        key = (item.row.judge, item.citation.pk)
        first = seen.get(key)
        if first is None:
            seen[key] = item
            continue
        a, b = first.row, item.row
        if (a.label, a.condition) == (b.label, b.condition):
            state.report.add("duplicates_collapsed")
            continue
        state.report.error(
            b.file,
            b.line,
            b.label_field,
            f"{b.label} conflicts with {a.label} for the same judge {b.judge} and citation "
            f"(run {b.run_id}, topic {b.topic_id}, sentence {b.sentence_index}) at {a.file}:{a.line}",
        )
    return list(seen.values())


def _judges_ensure(state: _State) -> dict[str, Judge]:
    wanted: dict[str, tuple[str, _Label]] = {}
    for lab in state.labels:
        if lab.judge not in wanted or (lab.kind and not wanted[lab.judge][0]):
            wanted[lab.judge] = (lab.kind, lab)
    existing = {j.name: j for j in Judge.objects.filter(name__in=wanted)}
    judges: dict[str, Judge] = {}
    for name, (kind, lab) in wanted.items():
        judge = existing.get(name)
        if judge is not None and kind and judge.kind != kind:
            state.report.error(
                lab.file, lab.line, "judge_kind", f"judge {name} exists as a {judge.kind} judge, not {kind}"
            )
            continue
        judges[name] = judge or Judge(name=name, kind=kind or JudgeKind.HUMAN)
    return judges


def _judgments_write(state: _State, items: list[_Resolved], judges: dict[str, Judge]) -> None:
    report = state.report
    for judge in judges.values():
        if judge.pk is None:
            judge.save()
            report.add("judges_created")
    current: dict[tuple[int, int], tuple[str, str]] = {}
    citation_ids = [i.citation.pk for i in items]
    for start in range(0, len(citation_ids), 5000):
        for judge_id, citation_id, label, condition in (
            Judgment.objects.filter(
                judge__in=[j.pk for j in judges.values()], citation_id__in=citation_ids[start : start + 5000]
            )
            .order_by("pk")
            .values_list("judge_id", "citation_id", "label", "condition")
        ):
            current[(judge_id, citation_id)] = (label, condition)
    fresh = [i for i in items if current.get((judges[i.row.judge].pk, i.citation.pk)) != (i.row.label, i.row.condition)]
    report.add("unchanged", len(items) - len(fresh))
    pairs = pairs_for_citations(citations=[i.citation for i in fresh])
    Judgment.objects.bulk_create(
        [
            Judgment(
                judge=judges[i.row.judge],
                pair=pairs[i.citation.pk],
                citation=i.citation,
                label=i.row.label,
                not_judged_reason="not judged in the source (NIST -1)" if i.row.label == NOT_JUDGED else "",
                origin=JudgmentOrigin.IMPORT,
                condition=i.row.condition,
                shown_label=i.row.shown_label,
                seconds=i.row.seconds,
            )
            for i in fresh
        ],
        batch_size=5000,
    )
    report.add("judgments", len(fresh))
    for label in Label.values:
        report.add(label, sum(1 for i in items if i.row.label == label))


def judgments_import_uploads(*, uploads: Iterable[Any], fmt: str, options: JudgmentImportOptions) -> ImportReport:
    """Import uploaded files (a page's or the API's) together; the report holds the errors when rejected."""
    with tempfile.TemporaryDirectory() as folder:
        inputs = []
        for i, upload in enumerate(uploads):
            name = Path(upload.name or f"upload-{i}").name
            path = Path(folder) / f"{i:03d}.upload"
            with open(path, "wb") as out:
                for chunk in upload.chunks():
                    out.write(chunk)
            inputs.append(InputFile(path, name))
        try:
            return judgments_import(files=inputs, fmt=fmt, options=options)
        except ImportRejected as exc:
            return exc.report
