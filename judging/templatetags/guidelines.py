"""`{{ campaign.guidelines|guidelines_html }}`: a campaign's Markdown guidelines as the HTML pages show them
(judging/guidelines.py is the one place that turns them into HTML)."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString

from judging.guidelines import guidelines_html as _guidelines_html

register = template.Library()


@register.filter
def guidelines_html(text: str) -> SafeString:
    return _guidelines_html(text)
