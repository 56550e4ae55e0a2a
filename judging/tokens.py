"""Submission tokens: what makes a repeated submit store one judgment."""

from __future__ import annotations

import uuid

from django.utils.crypto import salted_hmac


def submission_token(*, assignment_id: int, pair_id: int, nth: int) -> uuid.UUID:
    """The token of the `nth` judgment (0 = the first) of an assignment on a pair.

    Derived, not random: the same card shown twice (a reload, a second tab, a retried request) carries the
    same token, so it can only ever store one judgment. Keyed with the secret so that nobody can forge one."""
    digest = salted_hmac("judging.submission", f"{assignment_id}:{pair_id}:{nth}", algorithm="sha256").digest()
    return uuid.UUID(bytes=digest[:16], version=4)
