"""Gold items: a file of pair keys with expected labels, loaded all or nothing (services.gold_items_load and the
campaign_gold command), and each assessor's gold accuracy on the quality report."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from assess.importers.lines import InputFile
from assess.models import Citation
from judging import queue
from metrics.quality.models import GoldItem
from metrics.quality.selectors import quality_report
from metrics.quality.services import gold_items_load
from tests.metrics.quality.conftest import LABELS

pytestmark = pytest.mark.django_db


def _keys(known, k: int) -> tuple[str, str, int, int]:
    citation = Citation.objects.select_related("sentence__answer__topic", "sentence__answer__run").get(
        pk=known.citations[k]
    )
    answer = citation.sentence.answer
    return answer.topic.topic_id, answer.run.run_id, citation.sentence.index, citation.slot


def _gold_csv(tmp_path: Path, known, items: list[tuple[int, str]], *, name: str = "gold.csv") -> Path:
    lines = ["topic_id,run_id,sentence_index,citation_slot,label"]
    for k, label in items:
        topic, run, sentence, slot = _keys(known, k)
        lines.append(f"{topic},{run},{sentence},{slot},{label}")
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


def _row(report, name: str):
    return next(r for r in report.rows if r.rater.username == name)


def test_it_loads_gold_items_as_pairs_of_the_campaign(known, tmp_path):
    path = _gold_csv(tmp_path, known, [(0, "FS"), (1, "PS"), (7, "FS")])

    report = gold_items_load(campaign=known.campaign, f=InputFile.of(path))

    assert report.ok, report.errors
    assert dict(GoldItem.objects.values_list("pair_id", "label")) == {
        known.pairs[0]: "FS",
        known.pairs[1]: "PS",
        known.pairs[7]: "FS",
    }


def test_it_gives_each_assessor_their_gold_accuracy(known, tmp_path):
    # given: gold on pairs 0, 1, 2 and 7, expecting FS, PS, PS, FS
    gold = {0: "FS", 1: "PS", 2: "PS", 7: "FS"}
    gold_items_load(campaign=known.campaign, f=InputFile.of(_gold_csv(tmp_path, known, list(gold.items()))))

    report = quality_report(campaign=known.campaign)

    # alice changed pair 7 to PS; bob could not judge pair 7; carol never saw it
    alice, bob, carol = (_row(report, n).gold for n in ("alice", "bob", "carol"))
    alice_now = [*LABELS["alice"][:7], "PS"]
    assert (alice.labelled, alice.correct) == (4, sum(alice_now[k] == v for k, v in gold.items()))
    assert (bob.labelled, bob.correct, bob.cannot_judge) == (3, sum(LABELS["bob"][k] == gold[k] for k in (0, 1, 2)), 1)
    assert (carol.labelled, carol.correct) == (3, sum(LABELS["carol"][k] == gold[k] for k in (0, 1, 2)))
    assert alice.accuracy == pytest.approx(alice.correct / 4)


def test_it_gives_no_gold_figure_while_the_campaign_has_no_gold(known):
    assert _row(quality_report(campaign=known.campaign), "alice").gold is None


def test_a_file_with_one_bad_line_changes_nothing_and_names_file_line_and_field(known, tmp_path):
    # given: gold already loaded, then a file whose third line has a bad label and fourth a slot not cited
    gold_items_load(campaign=known.campaign, f=InputFile.of(_gold_csv(tmp_path, known, [(0, "FS")], name="a.csv")))
    path = _gold_csv(tmp_path, known, [(1, "PS"), (2, "maybe"), (3, "FS")], name="b.csv")
    text = path.read_text().splitlines()
    topic, run, sentence, _slot = _keys(known, 3)
    text[3] = f"{topic},{run},{sentence},5,FS"
    path.write_text("\n".join(text) + "\n")

    report = gold_items_load(campaign=known.campaign, f=InputFile.of(path))

    assert not report.ok
    assert [(e.file, e.line, e.field) for e in report.errors] == [("b.csv", 3, "label"), ("b.csv", 4, "citation_slot")]
    assert list(GoldItem.objects.values_list("pair_id", flat=True)) == [known.pairs[0]]


def test_it_refuses_a_header_without_the_key_columns(known, tmp_path):
    path = tmp_path / "gold.csv"
    path.write_text("topic_id,run_id,label\n2024-1,r,FS\n")

    report = gold_items_load(campaign=known.campaign, f=InputFile.of(path))

    assert [(e.line, e.field) for e in report.errors] == [(1, "sentence_index, citation_slot")]


def test_it_refuses_a_topic_outside_the_campaign(known, tmp_path):
    path = _gold_csv(tmp_path, known, [(0, "FS")])
    path.write_text(path.read_text().replace(_keys(known, 0)[0], "2024-999999"))

    report = gold_items_load(campaign=known.campaign, f=InputFile.of(path))

    assert [(e.line, e.field) for e in report.errors] == [(2, "topic_id")]
    assert not GoldItem.objects.exists()


def test_it_refuses_two_lines_expecting_different_labels_of_one_pair(known, tmp_path):
    path = _gold_csv(tmp_path, known, [(0, "FS"), (0, "NS")])

    report = gold_items_load(campaign=known.campaign, f=InputFile.of(path))

    assert [(e.line, e.field) for e in report.errors] == [(3, "label")]
    assert "line 2" in report.errors[0].text


def test_it_reads_jsonl_with_expected_label(known, tmp_path):
    topic, run, sentence, slot = _keys(known, 2)
    path = tmp_path / "gold.jsonl"
    path.write_text(
        f'{{"topic_id": "{topic}", "run_id": "{run}", "sentence_index": {sentence}, "citation_slot": {slot}, '
        '"expected_label": "ns"}\n'
    )

    report = gold_items_load(campaign=known.campaign, f=InputFile.of(path))

    assert report.ok, report.errors
    assert GoldItem.objects.get().label == "NS"


def test_a_new_file_replaces_the_gold_items(known, tmp_path):
    gold_items_load(campaign=known.campaign, f=InputFile.of(_gold_csv(tmp_path, known, [(0, "FS"), (1, "PS")])))

    gold_items_load(campaign=known.campaign, f=InputFile.of(_gold_csv(tmp_path, known, [(2, "NS")], name="c.csv")))

    assert list(GoldItem.objects.values_list("pair_id", "label")) == [(known.pairs[2], "NS")]


def test_gold_pairs_come_in_the_queue_unmarked(known, tmp_path):
    # given: gold on the pair dave's queue shows first
    from judging import services
    from tests.factories import UserFactory

    gold_items_load(campaign=known.campaign, f=InputFile.of(_gold_csv(tmp_path, known, [(0, "FS")])))
    dave = UserFactory(username="dave")
    (assignment,) = services.assignments_create(
        campaign=known.campaign, assessor=dave, topics=list(known.campaign.topics.all()), condition="from_scratch"
    )

    card = queue.queue_state(assignment=assignment).card

    assert card.campaign_pair.pair_id == known.pairs[0]
    assert card.shown_label in ("", None)


def test_the_command_loads_gold_and_fails_on_a_bad_file(known, tmp_path, capsys):
    good = _gold_csv(tmp_path, known, [(0, "FS"), (1, "PS")])
    call_command("campaign_gold", known.campaign.name, "--gold", str(good))
    assert GoldItem.objects.count() == 2

    bad = _gold_csv(tmp_path, known, [(2, "XX")], name="bad.csv")
    with pytest.raises(CommandError, match="no gold items loaded"):
        call_command("campaign_gold", known.campaign.name, "--gold", str(bad))
    assert "bad.csv:2: label" in capsys.readouterr().err
    assert GoldItem.objects.count() == 2
