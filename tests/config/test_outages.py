"""The server under outages (issue 17, points 2 and 6): gunicorn started as in production, in a subprocess.

- the database named by DATABASE_URL does not exist: it refuses to start, saying which and what to do;
- Redis (cache, sessions, broker) is unreachable: pages and the API answer 503 with a clear message, quickly,
  and the keystroke stores nothing it did not acknowledge;
- PostgreSQL goes away: the API answers 503, not 500."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import requests
from django.conf import settings
from rest_framework.authtoken.models import Token

from assess.models import ImportJob
from judging.models import Judgment
from tests.conftest import PASSWORD, ROOT
from tests.factories import AssignmentFactory, judging_campaign_build

GUNICORN = str(Path(sys.executable).with_name("gunicorn"))
CSRF = "k" * 32  # a CSRF secret, as the cookie holds it and a client may echo it
QUICK = 10  # seconds: an answer slower than this is a hang, whatever its status


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def closed_port() -> int:
    return free_port()  # nothing listens there once the probe socket is closed


def database_url(name: str | None = None, port: int | None = None) -> str:
    db = settings.DATABASES["default"]
    return (
        f"postgres://{db['USER']}{':' + db['PASSWORD'] if db['PASSWORD'] else ''}@{db['HOST'] or '127.0.0.1'}"
        f":{port or db['PORT'] or 5432}/{name or db['NAME']}"
    )


def gunicorn(port: int, **env: str) -> subprocess.Popen[str]:
    environment = {
        **os.environ,
        "GUNICORN_BIND": f"127.0.0.1:{port}",
        "WEB_CONCURRENCY": "1",
        "GUNICORN_ACCESS_LOG": "",
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "CELERY_TASK_ALWAYS_EAGER": "false",
        **env,
    }
    return subprocess.Popen(
        [GUNICORN, "-c", "config/gunicorn.py"],
        cwd=ROOT,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


@contextmanager
def serving(**env: str) -> Iterator[str]:
    port = free_port()
    server = gunicorn(port, **env)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            assert server.poll() is None, server.communicate()[0]
            try:
                # The first request imports every view (numpy, scipy, scikit-learn): slow on a busy machine.
                requests.get(f"{base}/accounts/login/", timeout=90)
                break
            except requests.ConnectionError:
                time.sleep(0.3)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=30)


def timed(method: str, url: str, **kwargs) -> tuple[requests.Response, float]:
    start = time.monotonic()
    response = requests.request(method, url, timeout=QUICK * 3, allow_redirects=False, **kwargs)
    return response, time.monotonic() - start


def test_it_refuses_to_start_on_a_database_that_does_not_exist_and_says_what_to_do():
    # given
    port = free_port()

    # when
    server = gunicorn(port, DATABASE_URL=database_url(name="assess_no_such_database"))
    try:
        output, _ = server.communicate(timeout=60)
    finally:
        server.kill()

    # then
    assert server.returncode != 0
    assert "the database 'assess_no_such_database' does not exist" in output
    assert "createdb assess_no_such_database" in output
    with pytest.raises(requests.ConnectionError):
        requests.get(f"http://127.0.0.1:{port}/accounts/login/", timeout=QUICK)


@pytest.mark.django_db(transaction=True)
def test_it_answers_503_quickly_on_pages_and_api_when_redis_is_unreachable(client, organizer, assessor):
    # given: a signed-in assessor's session (made while Redis answers) and an organizer's API token
    campaign = judging_campaign_build(n_sentences=3)
    assignment = AssignmentFactory(assessor=assessor, campaign=campaign, topic=campaign.topics.get())
    client.force_login(assessor)
    session = {"sessionid": client.cookies["sessionid"].value}
    token = Token.objects.create(user=organizer).key
    redis_down = f"redis://127.0.0.1:{closed_port()}/0"

    with serving(REDIS_URL=redis_down, DATABASE_URL=database_url()) as base:
        # when
        login, login_s = timed(
            "POST",
            f"{base}/accounts/login/",
            cookies={"csrftoken": CSRF},
            data={"username": "org", "password": PASSWORD, "csrfmiddlewaretoken": CSRF},
        )
        page, page_s = timed("GET", f"{base}/judge/{assignment.pk}/", cookies=session)
        keystroke, keystroke_s = timed(
            "POST",
            f"{base}/judge/{assignment.pk}/submit/",
            cookies={**session, "csrftoken": CSRF},
            headers={"X-CSRFToken": CSRF},
            data={"label": "FS"},
        )
        upload, upload_s = timed(
            "POST",
            f"{base}/api/imports/topics/",
            headers={"Authorization": f"Token {token}"},
            files={"files": ("topics.tsv", b"2024-1\tWhat is it?\n")},
        )

    # then
    for response, seconds in [(login, login_s), (page, page_s), (keystroke, keystroke_s), (upload, upload_s)]:
        assert response.status_code == 503, (response.request.url, response.status_code, response.text[:300])
        assert seconds < QUICK, (response.request.url, seconds)
        assert response.headers["Retry-After"] == "30"
    assert "database or Redis cannot be reached" in page.text
    assert "Nothing was saved" in page.text
    assert upload.json()["detail"].startswith("The service is unavailable")
    assert not Judgment.objects.filter(pair__campaign_pairs__campaign=campaign).exists()
    assert not ImportJob.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_it_answers_503_on_the_api_when_postgresql_is_unreachable(organizer):
    # given: a server whose PostgreSQL port is closed (it starts: the database may be starting too)
    with serving(DATABASE_URL=database_url(port=closed_port())) as base:
        # when
        response, seconds = timed("GET", f"{base}/api/topics/", auth=("org", PASSWORD))
        page, _ = timed("GET", f"{base}/judge/")

    # then
    assert response.status_code == 503
    assert response.json()["detail"].startswith("The service is unavailable")
    assert seconds < QUICK
    assert page.status_code in (302, 503)  # to the login page, or unavailable: never a 500
