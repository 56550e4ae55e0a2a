"""The work: judges, pairs, campaigns, assignments and judgments (DESIGN §2-4)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from assess.models import Citation, Passage, Run, Topic
from judging.vocabulary import SUPPORT


class Label(models.TextChoices):
    """The support labels as the database stores them; names and titles are the vocabulary's
    (`judging.vocabulary.SUPPORT`)."""

    FULL = SUPPORT.choice("FS")
    PARTIAL = SUPPORT.choice("PS")
    NONE = SUPPORT.choice("NS")


class Condition(models.TextChoices):
    FROM_SCRATCH = "from_scratch", "From scratch"
    POST_EDIT = "post_edit", "Post-edit"
    ADJUDICATION = "adjudication", "Adjudication"


class JudgmentOrigin(models.TextChoices):
    """Where a judgment was made. Only platform judgments (made on a campaign's pair) stand in for every
    citation of that pair; imported labels belong to their own citation alone (DESIGN §2)."""

    PLATFORM = "platform", "Made on the platform"
    IMPORT = "import", "Imported"


NOT_JUDGED = ""  # a Judgment's label when its judge looked at the citation and recorded that it did not judge it


class JudgeKind(models.TextChoices):
    HUMAN = "human", "Human"
    LLM = "llm", "LLM"


class Judge(models.Model):
    """Who made a judgment: an assessor (with a user), an LLM judge, or an imported source such as `nist`."""

    name = models.CharField(max_length=128, unique=True)
    kind = models.CharField(max_length=8, choices=JudgeKind.choices)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="judge"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Pair(models.Model):
    """What is judged: a (normalised sentence text, passage). Shared by every run and campaign holding it."""

    text = models.TextField(help_text="Sentence text after NFKC and whitespace normalisation.")
    text_hash = models.CharField(max_length=64, help_text="SHA-256 of `text`, for the unique constraint.")
    passage = models.ForeignKey(Passage, on_delete=models.PROTECT, related_name="pairs")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["text_hash", "passage"], name="pair_unique_text_passage")]

    def __str__(self) -> str:
        return f"pair {self.pk}: {self.text[:40]!r} / {self.passage_id}"


class QueueOrder(models.TextChoices):
    """The order of a topic's pairs in the queue (judging/queue.md)."""

    BY_TOPIC = "by_topic", "By topic: passage by passage"
    UNCERTAIN_FIRST = "uncertain_first", "Uncertain first: LLM judges disagree, then LLM PS or NS"


def kind_choices() -> list[tuple[str, str]]:
    """The judgment kinds this installation knows (settings.JUDGMENT_KINDS), for the campaign's `kind` field."""
    from judging.kinds import kinds_registered  # the registry reads settings: imported when choices are asked

    return [(k.name, k.title) for k in kinds_registered()]


class Campaign(models.Model):
    name = models.CharField(max_length=128, unique=True)
    kind = models.CharField(
        max_length=16,
        choices=kind_choices,
        default="support",
        db_default="support",
        help_text="What the campaign judges (judging/kinds.py): support per citation, sentence support, relevance.",
    )
    runs = models.ManyToManyField(Run, related_name="campaigns", blank=True)
    topics = models.ManyToManyField(Topic, related_name="campaigns", blank=True)
    depth = models.PositiveSmallIntegerField(default=1, help_text="Citations judged per sentence (1 = sparse).")
    guidelines = models.TextField(blank=True, default="")
    post_edit_judge = models.ForeignKey(
        Judge,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="post_edit_campaigns",
        help_text="The LLM judge whose labels post-editing shows.",
    )
    highlight_evidence = models.BooleanField(default=False)
    queue_order = models.CharField(
        max_length=16, choices=QueueOrder.choices, default=QueueOrder.BY_TOPIC, db_default=QueueOrder.BY_TOPIC
    )
    archived_at = models.DateTimeField(
        null=True, blank=True, help_text="Set while archived: read-only, out of the default lists, restorable."
    )
    built_at = models.DateTimeField(null=True, blank=True)
    build_summary = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=models.Q(depth__gte=1), name="campaign_depth_positive"),
            models.CheckConstraint(
                condition=models.Q(queue_order__in=["by_topic", "uncertain_first"]), name="campaign_queue_order_known"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def is_archived(self) -> bool:
        return self.archived_at is not None


class CitationPair(models.Model):
    """The pair a citation is judged as, stored when a campaign that holds the citation is built, so that no
    path recomputes pair identity from sentence text. A citation's pair never changes (its text and passage
    do not), so one row serves every campaign."""

    citation = models.OneToOneField(Citation, primary_key=True, on_delete=models.CASCADE, related_name="stored_pair")
    pair = models.ForeignKey(Pair, on_delete=models.CASCADE, related_name="citation_pairs")

    class Meta:
        indexes = [models.Index(fields=["pair"], name="citationpair_pair_idx")]

    def __str__(self) -> str:
        return f"citation {self.citation_id} -> pair {self.pair_id}"


class CampaignPair(models.Model):
    """A pair in a campaign's pool, with the topic whose queue it is in and the citation shown as context."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="campaign_pairs")
    pair = models.ForeignKey(Pair, on_delete=models.PROTECT, related_name="campaign_pairs")
    topic = models.ForeignKey(Topic, on_delete=models.PROTECT, related_name="campaign_pairs")
    context_citation = models.ForeignKey(Citation, on_delete=models.PROTECT, related_name="+")
    citation_count = models.PositiveIntegerField(default=1, help_text="Citations in the pool that this pair covers.")
    position = models.PositiveIntegerField(
        help_text="Place in the topic's queue: pairs citing the same passage together (by passage, then pair)."
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "topic", "pair"], name="campaignpair_unique"),
            # Also the queue's index: the next pair to judge is the first of this index that has no judgment.
            models.UniqueConstraint(fields=["campaign", "topic", "position"], name="campaignpair_unique_position"),
        ]

    def __str__(self) -> str:
        return f"{self.campaign_id}/{self.topic_id}/{self.pair_id}"


class AssignmentStatus(models.TextChoices):
    OPEN = "open", "Open"
    DONE = "done", "Done"


class Sample(models.Model):
    """Pairs of a campaign drawn for assignments to judge in the drawn order instead of their topic's whole pool
    (`judging/samples.py`). A feature above judging draws them (the disagreement study, a human-budget sample)
    and writes them here through `samples.sample_create`; the queue reads them with the pool."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="samples")
    name = models.CharField(max_length=64, help_text='How a refusal names the sample, e.g. "study #3".')
    condition = models.CharField(max_length=16, choices=Condition.choices)
    # [side, label set spec] pairs whose judges may not adjudicate this sample, e.g. [["a", "nist/from_scratch"]].
    independent_of = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["campaign_id", "pk"]

    def __str__(self) -> str:
        return f"{self.name} of {self.campaign_id}"


class SampleItem(models.Model):
    """One drawn pair of a topic, at its place in the topic's queue (shuffled by the feature that drew it)."""

    sample = models.ForeignKey(Sample, on_delete=models.CASCADE, related_name="items")
    topic = models.ForeignKey(Topic, on_delete=models.PROTECT, related_name="+")
    pair = models.ForeignKey(Pair, on_delete=models.PROTECT, related_name="+")
    order = models.PositiveIntegerField()

    class Meta:
        ordering = ["sample_id", "topic_id", "order"]
        constraints = [
            models.UniqueConstraint(fields=["sample", "topic", "pair"], name="sampleitem_unique_pair"),
        ]

    def __str__(self) -> str:
        return f"{self.sample_id} / {self.topic_id} / pair {self.pair_id}"


class Assignment(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="assignments")
    assessor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="assignments")
    topic = models.ForeignKey(Topic, on_delete=models.PROTECT, related_name="assignments")
    condition = models.CharField(max_length=16, choices=Condition.choices)
    order = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=8, choices=AssignmentStatus.choices, default=AssignmentStatus.OPEN)
    created_at = models.DateTimeField(auto_now_add=True)
    # Set: the assignment judges this sample's pairs of its topic, in the sample's order, not the whole pool.
    sample = models.ForeignKey(Sample, null=True, blank=True, on_delete=models.RESTRICT, related_name="assignments")

    class Meta:
        ordering = ["assessor_id", "order", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "assessor", "topic", "condition"], name="assignment_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.assessor} · {self.topic_id} · {self.condition}"


