"""The judging keystroke outside Django's request cycle: the speed goal of issue 3 (300 judgments/s at p95 25 ms
on two cores) is out of reach for a Django request, whose middleware, session, user, form and ORM cost ~10 ms of
CPU a keystroke here.

`KeystrokeApp` wraps the Django ASGI application. For `POST /judge/<id>/submit/` from the judging page (htmx), on
PostgreSQL with the Redis cache, it does the keystroke itself: the session and CSRF checks Django's middleware
would make, then one call of the database function `judging_keystroke` (migration judging/0006: store the
judgment as `services.judgment_submit` does, refresh the assignment's status, read the next card), then the
progress counts from the cache, then the same card partial Django's view renders.

It serves only the case it is sure of. Anything else goes to Django's view with the request unchanged: no or an
expired session, a password changed, a CSRF check that does not pass as plainly as here, an invalid form, a token
that is not a pair's first, a pair outside the pool, another person's assignment, an adjudication assignment, a
repeated token, a finished topic, progress counts not in the cache. Handing over is safe even after the
judgment was stored: a repeated submit of a token stores nothing more and returns the same next card (issue 3 §5),
so Django's view then renders what it would have rendered. `tests/test_keystroke.py` holds the two paths to the
same responses."""

from __future__ import annotations

import asyncio
import logging
import math
import pickle
import re
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qsl

import redis.asyncio
from django.conf import settings
from django.contrib.auth.models import User
from django.contrib.sessions.backends.cached_db import KEY_PREFIX as SESSION_CACHE_PREFIX
from django.core.cache import caches
from django.db import connections
from django.http import HttpResponse
from django.http.cookie import parse_cookie
from django.http.request import split_domain_port, validate_host

# Django's own CSRF token functions (private, not in the stubs): the same check as its middleware, not a copy.
from django.middleware.csrf import (  # type: ignore[attr-defined]
    InvalidTokenFormat,
    _check_token_format,
    _does_token_match,
    _mask_cipher_secret,
)
from django.template.loader import get_template
from django.utils.crypto import constant_time_compare
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from assess.models import Passage
from config.cache import INCR_IF_EXISTS
from judging import selectors
from judging.models import Assignment, Campaign, CampaignPair, Condition, Label
from judging.tokens import submission_token
from judging.views import judge_context

log = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[..., Awaitable[None]]

SUBMIT_PATH = re.compile(r"^/judge/(\d+)/submit/$")  # judging:submit (a test holds it to the URLconf)
SESSION_KEY = re.compile(r"^[a-z0-9]{32}$")
MAX_BODY = 16 * 1024
LABELS = frozenset(Label.values)
FAST_CONDITIONS = frozenset({Condition.FROM_SCRATCH.value, Condition.POST_EDIT.value})
_KEYSTROKE_SQL = "SELECT * FROM judging_keystroke(%s, %s, %s, %s, %s, %s, %s, %s, %s)"
_PASSWORD_SQL = "SELECT password FROM auth_user WHERE id = %s AND is_active"

# Why keystrokes were handed to Django, by reason, and how many were served here (for tests and the benchmark).
handed_over: Counter[str] = Counter()
served = 0


