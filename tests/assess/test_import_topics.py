from __future__ import annotations

import json

import pytest

from assess.importers.report import ImportRejected
from assess.importers.topics import topics_import
from assess.models import Topic


def test_it_imports_the_track_topics_file(db, data_dir):
    report = topics_import(files=[data_dir / "topics.rag24.test.txt"])

    assert report.counts["topics"] == 301
    assert Topic.objects.count() == 301
    assert Topic.objects.get(topic_id="2024-32912").text.startswith("how bad did the vietnam war")


def test_it_imports_numeric_dev_topic_ids_as_strings(db, data_dir):
    topics_import(files=[data_dir / "topics.rag24.raggy-dev.txt"])

    assert Topic.objects.count() == 120
    assert Topic.objects.filter(topic_id="2001010").exists()


def test_it_rejects_a_line_without_a_tab_and_changes_nothing(db, tmp_path):
    bad = tmp_path / "topics.tsv"
    bad.write_text("2024-1\tfirst\nno tab here\n")

    with pytest.raises(ImportRejected) as exc:
        topics_import(files=[bad])

    assert str(exc.value.report.errors[0]) == "topics.tsv:2: topic_id: expected `topic_id<TAB>text` or a JSON object"
    assert Topic.objects.count() == 0


def test_it_imports_topics_from_jsonl(db, data_dir, tmp_path):
    # given: the track's topics, written as JSON lines by the test
    lines = (data_dir / "topics.rag24.test.txt").read_text(encoding="utf-8").splitlines()
    jsonl = tmp_path / "topics.jsonl"
    jsonl.write_text(
        "".join(json.dumps({"topic_id": t, "text": x}) + "\n" for t, x in (line.split("\t", 1) for line in lines))
    )

    # when
    report = topics_import(files=[jsonl])

    # then
    assert report.counts["topics"] == len(lines) == 301
    assert Topic.objects.get(topic_id="2024-32912").text.startswith("how bad did the vietnam war")


def test_it_keeps_a_numeric_jsonl_topic_id_as_a_string(db, tmp_path):
    # given
    jsonl = tmp_path / "topics.jsonl"
    jsonl.write_text('{"topic_id": 2001010, "text": "what is a quark?"}\n')

    # when
    topics_import(files=[jsonl])

    # then
    assert Topic.objects.get().topic_id == "2001010"


def test_it_updates_the_text_of_a_loaded_topic(db, tmp_path):
    # given
    f = tmp_path / "t.tsv"
    f.write_text("2024-1\tfirst\n")
    topics_import(files=[f])
    f.write_text("2024-1\tsecond\n2024-2\tthird\n")

    # when
    report = topics_import(files=[f])

    # then
    assert report.counts == {"topics": 2, "topics_new": 1}
    assert Topic.objects.get(topic_id="2024-1").text == "second"
