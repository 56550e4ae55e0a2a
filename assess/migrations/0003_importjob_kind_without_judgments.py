from django.db import migrations, models


class Migration(migrations.Migration):
    """No import job was ever of kind "judgments" (judgment files are imported by `judging.exchange`)."""

    dependencies = [
        ("assess", "0002_drop_redundant_fk_indexes"),
    ]

    operations = [
        migrations.AlterField(
            model_name="importjob",
            name="kind",
            field=models.CharField(
                choices=[("topics", "Topics"), ("passages", "Passages"), ("runs", "Runs")], max_length=16
            ),
        ),
    ]
