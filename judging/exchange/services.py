"""Judgment import (DESIGN §7): NIST's support-judgment JSONL and the judgments exchange file (CSV or JSONL).

One service for the command, the page and the API. All or nothing: every error names file, line and field,
and the whole import (including the answers a NIST file creates) is rolled back when there is any.
Each imported label becomes a Judgment made on its citation (`citation` set, `pair` from the citation).

Placement: a NIST label is laid on the citation of its sentence (by index) that cites its passage, never by
position (ragnarok's checker reorders a sentence's citations, so slot 0 of a run file is not always NIST's
first citation); an exchange label on its slot. A run map (`runmap`) lays the file's runs onto loaded runs.
A label that cannot be placed is listed with file, line and reason, and refuses the import, unless
`skip_unplaced` is set: then it is listed as a warning, counted as `unplaced`, and the rest is imported.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from django.db import transaction
from django.db.models import Count

from assess.importers.lines import InputFile, ProgressCallback, as_inputs
from assess.importers.report import ImportRejected, ImportReport, reject_if_errors
from assess.models import Answer, Citation, Sentence
from judging.exchange.exchange import exchange_read
from judging.exchange.nist import nist_read
from judging.exchange.reading import (
    JudgmentFormat,
    JudgmentImportOptions,
    LabelsRead,
    ReadLabel,
    RunMap,
    SentenceRead,
)
from judging.exchange.runmap import run_map_read
from judging.exchange.schema import judge_name_problem
from judging.models import NOT_JUDGED, Condition, Judge, JudgeKind, Judgment, JudgmentOrigin, Label, NistSentence
from judging.pairs import pairs_for_citations

BATCH_ANSWERS = 500


@dataclass
class _Resolved:
    citation: Citation
    row: ReadLabel


def judgments_import(
    *,
    files: Iterable[InputFile | str | Path],
    fmt: str,
    options: JudgmentImportOptions | None = None,
    progress: ProgressCallback | None = None,
) -> ImportReport:
    """Import labels from NIST files or exchange files; raises ImportRejected (nothing changed) on any error."""
    inputs = as_inputs(files)
    options = options or JudgmentImportOptions()
    report = ImportReport()
    state = LabelsRead(report)
    _check_options(report, inputs, fmt, options)
    reject_if_errors(report)
    with transaction.atomic():
        if fmt == JudgmentFormat.NIST:
            nist_read(state, inputs, options, progress)
        else:
            exchange_read(state, inputs, options, progress)
        if not state.labels and report.ok:
            report.error(inputs[0].name if inputs else "", None, "", "no labels found")
        _apply_run_map(state, options.run_map)
        resolved = _resolve_citations(state, skip_unplaced=options.skip_unplaced) if report.ok else []
        sentences = _resolve_sentences(state) if report.ok else []
        unique = _collapse_duplicates(state, resolved)
        judges = _judges_ensure(state) if report.ok else {}
        reject_if_errors(report)
        _judgments_write(state, unique, judges)
        _nist_sentences_write(state, sentences, judges)
    return report


def judgments_import_uploads(
    *, uploads: Iterable[Any], fmt: str, options: JudgmentImportOptions, run_map_upload: Any | None = None
) -> ImportReport:
    """Import uploaded files (a page's or the API's) together, with an optional uploaded run map; the report
    holds the errors when rejected."""
    with tempfile.TemporaryDirectory() as folder:
        inputs = [_stored(folder, i, upload) for i, upload in enumerate(uploads)]
        try:
            if run_map_upload is not None:
                options = replace(options, run_map=run_map_load(_stored(folder, len(inputs), run_map_upload)))
            return judgments_import(files=inputs, fmt=fmt, options=options)
        except ImportRejected as exc:
            return exc.report


def run_map_load(f: InputFile | str | Path) -> RunMap:
    """Read a run map file (`runmap`); raises ImportRejected naming its lines when it is not valid."""
    report = ImportReport()
    run_map = run_map_read(report, as_inputs([f])[0])
    reject_if_errors(report)
    return run_map


def _stored(folder: str, i: int, upload: Any) -> InputFile:
    name = Path(upload.name or f"upload-{i}").name
    path = Path(folder) / f"{i:03d}.upload"
    with open(path, "wb") as out:
        for chunk in upload.chunks():
            out.write(chunk)
    return InputFile(path, name)


def _check_options(report: ImportReport, inputs: list[InputFile], fmt: str, options: JudgmentImportOptions) -> None:
    first = inputs[0].name if inputs else ""
    if not inputs:
        report.error("", None, "", "no files given")
    if fmt not in (JudgmentFormat.NIST, JudgmentFormat.EXCHANGE):
        report.error(first, None, "format", f"unknown format {fmt!r} (nist or exchange)")
    if fmt == JudgmentFormat.NIST and not options.judge:
        report.error(first, None, "judge", "the NIST format needs a judge name (--judge)")
    if options.judge:
        problem = judge_name_problem(options.judge)
        if problem is not None:
            report.error(first, None, "judge", problem)
    if options.kind is not None and options.kind not in JudgeKind.values:
        report.error(first, None, "kind", f"unknown judge kind {options.kind!r} (human or llm)")
    if options.condition and options.condition not in Condition.values:
        report.error(first, None, "condition", f"unknown condition {options.condition!r}")


# --- find the citations, collapse duplicates, write -----------------------------------------------------


def _apply_run_map(state: LabelsRead, run_map: RunMap | None) -> None:
    """Put the loaded run id the map gives in place of each run id of the files that it names."""
    if not run_map:
        return
    for lab in state.labels:
        entry = run_map.get(lab.run_id)
        if entry is not None:
            lab.file_run_id, lab.run_id = lab.run_id, entry.run_id
    for sentence in state.nist_sentences:
        entry = run_map.get(sentence.run_id)
        if entry is not None:
            sentence.run_id = entry.run_id


class _Placement:
    """Where the labels that cannot be placed go: errors that refuse the import, or listed warnings."""

    def __init__(self, report: ImportReport, *, skip: bool) -> None:
        self.report = report
        self.skip = skip
        self.refused = 0

    def unplaced(self, lab: ReadLabel, field_name: str, reason: str) -> None:
        text = f"cannot place the label: {reason}"
        if self.skip:
            self.report.at(lab.file, lab.line).warn(field_name, text + " (skipped)")
            self.report.add("unplaced")
            return
        if not self.refused:
            text += (
                " (map the file's runs to loaded ones with a run map, load the missing runs, or import the rest "
                "with --skip-unplaced / 'Skip unplaced')"
            )
        self.refused += 1
        self.report.at(lab.file, lab.line).error(field_name, text)


def _run_named(lab: ReadLabel) -> str:
    return f"run {lab.run_id}" + (f" (mapped from {lab.file_run_id})" if lab.file_run_id else "")


def _resolve_citations(state: LabelsRead, *, skip_unplaced: bool = False) -> list[_Resolved]:
    """Find each label's citation: by slot (exchange) or by the cited passage within the sentence (NIST)."""
    report = state.report
    placement = _Placement(report, skip=skip_unplaced)
    by_answer: dict[tuple[str, str], list[ReadLabel]] = {}
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
                    placement.unplaced(
                        lab,
                        "run_id",
                        f"{_run_named(lab)} has no answer to topic {lab.topic_id} loaded (import the run first)",
                    )
                    continue
                citation = _citation_for(placement, lab, answer.pk, sentence_counts.get(answer.pk, 0), citations)
                if citation is not None:
                    resolved.append(_Resolved(citation, lab))
    return resolved


