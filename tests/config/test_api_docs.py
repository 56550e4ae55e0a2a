"""The API's documentation page works offline: Swagger UI comes from our static files, not a CDN."""

from __future__ import annotations

import re

import pytest
from django.contrib.staticfiles import finders

pytestmark = pytest.mark.django_db


def test_the_api_docs_page_loads_swagger_ui_from_our_static_files(client, organizer):
    # given
    client.force_login(organizer)

    # when
    response = client.get("/api/docs/")

    # then
    assert response.status_code == 200
    html = response.content.decode()
    assert "cdn.jsdelivr.net" not in html
    assets = re.findall(r'(?:src|href)="/static/([^"]+)"', html)
    assert any(a.endswith("swagger-ui-bundle.js") for a in assets), assets
    assert any(a.endswith("swagger-ui.css") for a in assets), assets
    for asset in assets:
        assert finders.find(asset), f"not among the static files: {asset}"


def test_the_organizer_pages_link_to_the_api_docs(client, organizer):
    client.force_login(organizer)

    html = client.get("/organize/campaigns/").content.decode()

    assert 'href="/api/docs/"' in html
