"""The ASGI application, for an ASGI server if one is preferred (uvicorn workers); the platform is served by
gunicorn's sync WSGI workers (`config/gunicorn.py`, docs/operations.md says why). Under ASGI the settings default
to a connection pool per process (DB_POOL, config/settings.py): each request's view runs in a thread of its own."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ["ASSESS_SERVER_INTERFACE"] = "asgi"

application = get_asgi_application()

from config.startup import database_check  # noqa: E402  (after Django is set up)

database_check()
