"""Judgment export (DESIGN §7): the exchange file as CSV or JSONL, NIST-style JSONL or `trec_eval` qrels.
Commands, pages and the API all write through `judgments_export`."""

from __future__ import annotations

from collections.abc import Iterable

from core.writable import Writable
from judging.exchange.exchange import exchange_csv_write, exchange_jsonl_write
from judging.exchange.nist import nist_write
from judging.exchange.qrels import QrelsLevel, qrels_write
from judging.exchange.selectors import ExportMaterial, NistKeyChoice, exchange_rows, nist_rows, qrels_rows
from judging.labels import LabelSet, LabelSetKind, label_sets_available
from judging.scope import Scope


class ExportFormat:
    CSV = "csv"
    JSONL = "jsonl"
    NIST = "nist"
    QRELS = "qrels"
    CHOICES = (CSV, JSONL, NIST, QRELS)
    ONE_SET = (NIST, QRELS)


def judgments_export(
    out: Writable,
    *,
    fmt: str,
    scope: Scope,
    label_sets: Iterable[LabelSet] | None = None,
    qrels_level: str = QrelsLevel.SENTENCE,
    nist_keys: str = NistKeyChoice.SOURCE,
    material: ExportMaterial | None = None,
) -> int:
    """Write the labels of the given sets in one of the formats; returns the number of rows (NIST: answers;
    qrels: lines) written. Each exchange and NIST row names its label set. NIST-style output and qrels hold
    exactly one set; the exchange file holds every one-judge set when none is given. `material`: the scope's
    citations (and the sets' labels), when they were read already (`selectors.export_material`)."""
    sets = list(label_sets or [])
    if fmt in ExportFormat.ONE_SET and len(sets) != 1:
        raise ValueError("NIST-style JSONL and qrels hold one label set's labels: name exactly one")
    if fmt == ExportFormat.QRELS:
        return qrels_write(out, qrels_rows(scope=scope, label_set=sets[0], level=qrels_level, material=material))
    if fmt == ExportFormat.NIST:
        return nist_write(out, nist_rows(scope=scope, label_set=sets[0], keys=nist_keys, material=material))
    if fmt not in (ExportFormat.CSV, ExportFormat.JSONL):
        raise ValueError(f"unknown export format {fmt!r}")
    if not sets:
        sets = [s for s in label_sets_available() if s.kind == LabelSetKind.JUDGE]
    rows = exchange_rows(scope=scope, label_sets=sets, material=material)
    return exchange_csv_write(out, rows) if fmt == ExportFormat.CSV else exchange_jsonl_write(out, rows)
