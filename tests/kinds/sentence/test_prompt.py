"""The sentence kind's LLM prompt and reply parser, and the pre-labeller's hooks (Kind.extras["prelabel"])."""

from __future__ import annotations

import pytest

from judging.kinds import kind_get
from kinds.sentence.models import SentenceJudgment
from kinds.sentence.prompt import PROMPT_VERSION, label_parse, messages_for
from kinds.sentence.selectors import judge_label_of


@pytest.mark.parametrize(
    ("reply", "parsed"),
    [
        ("Needs citation: Yes\nSupport: Full Support", (True, "FS")),
        ("needs citation: yes\nsupport: partial support.", (True, "PS")),
        ("Needs citation: **Yes**\nSupport: No Support", (True, "NS")),
        ("Needs citation: Yes\nSupport: No Citations", (True, "")),
        ("Needs citation: No\nSupport: None", (False, "")),
        ("Needs citation: No", (False, "")),
        ("Needs citation: Yes", None),
        ("Needs citation: Yes\nSupport: maybe", None),
        ("Full Support", None),
        ("", None),
    ],
)
def test_the_reply_parser_reads_both_steps_or_says_it_cannot(reply, parsed):
    assert label_parse(reply) == parsed


def test_the_prompt_holds_the_sentence_and_every_cited_passage():
    messages = messages_for(
        sentence="Marius reformed the army {sic}.",
        passages=[("Marius", "He opened the legions."), ("Rome", "The state paid for arms.")],
        context="Earlier text.",
    )
    text = messages[0]["content"]
    assert messages[0]["role"] == "user"
    assert "Sentence: Marius reformed the army {sic}." in text
    assert "[1] Marius: He opened the legions." in text
    assert "[2] Rome: The state paid for arms." in text
    assert "ALL the cited passages together" in text
    assert "(none)" in messages_for(sentence="s", passages=[])[0]["content"]


@pytest.mark.django_db
def test_the_prelabel_hooks_give_units_messages_and_store_the_llms_labels(sentence_campaign):
    # given
    prelabel = kind_get("sentence").extras["prelabel"]
    c = sentence_campaign
    SentenceJudgment.objects.filter(judge=c.llm).delete()

    # when
    units = prelabel.units(c.campaign)
    messages = prelabel.messages(units)
    parsed = {u: prelabel.parse("Needs citation: Yes\nSupport: Partial Support") for u in units[:2]}
    stored = prelabel.store(c.llm, parsed)

    # then
    assert prelabel.version == PROMPT_VERSION
    assert units == [s.pk for s in c.sentences]
    assert set(messages) == set(units)
    assert "(none)" in messages[units[2]][0]["content"]  # the third sentence cites nothing
    assert stored == 2
    assert judge_label_of(c.llm.pk, units[0]) == (True, "PS")
    assert judge_label_of(c.llm.pk, units[3]) is None
