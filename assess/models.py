"""The material under assessment: topics, passages, runs and their answers (DESIGN §2)."""

from __future__ import annotations

from django.db import models


class Topic(models.Model):
    topic_id = models.CharField(max_length=64, unique=True)
    text = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["topic_id"]

    def __str__(self) -> str:
        return self.topic_id


class Passage(models.Model):
    """An MS MARCO V2.1 segment. A row exists for every cited id; `text` is empty until loaded."""

    passage_id = models.CharField(max_length=128, unique=True)
    title = models.TextField(blank=True, default="")
    text = models.TextField(blank=True, default="")
    url = models.TextField(blank=True, default="")
    headings = models.TextField(blank=True, default="")
    has_text = models.BooleanField(default=False)

    class Meta:
        ordering = ["passage_id"]
        indexes = [
            models.Index(fields=["passage_id"], name="passage_missing_idx", condition=models.Q(has_text=False)),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(has_text=False) | ~models.Q(text=""), name="passage_has_text_means_text"
            ),
        ]

    def __str__(self) -> str:
        return self.passage_id

    @property
    def document_id(self) -> str:
        """The MS MARCO document the segment comes from (the id before `#`), shown when a segment has no title."""
        return self.passage_id.split("#", 1)[0]

    @property
    def citation_text(self) -> str:
        """The text the LLM judge reads: title + ": " + passage text, as in the track's script."""
        return f"{self.title}: {self.text}"


class Task(models.TextChoices):
    RAG = "RAG", "RAG (retrieval and generation)"
    AG = "AG", "AG (generation from given references)"


class Run(models.Model):
    run_id = models.CharField(max_length=255, unique=True)
    group = models.CharField(max_length=128, blank=True, default="")
    task = models.CharField(max_length=8, choices=Task.choices, default=Task.RAG)
    priority = models.PositiveIntegerField(null=True, blank=True, help_text="1 = highest")
    source_file = models.CharField(max_length=512, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["group", "priority", "run_id"]
        indexes = [models.Index(fields=["group", "priority"], name="run_group_priority_idx")]

    def __str__(self) -> str:
        return self.run_id


class Answer(models.Model):
    # The composite unique constraints and indexes below lead with these columns, so the
    # single-column foreign-key indexes would only slow the bulk import down.
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="answers", db_index=False)
    topic = models.ForeignKey(Topic, on_delete=models.PROTECT, related_name="answers", db_index=False)
    references = models.JSONField(default=list, help_text="Ordered passage ids; citations index into it.")
    response_length = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["run_id", "topic_id"]
        constraints = [models.UniqueConstraint(fields=["run", "topic"], name="answer_unique_run_topic")]
        indexes = [models.Index(fields=["topic", "run"], name="answer_topic_run_idx")]

    def __str__(self) -> str:
        return f"{self.run_id} / {self.topic_id}"


class Sentence(models.Model):
    answer = models.ForeignKey(Answer, on_delete=models.CASCADE, related_name="sentences", db_index=False)
    index = models.PositiveIntegerField()
    text = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["answer_id", "index"]
        constraints = [models.UniqueConstraint(fields=["answer", "index"], name="sentence_unique_answer_index")]

    def __str__(self) -> str:
        return f"{self.answer_id}#{self.index}"


class Citation(models.Model):
    """A sentence's citation: `slot` 0 is the first citation as the run listed them."""

    sentence = models.ForeignKey(Sentence, on_delete=models.CASCADE, related_name="citations", db_index=False)
    slot = models.PositiveIntegerField()
    passage = models.ForeignKey(Passage, on_delete=models.PROTECT, related_name="citations", db_index=False)
    reference_index = models.PositiveIntegerField(help_text="Index into the answer's references.")

    class Meta:
        ordering = ["sentence_id", "slot"]
        constraints = [models.UniqueConstraint(fields=["sentence", "slot"], name="citation_unique_sentence_slot")]
        indexes = [models.Index(fields=["passage"], name="citation_passage_idx")]

    def __str__(self) -> str:
        return f"{self.sentence_id}@{self.slot}"


class Relevance(models.Model):
    """A passage's topical relevance to a topic as one source graded it (the track's relevance qrels: NIST's
    assessors, UMBRELA, ...), 0 (not relevant) to 3 (perfectly relevant). Topic and passage are kept as ids,
    not keys: qrels grade far more passages than a platform loads (NIST's: 20,429 on 89 topics)."""

    source = models.CharField(max_length=64)
    topic_id = models.CharField(max_length=64)
    # trec_eval's second column, which it ignores: kept as the file wrote it (`Q0` in UMBRELA's qrels, 1 to 5 in
    # NIST's rag24 qrels) so that an export writes the file back line for line.
    iteration = models.CharField(max_length=16, default="0", db_default="0")
    passage_id = models.CharField(max_length=128)
    grade = models.PositiveSmallIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["source", "topic_id", "passage_id"], name="relevance_unique_grade"),
            models.CheckConstraint(condition=models.Q(grade__lte=3), name="relevance_grade_0_to_3"),
        ]
        indexes = [models.Index(fields=["topic_id", "passage_id"], name="relevance_topic_passage_idx")]

    def __str__(self) -> str:
        return f"{self.source}: {self.topic_id} {self.passage_id} {self.grade}"


class ImportKind(models.TextChoices):
    TOPICS = "topics", "Topics"
    PASSAGES = "passages", "Passages"
    RUNS = "runs", "Runs"


class ImportStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


class ImportJob(models.Model):
    """One upload started from a page or the API, run as a Celery task; its progress and messages."""

    kind = models.CharField(max_length=16, choices=ImportKind.choices)
    status = models.CharField(max_length=16, choices=ImportStatus.choices, default=ImportStatus.PENDING)
    files = models.JSONField(default=list, help_text="[{path, name}] of the stored uploads")
    options = models.JSONField(default=dict, blank=True)
    total_bytes = models.PositiveBigIntegerField(default=0)
    done_bytes = models.PositiveBigIntegerField(default=0)
    errors = models.JSONField(default=list, blank=True)
    warnings = models.JSONField(default=list, blank=True)
    summary = models.JSONField(default=dict, blank=True)
    created_by = models.ForeignKey("auth.User", null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(
        null=True, blank=True, help_text="Last sign of life of the worker running the import (while it runs)."
    )

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.kind} import #{self.pk} ({self.status})"

    @property
    def percent(self) -> int:
        if self.status == ImportStatus.DONE:
            return 100
        if not self.total_bytes:
            return 0
        return min(100, int(100 * self.done_bytes / self.total_bytes))
