"""The disagreement study's models move to the metrics.study app (state only; the tables keep their names)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("judging", "0010_llm_package")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name="StudyItem"),
                migrations.DeleteModel(name="Study"),
            ]
        )
    ]
