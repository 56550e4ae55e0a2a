"""REST API for the judgment import. Organizers (staff) only. The export is `metrics.api` (it takes the
dashboard's scope and label-set parameters) and writes through `judging.exchange.export`."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import IsAdminUser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from assess.api import ImportReportSerializer
from judging.exchange.reading import JudgmentFormat, JudgmentImportOptions
from judging.exchange.services import judgments_import_uploads
from judging.models import Condition, JudgeKind


class ImportInputSerializer(serializers.Serializer[dict[str, Any]]):
    files = serializers.ListField(child=serializers.FileField(), allow_empty=False)
    format = serializers.ChoiceField(choices=[JudgmentFormat.NIST, JudgmentFormat.EXCHANGE])
    judge = serializers.CharField(required=False, allow_blank=True, max_length=128)
    kind = serializers.ChoiceField(choices=JudgeKind.choices, required=False)
    condition = serializers.ChoiceField(choices=Condition.choices, required=False)
    label_field = serializers.CharField(required=False, default="label", max_length=64)
    run_map = serializers.FileField(
        required=False, help_text="two columns: the file's run id, the loaded run id it stands for"
    )
    skip_unplaced = serializers.BooleanField(
        required=False, default=False, help_text="import what can be placed; list the rest as warnings"
    )


class JudgmentsImportApi(APIView):
    permission_classes = [IsAdminUser]
    parser_classes = [MultiPartParser, FormParser]

    # A 400 (refused, nothing imported) carries the report, ok false with every error's file, line and field, or
    # the request's wrong fields: both are the ValidationErrors object every operation documents (config/schema.py).
    @extend_schema(request={"multipart/form-data": ImportInputSerializer}, responses={200: ImportReportSerializer})
    def post(self, request: Request) -> Response:
        """Import NIST or exchange files, all or nothing; 400 with every error (file, line, field) otherwise."""
        serializer = ImportInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        report = judgments_import_uploads(
            uploads=data["files"],
            fmt=data["format"],
            options=JudgmentImportOptions(
                judge=(data.get("judge") or "").strip() or None,
                kind=data.get("kind") or None,
                condition=data.get("condition") or None,
                label_field=data.get("label_field") or "label",
                skip_unplaced=data.get("skip_unplaced", False),
            ),
            run_map_upload=data.get("run_map"),
        )
        return Response(report.as_dict(), status=status.HTTP_200_OK if report.ok else status.HTTP_400_BAD_REQUEST)
