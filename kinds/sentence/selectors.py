"""Reads of the sentence kind. First the sentence labels of a label set: the one rule every sentence score, agreement figure and export reads.

A set names judges and a condition as support's sets do (`judging.label_set_names`): `nist/from_scratch`, an
LLM judge (`gpt-4o/none`), `campaign:NAME/from_scratch`, `group:NAME/post_edit`. A judge's label of a
sentence is its newest SentenceJudgment of it in the condition (within the campaign for a campaign set), else
what an imported NIST file said of it (NistSentence: `verification_worthy`, `citationsCombibed`). With several
judges the majority wins on each step; a tie leaves the step out. A combined label counts only on a sentence
the set calls verification-worthy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from django.contrib.auth.models import Group
from django.db.models import Exists, OuterRef, QuerySet

from assess.models import Citation, Sentence
from judging.label_set_names import SPEC_HELP, LabelSetError, LabelSetKind, LabelSetName
from judging.models import Assignment, Campaign, Condition, Judge, JudgeKind, NistSentence
from judging.progress import Share

from .models import SentenceItem, SentenceJudgment
from .vocabulary import COMBINED, NIST_COMBINED

NO_LABEL = -1
_COMBINED_CODE = {"": NO_LABEL, "-1": NO_LABEL} | {k: COMBINED.code_of[v] for k, v in NIST_COMBINED.items()}


@dataclass(frozen=True)
class SentenceLabelSet:
    spec: str
    kind: str
    name: str
    condition: str
    judge_ids: tuple[int, ...]
    campaign_id: int | None = None

    @property
    def title(self) -> str:
        condition = self.condition or "no condition"
        if self.kind == LabelSetKind.JUDGE:
            return f"{self.name} ({condition})"
        people = f"{len(self.judge_ids)} assessor{'s' if len(self.judge_ids) != 1 else ''}"
        return f"{self.kind} {self.name} ({condition}, {people})"

    @property
    def rule(self) -> str:
        if self.kind == LabelSetKind.JUDGE:
            return "the judge's newest label of each sentence (an imported NIST file's where it made none)"
        return "majority of the assessors' newest labels on each step; a tie is left out"

    def as_dict(self) -> dict[str, str]:
        return {"spec": self.spec, "title": self.title, "rule": self.rule}


def sentence_label_set_get(spec: str) -> SentenceLabelSet:
    """The sentence label set a spec names; LabelSetError saying what to write when there is none."""
    spec = (spec or "").strip()
    if not spec:
        raise LabelSetError(f"no label set given: {SPEC_HELP}")
    parsed = LabelSetName.parse(spec)
    if parsed.kind == LabelSetKind.FINAL:
        raise LabelSetError("sentence labels have no final set yet: name a judge, campaign or group set")
    if parsed.kind == LabelSetKind.JUDGE:
        return _judge_set(parsed)
    if parsed.condition is None:
        raise LabelSetError(f"{spec!r} needs a condition, e.g. {spec}/from_scratch")
    if parsed.kind == LabelSetKind.CAMPAIGN:
        campaign = Campaign.objects.filter(name=parsed.name).first()
        if campaign is None:
            raise LabelSetError(f"no campaign named {parsed.name!r}")
        ids = SentenceJudgment.objects.filter(
            campaign=campaign, condition=parsed.condition, judge__kind=JudgeKind.HUMAN
        ).values_list("judge_id", flat=True)
        return SentenceLabelSet(
            parsed.format(), parsed.kind, parsed.name, parsed.condition, tuple(sorted(set(ids))), campaign.pk
        )
    group = Group.objects.filter(name=parsed.name).first()
    if group is None:
        raise LabelSetError(f"no user group named {parsed.name!r}")
    members = Judge.objects.filter(user__groups=group).values_list("pk", flat=True)
    return SentenceLabelSet(parsed.format(), parsed.kind, parsed.name, parsed.condition, tuple(sorted(members)))


def _judge_set(parsed: LabelSetName) -> SentenceLabelSet:
    judge = Judge.objects.filter(name=parsed.name).first()
    if judge is None:
        raise LabelSetError(f"no judge named {parsed.name!r}: {SPEC_HELP}")
    condition = parsed.condition
    if condition is None:
        conditions = set(NistSentence.objects.filter(judge=judge).values_list("condition", flat=True).distinct())
        conditions |= set(SentenceJudgment.objects.filter(judge=judge).values_list("condition", flat=True).distinct())
        if len(conditions) > 1:
            named = ", ".join(f"{judge.name}/{c or 'none'}" for c in sorted(conditions))
            raise LabelSetError(f"judge {judge.name} has sentence labels in {len(conditions)} conditions: {named}")
        condition = next(iter(conditions), "")
    spec = LabelSetName(LabelSetKind.JUDGE, judge.name, condition).format()
    return SentenceLabelSet(spec, LabelSetKind.JUDGE, judge.name, condition, (judge.pk,))


@dataclass(frozen=True)
class SentenceLabels:
    """A set's labels, one entry per labelled sentence (ascending id), with what the scores group by."""

    sentence_ids: np.ndarray
    worthy: np.ndarray  # 1 needs a citation, 0 needs none
    combined: np.ndarray  # COMBINED's code (0 NS, 1 PS, 2 FS) or NO_LABEL
    cited: np.ndarray  # bool: the sentence has at least one citation
    run_ids: list[str]
    topic_ids: list[str]

    def __len__(self) -> int:
        return len(self.sentence_ids)


