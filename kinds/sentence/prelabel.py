"""What the LLM pre-labeller (k26's, over kinds) reads of this kind: its units, their messages, the reply
parser and the store (Kind.extras["prelabel"])."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from assess.models import Citation, Sentence
from judging.models import Campaign, Judge

from . import prompt, services
from .models import SentenceItem


def units(campaign: Campaign) -> list[int]:
    """The pool's sentence ids, in the pool's order."""
    return list(
        SentenceItem.objects.filter(campaign=campaign)
        .order_by("topic_id", "position")
        .values_list("sentence_id", flat=True)
    )


def messages(unit_ids: list[int]) -> dict[int, list[dict[str, str]]]:
    sentences = {s.pk: s for s in Sentence.objects.filter(pk__in=unit_ids)}
    passages: dict[int, list[tuple[str, str]]] = {}
    for sid, title, text in (
        Citation.objects.filter(sentence_id__in=unit_ids)
        .order_by("sentence_id", "slot")
        .values_list("sentence_id", "passage__title", "passage__text")
    ):
        passages.setdefault(sid, []).append((title, text))
    before: dict[int, list[str]] = {}
    answers = {s.answer_id for s in sentences.values()}
    earlier = Sentence.objects.filter(answer_id__in=answers).order_by("index").values_list("answer_id", "index", "text")
    by_answer: dict[int, list[tuple[int, str]]] = {}
    for answer_id, index, text in earlier:
        by_answer.setdefault(answer_id, []).append((index, text))
    for s in sentences.values():
        before[s.pk] = [t for i, t in by_answer.get(s.answer_id, []) if i < s.index]
    return {
        sid: prompt.messages_for(sentence=s.text, passages=passages.get(sid, []), context=" ".join(before[sid]))
        for sid, s in sentences.items()
    }


def store(judge: Judge, labels: Mapping[int, Any]) -> int:
    return services.llm_labels_store(judge, labels)


@dataclass(frozen=True)
class Prelabel:
    version: str = prompt.PROMPT_VERSION

    def units(self, campaign: Campaign) -> list[int]:
        return units(campaign)

    def messages(self, unit_ids: list[int]) -> dict[int, list[dict[str, str]]]:
        return messages(unit_ids)

    def parse(self, reply: str) -> tuple[bool, str] | None:
        return prompt.label_parse(reply)

    def store(self, judge: Judge, labels: Mapping[int, Any]) -> int:
        return store(judge, labels)


PRELABEL = Prelabel()
