"""Blindness (DESIGN §3): no LLM label, nor another person's label, reaches a from-scratch assessor."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from judging import queue, services
from judging.models import CampaignPair, Condition, Judgment
from tests.factories import LLMJudgeFactory, PairJudgmentFactory, UserFactory, judging_campaign_build

LLM_NAME = "opus-blindness-probe"
CSRF = re.compile(r'(csrfmiddlewaretoken" value="|X-CSRFToken": "|X-CSRFTOKEN"\] = ")[^"]+', re.IGNORECASE)


def _normal(text: str) -> str:
    return CSRF.sub(r"\1-", text)


@pytest.fixture
def world(db):
    campaign = judging_campaign_build(n_sentences=4, passages_per_topic=2)
    campaign.post_edit_judge = LLMJudgeFactory(name=LLM_NAME)
    campaign.save()
    alice = UserFactory(username="alice")
    bob = UserFactory(username="bob")
    topics = list(campaign.topics.all())
    scratch = services.assignments_create(
        campaign=campaign, assessor=alice, topics=topics, condition=Condition.FROM_SCRATCH
    )[0]
    bobs = services.assignments_create(campaign=campaign, assessor=bob, topics=topics, condition=Condition.POST_EDIT)[0]
    client = Client()
    client.force_login(alice)
    return {"campaign": campaign, "scratch": scratch, "bobs": bobs, "client": client, "bob": bob}


def _seed_other_labels(world) -> None:
    """An LLM label (Partial) on every pair, and bob's own judgments (No support) on every pair."""
    bob_judge = services.assessor_judge(user=world["bob"])
    for cp in CampaignPair.objects.filter(campaign=world["campaign"]).select_related("pair"):
        PairJudgmentFactory(judge=world["campaign"].post_edit_judge, pair=cp.pair, label="PS")
        PairJudgmentFactory(judge=bob_judge, pair=cp.pair, label="NS", assignment=world["bobs"], condition="post_edit")


def _reachable(client: Client, assignment) -> dict[str, str]:
    a = assignment.pk
    return {
        "queue page": client.get("/judge/").content.decode(),
        "judging page": client.get(f"/judge/{a}/").content.decode(),
        "card (htmx)": client.get(f"/judge/{a}/", headers={"HX-Request": "true"}).content.decode(),
        "api assignments": client.get("/api/assignments/").content.decode(),
        "api assignment": client.get(f"/api/assignments/{a}/").content.decode(),
        "api next": client.get(f"/api/assignments/{a}/next/").content.decode(),
        "api judgments": client.get("/api/judgments/").content.decode(),
    }


def test_it_serves_the_same_from_scratch_pages_and_api_whether_or_not_other_labels_exist(world):
    # given
    before = _reachable(world["client"], world["scratch"])

    # when an LLM label and another assessor's labels appear for every pair
    _seed_other_labels(world)
    after = _reachable(world["client"], world["scratch"])

    # then
    for name in before:
        assert _normal(after[name]) == _normal(before[name]), name


def test_it_keeps_every_from_scratch_response_free_of_llm_labels_while_judging(world):
    # given
    _seed_other_labels(world)
    client, a = world["client"], world["scratch"]
    seen: list[str] = []

    # when alice judges by page and by API, goes back, and lists her judgments
    card = queue.queue_state(assignment=a).card
    seen.append(
        client.post(
            f"/judge/{a.pk}/submit/",
            {"pair_id": card.campaign_pair.pair_id, "token": card.token, "label": "FS", "seconds": "2"},
            headers={"HX-Request": "true"},
        ).content.decode()
    )
    seen.append(client.get(f"/judge/{a.pk}/back/", headers={"HX-Request": "true"}).content.decode())
    nxt = client.get(f"/api/assignments/{a.pk}/next/").json()
    submitted = client.post(
        f"/api/assignments/{a.pk}/submit/",
        {"pair_id": nxt["pair"]["pair_id"], "token": nxt["pair"]["token"], "label": "NS"},
        content_type="application/json",
    )
    seen.append(submitted.content.decode())
    seen.append(client.get("/api/judgments/").content.decode())
    seen.extend(_reachable(client, a).values())

    # then
    assert submitted.status_code == 201
    for text in seen:
        assert LLM_NAME not in text
        assert "LLM label" not in text
        assert "Partial support</b>" not in text
        assert '"shown_label":"PS"' not in text.replace(" ", "")
    for text in seen[2:4]:
        for row in _dicts(json.loads(text)):
            assert row.get("shown_label", "") == ""
            assert row.get("judge") in (None, "alice")


