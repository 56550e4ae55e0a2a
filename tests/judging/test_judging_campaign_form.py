"""The organizer's campaign list (progress per campaign, one query) and the campaign form (its run choice
decided in the form; searchable pickers in Chromium that fall back to plain multi-selects)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from judging import queue, selectors, services
from judging.forms import CampaignForm
from judging.models import Campaign, Condition, Judgment
from tests.conftest import browser_login
from tests.factories import OrganizerFactory, RunFactory, TopicFactory, UserFactory, judging_campaign_build

# --- the run choice: top N per group --------------------------------------------------------------------


@pytest.mark.django_db
def test_it_ranks_runs_by_priority_within_their_group_and_groups_by_the_run_id_prefix_when_none_is_stored():
    a1 = RunFactory(run_id="teamA.x", group="teamA", priority=2)
    a2 = RunFactory(run_id="teamA.y", group="teamA", priority=1)
    a3 = RunFactory(run_id="teamA.z", group="teamA", priority=None)
    b1 = RunFactory(run_id="teamB.only", group="", priority=None)  # no stored group: "teamB" from the id
    b2 = RunFactory(run_id="teamB.other", group="", priority=None)
    lone = RunFactory(run_id="nodot", group="", priority=None)

    ranks = selectors.run_ranks_in_group(runs=[a1, a2, a3, b1, b2, lone])

    assert [ranks[r.pk] for r in (a2, a1, a3)] == [("teamA", 1), ("teamA", 2), ("teamA", 3)]
    assert [ranks[r.pk] for r in (b1, b2, lone)] == [("teamB", 1), ("teamB", 2), ("nodot", 1)]
    assert [r.run_id for r in selectors.runs_top_per_group(runs=[a1, a2, a3, b1, b2, lone], n=1)] == [
        "nodot",
        "teamA.y",
        "teamB.only",
    ]


@pytest.mark.django_db
def test_it_decides_the_campaigns_runs_in_the_form_chosen_then_cut_to_the_top_n_per_group():
    runs = [RunFactory(run_id=f"g{g}.r{k}", group=f"g{g}", priority=k) for g in range(2) for k in (1, 2, 3)]
    topic = TopicFactory()
    data = {"name": "c", "runs": [r.pk for r in runs[:2] + runs[3:]], "topics": [topic.pk], "depth": 1}

    form = CampaignForm({**data, "top_per_group": 1})

    assert form.is_valid(), form.errors
    assert [r.run_id for r in form.cleaned_data["chosen_runs"]] == ["g0.r1", "g1.r1"]
    every = CampaignForm({**data, "runs": [], "all_runs": "on", "top_per_group": 2})
    assert every.is_valid(), every.errors
    assert [r.run_id for r in every.cleaned_data["chosen_runs"]] == ["g0.r1", "g0.r2", "g1.r1", "g1.r2"]


@pytest.mark.django_db
def test_it_refuses_a_campaign_without_runs_and_says_what_to_do():
    form = CampaignForm({"name": "c", "topics": [TopicFactory().pk], "depth": 1})

    assert not form.is_valid()
    assert form.errors["runs"] == ["Choose runs, or tick 'All loaded runs'."]


@pytest.mark.django_db
def test_it_renders_each_run_option_with_its_group_and_rank_for_the_picker():
    RunFactory(run_id="teamA.x", group="teamA", priority=2)
    RunFactory(run_id="teamA.y", group="teamA", priority=1)

    html = str(CampaignForm()["runs"])

    assert 'data-picker="runs"' in html
    assert 'data-group="teamA" data-rank="2">teamA.x</option>' in html
    assert 'data-group="teamA" data-rank="1">teamA.y</option>' in html


@pytest.mark.django_db
def test_it_creates_a_campaign_from_the_plain_multi_selects_without_javascript():
    runs = [RunFactory(run_id=f"g.r{k}", group="g", priority=k) for k in (1, 2, 3)]
    topic = TopicFactory()
    client = Client()
    client.force_login(OrganizerFactory())

    response = client.post(
        "/organize/campaigns/",
        {"name": "plain", "runs": [runs[1].pk, runs[2].pk], "top_per_group": 1, "topics": [topic.pk], "depth": 1},
    )

    assert response.status_code == 302
    assert list(Campaign.objects.get(name="plain").runs.values_list("run_id", flat=True)) == ["g.r2"]


# --- the campaign list ------------------------------------------------------------------------------------


def _judge(assignment, n: int, label: str = "FS") -> None:
    for _ in range(n):
        card = queue.queue_state(assignment=assignment).card
        services.judgment_submit(
            assignment=assignment,
            pair_id=card.campaign_pair.pair_id,
            label=label,
            token=card.token_uuid,
            not_judged_reason="" if label else "The passage is unreadable",
        )


@pytest.mark.django_db
def test_it_lists_each_campaigns_pairs_judged_share_assessors_and_last_judgment():
    # given: 8 pairs; alice judged 3 from scratch (one as cannot judge), bob re-judged 2 of them (adjudication)...
    busy = judging_campaign_build(n_sentences=8, passages_per_topic=8, name="busy", runs=2)
    topic = busy.topics.get()
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    (a,) = services.assignments_create(campaign=busy, assessor=alice, topics=[topic], condition=Condition.FROM_SCRATCH)
    (b,) = services.assignments_create(campaign=busy, assessor=bob, topics=[topic], condition=Condition.ADJUDICATION)
    _judge(a, 2)
    _judge(a, 1, label="")  # cannot judge: looked at, so done
    _judge(b, 2)
    # ... and an idle campaign with nothing judged
    idle = judging_campaign_build(n_sentences=4, passages_per_topic=2, name="idle")

    rows = {c.name: c for c in selectors.campaign_list()}

    newest = Judgment.objects.order_by("-created_at").first().created_at
    assert (rows["busy"].n_pairs, rows["busy"].n_judged, rows["busy"].percent_done) == (8, 3, 37.5)
    assert (rows["busy"].n_assessors, rows["busy"].n_assignments, rows["busy"].last_judged) == (2, 2, newest)
    assert (rows["busy"].n_runs, rows["busy"].n_topics) == (2, 1)
    assert (rows["idle"].n_pairs, rows["idle"].n_judged, rows["idle"].percent_done) == (4, 0, 0.0)
    assert (rows["idle"].n_assessors, rows["idle"].last_judged) == (0, None)
    assert idle.pk in {c.pk for c in rows.values()}


@pytest.mark.django_db
def test_it_rounds_the_share_down_so_an_unfinished_campaign_never_shows_100():
    campaign = judging_campaign_build(n_sentences=3, passages_per_topic=3, name="thirds")
    (a,) = services.assignments_create(
        campaign=campaign, assessor=UserFactory(), topics=list(campaign.topics.all()), condition=Condition.FROM_SCRATCH
    )
    _judge(a, 2)

    (row,) = selectors.campaign_list()

    assert (row.n_judged, row.n_pairs, row.percent_done) == (2, 3, 66.6)  # 66.67 rounded down


@pytest.mark.django_db
def test_it_reads_the_campaign_list_in_the_same_queries_for_one_campaign_or_five():
    client = Client()
    client.force_login(OrganizerFactory())
    counts = []
    for k in range(5):
        campaign = judging_campaign_build(n_sentences=3, passages_per_topic=3, name=f"c{k}")
        (a,) = services.assignments_create(
            campaign=campaign, assessor=UserFactory(), topics=list(campaign.topics.all()), condition="from_scratch"
        )
        _judge(a, 1)
        with CaptureQueriesContext(connection) as queries:
            html = client.get("/organize/campaigns/").content.decode()
        counts.append(len(queries))
        assert html.count('<tr id="campaign-') == k + 1
    assert len(set(counts)) == 1, counts
    assert "33.3%" in html


# --- the pickers, in Chromium -----------------------------------------------------------------------------


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_it_filters_the_runs_selects_all_shown_and_creates_the_campaign_with_them(live_server, page):
    # given: two teams' runs and two topics
    for team in ("alpha", "beta"):
        for k in (1, 2, 3):
            RunFactory(run_id=f"{team}.run{k}", group=team, priority=k)
    topics = [TopicFactory(topic_id="2024-1", text="first question"), TopicFactory(topic_id="2024-2", text="second")]
    OrganizerFactory(username="org")
    page.set_viewport_size({"width": 1366, "height": 768})
    browser_login(page, live_server, "org")
    page.goto(f"{live_server.url}/organize/campaigns/")
    runs_picker = page.locator(".picker[data-picker-for=id_runs]")
    topics_picker = page.locator(".picker[data-picker-for=id_topics]")

    # then: the plain selects are replaced by pickers that say what is chosen
    assert not page.locator("#id_runs").is_visible()
    assert runs_picker.locator(".picker-count").inner_text() == "0 of 6 selected"

    # when: typing filters the runs, and "select all shown" takes only those shown
    runs_picker.locator(".picker-search").fill("beta")
    assert runs_picker.locator(".picker-count").inner_text() == "0 of 6 selected · 3 shown"
    runs_picker.locator(".picker-all").click()
    assert runs_picker.locator(".picker-count").inner_text() == "3 of 6 selected · 3 shown"

    # and "top N per group" keeps the best-priority run of each group shown
    runs_picker.locator(".picker-top-n").fill("2")
    runs_picker.locator(".picker-top-button").click()
    assert runs_picker.locator(".picker-count").inner_text() == "2 of 6 selected · 3 shown"

    # and a topic is found by its text
    topics_picker.locator(".picker-search").fill("first")
    topics_picker.locator(".picker-all").click()
    assert topics_picker.locator(".picker-count").inner_text() == "1 of 2 selected · 1 shown"

    # and Enter in a filter does not submit the form
    topics_picker.locator(".picker-search").press("Enter")
    assert not Campaign.objects.exists()

    page.fill("#id_name", "picked")
    page.fill("#id_guidelines", "")
    page.click("#campaign-create")
    page.wait_for_url("**/organize/campaigns/*/")

    # then: the campaign holds exactly the runs and topics picked
    campaign = Campaign.objects.get(name="picked")
    assert sorted(campaign.runs.values_list("run_id", flat=True)) == ["beta.run1", "beta.run2"]
    assert list(campaign.topics.values_list("topic_id", flat=True)) == [topics[0].topic_id]
