"""Logins throttled (issue 17, point 4): repeated failures lock a username at an address, on the login form and
over HTTP Basic; the right password is refused during the lock and accepted after the cool-off or once an
organizer lifts the lock in the admin; everyone else logs in as before. The API schema and docs need a login."""

from __future__ import annotations

import base64
from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.utils import timezone
from rest_framework.test import APIClient
from rest_framework.throttling import UserRateThrottle

from tests.conftest import PASSWORD
from tests.factories import OrganizerFactory, UserFactory

pytestmark = pytest.mark.django_db

TRIES = 40


@pytest.fixture(autouse=True)
def quick_hashes(settings):
    """A cheap hasher: PBKDF2 costs seconds per login on a loaded test machine, and the lock does not depend on it.
    Autouse, so it is in place before the users are made."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def form_login(client, username: str, password: str):
    return client.post("/accounts/login/", {"username": username, "password": password})


def basic(username: str, password: str) -> dict[str, str]:
    token = base64.b64encode(f"{username}:{password}".encode()).decode()
    return {"HTTP_AUTHORIZATION": f"Basic {token}"}


def signed_in(client) -> bool:
    return "_auth_user_id" in client.session


def test_it_locks_the_login_form_after_the_failure_limit_and_refuses_the_right_password(client, settings, assessor):
    # when
    statuses = [form_login(client, "alice", f"wrong-{n}").status_code for n in range(TRIES)]
    right = form_login(client, "alice", PASSWORD)

    # then
    limit = settings.AXES_FAILURE_LIMIT
    assert statuses[: limit - 1] == [200] * (limit - 1)  # the form again, with its error
    assert set(statuses[limit - 1 :]) == {429}
    assert right.status_code == 429
    assert not signed_in(client)
    page = right.content.decode()
    assert "Login locked" in page
    assert f"wait {int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)} minutes" in page.lower()
    assert "ask an organizer" in page


def test_it_accepts_the_right_password_once_the_cool_off_has_passed(client, settings, assessor):
    # given: locked by failures made longer ago than the cool-off
    for n in range(settings.AXES_FAILURE_LIMIT):
        form_login(client, "alice", f"wrong-{n}")
    assert form_login(client, "alice", PASSWORD).status_code == 429
    AccessAttempt.objects.update(attempt_time=timezone.now() - settings.AXES_COOLOFF_TIME - timedelta(seconds=1))

    # when
    response = form_login(client, "alice", PASSWORD)

    # then
    assert response.status_code == 302
    assert signed_in(client)


def test_an_organizer_sees_the_lock_in_the_admin_and_lifting_it_lets_the_person_in(client, settings, assessor):
    # given
    for n in range(TRIES):
        form_login(client, "alice", f"wrong-{n}")
    admin = APIClient()
    admin.force_login(OrganizerFactory(username="boss", is_superuser=True))

    # when
    listing = admin.get("/admin/axes/accessattempt/")
    attempt = AccessAttempt.objects.get(username="alice")
    deleted = admin.post(f"/admin/axes/accessattempt/{attempt.pk}/delete/", {"post": "yes"})

    # then
    assert listing.status_code == 200
    assert "alice" in listing.content.decode()
    assert deleted.status_code == 302
    assert not AccessAttempt.objects.filter(username="alice").exists()
    assert form_login(client, "alice", PASSWORD).status_code == 302
    assert signed_in(client)


def test_http_basic_is_locked_after_the_failure_limit_with_a_429_that_says_what_to_do(settings, assessor):
    api = APIClient()

    # when
    statuses = [api.get("/api/assignments/", **basic("alice", f"wrong-{n}")).status_code for n in range(TRIES)]
    right = api.get("/api/assignments/", **basic("alice", PASSWORD))

    # then
    limit = settings.AXES_FAILURE_LIMIT
    assert statuses[: limit - 1] == [403] * (limit - 1)  # DRF's answer to bad credentials
    assert set(statuses[limit - 1 :]) == {429}
    assert right.status_code == 429
    assert "ask an organizer" in right.json()["detail"]


def test_http_basic_accepts_the_right_password_after_the_lock_is_lifted(settings, assessor):
    api = APIClient()
    for n in range(TRIES):
        api.get("/api/assignments/", **basic("alice", f"wrong-{n}"))
    assert api.get("/api/assignments/", **basic("alice", PASSWORD)).status_code == 429

    # when
    AccessAttempt.objects.filter(username="alice").delete()
    response = api.get("/api/assignments/", **basic("alice", PASSWORD))

    # then
    assert response.status_code == 200


def test_one_locked_username_leaves_everyone_else_logging_in_normally(client, settings, assessor):
    # given: alice locked out from this address, and bob, who mistyped twice
    for n in range(TRIES):
        form_login(client, "alice", f"wrong-{n}")
    UserFactory(username="bob")
    other = client.__class__()
    form_login(other, "bob", "typo-1")
    form_login(other, "bob", "typo-2")

    # when
    response = form_login(other, "bob", PASSWORD)
    by_basic = APIClient().get("/api/assignments/", **basic("bob", PASSWORD))

    # then
    assert response.status_code == 302
    assert signed_in(other)
    assert by_basic.status_code == 200
    # a success forgets the earlier failures: bob starts from zero again
    assert not AccessAttempt.objects.filter(username="bob").exists()


def test_the_api_throttles_a_client_that_sends_too_many_requests(monkeypatch, assessor, fresh_cache):
    # given: a rate low enough to reach in a test (the configured one is 3000/min per user)
    monkeypatch.setattr(UserRateThrottle, "THROTTLE_RATES", {"user": "5/min", "anon": "5/min"})
    api = APIClient()
    api.force_login(assessor)

    # when
    statuses = [api.get("/api/assignments/").status_code for _ in range(7)]

    # then
    assert statuses == [200] * 5 + [429, 429]


def test_the_api_schema_and_docs_need_a_login(client, assessor):
    # when
    schema = APIClient().get("/api/schema/")
    docs = client.get("/api/docs/")

    # then
    assert schema.status_code in (401, 403)
    assert docs.status_code == 302
    assert docs["Location"].startswith("/accounts/login/")
    client.force_login(assessor)
    assert client.get("/api/docs/").status_code == 200
    assert client.get("/api/schema/").status_code == 200
