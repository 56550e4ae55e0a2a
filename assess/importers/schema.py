"""What a valid input line is: each file format's line shape, defined once (pydantic v2 models).

Every importer checks each line against its format's model before it reads it (`line_check`), whichever way
the file came in (command, upload page, API). The same models write the published JSON Schemas
(`docs/formats/*.schema.json`, `manage.py format_schemas`). A model states, for every value: its type,
whether it is required, the length its column allows (read from the Django model field), that it holds no
NUL or other control character, and that a number is finite and in range. What only the whole line or the
whole input shows (a citation index within the references, a duplicate, an unknown run) stays with the
importer.

To accept a new field, add it to the model (with `Field(description=...)`): the check, the messages and the
schema follow. Unknown fields are ignored, as the track's own checker ignores them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from pydantic import (
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    Strict,
    StringConstraints,
    ValidationError,
    WithJsonSchema,
)
from pydantic_core import PydanticCustomError

from assess.importers.lines import HugeNumber
from assess.importers.report import Line
from assess.models import Passage, Run, Topic

MAX_INT = 2**31 - 1  # PositiveIntegerField's upper bound on PostgreSQL


def column_length(model: Any, name: str) -> int:
    """The max_length of a model's column: the one number an import checks a value against."""
    length = model._meta.get_field(name).max_length
    if not length:
        raise ValueError(f"{model.__name__}.{name} has no max_length")
    return int(length)


# Texts without a column limit (TextField) get one here: what a sane input holds, far above the real files
# (the longest TREC 2025 narrative is about 2,000 characters, the longest MS MARCO V2.1 segment about 20,000).
MAX_TOPIC_TEXT = 20_000
MAX_SENTENCE_TEXT = 20_000
MAX_PASSAGE_TEXT = 200_000
MAX_PASSAGE_FIELD = 20_000  # title, url, headings

# An id holds no control character at all; a text may hold tab, line feed, vertical tab, form feed and
# carriage return (a real Webis passage has a vertical tab), never NUL or the other C0 controls or DEL.
ID_PATTERN = r"^[^\x00-\x1f\x7f]*$"
TEXT_PATTERN = r"^[^\x00-\x08\x0e-\x1f\x7f]*$"
ID_CONTROLS = {*map(chr, range(0x20)), "\x7f"}
TEXT_CONTROLS = ID_CONTROLS - set("\t\n\x0b\x0c\r")


def an_id(max_length: int) -> StringConstraints:
    """A non-empty id of at most `max_length` characters, no control character, spaces around it dropped."""
    return StringConstraints(strip_whitespace=True, min_length=1, max_length=max_length, pattern=ID_PATTERN)


def a_text(max_length: int) -> StringConstraints:
    """A text of at most `max_length` characters, with no control character but the five whitespace ones."""
    return StringConstraints(max_length=max_length, pattern=TEXT_PATTERN)


TopicText = Annotated[str, a_text(MAX_TOPIC_TEXT)]
PassageText = Annotated[str, a_text(MAX_PASSAGE_TEXT)]
PassageField = Annotated[str, a_text(MAX_PASSAGE_FIELD)]


def _string_or_number(value: Any) -> Any:
    """Topic ids may be written as numbers (`"topic_id": 2024145979`); they are kept as strings."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str):
        raise PydanticCustomError("id_type", "expected a string or a number, got {value}", {"value": _shown(value)})
    return value


def _nan_is_missing(value: Any) -> Any:
    """NIST's files write a missing sentence text as NaN: it is read as missing (None)."""
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


TopicId = Annotated[
    str,
    an_id(column_length(Topic, "topic_id")),
    BeforeValidator(_string_or_number),
    WithJsonSchema({"type": ["string", "integer"], "description": "a topic id; a number is kept as a string"}),
]
RunId = Annotated[str, an_id(column_length(Run, "run_id"))]
Group = Annotated[str, an_id(column_length(Run, "group"))]
PassageId = Annotated[str, an_id(column_length(Passage, "passage_id"))]
Count = Annotated[int, Strict(), Field(ge=0, le=MAX_INT)]
SentenceText = Annotated[
    Annotated[str, a_text(MAX_SENTENCE_TEXT)] | None,
    BeforeValidator(_nan_is_missing),
    WithJsonSchema(
        {
            "type": ["string", "null"],
            "maxLength": MAX_SENTENCE_TEXT,
            "description": "null or NaN: the text is missing (kept as empty text, with a warning)",
        }
    ),
]


