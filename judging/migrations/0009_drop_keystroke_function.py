"""The judging keystroke is served by Django alone (`judging.queue` and `services.judgment_submit_and_next`):
the PL/pgSQL copy of the rule that migration 0006 created goes."""

from django.db import migrations

DROP = "DROP FUNCTION IF EXISTS judging_keystroke(bigint, text, bigint, bigint, text, uuid, double precision, boolean, text);"


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP)


class Migration(migrations.Migration):
    dependencies = [("judging", "0008_study_label_sets")]

    operations = [migrations.RunPython(drop, migrations.RunPython.noop)]
