"""Which campaign a metrics page shows when its address names none: the one the organizer chose last, kept per
user (`judging.models.CampaignChoice`, so it survives logging out), never silently the newest (issue 24).

A page that names `?campaign=` (empty: everything loaded) is a choice, remembered for the next page."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.http import HttpRequest, QueryDict

from judging import selectors, services
from judging.models import Campaign


def _user(request: HttpRequest) -> User | None:
    return request.user if isinstance(request.user, User) else None


def query_with_last_campaign(request: HttpRequest) -> tuple[QueryDict, bool]:
    """The page's query, with `campaign` filled in from the user's last choice when it names none; and whether
    it was filled in."""
    user = _user(request)
    if "campaign" in request.GET or user is None:
        return request.GET, False
    last = selectors.campaign_choice_last(user=user)
    if isinstance(last, selectors.NoChoice):
        return request.GET, False
    query = request.GET.copy()
    query["campaign"] = last.name if last is not None else ""
    return query, True


def campaign_remember(request: HttpRequest, name: str) -> None:
    """Keep the campaign named `name` ("" for everything loaded) as the user's choice."""
    user = _user(request)
    if user is None:
        return
    campaign = Campaign.objects.filter(name=name).first() if name else None
    if name and campaign is None:
        return
    services.campaign_choice_remember(user=user, campaign=campaign)  # one upsert: no read of the last choice first


def page_campaign(request: HttpRequest) -> Campaign | None:
    """The campaign of a page with a campaign filter (studies, budget samples): `?campaign=` remembered, else
    the user's last choice; None is every campaign."""
    query, _ = query_with_last_campaign(request)
    name = query.get("campaign", "")
    campaign = Campaign.objects.filter(name=name).first() if name else None
    if "campaign" in request.GET:
        campaign_remember(request, name)
    return campaign