def _citation_for(
    placement: _Placement,
    lab: ReadLabel,
    answer_id: int,
    sentence_count: int,
    citations: dict[tuple[int, int], list[Citation]],
) -> Citation | None:
    if lab.sentence_index >= sentence_count:
        placement.unplaced(
            lab,
            lab.sentence_field,
            f"sentence {lab.sentence_index} is not in the loaded answer of {_run_named(lab)} to topic {lab.topic_id} "
            f"({sentence_count} sentences)",
        )
        return None
    cites = citations.get((answer_id, lab.sentence_index), [])
    if lab.slot is not None:
        match = next((c for c in cites if c.slot == lab.slot), None)
        if match is None:
            placement.unplaced(
                lab,
                "citation_slot",
                f"sentence {lab.sentence_index} of {_run_named(lab)} on topic {lab.topic_id} has no citation in slot "
                f"{lab.slot} ({len(cites)} citations)",
            )
            return None
        if lab.passage_id and match.passage.passage_id != lab.passage_id:
            placement.unplaced(
                lab, "passage_id", f"slot {lab.slot} cites {match.passage.passage_id}, not {lab.passage_id}"
            )
            return None
        return match
    match = next((c for c in cites if c.passage.passage_id == lab.reference), None)
    if match is None:
        placement.unplaced(
            lab,
            lab.reference_field,
            f"sentence {lab.sentence_index} of {_run_named(lab)} on topic {lab.topic_id} does not cite {lab.reference}",
        )
    return match


