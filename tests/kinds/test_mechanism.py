"""A campaign's kind, first-class (issue 26, point 1): judging dispatches the assessor's pages to the kind's card,
shows the kind's progress, and creates and builds a campaign of any registered kind from the page, the API and
the command, with the kind's own build options; an unknown kind or option creates nothing. Through the test-only
kind `toy` (tests/kinds/toy.py), so that no real kind's work is needed."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from drf_spectacular.plumbing import _load_enum_name_overrides

from judging import build
from judging.kinds import UnknownKind
from judging.models import Campaign
from tests.factories import AssignmentFactory, OrganizerFactory, UserFactory, llm_campaign_build

pytestmark = pytest.mark.django_db


def _toy_campaign(name: str = "toy-1") -> Campaign:
    campaign = llm_campaign_build(statements=["One [FS].", "Two [NS]."], name=name)
    campaign.kind = "toy"
    campaign.save(update_fields=["kind"])
    return campaign


def test_the_judging_url_of_another_kind_leads_to_its_card_and_the_queue_links_there(client, toy_kind) -> None:
    # given: alice holds a support assignment and a toy one, one unit of two done in the toy one
    alice = UserFactory(username="alice")
    toy = AssignmentFactory(campaign=_toy_campaign(), assessor=alice, order=1)
    support = AssignmentFactory(assessor=alice, order=2)
    toy_kind.DONE[toy.pk] = 1
    client.force_login(alice)

    # when / then: judging's URL sends the toy assignment on to the kind's card page, which is the shell's
    response = client.get(reverse("judging:judge", args=[toy.pk]))
    assert response.status_code == 302
    assert response["Location"] == reverse("kind_toy:judge", args=[toy.pk]) == f"/kinds/toy/judge/{toy.pk}/"
    card = client.get(response["Location"]).content.decode()
    assert 'id="kind-card"' in card
    assert "Toy grades (tests)" in card
    assert "This topic: <b>1 / 2</b>" in card
    assert "js/kind-card.js" in card

    # and the queue links each assignment to its kind's page, with the kind's progress
    queue = client.get(reverse("judging:queue")).content.decode()
    assert f'href="/kinds/toy/judge/{toy.pk}/"' in queue
    assert f'href="{reverse("judging:judge", args=[support.pk])}"' in queue
    row = queue[queue.index(f'href="/kinds/toy/judge/{toy.pk}/"') - 400 :]
    assert "1 / 2" in row
    # and the overall line counts each kind in its own units, never adding a toy unit to a support pair
    overall = queue[queue.index("Overall:") : queue.index("</p>", queue.index("Overall:"))]
    assert "</b> pairs, " in overall
    assert overall.endswith("<b>1 / 2</b> units judged.")


def test_another_assessors_toy_assignment_is_a_404_on_both_urls(client, toy_kind) -> None:
    toy = AssignmentFactory(campaign=_toy_campaign(), assessor=UserFactory(username="bob"))
    client.force_login(UserFactory(username="alice"))
    assert client.get(reverse("judging:judge", args=[toy.pk])).status_code == 404
    assert client.get(reverse("kind_toy:judge", args=[toy.pk])).status_code == 404


def test_the_campaign_page_of_another_kind_says_what_it_judges_and_hides_supports_sections(client, toy_kind) -> None:
    # given
    campaign = _toy_campaign()
    support = llm_campaign_build(statements=["Three [PS]."], name="support-1")
    client.force_login(OrganizerFactory(username="org"))
    # when
    page = client.get(reverse("judging:campaign", args=[campaign.pk])).content.decode()
    support_page = client.get(reverse("judging:campaign", args=[support.pk])).content.decode()
    # then
    assert 'id="campaign-kind"' in page
    assert "Judges <b>Toy grades (tests)</b>, one card per pair" in page
    for section in ('id="deliverables"', 'id="figures"', 'id="quality"', 'id="studies"', "Done per condition"):
        assert section not in page, section
        assert section in support_page, section
    assert 'name="size"' in page  # the kind's build option, on its rebuild form
    assert 'id="campaign-kind"' not in support_page
    # and the list names each campaign's kind
    listing = client.get(reverse("judging:campaigns")).content.decode()
    assert '<td class="kind" title="Toy grades (tests)">toy</td>' in listing
    assert '<td class="kind" title="Support per citation (TREC 2024)">support</td>' in listing


def test_a_rebuild_from_the_page_goes_through_the_kind_with_its_option(client, toy_kind) -> None:
    campaign = _toy_campaign()
    client.force_login(OrganizerFactory(username="org"))
    response = client.post(reverse("judging:campaign_build", args=[campaign.pk]), {"size": "4"}, follow=True)
    campaign.refresh_from_db()
    assert campaign.build_summary == {"topics": 1, "units": 2, "size": 4}
    assert "Built: 1 topics, 2 units, 4 size." in response.content.decode()
    bad = client.post(reverse("judging:campaign_build", args=[campaign.pk]), {"size": "0"}, follow=True)
    assert "Not built: size:" in bad.content.decode()


def _form(campaign: Campaign, **extra: str) -> dict[str, Any]:
    return {
        "name": "new",
        "runs": [r.pk for r in campaign.runs.all()],
        "topics": [t.pk for t in campaign.topics.all()],
    } | {
        "depth": "1",
        **extra,
    }


def test_the_create_form_makes_a_campaign_of_the_chosen_kind_with_its_options(client, toy_kind) -> None:
    # given
    material = llm_campaign_build(statements=["One [FS]."], name="material")
    client.force_login(OrganizerFactory(username="org"))
    page = client.get(reverse("judging:campaigns")).content.decode()
    assert '<option value="toy">Toy grades (tests)</option>' in page
    assert 'name="toy-size"' in page
    # when: an option out of bounds, then a good one
    refused = client.post(reverse("judging:campaigns"), _form(material, kind="toy", **{"toy-size": "0"}))
    assert "build options of the kind &#x27;toy&#x27;: size:" in refused.content.decode()
    assert not Campaign.objects.filter(name="new").exists()
    response = client.post(reverse("judging:campaigns"), _form(material, kind="toy", **{"toy-size": "3"}))
    # then
    campaign = Campaign.objects.get(name="new")
    assert response.status_code == 302
    assert campaign.kind == "toy"
    assert campaign.build_summary == {"topics": 1, "units": 0, "size": 3}
    # and an unknown kind is refused by the form, a missing one is support
    client.post(reverse("judging:campaigns"), _form(material, kind="nuggets", name="n2"))
    assert not Campaign.objects.filter(name="n2").exists()
    client.post(reverse("judging:campaigns"), _form(material, name="n3"))
    assert Campaign.objects.get(name="n3").kind == "support"


def test_the_api_creates_a_campaign_of_a_kind_and_documents_the_kinds(client, toy_kind) -> None:
    material = llm_campaign_build(statements=["One [FS]."], name="material")
    client.force_login(OrganizerFactory(username="org"))
    body = {"name": "api-toy", "topics": [t.topic_id for t in material.topics.all()], "kind": "toy"}
    created = client.post("/api/campaigns/", {**body, "build_options": {"size": 2}}, content_type="application/json")
    assert created.status_code == 201, created.content
    assert created.json()["kind"] == "toy"
    assert created.json()["build_summary"]["size"] == 2
    unknown = client.post("/api/campaigns/", {**body, "name": "x", "kind": "nuggets"}, content_type="application/json")
    assert unknown.status_code == 400
    assert "nuggets" in unknown.json()["kind"][0]
    bad = client.post(
        "/api/campaigns/", {**body, "name": "y", "build_options": {"colour": "red"}}, content_type="application/json"
    )
    assert bad.status_code == 400
    assert "no build option colour; its options: size" in bad.json()["build_options"][0]
    assert not Campaign.objects.filter(name__in=["x", "y"]).exists()
    _load_enum_name_overrides.cache_clear()  # the registry's kinds as this test has them
    try:
        schema = client.get("/api/schema/?format=json").json()["components"]["schemas"]
    finally:
        _load_enum_name_overrides.cache_clear()
    field = schema["CampaignInput"]["properties"]["kind"]
    assert field["allOf"] == [{"$ref": "#/components/schemas/CampaignKindEnum"}]
    assert {"support", "toy"} <= set(schema["CampaignKindEnum"]["enum"])
    assert "toy: size (units per pair)" in schema["CampaignInput"]["properties"]["build_options"]["description"]


def test_the_command_creates_a_campaign_of_a_kind_and_names_the_known_ones_for_an_unknown_one(toy_kind) -> None:
    material = llm_campaign_build(statements=["One [FS]."], name="material")
    topic = material.topics.get().topic_id
    out = io.StringIO()
    call_command("campaign_create", "cmd-toy", "--topics", topic, "--kind", "toy", "--option", "size=5", stdout=out)
    assert Campaign.objects.get(name="cmd-toy").kind == "toy"
    assert "(id" in out.getvalue()
    assert "toy): 1 topics, 0 units, 5 size" in out.getvalue()
    with pytest.raises(CommandError, match=r"unknown judgment kind .nuggets.; known kinds: support.*toy"):
        call_command("campaign_create", "cmd-2", "--topics", topic, "--kind", "nuggets", stdout=out)
    with pytest.raises(CommandError, match="no build option colour; its options: size"):
        call_command("campaign_create", "cmd-3", "--topics", topic, "--kind", "toy", "--option", "colour=red")
    with pytest.raises(CommandError, match="NAME=VALUE"):
        call_command("campaign_create", "cmd-4", "--topics", topic, "--kind", "toy", "--option", "size")
    assert not Campaign.objects.filter(name__in=["cmd-2", "cmd-3", "cmd-4"]).exists()


def test_an_unknown_kind_creates_nothing_and_support_builds_as_before() -> None:
    material = llm_campaign_build(statements=["One [FS]."], name="material")
    runs, topics = list(material.runs.all()), list(material.topics.all())
    with pytest.raises(UnknownKind, match="known kinds: support"):
        build.campaign_create_and_build(name="k", runs=runs, topics=topics, kind="nuggets")
    with pytest.raises(UnknownKind):
        build.campaign_create(name="k", runs=runs, topics=topics, kind="nuggets")
    assert not Campaign.objects.filter(name="k").exists()
    campaign, summary = build.campaign_create_and_build(name="s", runs=runs, topics=topics)
    assert campaign.kind == "support"
    assert summary["pairs"] == 1