def sentence_labels(label_set: SentenceLabelSet) -> SentenceLabels:
    """Each judge's label of each sentence by the rule above, then the set's by majority."""
    per_judge: dict[tuple[int, int], tuple[int, int]] = {}
    nist = NistSentence.objects.filter(judge_id__in=label_set.judge_ids, condition=label_set.condition)
    for sentence_id, judge_id, worthy, combined in nist.values_list(
        "sentence_id", "judge_id", "verification_worthy", "citations_combined"
    ):
        if worthy in ("0", "1"):
            per_judge[(sentence_id, judge_id)] = (int(worthy), _COMBINED_CODE.get(combined, NO_LABEL))
    made = SentenceJudgment.objects.filter(judge_id__in=label_set.judge_ids, condition=label_set.condition)
    if label_set.campaign_id is not None:
        made = made.filter(campaign_id=label_set.campaign_id)
    for sentence_id, judge_id, needs, label in made.order_by("pk").values_list(
        "sentence_id", "judge_id", "worthy", "combined"
    ):
        code = COMBINED.code_of[label] if needs and label else NO_LABEL
        per_judge[(sentence_id, judge_id)] = (int(needs), code)
    return _sentences_of(_majority(per_judge))


def _majority(per_judge: dict[tuple[int, int], tuple[int, int]]) -> dict[int, tuple[int, int]]:
    votes: dict[int, list[tuple[int, int]]] = {}
    for (sentence_id, _), label in per_judge.items():
        votes.setdefault(sentence_id, []).append(label)
    decided: dict[int, tuple[int, int]] = {}
    for sentence_id, labels in votes.items():
        worthy = _winner([w for w, _ in labels])
        if worthy is None:
            continue
        combined = _winner([c for w, c in labels if w == 1 and c != NO_LABEL]) if worthy == 1 else None
        decided[sentence_id] = (worthy, NO_LABEL if combined is None else combined)
    return decided


def _winner(values: list[int]) -> int | None:
    """The most frequent value; None for none or a tie."""
    if not values:
        return None
    counts = np.bincount(np.asarray(values))
    top = np.flatnonzero(counts == counts.max())
    return int(top[0]) if len(top) == 1 else None


def _sentences_of(decided: dict[int, tuple[int, int]]) -> SentenceLabels:
    ids = np.array(sorted(decided), dtype=np.int64)
    rows = (
        Sentence.objects.filter(pk__in=ids.tolist())
        .annotate(cited=Exists(Citation.objects.filter(sentence_id=OuterRef("pk"))))
        .order_by("pk")
        .values_list("pk", "answer__run__run_id", "answer__topic__topic_id", "cited")
    )
    found = list(rows)
    ids = np.array([r[0] for r in found], dtype=np.int64)
    labels = [decided[int(i)] for i in ids]
    return SentenceLabels(
        sentence_ids=ids,
        worthy=np.array([w for w, _ in labels], dtype=np.int64),
        combined=np.array([c for _, c in labels], dtype=np.int64),
        cited=np.array([r[3] for r in found], dtype=bool),
        run_ids=[r[1] for r in found],
        topic_ids=[r[2] for r in found],
    )


def sentences_in_answers(run_topic: set[tuple[str, str]]) -> dict[str, int]:
    """How many sentences each run's answers to these topics hold (the coverage's denominator)."""
    runs = {r for r, _ in run_topic}
    topics = {t for _, t in run_topic}
    counts: dict[str, int] = {}
    rows = Sentence.objects.filter(answer__run__run_id__in=runs, answer__topic__topic_id__in=topics).values_list(
        "answer__run__run_id", "answer__topic__topic_id"
    )
    for run_id, topic_id in rows:
        if (run_id, topic_id) in run_topic:
            counts[run_id] = counts.get(run_id, 0) + 1
    return counts


# --- the card's reads -------------------------------------------------------------------------------------