def _collapse_duplicates(state: LabelsRead, resolved: list[_Resolved]) -> list[_Resolved]:
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
        state.report.at(b.file, b.line).error(
            b.label_field,
            f"{b.label} conflicts with {a.label} for the same judge {b.judge} and citation "
            f"(run {b.run_id}, topic {b.topic_id}, sentence {b.sentence_index}) at {a.file}:{a.line}",
        )
    return list(seen.values())


def _judges_ensure(state: LabelsRead) -> dict[str, Judge]:
    wanted: dict[str, tuple[str, ReadLabel]] = {}
    for lab in state.labels:
        if lab.judge not in wanted or (lab.kind and not wanted[lab.judge][0]):
            wanted[lab.judge] = (lab.kind, lab)
    existing = {j.name: j for j in Judge.objects.filter(name__in=wanted)}
    judges: dict[str, Judge] = {}
    for name, (kind, lab) in wanted.items():
        judge = existing.get(name)
        if judge is not None and judge.user_id is not None:
            state.report.at(lab.file, lab.line).error(
                "judge",
                f"judge {name} is a platform assessor's: imported labels go to imported or LLM judges only "
                "(choose another name)",
            )
            continue
        if judge is not None and kind and judge.kind != kind:
            state.report.at(lab.file, lab.line).error(
                "judge_kind", f"judge {name} exists as a {judge.kind} judge, not {kind}"
            )
            continue
        judges[name] = judge or Judge(name=name, kind=kind or JudgeKind.HUMAN)
    return judges


def _judgments_write(state: LabelsRead, items: list[_Resolved], judges: dict[str, Judge]) -> None:
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


# --- what NIST files say of each sentence (NistSentence) ---------------------------------------------------


def _resolve_sentences(state: LabelsRead) -> list[tuple[int, SentenceRead]]:
    """(sentence pk, what the file says of it) for each sentence read that is loaded. A sentence that is not
    loaded keeps nothing: its labels, if it has any, are already listed as unplaced."""
    wanted = {(s.run_id, s.topic_id) for s in state.nist_sentences}
    found: dict[tuple[str, str, int], int] = {}
    keys = list(wanted)
    for start in range(0, len(keys), BATCH_ANSWERS):
        batch = keys[start : start + BATCH_ANSWERS]
        for pk, run_id, topic_id, index in Sentence.objects.filter(
            answer__run__run_id__in={r for r, _ in batch}, answer__topic__topic_id__in={t for _, t in batch}
        ).values_list("pk", "answer__run__run_id", "answer__topic__topic_id", "index"):
            found[(run_id, topic_id, index)] = pk
    resolved = []
    for s in state.nist_sentences:
        sentence_pk = found.get((s.run_id, s.topic_id, s.read.sentence_index))
        if sentence_pk is not None:
            resolved.append((sentence_pk, s))
    return resolved


def _nist_sentences_write(
    state: LabelsRead, sentences: list[tuple[int, SentenceRead]], judges: dict[str, Judge]
) -> None:
    """Keep, per source (judge, condition) and sentence, what the file said; a new import of it replaces it."""
    if not sentences:
        return
    # The same sentence twice in one import (a repeated line): the last reading stands, as on a re-import.
    sentences = list({(s.judge, s.condition, pk): (pk, s) for pk, s in sentences}.values())
    by_source: dict[tuple[int, str], list[int]] = {}
    for pk, s in sentences:
        by_source.setdefault((judges[s.judge].pk, s.condition), []).append(pk)
    for (judge_id, condition), pks in by_source.items():
        for start in range(0, len(pks), 5000):
            NistSentence.objects.filter(
                judge_id=judge_id, condition=condition, sentence_id__in=pks[start : start + 5000]
            ).delete()
    NistSentence.objects.bulk_create(
        [
            NistSentence(
                judge=judges[s.judge],
                condition=s.condition,
                sentence_id=pk,
                keys=s.read.keys,
                verification_worthy=s.read.verification_worthy,
                citations_combined=s.read.citations_combined,
                citations=[[citation_id, reference] for citation_id, reference in s.read.citations],
            )
            for pk, s in sentences
        ],
        batch_size=5000,
    )
    state.report.add("nist_sentences", len(sentences))
