"""The import report: messages are added through one method, so `ok` and the listed errors agree."""

from __future__ import annotations

import pytest

from assess.importers.report import MAX_LISTED_ERRORS, ImportReport


def test_it_adds_an_error_through_a_line_context():
    # given
    report = ImportReport()

    # when
    report.at("runs.jsonl", 3).error("topic_id", "missing field")

    # then
    assert not report.ok
    assert [str(e) for e in report.errors] == ["runs.jsonl:3: topic_id: missing field"]


def test_its_errors_cannot_be_added_to_from_outside():
    # given
    report = ImportReport()

    # then
    with pytest.raises(AttributeError):
        report.errors.append(object())  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        report.errors = ()  # type: ignore[misc]
    assert report.ok


def test_it_counts_every_error_but_lists_the_first_few_hundred():
    # given
    report = ImportReport()

    # when
    for n in range(MAX_LISTED_ERRORS + 5):
        report.error("f", n, "", "bad")

    # then
    assert report.error_count == MAX_LISTED_ERRORS + 5
    assert len(report.errors) == MAX_LISTED_ERRORS
    assert report.as_dict()["ok"] is False