class LineModel(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=False, allow_inf_nan=False)


# --- topics ------------------------------------------------------------------------------------------


class TopicLine(LineModel):
    """A topic as a JSON line (the TSV form `topic_id<TAB>text` is read into the same shape)."""

    model_config = ConfigDict(title="topic")
    topic_id: TopicId = Field(validation_alias=AliasChoices("topic_id", "qid", "id"))
    text: TopicText = Field(validation_alias=AliasChoices("text", "topic", "query", "title"))


def _relevance_grade(value: Any) -> int:
    """A grade as written in a qrels column: 0, 1, 2 or 3."""
    if isinstance(value, str) and value in {"0", "1", "2", "3"}:
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 3:
        return value
    raise PydanticCustomError("grade", "expected a grade 0, 1, 2 or 3, got {value}", {"value": _shown(value)})


class RelevanceLine(LineModel):
    """A graded relevance qrels line, `topic_id <ignored> passage_id grade`: trec_eval's whitespace-separated
    columns, read by position (the second column is not read), so each field is named by its column."""

    model_config = ConfigDict(title="relevance qrels line", populate_by_name=True)
    topic_id: TopicId = Field(alias="column 1", description="the topic id")
    passage_id: PassageId = Field(alias="column 3", description="the passage (segment) id")
    grade: Annotated[int, BeforeValidator(_relevance_grade)] = Field(
        alias="column 4", description="0 to 3 (UMBRELA's and NIST's scale)", ge=0, le=3
    )


# --- passages ----------------------------------------------------------------------------------------


class PassageLine(LineModel):
    """A MS MARCO V2.1 segment: `{docid, url, title, headings, segment, start_char, end_char}`."""

    model_config = ConfigDict(title="passage")
    docid: PassageId = Field(validation_alias=AliasChoices("docid", "segment_id", "passage_id"))
    segment: PassageText = Field(validation_alias=AliasChoices("segment", "text"))
    title: PassageField = ""
    url: PassageField = ""
    headings: PassageField = ""
    start_char: Count | None = None
    end_char: Count | None = None


class RetrievedDoc(LineModel):
    segment: PassageText = Field(validation_alias=AliasChoices("segment", "text"))
    title: PassageField = ""
    url: PassageField = ""
    headings: PassageField = ""


class Candidate(LineModel):
    docid: PassageId
    doc: RetrievedDoc


class RetrievalLine(LineModel):
    """A ragnarok retrieval result: `{query, candidates: [{docid, doc: {segment, title, ...}}]}`."""

    model_config = ConfigDict(title="retrieval result")
    query: Any = None
    candidates: list[Candidate]


class WebisLine(LineModel):
    """The Webis crowd retrieval file: `{references_ids, references_texts}`, two lists of one length."""

    model_config = ConfigDict(title="Webis retrieval")
    references_ids: list[PassageId]
    references_texts: list[PassageText]


# --- runs --------------------------------------------------------------------------------------------


class RunSentence(LineModel):
    text: SentenceText
    citations: list[Annotated[int, Strict()]] = Field(description="indexes into the line's references")


class RunMetadata(LineModel):
    team_id: Group | None = None
    run_id: RunId | None = None
    narrative_id: TopicId | None = None
    narrative: TopicText | None = None
    type: Any = None
    prompt: Any = None


class TrecRun2025Line(LineModel):
    """One answer of a TREC RAG 2025 run: run and topic may come from `metadata`, and `run_id`,
    `topic_id`, `topic` and `response_length` may be left out."""

    model_config = ConfigDict(title="TREC RAG 2025 run line")
    run_id: RunId | None = None
    topic_id: TopicId | None = None
    topic: TopicText | None = None
    references: list[PassageId] = Field(description="segment ids, each once")
    response_length: Count | None = None
    answer: list[RunSentence]
    metadata: RunMetadata


class TrecRunLine(TrecRun2025Line):
    """One answer of a TREC RAG 2024 run: every field required."""

    model_config = ConfigDict(title="TREC RAG 2024 run line")
    run_id: RunId
    topic_id: TopicId
    topic: TopicText
    response_length: Count
    metadata: RunMetadata | None = None  # type: ignore[assignment]


# --- NIST support judgments --------------------------------------------------------------------------


