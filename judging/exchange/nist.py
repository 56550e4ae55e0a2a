"""NIST's support-judgment JSONL, both ways: its labels read through the one NIST reader
(`assess.importers.nist`), which also gives the answers to create; and the same form written back."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from assess.importers.fields import ParsedAnswer
from assess.importers.lines import InputFile, ProgressCallback, with_offsets
from assess.importers.nist import NistLabel, NistLine, nist_lines
from assess.importers.runs import nist_answers_write
from assess.models import Answer
from core.writable import Writable
from judging.exchange.reading import JudgmentImportOptions, LabelsRead, ReadLabel, SentenceRead
from judging.models import NOT_JUDGED, Label
from judging.vocabulary import SUPPORT

NIST_SUPPORT: dict[str, str | None] = {"2": Label.FULL, "1": Label.PARTIAL, "0": Label.NONE, "-1": None}
NIST_SUPPORT_CODE = {label: str(code) for label, code in SUPPORT.code_of.items()}  # NIST writes the ordinal code


def nist_read(
    state: LabelsRead, inputs: list[InputFile], options: JudgmentImportOptions, progress: ProgressCallback | None
) -> None:
    """Read the labels of NIST files, and what they say of each sentence, into `state`; when every line is
    valid, create the answers the files name that are not loaded (as the NIST run import would), from the
    same reading. A run the run map names is laid onto the loaded run instead: none of its answers is made."""
    answers: list[tuple[str, ParsedAnswer]] = []
    run_map = options.run_map or {}
    for f, offset, total in with_offsets(inputs):
        for nist_line in nist_lines(
            state.report, f, topics=options.topics, progress=progress, offset=offset, total=total
        ):
            if nist_line.answer is not None and nist_line.run_id not in run_map:
                answers.append((f.name, nist_line.answer))
            for label in nist_line.labels:
                _label_read(state, nist_line, label, options)
            for sentence in nist_line.sentences:
                state.nist_sentences.append(
                    SentenceRead(
                        file=nist_line.line.file,
                        line=nist_line.line.number or 0,
                        judge=options.judge or "",
                        condition=options.condition or "",
                        topic_id=nist_line.topic_id,
                        run_id=nist_line.run_id,
                        read=sentence,
                    )
                )
    if state.report.ok:
        _answers_create_missing(state, answers)


def _label_read(state: LabelsRead, nist_line: NistLine, label: NistLabel, options: JudgmentImportOptions) -> None:
    support = label.support
    support_key = str(support).strip() if isinstance(support, (str, int)) else None
    if support_key is None or support_key not in NIST_SUPPORT:
        nist_line.line.error(label.field, f'expected "2", "1", "0" or "-1", got {support!r}')
        return
    value = NIST_SUPPORT[support_key]
    if value is None:
        # Not judged is a value of this source (DESIGN §2): kept, so nothing fills it later.
        state.report.add("not_judged")
        value = NOT_JUDGED
    state.labels.append(
        ReadLabel(
            file=nist_line.line.file,
            line=nist_line.line.number or 0,
            judge=options.judge or "",
            kind=options.kind or "",
            topic_id=nist_line.topic_id,
            run_id=nist_line.run_id,
            sentence_index=label.sentence_index,
            condition=options.condition or "",
            label=value,
            label_field=label.field,
            sentence_field=label.sentence_field,
            reference=label.reference,
            reference_field=label.field.rsplit(".", 1)[0] + ".reference",
        )
    )


def _answers_create_missing(state: LabelsRead, answers: list[tuple[str, ParsedAnswer]]) -> None:
    keys = {(a.run_id, a.topic_id) for _, a in answers}
    runs = {r for r, _ in keys}
    topics = {t for _, t in keys}
    loaded = set(
        Answer.objects.filter(run__run_id__in=runs, topic__topic_id__in=topics).values_list(
            "run__run_id", "topic__topic_id"
        )
    )
    missing = [(file, a) for file, a in answers if (a.run_id, a.topic_id) not in loaded]
    if missing:
        nist_answers_write(report=state.report, answers=missing)


def nist_write(out: Writable, rows: Iterable[dict[str, Any]]) -> int:
    """One JSON object a line (`selectors.nist_rows`); returns the number of lines."""
    count = 0
    for row in rows:
        out.write(json.dumps(row, ensure_ascii=False) + "\n")
        count += 1
    return count