def _dicts(value):
    if isinstance(value, dict):
        yield value
        for v in value.values():
            yield from _dicts(v)
    elif isinstance(value, list):
        for v in value:
            yield from _dicts(v)


def test_it_shows_and_preselects_the_llm_label_in_post_edit(world):
    # given
    _seed_other_labels(world)
    client = Client()
    client.force_login(world["bob"])
    Judgment.objects.filter(assignment=world["bobs"]).delete()

    # when
    html = client.get(f"/judge/{world['bobs'].pk}/").content.decode()
    api = client.get(f"/api/assignments/{world['bobs'].pk}/next/").json()

    # then
    assert 'LLM label: <b class="label-PS">Partial support</b>' in html
    assert re.search(r'class="choice choice-PS preselected"', html)
    assert api["pair"]["shown_label"] == "PS"


def _every_get_path(ids: list[int], words: list[str]) -> list[str]:
    """Every URL of the project that a GET can reach, with each int parameter set to each of `ids` and each
    str parameter to each of `words`."""
    import itertools

    from django.urls import URLPattern, URLResolver, get_resolver

    paths: set[str] = set()

    def walk(patterns, prefix):
        for p in patterns:
            if isinstance(p, URLResolver):
                walk(p.url_patterns, prefix + str(p.pattern))
            elif isinstance(p, URLPattern):
                route = prefix + str(p.pattern)
                # Regex routes (DRF routers): `^x/(?P<pk>[^/.]+)/$` becomes `x/<int:pk>/`.
                route = re.sub(r"\(\?P<(\w+)>[^)]*\)", r"<int:\1>", route).replace("^", "").replace("$", "")
                if "(" in route or "\\" in route:
                    continue
                params = re.findall(r"<(?:(\w+):)?(\w+)>", route)
                choices = [ids if conv == "int" else words for conv, _ in params]
                for values in itertools.product(*choices):
                    path = route
                    for (conv, name), value in zip(params, values, strict=True):
                        path = path.replace(f"<{conv + ':' if conv else ''}{name}>", str(value), 1)
                    paths.add("/" + path)

    walk(get_resolver().url_patterns, "")
    return sorted(p for p in paths if not p.startswith(("/admin/", "/accounts/logout")))


def test_it_serves_every_reachable_url_the_same_to_a_from_scratch_assessor_with_llm_labels_seeded(world):
    # given every URL of the project, with the ids of this world's rows
    from judging.models import Pair

    campaign, scratch = world["campaign"], world["scratch"]
    ids = sorted(
        {campaign.pk, scratch.pk, world["bobs"].pk, campaign.post_edit_judge_id}
        | set(Pair.objects.values_list("pk", flat=True)[:2])
    )
    topic = campaign.topics.get().topic_id
    paths = _every_get_path(ids, [topic, LLM_NAME])
    client = world["client"]

    def snapshot():
        out = {}
        for path in paths:
            response = client.get(path)
            if response.status_code == 200 and not getattr(response, "streaming", False):
                out[path] = _normal(response.content.decode(errors="replace"))
        return out

    before = snapshot()

    # when
    _seed_other_labels(world)
    after = snapshot()

    # then
    assert "/judge/" in before
    assert {"/api/assignments/", f"/api/assignments/{scratch.pk}/", "/api/judgments/"} <= set(before)
    assert f"/judge/{scratch.pk}/" in before
    assert set(after) == set(before)
    for path, text in after.items():
        assert text == before[path], path
        assert LLM_NAME not in text, path
