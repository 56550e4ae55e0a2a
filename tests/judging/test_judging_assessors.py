"""The organizer manages assessors in the browser: create, deactivate and reactivate, reset a password."""

from __future__ import annotations

import pytest
from django.contrib.auth import authenticate
from django.contrib.auth.models import User
from django.test import RequestFactory
from django.urls import reverse

from judging.models import Judge
from tests.factories import JudgeFactory, JudgmentFactory, OrganizerFactory, UserFactory

pytestmark = pytest.mark.django_db

GOOD = "a-long-enough-password"


def login_request():
    """What the login form hands `authenticate`: django-axes counts each attempt against its request's address."""
    return RequestFactory().post("/accounts/login/")


def test_an_organizer_creates_an_assessor_who_can_log_in_and_has_a_judge(client, organizer):
    client.force_login(organizer)

    response = client.post(reverse("judging:assessors"), {"username": "bob", "password": GOOD}, follow=True)

    assert response.status_code == 200
    assert "Assessor bob created" in response.content.decode()
    bob = User.objects.get(username="bob")
    assert not bob.is_staff
    assert authenticate(login_request(), username="bob", password=GOOD) == bob
    assert Judge.objects.filter(user=bob).count() == 1


@pytest.mark.parametrize(
    ("username", "password", "message"),
    [
        ("bob", "short", "too short"),
        ("alice", GOOD, "There is already a user called &#x27;alice&#x27;"),
        ("ALICE", GOOD, "There is already a user called &#x27;ALICE&#x27;"),
        ("bad name!", GOOD, "Enter a valid username"),
    ],
)
def test_a_bad_new_assessor_is_refused_with_the_reason_and_nothing_is_created(
    client, organizer, assessor, username, password, message
):
    client.force_login(organizer)
    before = User.objects.count()

    response = client.post(reverse("judging:assessors"), {"username": username, "password": password})

    assert response.status_code == 400
    assert message in response.content.decode()
    assert User.objects.count() == before


def test_the_list_shows_assessors_with_their_judgments_and_never_organizers(client, organizer, assessor):
    JudgmentFactory.create_batch(3, judge=JudgeFactory(name="alice-judge", user=assessor))
    OrganizerFactory(username="other-organizer")
    client.force_login(organizer)

    html = client.get(reverse("judging:assessors")).content.decode()

    assert 'data-assessor="alice"' in html
    assert 'data-assessor="org"' not in html
    assert 'data-assessor="other-organizer"' not in html
    row = html.split('data-assessor="alice"', 1)[1].split("</tr>", 1)[0]
    assert '<td class="num judgments">3</td>' in row


def test_a_deactivated_assessor_cannot_log_in_until_reactivated(client, organizer, assessor):
    assessor.set_password(GOOD)
    assessor.save()
    client.force_login(organizer)
    url = reverse("judging:assessor_active", args=[assessor.pk])

    client.post(url, {"active": "false"})
    assessor.refresh_from_db()
    assert not assessor.is_active
    assert authenticate(login_request(), username="alice", password=GOOD) is None

    client.post(url, {"active": "true"})
    assessor.refresh_from_db()
    assert assessor.is_active
    assert authenticate(login_request(), username="alice", password=GOOD) == assessor


def test_a_reset_password_works_and_ends_the_assessors_sessions(client, organizer, assessor):
    # given: the assessor is logged in elsewhere
    from django.test import Client

    theirs = Client()
    theirs.force_login(assessor)
    assert theirs.get("/judge/").status_code == 200
    client.force_login(organizer)

    # when
    client.post(reverse("judging:assessor_password", args=[assessor.pk]), {"password": "brand-new-password-9"})

    # then
    assert authenticate(login_request(), username="alice", password="brand-new-password-9") == User.objects.get(
        pk=assessor.pk
    )
    assert theirs.get("/judge/").status_code == 302  # their session ended


def test_a_weak_reset_password_is_refused_and_the_old_one_kept(client, organizer, assessor):
    assessor.set_password(GOOD)
    assessor.save()
    client.force_login(organizer)

    response = client.post(reverse("judging:assessor_password", args=[assessor.pk]), {"password": "x"}, follow=True)

    assert "Password not changed for alice" in response.content.decode()
    assert authenticate(login_request(), username="alice", password=GOOD) is not None


def test_organizer_accounts_cannot_be_managed_here_and_assessors_cannot_manage(client, organizer, assessor):
    other = OrganizerFactory(username="boss")
    client.force_login(organizer)
    assert client.post(reverse("judging:assessor_active", args=[other.pk]), {"active": "false"}).status_code == 404
    other.refresh_from_db()
    assert other.is_active

    client.force_login(UserFactory(username="carol"))
    assert client.get(reverse("judging:assessors")).status_code == 403
    assert client.post(reverse("judging:assessor_active", args=[assessor.pk]), {"active": "false"}).status_code == 403
