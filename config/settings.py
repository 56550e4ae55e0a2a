"""Settings from the environment, with safe local defaults.

With nothing set, the platform runs on a SQLite file and Celery tasks run in process.
DATABASE_URL switches to PostgreSQL; REDIS_URL (or CELERY_BROKER_URL) to a real broker.
"""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent


def envbool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def envint(name: str, default: int) -> int:
    value = os.environ.get(name)
    return int(value) if value else default


def envfloat(name: str, default: float) -> float:
    value = os.environ.get(name)
    return float(value) if value else default


DEBUG = envbool("DEBUG", default=False)

# Production must set SECRET_KEY; only a debug/demo run may fall back to a local key.
_secret = os.environ.get("SECRET_KEY")
if not _secret:
    if not envbool("ALLOW_INSECURE_SECRET", default=True):
        raise RuntimeError("SECRET_KEY must be set")
    _secret = "insecure-local-only-key-do-not-use-in-production"
SECRET_KEY = _secret

ALLOWED_HOSTS = [h for h in os.environ.get("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]").split(",") if h]
CSRF_TRUSTED_ORIGINS = [o for o in os.environ.get("CSRF_TRUSTED_ORIGINS", "").split(",") if o]

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
    "django_htmx",
    "template_partials",
    "assess",
    "judging",
    "metrics",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "config.middleware.refuse_nul_middleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
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

DATA_DIR = Path(os.environ.get("DATA_DIR", BASE_DIR / "var"))
DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{DATA_DIR / 'db.sqlite3'}",
        conn_max_age=envint("CONN_MAX_AGE", 60),
    )
}
DB_PREPARED_STATEMENTS = envbool("DB_PREPARED_STATEMENTS", default=True)
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
if DATABASES["default"]["ENGINE"] != "django.db.backends.sqlite3" and envbool("DB_POOL", default=False):
    # Under ASGI (config/asgi.py turns this on) Django runs each request's view in a thread of its own, so
    # persistent connections would pile up: a pool per process instead, as Django's documentation advises.
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 1,
        "max_size": envint("DB_POOL_SIZE", 4),
        "timeout": 30,
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# The judging keystroke served outside Django's request cycle under ASGI, on PostgreSQL with Redis
# (judging/keystroke.py); its connections to PostgreSQL per server worker process.
JUDGE_FAST_PATH = envbool("JUDGE_FAST_PATH", default=True)
JUDGE_FAST_PATH_POOL = envint("JUDGE_FAST_PATH_POOL", 4)

# Django's model backend, with the session's user read in plain SQL (config/auth.py).
AUTHENTICATION_BACKENDS = ["config.auth.ModelBackend"]

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
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "staticfiles"))
# Serve from the app and project static folders when `collectstatic` has not been run (demo, tests).
WHITENOISE_USE_FINDERS = True
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", DATA_DIR / "uploads"))

DATA_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024

# Celery: a Redis broker when one is configured, otherwise tasks run in process.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL") or os.environ.get("REDIS_URL") or ""
CELERY_TASK_ALWAYS_EAGER = envbool("CELERY_TASK_ALWAYS_EAGER", default=not CELERY_BROKER_URL)
if not CELERY_BROKER_URL:
    CELERY_BROKER_URL = "memory://"
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = envint("CELERY_TASK_TIME_LIMIT", 3600)
CELERY_TASK_SOFT_TIME_LIMIT = envint("CELERY_TASK_SOFT_TIME_LIMIT", 3500)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

# The Redis used for cross-worker state (rate limits, progress); none in the embedded default.
REDIS_URL = os.environ.get("REDIS_URL", "")

# In the embedded default (no broker), an import runs in a thread of the web process so the request returns.
IMPORT_TASKS_IN_THREAD = envbool("IMPORT_TASKS_IN_THREAD", default=True)

# LLM pre-labelling (judging.llm). Keys and endpoints are read from the environment where they are used.
LLM_CHUNK_SIZE = envint("LLM_CHUNK_SIZE", 0)  # pairs per Celery task; 0: sized from the judge's concurrency
LLM_MAX_ATTEMPTS = envint("LLM_MAX_ATTEMPTS", 5)
LLM_BACKOFF_BASE_SECONDS = envfloat("LLM_BACKOFF_BASE_SECONDS", 1.0)
LLM_BACKOFF_CAP_SECONDS = envfloat("LLM_BACKOFF_CAP_SECONDS", 60.0)
LLM_REQUEST_TIMEOUT = envfloat("LLM_REQUEST_TIMEOUT", 60.0)
LLM_CLAIM_STALE_SECONDS = envfloat("LLM_CLAIM_STALE_SECONDS", 900.0)
LLM_BATCH_POLL_SECONDS = envfloat("LLM_BATCH_POLL_SECONDS", 30.0)
# In the embedded default (no broker), run a job in a thread of the web process so the request returns.
LLM_TASKS_IN_THREAD = envbool("LLM_TASKS_IN_THREAD", default=True)
# Where the rate limits and concurrency slots live; empty: REDIS_URL, else this process's memory.
LLM_RATE_LIMIT_STORAGE = os.environ.get("LLM_RATE_LIMIT_STORAGE", "")

# Import progress is written here by the worker and read by the pages: it must be shared across processes.
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "config.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "assess",
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "assess"}}
# Sessions read through the cache, written through to the database: one query less on every request.
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.BasicAuthentication",
        # API clients and the load benchmark: a password hash per request (Basic) would dominate a small request.
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "config.pagination.BoundedLimitOffsetPagination",
    "PAGE_SIZE": 100,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Support assessment platform API",
    "DESCRIPTION": "Topics, passages, runs, campaigns, judgments, scores and agreement.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}

if not DEBUG:
    SESSION_COOKIE_SECURE = envbool("SECURE_COOKIES", default=False)
    CSRF_COOKIE_SECURE = envbool("SECURE_COOKIES", default=False)
