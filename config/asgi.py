"""The ASGI application: Django, with the judging keystroke served beside it (judging/keystroke.py).

gunicorn config.asgi:application -k uvicorn_worker.UvicornWorker --workers 4
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DB_POOL", "true")  # Django's views run in a thread per request here: pooled connections
django_application = get_asgi_application()

from judging.keystroke import KeystrokeApp  # noqa: E402  (after Django is set up)

application = KeystrokeApp(django_application)