class Fallback(Exception):
    """Hand the request to Django's view; `reason` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def enabled() -> bool:
    """On PostgreSQL (where the function is) with the Redis cache (where sessions and progress counts are)."""
    return (
        settings.JUDGE_FAST_PATH
        and connections["default"].vendor == "postgresql"
        and settings.CACHES["default"]["BACKEND"] == "config.cache.RedisCache"
        and settings.SESSION_ENGINE == "django.contrib.sessions.backends.cached_db"
        and not settings.CSRF_USE_SESSIONS
        and not settings.USE_X_FORWARDED_HOST
    )


class KeystrokeApp:
    """The ASGI application: the judging keystroke here when it can be, every other request to Django."""

    def __init__(self, django_app: ASGIApp) -> None:
        self.django_app = django_app
        self.on = enabled()
        self._store: _Store | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        match = SUBMIT_PATH.match(scope.get("path", "")) if self.on and scope["type"] == "http" else None
        if match is None or scope["method"] != "POST":
            await self.django_app(scope, receive, send)
            return
        read, body, complete = await _read_body(receive)
        if not complete:
            handed_over["body"] += 1
            await self.django_app(scope, _replay(read, receive), send)
            return
        try:
            status, headers, content = await self._submit(int(match.group(1)), scope, body)
        except Fallback as exc:
            handed_over[exc.reason] += 1
            await self.django_app(scope, _replay(read, receive), send)
            return
        except Exception:
            # Django's view does the same work in full; a repeated token there stores nothing twice.
            log.exception("judging keystroke: handing the request to Django after an error")
            handed_over["error"] += 1
            await self.django_app(scope, _replay(read, receive), send)
            return
        global served
        served += 1
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": content})

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self._store is not None:
                    await self._store.close()
                log.info("judging keystroke: %d served here, handed to Django: %s", served, dict(handed_over))
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _store_get(self) -> _Store:
        if self._store is None:
            self._store = _Store()
        await self._store.open()
        return self._store

    async def _submit(
        self, assignment_id: int, scope: Scope, body: bytes
    ) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
        headers = dict(scope["headers"])
        if headers.get(b"hx-request") != b"true":
            raise Fallback("not htmx")  # the no-JavaScript form: Django's view answers with a redirect
        host = _checked_host(scope, headers)
        form = _form(headers, body)
        cookies = parse_cookie(headers.get(b"cookie", b"").decode("latin-1"))
        csrf_secret = _csrf_check(scope, headers, host, form, cookies)
        store = await self._store_get()
        user_id, session_hash = await store.session_user(cookies.get(settings.SESSION_COOKIE_NAME, ""))
        password = await store.verified_password(user_id, session_hash)
        submit = _submission(assignment_id, form)
        row = await store.keystroke(user_id, password, assignment_id, submit)
        if row["outcome"] != "stored":
            raise Fallback(row["outcome"])
        stamps = dict(zip(row["assignment_ids"], row["assignment_stamps"], strict=True))
        if row["first_judgment"]:
            await store.count_judged(assignment_id, stamps[assignment_id])
        if row["next_pair"] is None:
            raise Fallback("finished")  # Django's view renders the topic's end (and the next assignment)
        progress = await store.progress(stamps)
        html = _card_html(assignment_id, row, progress, csrf_token=_mask_cipher_secret(csrf_secret))
        return 200, _response_headers(len(html), csrf_secret, secure=_is_secure(scope, headers)), html


# --- the request, checked as Django's middleware and form would ---------------------------------------


async def _read_body(receive: Receive) -> tuple[list[Message], bytes, bool]:
    """The messages read, the body they carry, and whether that is all of it (a large body, or a client gone
    before the end, is left to Django)."""
    read: list[Message] = []
    size = 0
    while True:
        message = await receive()
        read.append(message)
        if message["type"] != "http.request":
            return read, b"", False
        size += len(message.get("body", b""))
        if not message.get("more_body", False):
            return read, b"".join(m.get("body", b"") for m in read), True
        if size > MAX_BODY:
            return read, b"", False


def _replay(read: list[Message], receive: Receive) -> Receive:
    """`receive` for Django: the messages already read, as they came, then the server's."""
    pending = list(read)

    async def replay() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return replay


def _checked_host(scope: Scope, headers: dict[bytes, bytes]) -> str:
    host = headers.get(b"host", b"").decode("latin-1")
    domain, _ = split_domain_port(host)
    allowed = settings.ALLOWED_HOSTS or ([".localhost", "127.0.0.1", "[::1]"] if settings.DEBUG else [])
    if not domain or not validate_host(domain, allowed):
        raise Fallback("host")
    return host


def _is_secure(scope: Scope, headers: dict[bytes, bytes]) -> bool:
    if settings.SECURE_PROXY_SSL_HEADER:
        name, value = settings.SECURE_PROXY_SSL_HEADER
        header = name.removeprefix("HTTP_").replace("_", "-").lower().encode("latin-1")
        return headers.get(header, b"").decode("latin-1").split(",")[0].strip() == value
    return bool(scope.get("scheme") == "https")


