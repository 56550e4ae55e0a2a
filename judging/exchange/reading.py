"""What the readers of judgment files produce: each label read, before its citation is looked up."""

from __future__ import annotations

from dataclasses import dataclass, field

from assess.importers.nist import NistSentenceRead
from assess.importers.report import ImportReport


class JudgmentFormat:
    NIST = "nist"
    EXCHANGE = "exchange"


@dataclass(frozen=True)
class RunMapEntry:
    run_id: str  # the loaded run the file's run id stands for
    file: str
    line: int


RunMap = dict[str, RunMapEntry]


@dataclass(frozen=True)
class JudgmentImportOptions:
    judge: str | None = None  # every label goes to this judge; else the row's `judge` column names it
    kind: str | None = None  # for judges created by the import; default human
    condition: str | None = None  # default: the row's `condition` column, else blank
    label_field: str = "label"  # exchange format: the column that holds the label
    topics: frozenset[str] | None = None  # only labels for these topics are imported
    run_map: RunMap | None = None  # the file's run ids -> loaded run ids (`judging.exchange.runmap`)
    skip_unplaced: bool = False  # import the labels that can be placed and list the others as warnings


@dataclass
class ReadLabel:
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
    label_field: str  # where the label is, for the messages about it
    sentence_field: str  # where the sentence index is
    slot: int | None = None  # exchange: the citation's slot
    reference: str | None = None  # NIST: the cited passage id (matched within the sentence)
    reference_field: str = ""  # NIST: where the reference is
    passage_id: str | None = None  # exchange: optional check of the citation's passage
    shown_label: str = ""
    seconds: float | None = None
    file_run_id: str = ""  # the run id the file wrote, when the run map put another in `run_id`


@dataclass
class LabelsRead:
    """The labels read from every file of one import, and the judges' kinds as the rows give them."""

    report: ImportReport
    labels: list[ReadLabel] = field(default_factory=list)
    judge_kinds: dict[str, tuple[str, str, int]] = field(default_factory=dict)  # name -> (kind, file, line)
    nist_sentences: list[SentenceRead] = field(default_factory=list)


@dataclass
class SentenceRead:
    """What a NIST file says of one sentence beside its labels, before the sentence is looked up."""

    file: str
    line: int
    judge: str
    condition: str
    topic_id: str
    run_id: str
    read: NistSentenceRead
