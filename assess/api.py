"""REST API for the material: topics, runs with their counts, passages without text, uploads and their jobs.

Every endpoint is for organizers (staff). Uploads return 202 with the job's id and status URL; the import
runs as a Celery task and the status endpoint reports its progress, errors and warnings.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import generics, serializers, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import IsAdminUser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from assess import selectors
from assess.forms import RUN_FORMAT_CHOICES, run_options
from assess.importers.job_run import ImportJobInvalid, import_job_progress, import_job_stalled
from assess.models import ImportJob, ImportKind, Passage, Run, Task, Topic
from assess.uploads import import_job_create, import_job_resume
from core.columns import column_bounds


class ErrorDetailSerializer(serializers.Serializer[dict[str, Any]]):
    """An error's answer, `{"detail": "..."}`: what every API view refuses with when no field is at fault
    (config/schema.py documents the common ones on every operation; a view names its own, such as a 409)."""

    detail = serializers.CharField()


class TopicSerializer(serializers.ModelSerializer[Topic]):
    answers_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Topic
        fields = ["topic_id", "text", "answers_count"]


class RunSerializer(serializers.ModelSerializer[Run]):
    topics_answered = serializers.IntegerField(read_only=True)
    sentences = serializers.IntegerField(read_only=True)
    citations = serializers.IntegerField(read_only=True)
    passages_without_text = serializers.IntegerField(read_only=True)

    class Meta:
        model = Run
        fields = [
            "run_id",
            "group",
            "task",
            "priority",
            "source_file",
            "created_at",
            "topics_answered",
            "sentences",
            "citations",
            "passages_without_text",
        ]


class MissingPassageSerializer(serializers.ModelSerializer[Passage]):
    class Meta:
        model = Passage
        fields = ["passage_id"]


class ImportMessageSerializer(serializers.Serializer[dict[str, Any]]):
    file = serializers.CharField()
    line = serializers.IntegerField(allow_null=True)
    field = serializers.CharField(allow_blank=True)
    message = serializers.CharField()
    text = serializers.CharField(help_text="file:line: field: message")


class ImportReportSerializer(serializers.Serializer[dict[str, Any]]):
    """`ImportReport.as_dict()`: what an import found (the first few hundred messages; the counts are exact)."""

    ok = serializers.BooleanField()
    errors = ImportMessageSerializer(many=True)  # type: ignore[assignment]  # a field, not Serializer.errors
    warnings = ImportMessageSerializer(many=True)
    error_count = serializers.IntegerField()
    warning_count = serializers.IntegerField()
    counts = serializers.DictField(child=serializers.IntegerField(), help_text="rows read and written, by kind")


class ImportJobSerializer(serializers.Serializer[dict[str, Any]]):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=ImportKind.choices)
    status = serializers.CharField(help_text="pending, running, done or failed")
    stalled = serializers.BooleanField(
        help_text="running, but its worker has sent no heartbeat for IMPORT_STALE_SECONDS: it died; POST resume/"
    )
    url = serializers.URLField(help_text="this status endpoint")
    page_url = serializers.URLField(help_text="the organizer's page for the job")
    files = serializers.ListField(child=serializers.CharField(), help_text="the uploaded file names")
    options = serializers.DictField()
    percent = serializers.IntegerField()
    done = serializers.IntegerField(help_text="bytes read so far (passages, for a corpus fill)")
    total = serializers.IntegerField()
    errors = ImportMessageSerializer(many=True)  # type: ignore[assignment]
    warnings = ImportMessageSerializer(many=True)
    warning_count = serializers.IntegerField()
    counts = serializers.DictField(child=serializers.IntegerField(), help_text="what was imported")
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)


def _job_data(request: Request, job: ImportJob) -> dict[str, Any]:
    progress = import_job_progress(job)
    summary = job.summary or {}
    return {
        "id": job.pk,
        "kind": job.kind,
        "status": job.status,
        "stalled": import_job_stalled(job),
        "url": request.build_absolute_uri(reverse("assess_api:import-job", args=[job.pk])),
        "page_url": request.build_absolute_uri(reverse("assess:job", args=[job.pk])),
        "files": [f["name"] for f in job.files],
        "options": job.options,
        "percent": progress.percent,
        "done": progress.done,
        "total": progress.total,
        "errors": job.errors,
        "warnings": job.warnings,
        "warning_count": summary.get("warning_count", len(job.warnings)),
        "counts": summary.get("counts", {}),
        "created_at": job.created_at,
        "finished_at": job.finished_at,
    }


class TopicListApi(generics.ListAPIView[Topic]):
    permission_classes = [IsAdminUser]
    serializer_class = TopicSerializer

    def get_queryset(self) -> QuerySet[Topic]:
        return selectors.topic_list()


class TopicDetailApi(generics.RetrieveAPIView[Topic]):
    permission_classes = [IsAdminUser]
    serializer_class = TopicSerializer
    lookup_field = "topic_id"

    def get_queryset(self) -> QuerySet[Topic]:
        return selectors.topic_list()


class RunListApi(generics.ListAPIView[Run]):
    permission_classes = [IsAdminUser]
    serializer_class = RunSerializer

    def get_queryset(self) -> QuerySet[Run]:
        return selectors.run_list()


class RunDetailApi(generics.RetrieveAPIView[Run]):
    permission_classes = [IsAdminUser]
    serializer_class = RunSerializer
    lookup_field = "run_id"

    def get_queryset(self) -> QuerySet[Run]:
        return selectors.run_list()


class MissingPassageListApi(generics.ListAPIView[Passage]):
    """Passages that a loaded run cites and that have no text yet."""

    permission_classes = [IsAdminUser]
    serializer_class = MissingPassageSerializer

    def get_queryset(self) -> QuerySet[Passage]:
        return selectors.passages_missing_text().order_by("passage_id")


@extend_schema_field({"type": "string", "format": "binary"})
class UploadedFileField(serializers.FileField):
    """An uploaded file; documented as binary (a plain FileField is documented as a URL)."""


class FilesUploadSerializer(serializers.Serializer[dict[str, Any]]):
    files = serializers.ListField(child=UploadedFileField(), allow_empty=False)


class RunsUploadSerializer(FilesUploadSerializer):
    format = serializers.ChoiceField(choices=RUN_FORMAT_CHOICES, required=False)
    group = serializers.CharField(required=False, allow_blank=True, max_length=128)
    task = serializers.ChoiceField(choices=Task.choices, required=False)
    priority = serializers.IntegerField(required=False, allow_null=True, **column_bounds(Run, "priority", min_value=1))
    replace = serializers.BooleanField(required=False, default=False)


class _UploadApi(APIView):
    permission_classes = [IsAdminUser]
    parser_classes = [MultiPartParser, FormParser]
    kind: ClassVar[str]
    input_serializer: ClassVar[type[FilesUploadSerializer]] = FilesUploadSerializer

    def job_options(self, data: dict[str, Any]) -> dict[str, Any]:
        return {}

    def upload(self, request: Request) -> Response:
        serializer = self.input_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        job = import_job_create(
            kind=self.kind, uploaded_files=data["files"], options=self.job_options(data), user=request.user
        )
        body = _job_data(request, job)
        return Response(body, status=status.HTTP_202_ACCEPTED, headers={"Location": body["url"]})


_UPLOAD_DOC = "Upload files to import; returns 202 and the import job, which runs in the background."


class TopicsUploadApi(_UploadApi):
    kind = ImportKind.TOPICS

    @extend_schema(
        request={"multipart/form-data": FilesUploadSerializer},
        responses={202: ImportJobSerializer},
        description=_UPLOAD_DOC,
    )
    def post(self, request: Request) -> Response:
        return self.upload(request)


class PassagesUploadApi(_UploadApi):
    kind = ImportKind.PASSAGES

    @extend_schema(
        request={"multipart/form-data": FilesUploadSerializer},
        responses={202: ImportJobSerializer},
        description=_UPLOAD_DOC,
    )
    def post(self, request: Request) -> Response:
        return self.upload(request)


class RunsUploadApi(_UploadApi):
    kind = ImportKind.RUNS
    input_serializer = RunsUploadSerializer

    def job_options(self, data: dict[str, Any]) -> dict[str, Any]:
        return run_options(
            fmt=data.get("format"),
            group=data.get("group"),
            task=data.get("task"),
            priority=data.get("priority"),
            replace=data.get("replace", False),
        )

    @extend_schema(
        request={"multipart/form-data": RunsUploadSerializer},
        responses={202: ImportJobSerializer},
        description=_UPLOAD_DOC,
    )
    def post(self, request: Request) -> Response:
        return self.upload(request)


class ImportJobListApi(APIView):
    permission_classes = [IsAdminUser]

    @extend_schema(responses={200: ImportJobSerializer(many=True)}, description="The 20 most recent import jobs.")
    def get(self, request: Request) -> Response:
        jobs = selectors.import_job_list(limit=20)
        serializer = ImportJobSerializer([_job_data(request, j) for j in jobs], many=True)  # type: ignore[arg-type]
        return Response(serializer.data)


class ImportJobDetailApi(APIView):
    permission_classes = [IsAdminUser]

    @extend_schema(responses={200: ImportJobSerializer}, description="An import job's status, progress and messages.")
    def get(self, request: Request, job_id: int) -> Response:
        job = get_object_or_404(ImportJob, pk=job_id)
        return Response(ImportJobSerializer(_job_data(request, job)).data)


class ImportJobResumeApi(APIView):
    permission_classes = [IsAdminUser]

    @extend_schema(
        request=None,
        responses={202: ImportJobSerializer, 409: OpenApiResponse(description="the job is not stalled")},
        description="Run again an import whose worker died (`stalled`); nothing of it had been stored.",
    )
    def post(self, request: Request, job_id: int) -> Response:
        job = get_object_or_404(ImportJob, pk=job_id)
        try:
            import_job_resume(job=job)
        except ImportJobInvalid as error:
            return Response({"detail": str(error)}, status=status.HTTP_409_CONFLICT)
        return Response(ImportJobSerializer(_job_data(request, job)).data, status=status.HTTP_202_ACCEPTED)