class Judgment(models.Model):
    """Append-only. A correction is a new row; the newest row of a judge on a citation or pair is current."""

    judge = models.ForeignKey(Judge, on_delete=models.PROTECT, related_name="judgments")
    pair = models.ForeignKey(Pair, on_delete=models.PROTECT, related_name="judgments")
    citation = models.ForeignKey(Citation, null=True, blank=True, on_delete=models.PROTECT, related_name="judgments")
    # Blank (NOT_JUDGED): this judge recorded that it did not judge the citation (NIST's -1, a skip).
    label = models.CharField(max_length=2, choices=Label.choices, blank=True)
    not_judged_reason = models.CharField(max_length=200, blank=True, default="", db_default="")
    origin = models.CharField(
        max_length=8, choices=JudgmentOrigin.choices, default=JudgmentOrigin.PLATFORM, db_default="platform"
    )
    condition = models.CharField(max_length=16, choices=Condition.choices, blank=True, default="")
    assignment = models.ForeignKey(
        Assignment, null=True, blank=True, on_delete=models.PROTECT, related_name="judgments"
    )
    shown_label = models.CharField(max_length=2, choices=Label.choices, blank=True, default="")
    label_changed = models.BooleanField(null=True, blank=True)
    seconds = models.FloatField(null=True, blank=True)
    submission_token = models.UUIDField(null=True, blank=True, unique=True)
    flagged = models.BooleanField(default=False)
    comment = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["pk"]
        indexes = [
            models.Index(fields=["judge", "pair"], name="judgment_judge_pair_idx"),
            models.Index(fields=["judge", "citation"], name="judgment_judge_citation_idx"),
            models.Index(fields=["assignment", "pair"], name="judgment_assignment_pair_idx"),
            # An assessor's judgments of today and of the current working session, read with every card.
            models.Index(fields=["judge", "created_at"], name="judgment_judge_created_idx"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(seconds__isnull=True) | models.Q(seconds__gte=0), name="judgment_seconds_nonneg"
            ),
            models.CheckConstraint(condition=models.Q(label__in=[*Label.values, ""]), name="judgment_label_known"),
            # An imported label is made on one citation: it never stands for a pair.
            models.CheckConstraint(
                condition=~models.Q(origin="import") | models.Q(citation__isnull=False),
                name="judgment_import_has_citation",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.judge} {self.label} on pair {self.pair_id}"


class FlagReview(models.Model):
    """An organizer's answer to a flagged judgment: resolved, with a note. The judgment itself stays as made."""

    judgment = models.OneToOneField(Judgment, on_delete=models.CASCADE, related_name="flag_review")
    resolved_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    note = models.TextField(blank=True, default="")
    resolved_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"flag of judgment {self.judgment_id}: resolved"


class GuidelinesReading(models.Model):
    """That an assessor read a campaign's guidelines (closed them after they were shown at the start), and which
    text: guidelines changed since are shown again."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="guidelines_readings")
    assessor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    version = models.CharField(max_length=64, help_text="SHA-256 of the guidelines text read.")
    read_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "assessor"], name="guidelinesreading_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.assessor} read the guidelines of campaign {self.campaign_id}"


class CampaignChoice(models.Model):
    """The campaign an organizer chose last on the pages that show one (metrics, studies, budget), kept per
    user across logins, so a page never moves by itself to a newer campaign. No campaign: everything loaded."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="campaign_choice")
    campaign = models.ForeignKey(Campaign, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    chosen_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.user} last chose {self.campaign or 'everything loaded'}"


class NistKeys(models.TextChoices):
    """The two spellings of NIST's support files (DESIGN §7), and what `citationId` means in each."""

    WEBASSESS = "sentenceId", "sentenceId / citationId (the Webassess file: citationId indexes the references)"
    FINAL = "sentenceID", "sentenceID / citationID (the 2024-10-25 files: citationID is the citation's position)"


class NistSentence(models.Model):
    """What a NIST support file says of one sentence beside its citations' labels, kept so that the export
    writes the file back as it came: the key spelling, `verification_worthy`, `citationsCombibed` (NIST's
    spelling) and the citation list in NIST's order with NIST's `citationId`s. One row per label set source
    (judge and condition) and sentence; a later import of the same source replaces it."""

    judge = models.ForeignKey(Judge, on_delete=models.CASCADE, related_name="nist_sentences")
    condition = models.CharField(max_length=16, choices=Condition.choices, blank=True, default="")
    sentence = models.ForeignKey("assess.Sentence", on_delete=models.CASCADE, related_name="+", db_index=False)
    keys = models.CharField(max_length=10, choices=NistKeys.choices)
    verification_worthy = models.CharField(max_length=2, blank=True, default="", help_text='"0" or "1"; "" absent')
    citations_combined = models.CharField(
        max_length=2, blank=True, default="", help_text='NIST\'s citationsCombibed: "-1", "0", "1" or "2"; "" absent'
    )
    citations = models.JSONField(
        default=list, blank=True, help_text="[[citationId, passage id], ...] in the file's order"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["sentence", "judge", "condition"], name="nist_sentence_unique_source")
        ]

    def __str__(self) -> str:
        return f"{self.judge_id}/{self.condition} on sentence {self.sentence_id}"


