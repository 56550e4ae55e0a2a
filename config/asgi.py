"""The ASGI application, for an ASGI server if one is preferred (set DB_POOL=true there); the platform is served
by gunicorn's sync WSGI workers (`config/gunicorn.py`, docs/operations.md says why)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

application = get_asgi_application()

from config.startup import database_check  # noqa: E402  (after Django is set up)

database_check()
