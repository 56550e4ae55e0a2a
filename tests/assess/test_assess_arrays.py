"""Integer columns through PostgreSQL's binary COPY equal those of a plain cursor."""

from __future__ import annotations

import pytest
from django.db import connection

from assess.models import Citation
from core.arrays import int_columns
from tests.factories import PassageFactory, RunFactory, TopicFactory, answer_build

pytestmark = pytest.mark.django_db


def test_it_reads_small_int_and_bigint_columns_as_a_cursor_would(monkeypatch):
    # given: slots are smallints, indexes integers, ids bigints
    passages = [PassageFactory() for _ in range(3)]
    answer_build(run=RunFactory(), topic=TopicFactory(), sentences=[(f"s{i}", passages[: i + 1]) for i in range(3)])
    qs = Citation.objects.order_by("pk").values_list("pk", "slot", "sentence__index", "passage_id")

    # when
    copied = int_columns(qs, 4)
    monkeypatch.setattr(connection, "vendor", "other")
    fetched = int_columns(qs, 4)

    # then
    assert [c.tolist() for c in copied] == [c.tolist() for c in fetched]
    assert copied[1].tolist() == [0, 0, 1, 0, 1, 2]


def test_it_gives_empty_columns_for_no_rows():
    assert [len(c) for c in int_columns(Citation.objects.values_list("pk", "slot"), 2)] == [0, 0]