def judge_label_of(judge_id: int, sentence_id: int) -> tuple[bool, str] | None:
    """One judge's (worthy, combined label or "") of one sentence, made outside any campaign, by the rule above:
    its newest SentenceJudgment (an LLM's, condition ""), else what an imported file of it said (no condition
    first). What post-editing shows."""
    made = (
        SentenceJudgment.objects.filter(judge_id=judge_id, sentence_id=sentence_id, campaign__isnull=True)
        .order_by("-pk")
        .values_list("worthy", "combined")
        .first()
    )
    if made is not None:
        return bool(made[0]), made[1] if made[0] else ""
    nist = (
        NistSentence.objects.filter(judge_id=judge_id, sentence_id=sentence_id, verification_worthy__in=["0", "1"])
        .order_by("condition")
        .values_list("verification_worthy", "citations_combined")
        .first()
    )
    if nist is None:
        return None
    return nist[0] == "1", NIST_COMBINED.get(nist[1], "") if nist[0] == "1" else ""


def _judged_sentences(assignment: Assignment, judge_id: int) -> QuerySet[SentenceJudgment]:
    return SentenceJudgment.objects.filter(
        judge_id=judge_id, campaign_id=assignment.campaign_id, condition=assignment.condition
    )


def item_next(assignment: Assignment, judge_id: int) -> SentenceItem | None:
    """The first sentence of the assignment's topic in the pool that this judge has not judged in it."""
    done = _judged_sentences(assignment, judge_id).filter(sentence_id=OuterRef("sentence_id"))
    return (
        SentenceItem.objects.filter(campaign_id=assignment.campaign_id, topic_id=assignment.topic_id)
        .filter(~Exists(done))
        .select_related("sentence__answer__run", "topic")
        .order_by("position")
        .first()
    )


def item_in_assignment(assignment: Assignment, sentence_id: int) -> bool:
    return SentenceItem.objects.filter(
        campaign_id=assignment.campaign_id, topic_id=assignment.topic_id, sentence_id=sentence_id
    ).exists()


def assignments_progress(assignments: Sequence[Assignment]) -> dict[int, Share]:
    """Sentences judged of sentences in the pool, per assignment (its assessor's judgments in its condition)."""
    found: dict[int, Share] = {}
    for a in assignments:
        items = SentenceItem.objects.filter(campaign_id=a.campaign_id, topic_id=a.topic_id)
        judged = SentenceJudgment.objects.filter(
            judge__user_id=a.assessor_id, campaign_id=a.campaign_id, condition=a.condition
        ).filter(sentence_id__in=items.values("sentence_id"))
        found[a.pk] = Share(done=judged.values("sentence_id").distinct().count(), total=items.count())
    return found


@dataclass(frozen=True)
class SentenceCard:
    item: SentenceItem
    before: list[str]  # the answer's sentences before this one (nearest last), dimmed on the card
    after: list[str]
    citations: list[dict[str, str]]  # every cited passage: passage_id, title, text, in the run's order

    @property
    def cited(self) -> bool:
        return bool(self.citations)


CONTEXT_SENTENCES = 2


def card_of(item: SentenceItem) -> SentenceCard:
    sentence = item.sentence
    near = dict(
        Sentence.objects.filter(
            answer_id=sentence.answer_id,
            index__gte=sentence.index - CONTEXT_SENTENCES,
            index__lte=sentence.index + CONTEXT_SENTENCES,
        ).values_list("index", "text")
    )
    citations = [
        {"passage_id": pid, "title": title, "text": text}
        for pid, title, text in Citation.objects.filter(sentence=sentence)
        .order_by("slot")
        .values_list("passage__passage_id", "passage__title", "passage__text")
    ]
    return SentenceCard(
        item=item,
        before=[near[i] for i in sorted(near) if i < sentence.index],
        after=[near[i] for i in sorted(near) if i > sentence.index],
        citations=citations,
    )


def sentence_is_cited(sentence_id: int) -> bool:
    return Citation.objects.filter(sentence_id=sentence_id).exists()


def shown_labels(assignment: Assignment, sentence_id: int) -> tuple[bool, str] | None:
    """What a card of this assignment shows pre-selected: post-editing, the campaign's post_edit_judge's labels;
    from scratch, never anything (blindness)."""
    judge_id = assignment.campaign.post_edit_judge_id
    if assignment.condition != Condition.POST_EDIT or judge_id is None:
        return None
    return judge_label_of(judge_id, sentence_id)


def sentence_label_sets_available(campaign: Campaign) -> list[str]:
    """The names of the sentence label sets that hold labels: every judge's (imported or LLM) in each of its
    conditions, and this campaign's assessors in each condition they judged in."""
    names: list[str] = []
    judged = set(NistSentence.objects.values_list("judge__name", "condition").distinct())
    judged |= set(
        SentenceJudgment.objects.filter(campaign__isnull=True).values_list("judge__name", "condition").distinct()
    )
    for name, condition in sorted(judged):
        names.append(LabelSetName(LabelSetKind.JUDGE, name, condition).format())
    conditions = SentenceJudgment.objects.filter(campaign=campaign).values_list("condition", flat=True).distinct()
    for condition in sorted(set(conditions)):
        names.append(LabelSetName(LabelSetKind.CAMPAIGN, campaign.name, condition).format())
    return names
