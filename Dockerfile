# The platform's image: the web process (gunicorn, config/gunicorn.py) and the Celery worker run from it.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DATA_DIR=/data \
    STATIC_ROOT=/app/staticfiles

WORKDIR /app
COPY requirements/base.txt requirements/base.txt
RUN pip install -r requirements/base.txt

COPY . .
RUN DATABASE_URL=sqlite:////tmp/build.sqlite3 SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput -v0 \
    && useradd --system --uid 10001 --home-dir /app app \
    && mkdir -p /data/uploads \
    && chown -R app /data

USER app
EXPOSE 8000
CMD ["gunicorn", "-c", "config/gunicorn.py"]