class NistCitation(LineModel):
    """NIST's citation; `citationID` (2024-10-25 files) or `citationId` (Webassess)."""

    citationID: Count | None = Field(
        default=None, description="the 2024-10-25 files' spelling: the citation's position"
    )
    citationId: Count | None = Field(
        default=None, description="the Webassess file's spelling: an index into the references"
    )
    reference: PassageId
    support: Any = Field(default=None, description='"2" FS, "1" PS, "0" NS, "-1" not judged')


class NistSentence(LineModel):
    sentenceID: Count | None = Field(default=None, description="the 2024-10-25 files' spelling")
    sentenceId: Count | None = Field(default=None, description="the Webassess file's spelling")
    text: SentenceText
    citations: list[NistCitation] = []
    verification_worthy: Any = Field(default=None, description='"0" or "1" (NIST\'s), kept and written back')
    citationsCombibed: Any = Field(
        default=None, description='"-1", "0", "1" or "2" (NIST\'s spelling, sic), kept and written back'
    )


class NistSupportLine(LineModel):
    """One (topic, run) of NIST's support-judgment JSONL. Sentence ids are `sentenceID` or `sentenceId`."""

    model_config = ConfigDict(title="NIST support judgments line")
    topic_id: TopicId
    run_id: RunId
    sentences: list[NistSentence]


# --- the check ---------------------------------------------------------------------------------------

M = TypeVar("M", bound=BaseModel)


def line_check(line: Line, model: type[M], obj: Any, prefix: str = "") -> M | None:
    """The line validated against its format's model, or None after recording each problem at its field."""
    try:
        return model.model_validate(obj)
    except ValidationError as exc:
        for error in exc.errors(include_url=False):
            line.error(prefix + field_path(error["loc"]), error_text(error))
        return None


def field_path(loc: tuple[Any, ...]) -> str:
    """('answer', 0, 'text') -> 'answer[0].text'."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _control_text(value: Any) -> str:
    controls = ID_CONTROLS
    if isinstance(value, str):
        at = next((i for i, ch in enumerate(value) if ch in controls), None)
        if at is not None:
            return f"holds the control character U+{ord(value[at]):04X} at character {at + 1}; it cannot be stored"
    return "holds a control character; it cannot be stored"


_MESSAGES: dict[str, Callable[[dict[str, Any]], str]] = {
    "missing": lambda e: "missing field",
    "string_type": lambda e: f"expected a string, got {_shown(e['input'])}",
    "int_type": lambda e: f"expected an integer, got {_shown(e['input'])}",
    "int_parsing": lambda e: f"expected an integer, got {_shown(e['input'])}",
    "int_from_float": lambda e: f"expected an integer, got {_shown(e['input'])}",
    "list_type": lambda e: f"expected a list, got {_shown(e['input'])}",
    "dict_type": lambda e: f"expected an object, got {_shown(e['input'])}",
    "model_type": lambda e: f"expected an object, got {_shown(e['input'])}",
    "model_attributes_type": lambda e: f"expected an object, got {_shown(e['input'])}",
    "string_too_short": lambda e: "empty value",
    "string_too_long": lambda e: f"longer than {e['ctx']['max_length']:,} characters (the column's limit)",
    "string_pattern_mismatch": lambda e: _control_text(e["input"]),
    "greater_than_equal": lambda e: (
        f"expected a non-negative integer, got {_shown(e['input'])}"
        if e["ctx"]["ge"] == 0
        else f"expected a number of at least {e['ctx']['ge']}, got {_shown(e['input'])}"
    ),
    "less_than_equal": lambda e: f"expected a number of at most {e['ctx']['le']:,}, got {_shown(e['input'])}",
    "less_than": lambda e: f"expected a number below {e['ctx']['lt']:,}, got {_shown(e['input'])}",
    "enum": lambda e: f"expected {e['ctx']['expected']}, got {_shown(e['input'])}",
    "literal_error": lambda e: f"expected {e['ctx']['expected']}, got {_shown(e['input'])}",
    "float_type": lambda e: f"expected a number, got {_shown(e['input'])}",
    "float_parsing": lambda e: f"expected a number, got {_shown(e['input'])}",
    "finite_number": lambda e: f"expected a finite number, got {_shown(e['input'])}",
}


def error_text(error: Any) -> str:
    if isinstance(error.get("input"), HugeNumber):
        return f"{error['input']!r} is out of range"
    make = _MESSAGES.get(error["type"])
    return make(error) if make is not None else str(error["msg"])
