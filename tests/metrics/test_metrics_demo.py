"""The demo shows real figures: NIST's and Opus 4.8's labels for the two demo topics."""

from __future__ import annotations

import io
import time

import pytest
from django.core.management import call_command

from judging.labels import label_set_get
from judging.models import Judgment
from judging.scope import scope_for
from metrics.reports import agreement_report, answer_scores

pytestmark = pytest.mark.usefixtures("fresh_cache")


@pytest.mark.django_db(transaction=True)
def test_the_demo_imports_both_judges_labels_for_its_topics_quickly():
    # given
    out = io.StringIO()
    call_command("demo_load", stdout=out)
    Judgment.objects.filter(judge__name__in=["nist", "opus-4.8-nist"]).delete()
    from metrics import demo

    # when
    started = time.monotonic()
    demo.load(out)
    seconds = time.monotonic() - started

    # then
    assert seconds < 10
    assert Judgment.objects.filter(judge__name="nist", condition="from_scratch").count() == 699
    assert Judgment.objects.filter(judge__name="opus-4.8-nist", judge__kind="llm").count() == 629
    scores = {(s.topic_id, s.run_id): s for s in answer_scores(label_set=label_set_get("nist"), scope=scope_for())}
    zeph = scores[("2024-32912", "IITD-IRL.zeph_test_rag_rrf_expand_query")]
    assert (zeph.sentences, zeph.precision, zeph.recall) == (5, 0.7, 0.7)
    report = agreement_report(a=label_set_get("nist"), b=label_set_get("opus-4.8-nist"), scope=scope_for(), resamples=0)
    assert report["labels"]["n"] > 600
    assert report["topics"] == ["2024-129925", "2024-32912"]
