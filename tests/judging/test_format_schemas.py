"""The published JSON Schemas (docs/formats/) are written from the models the importers check lines against:
a committed schema that differs from its model fails here (run `manage.py format_schemas`)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from judging.exchange.schema import published_schemas
from judging.management.commands.format_schemas import schema_text

FORMATS = Path(settings.BASE_DIR) / "docs" / "formats"


@pytest.mark.parametrize("name", sorted(published_schemas()))
def test_it_keeps_each_committed_schema_equal_to_its_model(name):
    # given
    committed = (FORMATS / name).read_text(encoding="utf-8")

    # then
    assert committed == schema_text(published_schemas()[name])


def test_it_publishes_no_schema_without_a_model():
    assert sorted(p.name for p in FORMATS.glob("*.schema.json")) == sorted(published_schemas())


def test_it_reads_column_limits_from_the_django_models():
    # given
    schemas = published_schemas()
    run = schemas["runs-trec-2024.schema.json"]["properties"]
    exchange = schemas["judgments-exchange.schema.json"]["properties"]

    # then
    from assess.models import Run
    from judging.models import Judge

    assert run["run_id"]["maxLength"] == Run._meta.get_field("run_id").max_length
    assert exchange["judge"]["anyOf"][0]["maxLength"] == Judge._meta.get_field("name").max_length


def test_the_check_option_fails_on_a_stale_schema(tmp_path):
    # given: the schemas written, then one edited by hand
    call_command("format_schemas", out=str(tmp_path), stdout=io.StringIO())
    stale = tmp_path / "topics.schema.json"
    stale.write_text(json.dumps({"type": "object"}))

    # when / then
    with pytest.raises(CommandError, match=r"topics\.schema\.json"):
        call_command("format_schemas", out=str(tmp_path), check=True)
