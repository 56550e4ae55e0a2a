"""The judgments exchange row, defined once (DESIGN §7): what the importer checks each CSV or JSONL row
against, what the export writes, and what `docs/formats/judgments-exchange.schema.json` publishes.

The names an imported judge may take are ruled here too (`judge_name_problem`), for the command's, the
page's and the API's `judge` option and for the file's `judge` column alike.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, ConfigDict, Field, WithJsonSchema, model_validator
from pydantic_core import PydanticCustomError

from assess.importers.lines import HugeNumber
from assess.importers.schema import (
    ID_CONTROLS,
    MAX_INT,
    LineModel,
    PassageId,
    RunId,
    TopicId,
    a_text,
    an_id,
    column_length,
)
from judging.label_set_names import CONDITION_WORDS, PREFIXED_KINDS, LabelSetKind, LabelSetName
from judging.models import Condition, Judge, JudgeKind, Judgment

# Seconds spent on one label: finite (PostgreSQL stores infinity, which JSON cannot carry) and below a day.
SECONDS_LIMIT = 24 * 60 * 60
MAX_JUDGE_NAME = column_length(Judge, "name")
# Names that already mean something where label sets are named (`judging.labels`): a judge kind, a label
# set kind, a condition word. A judge named `human` would read as "every human"; `campaign:x` as a campaign.
RESERVED_JUDGE_NAMES = frozenset(
    {
        *JudgeKind.values,
        LabelSetKind.JUDGE,
        LabelSetKind.CAMPAIGN,
        LabelSetKind.GROUP,
        LabelSetKind.FINAL,
        *CONDITION_WORDS,
        "all",
    }
)


def judge_name_problem(name: str) -> str | None:
    """Why an imported judge cannot take this name, or None when it can."""
    if not name.strip():
        return "empty judge name"
    if len(name) > MAX_JUDGE_NAME:
        return f"longer than {MAX_JUDGE_NAME} characters (the column's limit)"
    if any(ch in ID_CONTROLS for ch in name):
        return "holds a control character"
    lowered = name.strip().lower()
    reads_as = LabelSetName.parse(lowered)
    if lowered in JudgeKind.values:
        return f"{name!r} is a reserved name: it is a judge kind, which goes in judge_kind (judge names the judge)"
    if lowered in RESERVED_JUDGE_NAMES:
        return f"{name!r} is a reserved name (judge kinds, label set kinds and conditions): choose another"
    if reads_as.kind in PREFIXED_KINDS:
        return f"{name!r} would read as a {reads_as.kind} label set: choose a name without '{reads_as.kind}:'"
    if reads_as.kind == LabelSetKind.FINAL:
        return f"{name!r} would read as a campaign's final label set: choose a name without 'final/'"
    if reads_as.condition is not None:
        return f"{name!r} ends in a condition; a label set would read it as judge/condition"
    return None


def _index(value: Any) -> Any:
    """An index as JSON writes it (3) or as CSV does ("3"); never a boolean, a fraction or a float."""
    if isinstance(value, (bool, float, HugeNumber)):
        raise PydanticCustomError("index_type", "expected a non-negative integer, got {value}", {"value": repr(value)})
    if isinstance(value, str):
        text = value.strip()
        if not text.isdigit() or len(text) > 10:
            raise PydanticCustomError(
                "index_type", "expected a non-negative integer, got {value}", {"value": repr(value)[:60]}
            )
        return int(text)
    return value


def _seconds(value: Any) -> Any:
    if isinstance(value, (bool, HugeNumber)):
        raise PydanticCustomError("seconds_type", "expected a number, got {value}", {"value": repr(value)[:60]})
    return value


Index = Annotated[
    int,
    BeforeValidator(_index),
    Field(ge=0, le=MAX_INT),
    WithJsonSchema(
        {
            "anyOf": [{"type": "integer", "minimum": 0, "maximum": MAX_INT}, {"type": "string", "pattern": "^[0-9]+$"}],
            "description": "a non-negative integer (a CSV cell holds its digits)",
        }
    ),
]
Seconds = Annotated[
    float,
    Field(ge=0, lt=SECONDS_LIMIT, allow_inf_nan=False, description="finite, from 0 to below a day"),
    BeforeValidator(_seconds),
]
JudgeName = Annotated[
    str, an_id(MAX_JUDGE_NAME), Field(description="an imported or LLM judge; not an assessor's, not a reserved name")
]
LabelText = Annotated[str, an_id(32)]
MAX_COMMENT = 2000  # what the judging page and the API take (the column is text)
MAX_REASON = column_length(Judgment, "not_judged_reason")


class ExchangeRow(LineModel):
    """One label of the judgments exchange file (CSV with a header line, or JSON lines). Import needs
    `topic_id, run_id, sentence_index, citation_slot`, a label and a judge (a column or an option). A row
    without a label and with a `not_judged_reason` is the assessor's "cannot judge": written by the export,
    left out on import (it is no label)."""

    model_config = ConfigDict(title="judgments exchange row")
    topic_id: TopicId
    run_id: RunId
    sentence_index: Index
    citation_slot: Index
    passage_id: PassageId | None = Field(default=None, description="checked against the slot's passage")
    judge: JudgeName | None = None
    judge_kind: JudgeKind | None = None
    condition: Condition | None = None
    label: LabelText | None = Field(default=None, description="FS, PS or NS (or Full/Partial/No support)")
    shown_label: LabelText | None = None
    seconds: Seconds | None = None
    created_at: Annotated[str, Field(max_length=64)] | None = None
    label_set: Annotated[str, Field(max_length=512)] | None = None
    flagged: bool | None = Field(default=None, description="the assessor flagged the pair for the organizers")
    comment: Annotated[str, a_text(MAX_COMMENT)] | None = Field(
        default=None, description="the assessor's comment to the organizers (with a flag, usually)"
    )
    not_judged_reason: Annotated[str, a_text(MAX_REASON)] | None = Field(
        default=None, description="cannot judge: the assessor's reason; the row then has no label"
    )

    @model_validator(mode="before")
    @classmethod
    def _blank_is_absent(cls, data: Any) -> Any:
        """An empty CSV cell (or JSON "") is a value not given."""
        if isinstance(data, dict):
            return {k: v for k, v in data.items() if not (isinstance(v, str) and not v.strip())}
        return data


def published_schemas() -> dict[str, dict[str, Any]]:
    """Every file format's JSON Schema, by file name under `docs/formats/`, from the models the importers
    check lines against (`manage.py format_schemas` writes them; a test checks they are current)."""
    from assess.importers import schema as assess_schema

    formats: dict[str, tuple[type[LineModel], str]] = {
        "topics": (assess_schema.TopicLine, "in: a topic line of JSONL (TSV `topic_id<TAB>text` reads the same)"),
        "passages": (assess_schema.PassageLine, "in: an MS MARCO V2.1 segment line (plain or .gz)"),
        "passages-retrieval": (assess_schema.RetrievalLine, "in: a ragnarok retrieval-results line"),
        "passages-webis": (assess_schema.WebisLine, "in: a Webis crowd retrieval line"),
        "runs-trec-2024": (assess_schema.TrecRunLine, "in: a TREC RAG 2024 run line"),
        "runs-trec-2025": (assess_schema.TrecRun2025Line, "in: a TREC RAG 2025 run line"),
        "nist-support": (assess_schema.NistSupportLine, "in: a line of NIST's support-judgment JSONL"),
        "relevance-qrels": (
            assess_schema.RelevanceLine,
            "in: a graded relevance qrels line, whitespace-separated columns `topic_id ignored passage_id grade`",
        ),
        "judgments-exchange": (ExchangeRow, "in and out: a judgments exchange row (CSV columns or a JSON line)"),
    }
    out: dict[str, dict[str, Any]] = {}
    for name, (model, role) in formats.items():
        schema = model.model_json_schema(mode="validation")
        schema = {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": f"{name}.schema.json",
            "$comment": f"{role}. Generated from {model.__module__}.{model.__qualname__} by "
            "`manage.py format_schemas`; do not edit by hand.",
            **schema,
        }
        out[f"{name}.schema.json"] = schema
    return out
