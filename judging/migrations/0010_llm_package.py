"""LLM pre-labelling's models move to the judging.llm app (state only; the tables keep their names).

`llm.0001_initial` takes them up, with `db_table` set to these same tables, right after this migration."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("judging", "0009_drop_keystroke_function")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name="LLMJudge"),
                migrations.DeleteModel(name="LLMResult"),
                migrations.DeleteModel(name="PrelabelJob"),
            ],
            database_operations=[],
        ),
    ]
