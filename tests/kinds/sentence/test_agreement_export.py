"""Agreement between sentence label sets on both steps (unit sentence), by hand on a small campaign; the
export of the platform's labels read back as NIST labels gives the same labels."""

from __future__ import annotations

import io
import json
import uuid

import pytest
from django.core.management import call_command

from judging.exchange.reading import JudgmentFormat, JudgmentImportOptions
from judging.exchange.services import judgments_import
from kinds.sentence.agreement import sentence_agreement_report
from kinds.sentence.selectors import sentence_label_set_get, sentence_labels
from kinds.sentence.services import sentence_submit

pytestmark = pytest.mark.django_db

# alice's labels of the six sentences, from scratch; the LLM's are conftest.LLM_LABELS
ALICE = [(True, "PS"), (True, "NS"), (False, ""), (False, ""), (True, "NS"), (True, "")]


@pytest.fixture
def judged(sentence_campaign):
    for s, (worthy, combined) in zip(sentence_campaign.sentences, ALICE, strict=True):
        sentence_submit(
            assignment=sentence_campaign.scratch, sentence_id=s.pk, worthy=worthy, combined=combined, token=uuid.uuid4()
        )
    return sentence_campaign


def test_agreement_on_both_steps_by_hand(judged):
    # when
    report = sentence_agreement_report(
        sentence_label_set_get("campaign:sentences/from_scratch"), sentence_label_set_get("gpt-sentences"), resamples=0
    )

    # then: worthy: alice says no to s2 (LLM yes) and s3 (LLM no), yes to four the LLM says yes to
    assert report.unit == "sentence"
    assert report.worthy.labels == ("no", "yes")
    assert report.worthy.matrix == [[1, 1], [0, 4]]
    assert report.worthy.agreement == pytest.approx(5 / 6)
    po, pe = 5 / 6, (2 / 6) * (1 / 6) + (4 / 6) * (5 / 6)
    assert report.worthy.kappa == pytest.approx((po - pe) / (1 - pe))
    # combined, on the sentences both labelled: s0 PS/PS, s1 NS/FS, s4 NS/NS
    assert report.combined.n == 3
    assert report.combined.matrix == [[1, 0, 1], [0, 1, 0], [0, 0, 0]]
    assert report.combined.agreement == pytest.approx(2 / 3)


def test_the_agreement_command_runs_the_kinds_through_the_registry(judged):
    out = io.StringIO()
    call_command(
        "agreement", kind="sentence", a="campaign:sentences/from_scratch", b="gpt-sentences", format="json", stdout=out
    )
    report = json.loads(out.getvalue())
    assert report["unit"] == "sentence"
    assert report["worthy"]["n"] == 6
    assert report["worthy"]["kappa_ci"] is not None


def test_the_export_read_back_as_nist_labels_gives_the_same_labels(judged, tmp_path):
    # given
    out = tmp_path / "alice.jsonl"
    call_command("sentence_export", str(out), labels="campaign:sentences/from_scratch", stderr=io.StringIO())

    # when
    judgments_import(
        files=[out], fmt=JudgmentFormat.NIST, options=JudgmentImportOptions(judge="back", kind="human", condition="")
    )

    # then
    first = sentence_labels(sentence_label_set_get("campaign:sentences/from_scratch"))
    again = sentence_labels(sentence_label_set_get("back/none"))
    assert again.sentence_ids.tolist() == first.sentence_ids.tolist()
    assert again.worthy.tolist() == first.worthy.tolist() == [1, 1, 0, 0, 1, 1]
    assert again.combined.tolist() == first.combined.tolist()


def test_scores_of_a_campaign_set(judged):
    # when
    out = io.StringIO()
    call_command("sentence_scores", labels="campaign:sentences/from_scratch", format="csv", resamples=0, stdout=out)

    # then: alpha: s0 PS, s1 NS judged -> full 0, p|f 0.5, uncited: s2 said no -> 0; beta: s4 NS; s5 uncited & yes
    lines = out.getvalue().splitlines()
    assert lines[0] == "run_id,combined_judged,combined_full,combined_partial_or_full,needs_citation_uncited"
    assert lines[1:] == ["alpha.run,2,0.000000,0.500000,0.000000", "beta.run,1,0.000000,0.000000,0.333333"]
