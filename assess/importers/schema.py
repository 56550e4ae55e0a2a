"""What a valid input line is: each file format's line shape, defined once (pydantic v2 models).

Every importer checks each line against its format's model before it reads it (`line_check`), whichever way
the file came in (command, upload page, API). The same models write the published JSON Schemas
(`docs/formats/*.schema.json`, `manage.py format_schemas`). A model states, for every value: its type,
whether it is required, the length its column allows (read from the Django model field), that it holds no
NUL or other control character, and that a number is finite and in range. What only the whole line or the
whole input shows (a citation index within the references, a duplicate, an unknown run) stays with the
importer.

To accept a new field, add it to the model (with `Field(description=...)`): the check, the messages and the
schema follow. Unknown fields are not read, as the track's own checker ignores them, but they are checked as
far as any value is: a number in one must fit the line's number parsing (`lines.MAX_INT_DIGITS`), or the line
is refused at that field. A required field that is missing is reported with the unknown fields of its object
("missing field; found unknown field 'sentences'"): a misspelling names both.
"""

from __future__ import annotations

import difflib
import math
import types
import typing
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from pydantic import (
    AfterValidator,
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

from assess.importers.lines import MAX_INT_DIGITS, HugeNumber
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


def _huge_number_at(value: Any) -> tuple[str, HugeNumber] | None:
    """The first number too large to parse in a JSON value (a scalar, list or object), with where it is inside."""
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, where = stack.pop()
        if isinstance(item, HugeNumber):
            return where, item
        if isinstance(item, dict):
            stack.extend((child, f"{where}.{key}") for key, child in reversed(list(item.items())))
        elif isinstance(item, list):
            stack.extend((child, f"{where}[{i}]") for i, child in reversed(list(enumerate(item))))
    return None


def _numbers_in_range(value: Any) -> Any:
    found = _huge_number_at(value)
    if found is not None:
        where, number = found
        raise PydanticCustomError(
            "huge_number",
            "{number} is out of range{where}",
            {"number": repr(number), "where": f" (at {where.lstrip('.')})" if where else ""},
        )
    return value


# A value the importer does not read (an unknown field, NIST's `support` before its own check): any JSON, but no
# number of more digits than a line may hold, wherever it is nested.
AnyValue = Annotated[
    Any,
    AfterValidator(_numbers_in_range),
    WithJsonSchema({"description": f"any JSON value; an integer in it has at most {MAX_INT_DIGITS} digits"}),
]


class LineModel(BaseModel):
    """A line's object: every field its format reads, typed; unknown fields kept unread, checked as AnyValue."""

    model_config = ConfigDict(extra="allow", populate_by_name=False, allow_inf_nan=False)
    __pydantic_extra__: dict[str, AnyValue] = Field(init=False)


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
    query: AnyValue = None
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
    type: AnyValue = None
    prompt: AnyValue = None


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
    support: AnyValue = Field(default=None, description='"2" FS, "1" PS, "0" NS, "-1" not judged')


class NistSentence(LineModel):
    sentenceID: Count | None = Field(default=None, description="the 2024-10-25 files' spelling")
    sentenceId: Count | None = Field(default=None, description="the Webassess file's spelling")
    text: SentenceText
    citations: list[NistCitation] = []
    verification_worthy: AnyValue = Field(default=None, description='"0" or "1" (NIST\'s), kept and written back')
    citationsCombibed: AnyValue = Field(
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
            text = error_text(error)
            if error["type"] == "missing":
                text += unknown_fields_hint(model, obj, error["loc"])
            line.error(prefix + field_path(error["loc"]), text)
        return None


def _known_names(model: type[BaseModel]) -> set[str]:
    """Every key a model reads: its fields' names and the spellings they accept."""
    names: set[str] = set()
    for name, info in model.model_fields.items():
        names.update((name, *((info.alias,) if info.alias else ()), *_choices(info.validation_alias)))
    return names


def _field_named(model: type[BaseModel], key: str) -> Any:
    for name, info in model.model_fields.items():
        if key == name or key == info.alias or key in _choices(info.validation_alias):
            return info
    return None


def _choices(alias: Any) -> tuple[str, ...]:
    if isinstance(alias, str):
        return (alias,)
    if isinstance(alias, AliasChoices):
        return tuple(choice for choice in alias.choices if isinstance(choice, str))
    return ()


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The line model an annotation holds (`list[RunSentence]`, `RunMetadata | None`), if any."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if typing.get_origin(annotation) in (typing.Union, types.UnionType, list, typing.Annotated):
        for arg in typing.get_args(annotation):
            found = _model_in(arg)
            if found is not None:
                return found
    return None


def unknown_fields(model: type[BaseModel], obj: Any, loc: tuple[Any, ...]) -> list[str]:
    """The keys of the object holding the field at `loc` (the line itself for a top-level field) that its model
    does not read, the closest to the field's name first."""
    node: Any = obj
    current: type[BaseModel] | None = model
    for part in loc[:-1]:
        if isinstance(part, int):
            node = node[part] if isinstance(node, list) and 0 <= part < len(node) else None
            continue
        info = _field_named(current, str(part)) if current is not None else None
        node = node.get(part) if isinstance(node, dict) else None
        current = _model_in(info.annotation) if info is not None else None
    if not isinstance(node, dict) or current is None:
        return []
    known = _known_names(current)
    unknown = [str(key) for key in node if key not in known]
    if not unknown:
        return []
    close = difflib.get_close_matches(str(loc[-1]), unknown, n=len(unknown), cutoff=0.5)
    return close + [key for key in unknown if key not in close]


def unknown_fields_hint(model: type[BaseModel], obj: Any, loc: tuple[Any, ...]) -> str:
    """ "; found unknown field 'sentences'" when the missing field's object holds keys its model does not read
    (a misspelling, most often), else ""."""
    unknown = unknown_fields(model, obj, loc)
    if not unknown:
        return ""
    shown = ", ".join(repr(key[:60]) for key in unknown[:3]) + (
        f" and {len(unknown) - 3} more" if len(unknown) > 3 else ""
    )
    return f"; found unknown field{'s' if len(unknown) > 1 else ''} {shown}"


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
