"""Gold items in: a file of pair keys with their expected labels, checked as a whole and stored all or nothing.

The file is CSV with a header line, or JSONL, one item per line, keyed as the judgments exchange is:
`topic_id, run_id, sentence_index, citation_slot` and the expected label in `label` (or `expected_label`):
FS, PS or NS. Other columns are ignored, so an exchange file loads as it is. Each key names one citation of
the campaign's pool; its stored pair is the gold item. Two lines naming the same pair must expect the same
label. Loading a file replaces the campaign's gold items; a file with any error changes nothing, and every
error names file, line and field (`assess.importers.report`).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from assess.importers.lines import InputFile, read_json_lines, read_text_lines
from assess.importers.report import ImportReport, Line
from assess.models import Citation
from judging.models import Campaign, CampaignPair
from judging.vocabulary import SUPPORT
from metrics.quality.models import GoldItem

KEY_FIELDS = ("topic_id", "run_id", "sentence_index", "citation_slot")
LABEL_FIELDS = ("label", "expected_label")
MAX_TEXT = 200
MAX_INDEX = 1_000_000
MAX_ITEMS = 100_000


@dataclass(frozen=True)
class GoldLine:
    line: Line
    topic_id: str
    run_id: str
    sentence_index: int
    citation_slot: int
    label: str


def _rows(report: ImportReport, f: InputFile) -> list[tuple[Line, dict[str, Any]]]:
    texts = list(read_text_lines(report, f))
    if not texts:
        if report.ok:
            report.error(f.name, None, "", "the file holds no gold items")
        return []
    if texts[0][1].lstrip().startswith("{"):
        return list(read_json_lines(report, f))
    header: list[str] | None = None
    rows: list[tuple[Line, dict[str, Any]]] = []
    for line, text in texts:
        try:
            values = next(csv.reader(io.StringIO(text)))
        except csv.Error as exc:
            line.error("", f"not a CSV line: {exc}")
            continue
        if header is None:
            header = [h.strip() for h in values]
            missing = [k for k in KEY_FIELDS if k not in header]
            if not any(k in header for k in LABEL_FIELDS):
                missing.append("label")
            if missing:
                line.error(
                    ", ".join(missing),
                    "missing from the header (needs topic_id, run_id, sentence_index, citation_slot and label)",
                )
                return []
            continue
        if len(values) != len(header):
            line.error("", f"expected {len(header)} columns as in the header, got {len(values)}")
            continue
        rows.append((line, dict(zip(header, values, strict=True))))
    return rows


def _text(line: Line, row: dict[str, Any], name: str) -> str | None:
    value = row.get(name)
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)  # JSONL topic ids may be numbers
    if not isinstance(value, str) or not value.strip():
        line.error(name, "missing or empty")
        return None
    value = value.strip()
    if "\x00" in value or len(value) > MAX_TEXT:
        line.error(name, f"not a valid value (at most {MAX_TEXT} characters, no NUL)")
        return None
    return value


def _index(line: Line, row: dict[str, Any], name: str) -> int | None:
    value = row.get(name)
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_INDEX:
        line.error(name, f"expected a whole number from 0 to {MAX_INDEX}, got {row.get(name)!r}")
        return None
    return value


def _label(line: Line, row: dict[str, Any]) -> str | None:
    name = next((k for k in LABEL_FIELDS if k in row), "label")
    value = row.get(name)
    label = value.strip().upper() if isinstance(value, str) else None
    if label not in SUPPORT.code_of:
        line.error(name, f"expected FS, PS or NS, got {value!r}")
        return None
    return label


def gold_read(report: ImportReport, f: InputFile) -> list[GoldLine]:
    """The file's items, every problem of shape recorded in the report."""
    items: list[GoldLine] = []
    for line, row in _rows(report, f):
        values = (
            _text(line, row, "topic_id"),
            _text(line, row, "run_id"),
            _index(line, row, "sentence_index"),
            _index(line, row, "citation_slot"),
            _label(line, row),
        )
        if any(v is None for v in values):
            continue
        topic_id, run_id, sentence_index, slot, label = values
        items.append(GoldLine(line, topic_id, run_id, sentence_index, slot, label))  # type: ignore[arg-type]
        if len(items) > MAX_ITEMS:
            line.error("", f"more than {MAX_ITEMS} gold items")
            break
    return items


