"""The queue order of a topic's pairs, stored: walking an index in order replaces sorting the pending pairs
(joined to their passages) on every card."""

from django.db import migrations, models


def number_queues(apps, schema_editor):  # type: ignore[no-untyped-def]
    CampaignPair = apps.get_model("judging", "CampaignPair")
    rows = CampaignPair.objects.order_by("campaign_id", "topic_id", "pair__passage_id", "pair_id").values_list(
        "pk", "campaign_id", "topic_id"
    )
    batch, last, position = [], None, 0
    for pk, campaign_id, topic_id in rows.iterator(chunk_size=5000):
        position = position + 1 if (campaign_id, topic_id) == last else 0
        last = (campaign_id, topic_id)
        batch.append(CampaignPair(pk=pk, position=position))
        if len(batch) == 5000:
            CampaignPair.objects.bulk_update(batch, ["position"])
            batch = []
    CampaignPair.objects.bulk_update(batch, ["position"])


class Migration(migrations.Migration):
    dependencies = [("judging", "0004_prelabel_job_cancelled")]

    operations = [
        migrations.AddField(
            model_name="campaignpair",
            name="position",
            field=models.PositiveIntegerField(
                default=0,
                help_text="Place in the topic's queue: pairs citing the same passage together (by passage, then pair).",
            ),
            preserve_default=False,
        ),
        migrations.RunPython(number_queues, migrations.RunPython.noop),
        migrations.RemoveIndex(model_name="campaignpair", name="campaignpair_topic_idx"),
        migrations.AddConstraint(
            model_name="campaignpair",
            constraint=models.UniqueConstraint(
                fields=("campaign", "topic", "position"), name="campaignpair_unique_position"
            ),
        ),
    ]
