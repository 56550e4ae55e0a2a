from __future__ import annotations

import pytest

from assess.models import Topic
from assess.reading import ImportRejected
from assess.services import topics_import


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
