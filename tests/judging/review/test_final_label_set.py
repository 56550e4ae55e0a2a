"""`final/<campaign>` is a label set like any other (issue 23, point 3)."""

from __future__ import annotations

import csv
import io

import pytest

from judging.exchange.export import ExportFormat, judgments_export
from judging.exchange.schema import judge_name_problem
from judging.label_set_names import LabelSetError
from judging.labels import label_set_get, label_sets_available
from judging.review import services
from judging.scope import scope_for
from metrics.reports import scores_report
from tests.judging.review.conftest import ReviewWorld

pytestmark = pytest.mark.django_db


def test_the_final_set_is_named_parsed_and_offered(world: ReviewWorld) -> None:
    # when
    final = label_set_get("final/rev")

    # then
    assert final.spec == "final/rev"
    assert "final/rev" in [s.spec for s in label_sets_available(campaign=world.campaign)]
    with pytest.raises(LabelSetError, match="no campaign named 'nope'"):
        label_set_get("final/nope")
    with pytest.raises(LabelSetError, match="takes no condition"):
        label_set_get("final/rev/from_scratch")
    assert judge_name_problem("final/rev") is not None


def _scores(spec: str, world: ReviewWorld) -> list[tuple[str, float, float]]:
    report = scores_report(label_set=label_set_get(spec), scope=scope_for(campaign=world.campaign), resamples=0)
    return [(r.run_id, r.weighted_precision, r.weighted_recall) for r in report.rows]


def test_a_final_label_changes_the_final_scores_and_nothing_else(world: ReviewWorld) -> None:
    # given
    others = ["campaign:rev/from_scratch", f"{world.alice.username}/from_scratch", f"{world.bob.username}", "rev-gpt"]
    before = {spec: _scores(spec, world) for spec in ["final/rev", *others]}

    # when: the final label of the pair both assessors call FS, set to NS
    services.final_label_set(
        campaign=world.campaign, pair_id=world.pairs[0], label="NS", reason="misread", reviewer=world.reviewer
    )

    # then
    after = {spec: _scores(spec, world) for spec in ["final/rev", *others]}
    assert after["final/rev"] != before["final/rev"]
    assert all(precision < 1.0 for _, precision, _ in after["final/rev"])
    assert {spec: after[spec] for spec in others} == {spec: before[spec] for spec in others}


def test_the_exchange_export_of_the_final_set_names_its_reviewer(world: ReviewWorld) -> None:
    # given
    services.final_label_set(
        campaign=world.campaign, pair_id=world.pairs[2], label="PS", reason="half", reviewer=world.reviewer
    )
    out = io.StringIO()

    # when
    judgments_export(
        out, fmt=ExportFormat.CSV, scope=scope_for(campaign=world.campaign), label_sets=[label_set_get("final/rev")]
    )

    # then
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    reviewed = [r for r in rows if r["label"] == "PS"]
    assert len(reviewed) == 2  # the pair's citation in each of the two runs
    assert {r["judge"] for r in reviewed} == {world.reviewer.username}
    assert all(r["label_set"] == "final/rev" for r in rows)
