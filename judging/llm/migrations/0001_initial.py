"""The models of LLM pre-labelling, taken over from the judging app (`judging.0010_llm_package`).

State only: the tables `judging_llmjudge`, `judging_llmresult` and `judging_prelabeljob` exist (created by
judging's migrations) and keep their names and rows. The content types of the three models move with them,
so that permissions and admin history given on them still apply."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

MODELS = ("llmjudge", "llmresult", "prelabeljob")


def content_types_move(from_label, to_label):
    def move(apps, schema_editor):
        content_type = apps.get_model("contenttypes", "ContentType")
        rows = content_type.objects.using(schema_editor.connection.alias)
        for model in MODELS:
            if not rows.filter(app_label=to_label, model=model).exists():
                rows.filter(app_label=from_label, model=model).update(app_label=to_label)

    return move


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("judging", "0010_llm_package"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="LLMJudge",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID"),
                        ),
                        (
                            "provider",
                            models.CharField(
                                choices=[
                                    ("openai", "OpenAI"),
                                    ("azure", "Azure OpenAI"),
                                    ("openai-compatible", "OpenAI-compatible (vLLM, Ollama, LiteLLM, ...)"),
                                ],
                                default="openai",
                                max_length=32,
                            ),
                        ),
                        ("base_url", models.URLField(blank=True, default="")),
                        (
                            "model",
                            models.CharField(help_text="Model name, or the deployment name on Azure.", max_length=128),
                        ),
                        ("prompt_version", models.CharField(default="v1", max_length=32)),
                        ("temperature", models.FloatField(default=0.0)),
                        ("max_concurrency", models.PositiveIntegerField(default=8)),
                        ("requests_per_minute", models.PositiveIntegerField(blank=True, null=True)),
                        ("tokens_per_minute", models.PositiveIntegerField(blank=True, null=True)),
                        ("price_input_per_million", models.DecimalField(decimal_places=4, default=0, max_digits=10)),
                        ("price_output_per_million", models.DecimalField(decimal_places=4, default=0, max_digits=10)),
                        (
                            "judge",
                            models.OneToOneField(
                                on_delete=django.db.models.deletion.CASCADE, related_name="llm", to="judging.judge"
                            ),
                        ),
                    ],
                    options={"db_table": "judging_llmjudge"},
                ),
                migrations.CreateModel(
                    name="LLMResult",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID"),
                        ),
                        ("prompt_version", models.CharField(max_length=32)),
                        (
                            "status",
                            models.CharField(
                                choices=[
                                    ("labelled", "Labelled"),
                                    ("parse_error", "Parse error"),
                                    ("error", "Error"),
                                    ("pending", "Pending"),
                                ],
                                max_length=16,
                            ),
                        ),
                        (
                            "label",
                            models.CharField(
                                blank=True,
                                choices=[("FS", "Full support"), ("PS", "Partial support"), ("NS", "No support")],
                                default="",
                                max_length=2,
                            ),
                        ),
                        ("raw_output", models.TextField(blank=True, default="")),
                        ("error", models.TextField(blank=True, default="")),
                        ("latency_ms", models.PositiveIntegerField(blank=True, null=True)),
                        ("input_tokens", models.PositiveIntegerField(default=0)),
                        ("output_tokens", models.PositiveIntegerField(default=0)),
                        ("cost", models.DecimalField(decimal_places=6, default=0, max_digits=12)),
                        ("attempts", models.PositiveIntegerField(default=1)),
                        (
                            "claim",
                            models.UUIDField(
                                blank=True, help_text="The task execution that owns a pending call.", null=True
                            ),
                        ),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        ("updated_at", models.DateTimeField(auto_now=True)),
                        (
                            "judge",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="llm_results",
                                to="judging.judge",
                            ),
                        ),
                        (
                            "pair",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="llm_results",
                                to="judging.pair",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "judging_llmresult",
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("judge", "prompt_version", "pair"), name="llmresult_unique"
                            ),
                            models.CheckConstraint(
                                condition=models.Q(
                                    models.Q(("status", "labelled"), _negated=True),
                                    models.Q(("label", ""), _negated=True),
                                    _connector="OR",
                                ),
                                name="llmresult_labelled_has_label",
                            ),
                        ],
                    },
                ),
                migrations.CreateModel(
                    name="PrelabelJob",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID"),
                        ),
                        ("prompt_version", models.CharField(max_length=32)),
                        (
                            "mode",
                            models.CharField(
                                choices=[("live", "Live calls"), ("batch", "Batch API")], default="live", max_length=8
                            ),
                        ),
                        (
                            "status",
                            models.CharField(
                                choices=[
                                    ("pending", "Pending"),
                                    ("running", "Running"),
                                    ("done", "Done"),
                                    ("failed", "Failed"),
                                    ("cancelled", "Cancelled"),
                                ],
                                default="pending",
                                max_length=16,
                            ),
                        ),
                        (
                            "retry_errors",
                            models.BooleanField(default=False, help_text="Also call again the pairs whose call failed."),
                        ),
                        ("total", models.PositiveIntegerField(default=0)),
                        ("chunks", models.PositiveIntegerField(default=0)),
                        ("message", models.TextField(blank=True, default="")),
                        ("batch_id", models.CharField(blank=True, default="", max_length=128)),
                        ("batch_status", models.CharField(blank=True, default="", max_length=32)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        ("started_at", models.DateTimeField(blank=True, null=True)),
                        ("finished_at", models.DateTimeField(blank=True, null=True)),
                        (
                            "campaign",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="prelabel_jobs",
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
                            "judge",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="prelabel_jobs",
                                to="judging.judge",
                            ),
                        ),
                    ],
                    options={"db_table": "judging_prelabeljob", "ordering": ["-created_at", "-pk"]},
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(content_types_move("judging", "llm"), content_types_move("llm", "judging")),
    ]
