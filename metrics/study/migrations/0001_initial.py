"""The disagreement study's models, moved here from judging (judging 0011 removes them from judging's state).
State only: the tables keep their names (`judging_study`, `judging_studyitem`, `judging_study_assignments`),
so no row moves. The content types follow the models, so admin history and permissions stay attached."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

MODELS = ("study", "studyitem")


def content_types_to(app_label: str, other: str):
    def move(apps, schema_editor):
        ContentType = apps.get_model("contenttypes", "ContentType")
        db = schema_editor.connection.alias
        for model in MODELS:
            if not ContentType.objects.using(db).filter(app_label=app_label, model=model).exists():
                ContentType.objects.using(db).filter(app_label=other, model=model).update(app_label=app_label)

    return move


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("assess", "0001_initial"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("judging", "0011_study_package"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="Study",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID"),
                        ),
                        (
                            "a",
                            models.CharField(
                                help_text="The first label set, usually human (e.g. nist/from_scratch).", max_length=128
                            ),
                        ),
                        ("b", models.CharField(help_text="The second label set, usually an LLM judge's.", max_length=128)),
                        ("per_topic", models.PositiveIntegerField(default=15)),
                        ("seed", models.IntegerField(default=0)),
                        (
                            "summary",
                            models.JSONField(
                                blank=True, default=dict, help_text="Per topic: candidate pairs, disagreements, sampled."
                            ),
                        ),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        (
                            "assignments",
                            models.ManyToManyField(blank=True, related_name="studies", to="judging.assignment"),
                        ),
                        (
                            "campaign",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="studies",
                                to="judging.campaign",
                            ),
                        ),
                        (
                            "created_by",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        (
                            "second_judge",
                            models.ForeignKey(
                                blank=True,
                                help_text="A second LLM judge run on the sampled pairs only (the paper used Llama-3.1-405B).",
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="second_judge_studies",
                                to="judging.judge",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "judging_study",
                        "verbose_name_plural": "studies",
                        "ordering": ["-created_at", "-pk"],
                    },
                ),
                migrations.CreateModel(
                    name="StudyItem",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID"),
                        ),
                        (
                            "label_a",
                            models.CharField(
                                choices=[("FS", "Full support"), ("PS", "Partial support"), ("NS", "No support")],
                                max_length=2,
                            ),
                        ),
                        (
                            "label_b",
                            models.CharField(
                                choices=[("FS", "Full support"), ("PS", "Partial support"), ("NS", "No support")],
                                max_length=2,
                            ),
                        ),
                        (
                            "order",
                            models.PositiveIntegerField(
                                help_text="Queue position within the topic, shuffled with the study's seed."
                            ),
                        ),
                        (
                            "citation",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT, related_name="+", to="assess.citation"
                            ),
                        ),
                        (
                            "pair",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="study_items",
                                to="judging.pair",
                            ),
                        ),
                        (
                            "study",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE, related_name="items", to="study.study"
                            ),
                        ),
                        (
                            "topic",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT, related_name="+", to="assess.topic"
                            ),
                        ),
                    ],
                    options={
                        "db_table": "judging_studyitem",
                        "ordering": ["study_id", "topic_id", "order"],
                        "constraints": [
                            models.UniqueConstraint(fields=("study", "topic", "pair"), name="studyitem_unique_pair"),
                            models.CheckConstraint(
                                condition=models.Q(("label_a", models.F("label_b")), _negated=True),
                                name="studyitem_disagrees",
                            ),
                        ],
                    },
                ),
            ]
        ),
        migrations.RunPython(content_types_to("study", "judging"), content_types_to("judging", "study")),
    ]
