"""Settings from the environment, with safe local defaults; each default is written here and nowhere else.

With nothing set but DEBUG=true, the platform runs on a SQLite file and Celery tasks run in process.
DATABASE_URL switches to PostgreSQL; REDIS_URL (or CELERY_BROKER_URL) to a real broker. Outside DEBUG,
SECRET_KEY must be set. A variable set to the empty string counts as unset; a value that cannot be read
(`DEBUG=maybe`, `CONN_MAX_AGE=soon`) stops the start with an error naming the variable.
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off"})


def env_str(name: str, default: str) -> str:
    return os.environ.get(name, "").strip() or default


def env_bool(name: str, default: bool) -> bool:
    value = env_str(name, "").lower()
    if not value:
        return default
    if value in TRUE_WORDS:
        return True
    if value in FALSE_WORDS:
        return False
    raise ImproperlyConfigured(f"{name}={os.environ[name]!r} is not a boolean: use true or false")


def env_int(name: str, default: int) -> int:
    value = env_str(name, "")
    try:
        return int(value) if value else default
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not a whole number") from None


def env_float(name: str, default: float) -> float:
    value = env_str(name, "")
    try:
        return float(value) if value else default
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not a number") from None


def env_list(name: str, default: str) -> list[str]:
    """A comma-separated list."""
    return [item.strip() for item in env_str(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG", default=False)

# No default key outside DEBUG: a server must not start signing sessions with a key anyone can read here.
SECRET_KEY = env_str("SECRET_KEY", "insecure-local-only-key-do-not-use-in-production" if DEBUG else "")
if not SECRET_KEY:
    raise ImproperlyConfigured(
        "SECRET_KEY is not set: give it a long random value (only a DEBUG=true run has a local key)"
    )

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "template_partials",
    "core",
    "assess",
    "judging",
    "judging.llm",
    "metrics",
    "metrics.study",
    "metrics.budget",
    "metrics.quality",
    "kinds",
    "kinds.sentence",
    "kinds.relevance",
    # Failed logins recorded and locked out (issue 17, point 4): its attempts and their reset are in the admin.
    "axes",
]

# Judgment kinds (judging/kinds.py, docs/kinds.md): a kind's name -> its `Kind`. Support first: the default.
JUDGMENT_KINDS = {
    "support": "kinds.support.kind.KIND",
    "sentence": "kinds.sentence.kind.KIND",
    "relevance": "kinds.relevance.kind.KIND",
}

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "core.middleware.refuse_nul_middleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, as django-axes asks: turns a login refused because of a lockout into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

DATA_DIR = Path(env_str("DATA_DIR", str(BASE_DIR / "var")))
DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", f"sqlite:///{DATA_DIR / 'db.sqlite3'}"),
        conn_max_age=env_int("CONN_MAX_AGE", 60),
    )
}
DB_PREPARED_STATEMENTS = env_bool("DB_PREPARED_STATEMENTS", default=True)
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets the in-process import tasks write while pages read.
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
    }
    DATABASES["default"]["CONN_MAX_AGE"] = 0
elif DB_PREPARED_STATEMENTS:
    # Parameters bound by the server, and a statement run five times on a connection prepared there: the judging
    # page's few statements run on every keystroke, and planning them each time was most of PostgreSQL's CPU.
    # Turn off behind a pooler in transaction mode (PgBouncer before 1.21), which cannot keep prepared statements.
    DATABASES["default"].setdefault("OPTIONS", {}).update({"server_side_binding": True, "prepare_threshold": 5})
if DATABASES["default"]["ENGINE"] != "django.db.backends.sqlite3":
    # An unreachable PostgreSQL fails a request within seconds (a 503, config/errors.py), not after a minute.
    DATABASES["default"].setdefault("OPTIONS", {})["connect_timeout"] = env_int("DB_CONNECT_TIMEOUT", 5)
# Which interface serves this process: config/asgi.py says "asgi" before Django reads these settings; anything else
# (gunicorn's sync workers on config/wsgi.py, the commands, Celery) is "wsgi".
SERVER_INTERFACE = env_str("ASSESS_SERVER_INTERFACE", "wsgi")
# Under ASGI (uvicorn workers) Django runs each request's view in a thread of its own (the sync-to-async executor),
# so persistent connections pile up, one per thread, until PostgreSQL refuses clients ("too many clients"): there
# the default is a pool per process, at most DB_POOL_SIZE connections whatever the threads (docs/operations.md,
# "Database connections", has the arithmetic). Sync workers hold one persistent connection each without a pool.
DB_POOL = env_bool("DB_POOL", default=SERVER_INTERFACE == "asgi")
if DATABASES["default"]["ENGINE"] != "django.db.backends.sqlite3" and DB_POOL:
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 1,
        "max_size": env_int("DB_POOL_SIZE", 4),
        "timeout": 30,
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# django-axes first: it refuses a locked-out username+address before any password is checked; then Django's
# model backend (core/auth.py: Django's, under the dotted path signed-in sessions store).
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "core.auth.ModelBackend"]

# Logins throttled (docs/operations.md, "Logins"): after LOGIN_FAILURE_LIMIT failures for one username from
# one address, within LOGIN_COOLOFF_MINUTES of each other, that username is locked at that address for the
# cool-off, on the login form and over HTTP Basic alike; an organizer can lift it in the admin at once.
AXES_ENABLED = env_bool("AXES_ENABLED", default=True)
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 10)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "core.auth.lockout_response"
# The address is REMOTE_ADDR: behind a proxy that is the proxy's, and the lock is then in effect per username.

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(BASE_DIR / "staticfiles")))
# Serve from the app and project static folders when `collectstatic` has not been run (demo, tests).
WHITENOISE_USE_FINDERS = True
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(DATA_DIR / "uploads")))
# The TREC 2024 RAG files the demo, the tests and the benchmarks read: the repository's own copy
# (data/trec-rag-2024/SOURCES.md) unless ASSESS_DATA_DIR points at another one (assess/data.py checks it).
ASSESS_DATA_DIR = Path(env_str("ASSESS_DATA_DIR", str(BASE_DIR / "data" / "trec-rag-2024")))

DATA_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024

# The Redis used for cross-worker state (rate limits, progress); none in the embedded default.
REDIS_URL = env_str("REDIS_URL", "")

# Celery: a Redis broker when one is configured, otherwise tasks run in process.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", REDIS_URL)
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", default=not CELERY_BROKER_URL)
if not CELERY_BROKER_URL:
    CELERY_BROKER_URL = "memory://"
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 3600)
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 3500)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Sending a task to an unreachable broker fails within seconds (a 503 to the request that sent it), not a minute.
CELERY_BROKER_CONNECTION_TIMEOUT = env_float("REDIS_CONNECT_TIMEOUT", 2.0)
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "socket_connect_timeout": env_float("REDIS_CONNECT_TIMEOUT", 2.0),
    "socket_timeout": env_float("REDIS_SOCKET_TIMEOUT", 5.0),
}
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.5, "interval_max": 1}

# Bounds on every imported file (assess/importers/lines.py), whichever way it comes in: its size on disk and
# once decompressed, one line's length (read with a bound, never whole), and how far a .gz may expand.
IMPORT_MAX_FILE_BYTES = env_int("IMPORT_MAX_FILE_MB", 4096) * 1024 * 1024
IMPORT_MAX_LINE_BYTES = env_int("IMPORT_MAX_LINE_KB", 8192) * 1024
IMPORT_MAX_GZIP_RATIO = env_int("IMPORT_MAX_GZIP_RATIO", 32)
# Long work (imports, pre-labelling, a study's second judge) goes to the Celery workers whenever a broker is
# configured. Only in the embedded default (tasks eager) does it run in a thread of the web process, so that the
# request returns; false runs it inline (core/background.py, docs/operations.md "Background work").
BACKGROUND_IN_THREAD = env_bool("BACKGROUND_IN_THREAD", default=True)
# An import whose worker has sent no heartbeat for this long is taken for dead: shown so, and resumable.
IMPORT_HEARTBEAT_SECONDS = env_float("IMPORT_HEARTBEAT_SECONDS", 10.0)
IMPORT_STALE_SECONDS = env_float("IMPORT_STALE_SECONDS", 120.0)

# LLM pre-labelling (judging.llm). Keys and endpoints are read from the environment where they are used.
LLM_CHUNK_SIZE = env_int("LLM_CHUNK_SIZE", 0)  # pairs per Celery task; 0: sized from the judge's concurrency
LLM_MAX_ATTEMPTS = env_int("LLM_MAX_ATTEMPTS", 5)
LLM_BACKOFF_BASE_SECONDS = env_float("LLM_BACKOFF_BASE_SECONDS", 1.0)
LLM_BACKOFF_CAP_SECONDS = env_float("LLM_BACKOFF_CAP_SECONDS", 60.0)
LLM_REQUEST_TIMEOUT = env_float("LLM_REQUEST_TIMEOUT", 60.0)
LLM_CLAIM_STALE_SECONDS = env_float("LLM_CLAIM_STALE_SECONDS", 900.0)
LLM_BATCH_POLL_SECONDS = env_float("LLM_BATCH_POLL_SECONDS", 30.0)
# Where the rate limits and concurrency slots live; empty: REDIS_URL, else this process's memory.
LLM_RATE_LIMIT_STORAGE = env_str("LLM_RATE_LIMIT_STORAGE", "")

# Import progress is written here by the worker and read by the pages: it must be shared across processes.
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "assess",
            # An unreachable Redis fails fast (a 503, config/errors.py) instead of holding a worker for minutes.
            "OPTIONS": {
                "SOCKET_CONNECT_TIMEOUT": env_float("REDIS_CONNECT_TIMEOUT", 2.0),
                "SOCKET_TIMEOUT": env_float("REDIS_SOCKET_TIMEOUT", 5.0),
            },
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "assess"}}
# Sessions read through the cache, written through to the database: one query less on every request.
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        # HTTP Basic that answers 429 with what to do when django-axes has locked the username out.
        "core.auth.LockoutAwareBasicAuthentication",
        # API clients and the load benchmark: a password hash per request (Basic) would dominate a small request.
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # DRF's three parsers, JSON's with its nesting bounded (a deep body is a 400, not a RecursionError), and no
    # control character in a body's strings (config/parsers.py).
    "DEFAULT_PARSER_CLASSES": [
        "config.parsers.BoundedJSONParser",
        "config.parsers.CheckedFormParser",
        "config.parsers.CheckedMultiPartParser",
    ],
    # Requests per client and minute (docs/operations.md): far above a person or one well-behaved script, low
    # enough that a runaway or hostile client is slowed to 429s; counted in the cache (Redis when configured).
    "DEFAULT_THROTTLE_CLASSES": [
        "rest_framework.throttling.AnonRateThrottle",
        "rest_framework.throttling.UserRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_str("API_THROTTLE_ANON", "60/min"),
        "user": env_str("API_THROTTLE_USER", "3000/min"),
    },
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "core.pagination.BoundedLimitOffsetPagination",
    "PAGE_SIZE": 100,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Support assessment platform API",
    "DESCRIPTION": "Topics, passages, runs, campaigns, judgments, scores and agreement.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # The schema and /api/docs/ are for signed-in users, as the API itself is.
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
    # The Swagger UI's files from drf-spectacular-sidecar, not a CDN: the docs page works without the internet.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # `label` and `shown_label` hold the same three labels: one enumeration in the schema, named for them.
    "ENUM_NAME_OVERRIDES": {
        "LabelEnum": "judging.models.Label",
        "ConditionEnum": "judging.models.Condition",
        # assignment by plan takes the two conditions an assessor judges in (judging/planning/)
        "PlanConditionEnum": ["from_scratch", "post_edit"],
        # what a campaign judges: the registered kinds (judging/kinds.py)
        "CampaignKindEnum": "judging.models.kind_choices",
    },
    # Every operation's error answers (400, 401, 403, 404, 503), written once in config/schema.py.
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "config.schema.add_error_responses"],
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "WARNING")},
}

# HTTPS, each part by its own variable (docs/operations.md lists the production values; `manage.py check --deploy`
# is clean with them). Off by default: a local or demo server speaks plain HTTP.
if not DEBUG:
    SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = env_bool("SECURE_COOKIES", default=False)
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=False)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", default=False)
# Behind a TLS-terminating proxy that sets X-Forwarded-Proto (and strips it from clients): the request is HTTPS.
if env_bool("TRUST_X_FORWARDED_PROTO", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
