"""The sentence kind's pool: every sentence of the campaign's runs' answers to its topics, in (run, sentence)
order per topic. A sentence without citations is in it (it may need one); a sentence without text is not, and
one citing a passage without text stops the build unless told to leave it out (as support's build does)."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from assess.models import Citation, Sentence
from judging.build import CampaignBuildError
from judging.models import Campaign
from judging.pairs import normalize_sentence_text

from .models import SentenceItem


@transaction.atomic
def campaign_build_sentences(campaign: Campaign, *, allow_missing_text: bool = False) -> dict[str, Any]:
    """(Re)build the pool. Judgments hang on sentences, so a rebuild keeps every judgment."""
    sentences = list(
        Sentence.objects.filter(answer__run__in=campaign.runs.all(), answer__topic__in=campaign.topics.all())
        .order_by("answer__topic_id", "answer__run__run_id", "index")
        .values_list("pk", "answer__topic_id", "text")
    )
    ids = [pk for pk, _, _ in sentences]
    without_text = {
        sid: pid
        for sid, pid in Citation.objects.filter(sentence_id__in=ids, passage__has_text=False).values_list(
            "sentence_id", "passage__passage_id"
        )
    }
    cited = set(Citation.objects.filter(sentence_id__in=ids).values_list("sentence_id", flat=True))
    if without_text and not allow_missing_text:
        missing = sorted(set(without_text.values()))
        shown = ", ".join(missing[:20]) + (f" and {len(missing) - 20} more" if len(missing) > 20 else "")
        raise CampaignBuildError(f"{len(missing)} cited passages have no text: {shown}.", missing_passages=missing)
    kept = [(pk, topic) for pk, topic, text in sentences if normalize_sentence_text(text) and pk not in without_text]
    positions: dict[int, int] = {}
    items = []
    for pk, topic in kept:
        positions[topic] = positions.get(topic, 0) + 1
        items.append(SentenceItem(campaign=campaign, topic_id=topic, sentence_id=pk, position=positions[topic]))
    SentenceItem.objects.filter(campaign=campaign).delete()
    SentenceItem.objects.bulk_create(items, batch_size=2000)
    summary: dict[str, Any] = {
        "runs": campaign.runs.count(),
        "topics": campaign.topics.count(),
        "sentences": len(sentences),
        "sentences_uncited": len(ids) - len(cited),
        "sentences_kept": len(items),
        "sentences_left_out": len(sentences) - len(items),
        "sentences_citing_passages_without_text": len(without_text),
    }
    campaign.build_summary = summary
    campaign.built_at = timezone.now()
    campaign.save(update_fields=["build_summary", "built_at"])
    return summary