def _csrf_check(
    scope: Scope, headers: dict[bytes, bytes], host: str, form: dict[str, str], cookies: dict[str, str]
) -> str:
    """The CSRF cookie's secret if the request passes Django's CSRF check plainly: a same-origin `Origin` (which
    browsers send on every POST; on https it is required here, where Django would fall back to the Referer) and
    the form's or the header's token matching the cookie."""
    scheme = "https" if _is_secure(scope, headers) else "http"
    origin = headers.get(b"origin", b"").decode("latin-1")
    if origin:
        if origin != f"{scheme}://{host}" and origin not in settings.CSRF_TRUSTED_ORIGINS:
            raise Fallback("csrf")
    elif scheme == "https":
        raise Fallback("csrf")
    secret = cookies.get(settings.CSRF_COOKIE_NAME, "")
    token = form.get("csrfmiddlewaretoken") or headers.get(b"x-csrftoken", b"").decode("latin-1")
    if len(secret) != 32 or not token:
        raise Fallback("csrf")
    try:
        _check_token_format(secret)
        _check_token_format(token)
    except InvalidTokenFormat:
        raise Fallback("csrf") from None
    if not _does_token_match(token, secret):
        raise Fallback("csrf")
    return secret


def _form(headers: dict[bytes, bytes], body: bytes) -> dict[str, str]:
    if headers.get(b"content-type", b"").split(b";")[0].strip() != b"application/x-www-form-urlencoded":
        raise Fallback("form")
    try:
        pairs = parse_qsl(body.decode("utf-8"), keep_blank_values=True, strict_parsing=False)
    except UnicodeDecodeError:
        raise Fallback("form") from None
    form = dict(pairs)
    if len(form) != len(pairs) or any("\x00" in v for v in form.values()):
        raise Fallback("form")
    return form


def _submission(assignment_id: int, form: dict[str, str]) -> dict[str, Any]:
    """The submit's fields, if `SubmitForm` would take them as they are and the token is the pair's first."""
    pair = form.get("pair_id", "")
    label = form.get("label", "")
    if not pair.isascii() or not pair.isdigit() or int(pair) < 1 or label not in LABELS:
        raise Fallback("form")
    pair_id = int(pair)
    try:
        token = uuid.UUID(form.get("token", "").strip())
    except ValueError:
        raise Fallback("form") from None
    if token != submission_token(assignment_id=assignment_id, pair_id=pair_id, nth=0):
        raise Fallback("token")  # a change of an earlier judgment (its token is not the first), or not ours
    seconds: float | None = None
    raw = form.get("seconds", "").strip()
    if raw:
        try:
            seconds = float(raw)
        except ValueError:
            raise Fallback("form") from None
        if not math.isfinite(seconds) or seconds < 0:
            raise Fallback("form")
        seconds = min(seconds, 86400.0)
    flagged = form.get("flagged", "")
    if flagged not in ("", "on", "true"):
        raise Fallback("form")
    comment = form.get("comment", "").strip()
    if len(comment) > 2000:
        raise Fallback("form")
    return {
        "pair_id": pair_id,
        "label": label,
        "token": token,
        "seconds": seconds,
        "flagged": flagged != "",
        "comment": comment,
    }


# --- the stores: PostgreSQL and Redis, from this worker's event loop -------------------------------------