class FinalLabel(models.Model):
    """A reviewer's decision on a campaign's pair: the `final/<campaign>` label set (judging/review/). Append-only:
    a change is a new row naming the label it replaces, who made it, when and why; only `current` moves off
    the row it replaces, and the database holds at most one current row per campaign and pair."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="final_labels")
    pair = models.ForeignKey(Pair, on_delete=models.PROTECT, related_name="final_labels")
    label = models.CharField(max_length=2, choices=Label.choices)
    previous_label = models.CharField(
        max_length=2, blank=True, default="", help_text="The label this one replaced (the set's label before): '' none"
    )
    reason = models.TextField()
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="final_labels")
    current = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "pair"], condition=models.Q(current=True), name="finallabel_one_current"
            ),
            models.CheckConstraint(condition=models.Q(label__in=Label.values), name="finallabel_label_known"),
            models.CheckConstraint(
                condition=models.Q(previous_label__in=[*Label.values, ""]), name="finallabel_previous_known"
            ),
            models.CheckConstraint(condition=~models.Q(reason=""), name="finallabel_has_reason"),
        ]
        indexes = [models.Index(fields=["campaign", "pair"], name="finallabel_campaign_pair_idx")]

    def __str__(self) -> str:
        return f"final {self.label} on pair {self.pair_id} of campaign {self.campaign_id}"
