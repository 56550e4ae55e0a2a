from __future__ import annotations

import pytest

from judging.llm.parse import label_parse
from judging.llm.prompt import CURRENT_VERSION, PROMPTS, prompt_render


@pytest.mark.parametrize(
    ("reply", "label"),
    [
        ("Full Support", "FS"),
        ("Partial Support", "PS"),
        ("No Support", "NS"),
        ("full support", "FS"),
        ('"PARTIAL SUPPORT."', "PS"),
        ("**No Support**", "NS"),
        ("'Full-Support'", "FS"),
        ("  No   support!\n", "NS"),
        ("Answer: Partial_Support", "PS"),
    ],
)
def test_it_reads_the_label_whatever_the_case_quotes_and_punctuation(reply, label):
    assert label_parse(reply) == label


def test_it_checks_full_before_partial_before_no():
    # given a reply naming several labels
    reply = "No Support? Partial Support? I'd say Full Support."
    # then Full wins, as in the track's script
    assert label_parse(reply) == "FS"


def test_it_prefers_partial_over_no():
    assert label_parse("not No Support but Partial Support") == "PS"


@pytest.mark.parametrize(
    "reply",
    ["", "Supported", "I cannot tell.", "Full", "support", "No", "nosupport", "Fully supported by the passage"],
)
def test_it_returns_a_parse_error_for_anything_else(reply):
    assert label_parse(reply) is None


def test_it_does_not_read_no_support_inside_other_words():
    assert label_parse("Casino Support") is None


def test_it_renders_the_prompt_with_braces_in_the_text():
    # given a statement and citation holding braces
    text = prompt_render(version=CURRENT_VERSION, statement="a {b} c", citation="T: {statement} x")
    # then both are inserted verbatim and the template's fields are gone
    assert text.endswith("Statement: a {b} c\n\nCitation: T: {statement} x")
    assert text.startswith("In this task, you will evaluate whether each statement is supported")


def test_it_keeps_the_prompt_of_design_section_4_as_version_v1():
    text = PROMPTS["v1"]
    assert (
        'Respond as either "Full Support", "Partial Support", or "No Support" with no additional information.' in text
    )
    assert '- "No Support": This citation does not support any part of the statement.' in text