class _Store:
    """This worker's PostgreSQL pool and Redis client, opened on first use in the running event loop."""

    def __init__(self) -> None:
        self.pool: Any = None
        self.redis: Any = None
        self.cache = caches["default"]
        self._lock = asyncio.Lock()
        # (user id, session auth hash) -> the password hash it was checked against; the database function
        # stores nothing unless the user's password is still that hash and the user still active.
        self._verified: dict[tuple[int, str], str] = {}
        self._incr: Any = None

    async def open(self) -> None:
        if self.pool is not None:
            return
        async with self._lock:
            if self.pool is not None:
                return
            pool = AsyncConnectionPool(
                kwargs=_connection_kwargs(),
                min_size=1,
                max_size=settings.JUDGE_FAST_PATH_POOL,
                open=False,
                name="judging-keystroke",
            )
            await pool.open()
            self.redis = redis.asyncio.Redis.from_url(settings.CACHES["default"]["LOCATION"])
            self._incr = self.redis.register_script(INCR_IF_EXISTS)
            self.pool = pool

    async def close(self) -> None:
        if self.pool is not None:
            await self.pool.close()
            await self.redis.aclose()
            self.pool = None

    async def session_user(self, session_key: str) -> tuple[int, str]:
        """The session's user id and auth hash, from the cache Django's `cached_db` sessions read first."""
        if not SESSION_KEY.match(session_key):
            raise Fallback("session")
        raw = await self.redis.get(self.cache.make_key(SESSION_CACHE_PREFIX + session_key))
        if raw is None:
            raise Fallback("session")  # not cached (or expired): Django reads the database
        data = pickle.loads(raw)  # Django's Redis cache pickles; only this platform writes that Redis
        if not isinstance(data, dict):
            raise Fallback("session")
        backend, user, session_hash = (data.get(k) for k in ("_auth_user_backend", "_auth_user_id", "_auth_user_hash"))
        if (
            "_session_expiry" in data
            or backend != "config.auth.ModelBackend"
            or backend not in settings.AUTHENTICATION_BACKENDS
            or not isinstance(user, str)
            or not user.isdigit()
            or not isinstance(session_hash, str)
        ):
            raise Fallback("session")
        return int(user), session_hash

    async def verified_password(self, user_id: int, session_hash: str) -> str:
        """The password hash the session's auth hash was made from (as `django.contrib.auth.get_user` checks)."""
        known = self._verified.get((user_id, session_hash))
        if known is not None:
            return known
        async with self.pool.connection() as conn:
            row = await (await conn.execute(_PASSWORD_SQL, [user_id])).fetchone()
        if row is None or not constant_time_compare(User(password=row[0]).get_session_auth_hash(), session_hash):
            raise Fallback("user")
        if len(self._verified) > 50_000:
            self._verified.clear()
        self._verified[(user_id, session_hash)] = row[0]
        return str(row[0])

    async def keystroke(self, user_id: int, password: str, assignment_id: int, s: dict[str, Any]) -> dict[str, Any]:
        params = [
            user_id,
            password,
            assignment_id,
            s["pair_id"],
            s["label"],
            s["token"],
            s["seconds"],
            s["flagged"],
            s["comment"],
        ]
        async with self.pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            await cur.execute(_KEYSTROKE_SQL, params)
            row = await cur.fetchone()
        assert row is not None  # the function returns one row
        return row

    async def count_judged(self, assignment_id: int, created_at: Any) -> None:
        """`selectors.topic_counts_judged`: one more done, if the count is cached."""
        _, done_key = selectors.counts_keys(assignment_id, created_at)
        await self._incr(keys=[self.cache.make_key(done_key)], args=[1])

    async def progress(self, stamps: dict[int, Any]) -> dict[int, selectors.Progress]:
        """Each assignment's cached (done, total), as `selectors._progress_many` reads them; not cached: Django."""
        keys = {pk: selectors.counts_keys(pk, created_at) for pk, created_at in stamps.items()}
        flat = [self.cache.make_key(k) for pair in keys.values() for k in pair]
        values = await self.redis.mget(flat)
        if any(v is None for v in values):
            raise Fallback("counts")
        out: dict[int, selectors.Progress] = {}
        for i, pk in enumerate(keys):
            total, done = int(values[2 * i]), int(values[2 * i + 1])
            out[pk] = selectors.Progress(done=min(done, total), total=total)
        return out


