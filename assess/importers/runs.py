"""Run import, all or nothing: TREC RAG 2024/2025 JSONL, or NIST's support-judgment JSONL (the runs, answers,
sentences and citations it describes). An unknown topic is created with a warning, unlike the track's
checker, which rejects it."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from django.db import connection, transaction
from django.db.models import ProtectedError, RestrictedError

from assess.importers import writer
from assess.importers.fields import MAX_GROUP, ParsedAnswer, empty_file_error, group_of_run_id
from assess.importers.lines import InputFile, ProgressCallback, as_inputs, read_json_lines, with_offsets
from assess.importers.nist import nist_lines
from assess.importers.report import ImportReport, reject_if_errors
from assess.importers.schema import ID_CONTROLS, MAX_INT
from assess.importers.trec import parse_trec_line
from assess.models import Answer, Citation, Passage, Run, Sentence, Task, Topic
from assess.services import tables_analyze

BATCH_ANSWERS = 1000
COPY_ON_POSTGRESQL = True  # False: write runs with bulk_create on PostgreSQL too (the SQLite path)


class RunFormat:
    TREC = "trec"
    NIST = "nist"


@dataclass
class RunOptions:
    group: str | None = None
    task: str | None = None
    priority: int | None = None
    replace: bool = False
    topics: frozenset[str] | None = None  # only answers to these topics are imported


def runs_import(
    *,
    files: Iterable[InputFile | str | Path],
    fmt: str = RunFormat.TREC,
    options: RunOptions | None = None,
    progress: ProgressCallback | None = None,
) -> ImportReport:
    """Import run files, all or nothing. TREC RAG 2024/2025 JSONL, or NIST's support-judgment JSONL
    (`fmt="nist"`: the runs, answers, sentences and citations it describes; its labels are not read)."""
    report = ImportReport()
    inputs = as_inputs(files)
    options = options or RunOptions()
    _check_options(report, inputs[0].name if inputs else "", options)
    reject_if_errors(report)
    with transaction.atomic():
        run_writer = RunWriter(report, options, fmt)
        try:
            for f, offset, total in with_offsets(inputs):
                run_writer.start_file()
                for answer in _answers(report, f, fmt, progress, offset, total):
                    run_writer.add(f.name, answer)
                run_writer.end_file(f)
            run_writer.flush()
        finally:
            run_writer.close()
        reject_if_errors(report)
    tables_analyze(models=[Answer, Sentence, Citation, Passage])
    return report


def _check_options(report: ImportReport, first: str, options: RunOptions) -> None:
    """The options stand for values of the file: the same limits as the columns they fill."""
    if options.group is not None:
        if len(options.group) > MAX_GROUP:
            report.error(first, None, "group", f"longer than {MAX_GROUP} characters (the column's limit)")
        elif any(ch in ID_CONTROLS for ch in options.group):
            report.error(first, None, "group", "holds a control character")
    if options.priority is not None and not 1 <= options.priority <= MAX_INT:
        report.error(first, None, "priority", f"expected a number from 1 to {MAX_INT:,}, got {options.priority}")


def nist_answers_write(*, report: ImportReport, answers: Iterable[tuple[str, ParsedAnswer]]) -> None:
    """Write answers read from NIST files (`nist.nist_lines`, as (file name, answer)) in the caller's
    transaction, with the checks of a NIST run import. Errors go to `report`; after the first nothing more
    is written, and the caller rolls back."""
    run_writer = RunWriter(report, RunOptions(), RunFormat.NIST)
    try:
        for file, answer in answers:
            run_writer.add(file, answer)
        run_writer.flush()
    finally:
        run_writer.close()
    tables_analyze(models=[Answer, Sentence, Citation, Passage])


def _answers(
    report: ImportReport, f: InputFile, fmt: str, progress: ProgressCallback | None, offset: int, total: int
) -> Iterator[ParsedAnswer]:
    if fmt == RunFormat.TREC:
        for line, obj in read_json_lines(report, f, progress=progress, offset=offset, total=total):
            answer = parse_trec_line(line, obj)
            if answer is not None:
                yield answer
        return
    for nist_line in nist_lines(report, f, progress=progress, offset=offset, total=total):
        if nist_line.answer is not None:
            yield nist_line.answer


@dataclass
class _OpenRun:
    run: Run
    file: str
    existing_topics: set[str] = field(default_factory=set)  # NIST: answers the run had before this import


class RunWriter:
    """Checks what only the whole input shows (run ids, repeated topics, runs already loaded) and writes the
    parsed answers in batches. After the first error it stops writing but keeps checking, so that the report
    lists every error; the caller's transaction then rolls back what was written."""

    def __init__(self, report: ImportReport, options: RunOptions, fmt: str) -> None:
        self.report = report
        self.options = options
        self.fmt = fmt
        self.pending: list[ParsedAnswer] = []
        self.topics: dict[str, tuple[int, str]] = {
            t: (pk, text) for t, pk, text in Topic.objects.values_list("topic_id", "pk", "text")
        }
        self.runs: dict[str, _OpenRun] = {}
        self.file_run_id: str | None = None
        self.file_first_line = 0
        self.file_topics: dict[str, int] = {}
        self.file_answers = 0
        self.nist_answers_seen: dict[tuple[str, str], tuple[str, int]] = {}
        self.replace_answers: list[tuple[int, int, str, int]] = []  # (run pk, topic pk, file, line)
        self.passage_pks = writer.PassageKeys()
        self.copier = writer.CopyWriter() if COPY_ON_POSTGRESQL and connection.vendor == "postgresql" else None

    def start_file(self) -> None:
        self.file_run_id = None
        self.file_topics = {}
        self.file_answers = 0

    def end_file(self, f: InputFile) -> None:
        if self.file_answers == 0 and not self.report.has_errors_in(f.name):
            empty_file_error(self.report, f, "answers")

    def add(self, file: str, parsed: ParsedAnswer) -> None:
        report = self.report
        self.file_answers += 1
        if self.options.topics is not None and parsed.topic_id not in self.options.topics:
            return
        if self.fmt == RunFormat.TREC:
            if not self._check_trec(file, parsed):
                return
        elif not self._check_nist(file, parsed):
            return
        self._topic_pk(file, parsed)
        if not report.ok:
            return
        self.pending.append(parsed)
        if len(self.pending) >= BATCH_ANSWERS:
            self.flush()

    def _check_trec(self, file: str, parsed: ParsedAnswer) -> bool:
        report = self.report
        if self.file_run_id is None:
            self.file_run_id, self.file_first_line = parsed.run_id, parsed.line
            if not self._open_run(file, parsed):
                return False
        elif parsed.run_id != self.file_run_id:
            report.at(file, parsed.line).error(
                "run_id",
                f"run_id changes within the file: {parsed.run_id!r} (line {self.file_first_line} has "
                f"{self.file_run_id!r})",
            )
            return False
        elif parsed.run_id not in self.runs:
            return False  # the run could not be opened; that error is already reported
        if parsed.topic_id in self.file_topics:
            report.at(file, parsed.line).error(
                "topic_id",
                f"topic {parsed.topic_id} answered twice in this run (first at line {self.file_topics[parsed.topic_id]})",
            )
            return False
        self.file_topics[parsed.topic_id] = parsed.line
        return True

    def _check_nist(self, file: str, parsed: ParsedAnswer) -> bool:
        report = self.report
        key = (parsed.run_id, parsed.topic_id)
        if key in self.nist_answers_seen:
            first_file, first_line = self.nist_answers_seen[key]
            report.at(file, parsed.line).error(
                "topic_id",
                f"run {parsed.run_id} answers topic {parsed.topic_id} twice (first at {first_file}:{first_line})",
            )
            return False
        self.nist_answers_seen[key] = (file, parsed.line)
        if parsed.run_id not in self.runs and not self._open_run(file, parsed):
            return False
        open_run = self.runs.get(parsed.run_id)
        if open_run is not None and parsed.topic_id in open_run.existing_topics:
            if not self.options.replace:
                report.at(file, parsed.line).error(
                    "topic_id",
                    f"run {parsed.run_id} already has an answer to topic {parsed.topic_id} (use --replace)",
                )
                return False
            topic_pk = self.topics[parsed.topic_id][0]
            self.replace_answers.append((open_run.run.pk, topic_pk, file, parsed.line))
        return open_run is not None

    def _topic_pk(self, file: str, parsed: ParsedAnswer) -> None:
        known = self.topics.get(parsed.topic_id)
        if known is None:
            self.report.at(file, parsed.line).warn("topic_id", f"topic {parsed.topic_id} is not loaded; it was created")
            pk = -1
            if self.report.ok:
                pk = Topic.objects.create(topic_id=parsed.topic_id, text=parsed.topic_text or "").pk
            self.topics[parsed.topic_id] = (pk, parsed.topic_text or "")
        elif parsed.topic_text is not None and known[1] and parsed.topic_text != known[1]:
            self.report.at(file, parsed.line).warn(
                "topic", f"differs from the loaded text of topic {parsed.topic_id}: {known[1]!r}"
            )

    def _open_run(self, file: str, parsed: ParsedAnswer) -> bool:
        opts, report = self.options, self.report
        if parsed.run_id in self.runs:
            other = self.runs[parsed.run_id].file
            report.at(file, parsed.line).error("run_id", f"run {parsed.run_id} is also in {other} of this import")
            return False
        existing = Run.objects.filter(run_id=parsed.run_id).first()
        if existing is not None:
            if self.fmt == RunFormat.NIST:
                topics = set(Answer.objects.filter(run=existing).values_list("topic__topic_id", flat=True))
                self.runs[parsed.run_id] = _OpenRun(existing, file, topics)
                return True
            if not opts.replace:
                report.at(file, parsed.line).error("run_id", f"run {parsed.run_id} is already loaded (use --replace)")
                return False
            if report.ok:
                self._quiesce()
                try:
                    with transaction.atomic():
                        existing.delete()
                except (ProtectedError, RestrictedError):
                    report.at(file, parsed.line).error(
                        "run_id",
                        f"run {parsed.run_id} cannot be replaced: judgments were made on its citations",
                    )
                    return False
        if opts.group is not None:
            group = opts.group
        elif self.fmt == RunFormat.NIST:
            group = group_of_run_id(parsed.run_id)
        else:
            group = parsed.group or group_of_run_id(parsed.run_id)
        run = Run(
            run_id=parsed.run_id,
            group=group[:MAX_GROUP],
            task=opts.task or Task.RAG,
            priority=opts.priority,
            source_file=file[:512],
        )
        if report.ok:
            run.save()
            report.add("runs")
        self.runs[parsed.run_id] = _OpenRun(run, file)
        return True

    # --- writing ---

    def flush(self) -> None:
        if not self.report.ok or not self.pending:
            self.pending = []
            return
        batch, self.pending = self.pending, []
        if self.replace_answers:
            self._delete_replaced()
            if not self.report.ok:
                return
        if self.copier is not None:
            self.copier.submit(
                [
                    (
                        self.runs[p.run_id].run.pk,
                        self.topics[p.topic_id][0],
                        json.dumps(p.references),
                        p.response_length,
                        p.sentences,
                    )
                    for p in batch
                ]
            )
            return
        passage_pk = self._passage_pks({pid for p in batch for _, cites in p.sentences for _, pid in cites})
        n_sentences, n_citations = self._write_orm(batch, passage_pk)
        self.report.add("answers", len(batch))
        self.report.add("sentences", n_sentences)
        self.report.add("citations", n_citations)

    def close(self) -> None:
        """Wait for the batches still being written; raise what the writer thread met."""
        if self.copier is not None:
            copier, self.copier = self.copier, None
            counts = copier.close()
            for key, n in counts.items():
                self.report.add(key, n)

    def _quiesce(self) -> None:
        """Before a savepoint on the shared connection: let the writer thread finish what it has."""
        if self.copier is not None:
            self.copier.wait_idle()

    def _delete_replaced(self) -> None:
        pending, self.replace_answers = self.replace_answers, []
        self._quiesce()
        for run_pk, topic_pk, file, line in pending:
            try:
                with transaction.atomic():
                    Answer.objects.filter(run_id=run_pk, topic_id=topic_pk).delete()
            except (ProtectedError, RestrictedError):
                self.report.error(
                    file, line, "topic_id", "this answer cannot be replaced: judgments were made on its citations"
                )
        if pending and self.report.ok:
            self.report.add("answers_replaced", len(pending))

    def _passage_pks(self, cited: set[str]) -> dict[str, int]:
        """Primary keys of the cited passages, creating rows (without text) for those not yet known."""
        wanted = self.passage_pks.missing(cited)
        self.report.add("passages_created", self._passages_ensure_orm(wanted, self.passage_pks) if wanted else 0)
        return self.passage_pks

    def _passages_ensure_orm(self, wanted: list[str], cache: dict[str, int]) -> int:
        created = 0
        for start in range(0, len(wanted), 5000):
            chunk = wanted[start : start + 5000]
            known = dict(Passage.objects.filter(passage_id__in=chunk).values_list("passage_id", "pk"))
            new = [Passage(passage_id=pid) for pid in chunk if pid not in known]
            Passage.objects.bulk_create(new, ignore_conflicts=True, batch_size=1000)
            created += len(new)
            if new:
                known = dict(Passage.objects.filter(passage_id__in=chunk).values_list("passage_id", "pk"))
            cache.update(known)
        return created

    def _write_orm(self, batch: list[ParsedAnswer], passage_pk: dict[str, int]) -> tuple[int, int]:
        """The portable path (SQLite): bulk_create, which returns the new primary keys."""
        answers = Answer.objects.bulk_create(
            [
                Answer(
                    run=self.runs[p.run_id].run,
                    topic_id=self.topics[p.topic_id][0],
                    references=p.references,
                    response_length=p.response_length,
                )
                for p in batch
            ],
            batch_size=1000,
        )
        sentences = Sentence.objects.bulk_create(
            [
                Sentence(answer=a, index=i, text=text)
                for a, p in zip(answers, batch, strict=True)
                for i, (text, _) in enumerate(p.sentences)
            ],
            batch_size=5000,
        )
        citations: list[Citation] = []
        it = iter(sentences)
        for p in batch:
            for _, cites in p.sentences:
                sentence = next(it)
                citations.extend(
                    Citation(sentence=sentence, slot=slot, passage_id=passage_pk[pid], reference_index=idx)
                    for slot, (idx, pid) in enumerate(cites)
                )
        Citation.objects.bulk_create(citations, batch_size=5000)
        return len(sentences), len(citations)
