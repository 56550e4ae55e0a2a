"""The demo's disagreement study: NIST against the LLM on the two demo topics, partly re-judged blind."""

from __future__ import annotations

import io

from judging.models import Judgment
from metrics.study.models import Study, StudyItem
from metrics.study.report import study_report
from metrics.study.selectors import study_table


def test_it_loads_a_study_with_adjudications_so_the_report_has_figures(db, settings, data_dir):
    # given the demo material, campaign and labels
    from assess import demo as assess_demo
    from judging import demo as judging_demo
    from metrics import demo as metrics_demo
    from metrics.study import demo as study_demo

    settings.ASSESS_DATA_DIR = data_dir
    for module in (assess_demo, judging_demo, metrics_demo):
        module.load(io.StringIO())

    # when (twice: the second load changes nothing)
    study_demo.load(io.StringIO())
    study_demo.load(io.StringIO())

    # then
    study = Study.objects.get()
    assert (study.campaign.name, study.a, study.b, study.per_topic, study.seed) == (
        "demo", "nist/from_scratch", "opus-4.8-nist/none", 15, 0
    )  # fmt: skip
    assert StudyItem.objects.filter(study=study).count() == 30
    assert Judgment.objects.filter(assignment__studies=study, judge__name="adjudicator").count() == 12
    report = study_report(study_table(study=study))
    independent = {(p["role_a"], p["role_b"]): p for p in report["agreement"]}
    assert independent[("independent", "a")]["n"] == 12
    assert independent[("independent", "a")]["kappa"] is not None
    assert report["short_topics"] == []