def _place(campaign: Campaign, items: list[GoldLine]) -> list[tuple[GoldLine, int, int]]:
    """(item, citation id, pair id) for each item that names a citation of the campaign's pool; an error for
    each that does not."""
    topics = set(campaign.topics.values_list("topic_id", flat=True))
    runs = set(campaign.runs.values_list("run_id", flat=True))
    wanted = [i for i in items if i.topic_id in topics and i.run_id in runs]
    citations: dict[tuple[str, str, int, int], tuple[int, int | None]] = {}
    if wanted:
        query = Citation.objects.filter(
            sentence__answer__topic__topic_id__in={i.topic_id for i in wanted},
            sentence__answer__run__run_id__in={i.run_id for i in wanted},
            sentence__index__in={i.sentence_index for i in wanted},
            slot__in={i.citation_slot for i in wanted},
        ).values_list(
            "sentence__answer__topic__topic_id",
            "sentence__answer__run__run_id",
            "sentence__index",
            "slot",
            "pk",
            "stored_pair__pair_id",
        )
        citations = {(t, r, s, c): (pk, pair) for t, r, s, c, pk, pair in query}
    pool: dict[int, str] = dict(
        CampaignPair.objects.filter(campaign=campaign).values_list("pair_id", "topic__topic_id")
    )
    placed: list[tuple[GoldLine, int, int]] = []
    for item in items:
        if item.topic_id not in topics:
            item.line.error("topic_id", f"topic {item.topic_id} is not in campaign {campaign.name}")
            continue
        if item.run_id not in runs:
            item.line.error("run_id", f"run {item.run_id} is not in campaign {campaign.name}")
            continue
        found = citations.get((item.topic_id, item.run_id, item.sentence_index, item.citation_slot))
        if found is None:
            item.line.error(
                "citation_slot",
                f"run {item.run_id} on topic {item.topic_id} has no citation in slot {item.citation_slot} of "
                f"sentence {item.sentence_index}",
            )
            continue
        citation_id, pair_id = found
        if pair_id is None or pool.get(pair_id) != item.topic_id:
            item.line.error(
                "citation_slot",
                f"this citation is not in the pool of campaign {campaign.name} (beyond its depth, or left out)",
            )
            continue
        placed.append((item, citation_id, pair_id))
    return placed


def gold_items_load(*, campaign: Campaign, f: InputFile, loaded_by: User | None = None) -> ImportReport:
    """Replace the campaign's gold items with the file's, or change nothing and return the errors."""
    report = ImportReport()
    items = gold_read(report, f)
    placed = _place(campaign, items) if items else []
    first: dict[int, GoldLine] = {}
    for item, _citation, pair in placed:
        earlier = first.setdefault(pair, item)
        if earlier is not item and earlier.label != item.label:
            item.line.error(
                LABEL_FIELDS[0],
                f"the same pair as line {earlier.line.number} expects {earlier.label}, this line {item.label}",
            )
    if not placed and report.ok:
        report.error(f.name, None, "", "the file holds no gold items")
    if not report.ok:
        return report
    with transaction.atomic():
        GoldItem.objects.filter(campaign=campaign).delete()
        GoldItem.objects.bulk_create(
            GoldItem(
                campaign=campaign,
                pair_id=pair,
                citation_id=citation,
                label=item.label,
                source=f.name[:255],
                line=item.line.number,
                loaded_by=loaded_by,
            )
            for item, citation, pair in placed
            if first[pair] is item
        )
    report.add("gold items", len(first))
    if len(placed) > len(first):
        report.add("repeated lines", len(placed) - len(first))
    return report