def _connection_kwargs() -> dict[str, Any]:
    """psycopg's connection arguments for the database Django uses (its test database too)."""
    s = connections["default"].settings_dict
    kwargs: dict[str, Any] = {"dbname": s["NAME"], "autocommit": True}
    for key, name in (("USER", "user"), ("PASSWORD", "password"), ("HOST", "host"), ("PORT", "port")):
        if s.get(key):
            kwargs[name] = s[key]
    options = dict(s.get("OPTIONS") or {})
    for django_only in ("server_side_binding", "prepare_threshold", "pool", "isolation_level", "assume_role"):
        options.pop(django_only, None)
    kwargs.update(options)
    # A prepared statement unless prepared statements are off (behind a pooler in transaction mode).
    kwargs["prepare_threshold"] = 5 if settings.DB_PREPARED_STATEMENTS else None
    return kwargs


# --- the response -------------------------------------------------------------------------------------


def _card_html(
    assignment_id: int, row: dict[str, Any], progress: dict[int, selectors.Progress], *, csrf_token: str
) -> bytes:
    """The card partial of the function's next pair, from the same template and context builder as `views.submit`."""
    assignment = Assignment(pk=assignment_id, condition=row["assignment_condition"])
    assignment.campaign = Campaign(highlight_evidence=row["highlight"])
    card = selectors.card_of(
        assignment,
        CampaignPair(pair_id=row["next_pair"]),
        passage=Passage(passage_id=row["passage_id"], title=row["passage_title"], text=row["passage_text"]),
        answer=list(zip(row["answer_indexes"], row["answer_texts"], strict=True)),
        index=row["sentence_index"],
        nth=0,
        shown=row["llm_label"] or "",
    )
    topic = progress[assignment_id]
    state = selectors.QueueState(
        assignment=assignment,
        card=card,
        topic_progress=topic,
        overall_progress=selectors.Progress(
            done=sum(p.done for p in progress.values()), total=sum(p.total for p in progress.values())
        ),
        held_back=row["held_back"],
        has_judgments=topic.done > 0,
    )
    card.topic_progress, card.overall_progress, card.held_back = (
        state.topic_progress,
        state.overall_progress,
        state.held_back,
    )
    context = judge_context(state)
    context["csrf_token"] = csrf_token
    return get_template("judging/judge.html#pair-card").render(context).encode("utf-8")


def _response_headers(length: int, csrf_secret: str, *, secure: bool) -> list[tuple[bytes, bytes]]:
    """The headers Django's middleware puts on the view's response (a test holds them equal), with the CSRF
    cookie sent again as Django sends it whenever a page uses the token (to renew its expiry)."""
    cookie = HttpResponse()
    cookie.set_cookie(
        settings.CSRF_COOKIE_NAME,
        csrf_secret,
        max_age=settings.CSRF_COOKIE_AGE,
        domain=settings.CSRF_COOKIE_DOMAIN,
        path=settings.CSRF_COOKIE_PATH,
        secure=settings.CSRF_COOKIE_SECURE,
        httponly=settings.CSRF_COOKIE_HTTPONLY,
        samesite=settings.CSRF_COOKIE_SAMESITE,
    )
    headers = [
        (b"content-type", b"text/html; charset=utf-8"),
        (b"set-cookie", cookie.cookies[settings.CSRF_COOKIE_NAME].output(header="").strip().encode("latin-1")),
        (b"x-frame-options", settings.X_FRAME_OPTIONS.encode()),
        (b"vary", b"Cookie"),
        (b"content-length", str(length).encode()),
    ]
    if secure and settings.SECURE_HSTS_SECONDS:
        hsts = f"max-age={settings.SECURE_HSTS_SECONDS}"
        hsts += "; includeSubDomains" if settings.SECURE_HSTS_INCLUDE_SUBDOMAINS else ""
        hsts += "; preload" if settings.SECURE_HSTS_PRELOAD else ""
        headers.append((b"strict-transport-security", hsts.encode()))
    if settings.SECURE_CONTENT_TYPE_NOSNIFF:
        headers.append((b"x-content-type-options", b"nosniff"))
    if settings.SECURE_REFERRER_POLICY:
        headers.append((b"referrer-policy", settings.SECURE_REFERRER_POLICY.encode()))
    if settings.SECURE_CROSS_ORIGIN_OPENER_POLICY:
        headers.append((b"cross-origin-opener-policy", settings.SECURE_CROSS_ORIGIN_OPENER_POLICY.encode()))
    return headers
