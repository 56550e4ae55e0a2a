"""REST API of the disagreement study. Organizers only: the report names every judge's label, so
it must never reach an assessor (DESIGN §3); an adjudicator works through the assignment API alone."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAdminUser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.columns import column_bounds
from core.downloads import attachment
from judging.label_set_names import SPEC_HELP
from judging.models import Campaign, Judge, JudgeKind
from metrics.study import report, second_judge
from metrics.study import selectors as study_selectors
from metrics.study import services as study_services
from metrics.study.models import Study


class StudyInputSerializer(serializers.Serializer[dict[str, Any]]):
    campaign = serializers.SlugRelatedField(slug_field="name", queryset=Campaign.objects.all())
    a = serializers.CharField(help_text=f"the first label set, usually human: {SPEC_HELP}")
    b = serializers.CharField(help_text="the second label set, usually the LLM judge's")
    per_topic = serializers.IntegerField(min_value=1, max_value=1000, default=study_services.DEFAULT_PER_TOPIC)
    seed = serializers.IntegerField(default=0, **column_bounds(Study, "seed"))


class StudyOutputSerializer(serializers.ModelSerializer[Study]):
    campaign: serializers.SlugRelatedField[Campaign] = serializers.SlugRelatedField(slug_field="name", read_only=True)
    second_judge: serializers.SlugRelatedField[Judge] = serializers.SlugRelatedField(
        slug_field="name", read_only=True, allow_null=True
    )

    class Meta:
        model = Study
        fields = ["id", "campaign", "a", "b", "per_topic", "seed", "second_judge", "summary", "created_at"]


class StudyJudgeOutputSerializer(serializers.Serializer[dict[str, Any]]):
    name = serializers.CharField()
    role = serializers.CharField()


class StudyAgreementOutputSerializer(serializers.Serializer[dict[str, Any]]):
    """Cohen's κ between two of the study's judges over the sampled pairs both labelled (Figure 4)."""

    a = serializers.CharField()
    b = serializers.CharField()
    role_a = serializers.CharField()
    role_b = serializers.CharField()
    n = serializers.IntegerField(help_text="sampled pairs both judges labelled")
    kappa = serializers.FloatField(allow_null=True)
    kappa_linear = serializers.FloatField(allow_null=True)
    exact_match = serializers.FloatField(allow_null=True)
    matrix = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField()), help_text="rows: a, columns: b; NS, PS, FS"
    )


class StudyDistributionOutputSerializer(serializers.Serializer[dict[str, Any]]):
    counts = serializers.DictField(child=serializers.IntegerField())
    percent = serializers.DictField(child=serializers.FloatField(allow_null=True))


class StudyPairOutputSerializer(serializers.Serializer[dict[str, Any]]):
    """One sampled pair with every judge's label ('' where a judge has not labelled it yet)."""

    order = serializers.IntegerField()
    topic_id = serializers.CharField()
    pair_id = serializers.IntegerField()
    run_id = serializers.CharField()
    sentence_index = serializers.IntegerField()
    citation_slot = serializers.IntegerField()
    passage_id = serializers.CharField()
    sentence = serializers.CharField(allow_blank=True)
    label_a = serializers.CharField(allow_blank=True)
    label_b = serializers.CharField(allow_blank=True)
    independent = serializers.CharField(allow_blank=True)
    independent_judge = serializers.CharField(allow_blank=True)
    second = serializers.CharField(allow_blank=True)


class StudyReportOutputSerializer(serializers.Serializer[dict[str, Any]]):
    study = serializers.IntegerField()
    campaign = serializers.CharField()
    a = serializers.CharField()
    b = serializers.CharField()
    second_judge = serializers.CharField(allow_null=True)
    adjudicators = serializers.ListField(child=serializers.CharField())
    per_topic = serializers.IntegerField()
    seed = serializers.IntegerField()
    sampled = serializers.IntegerField()
    adjudicated = serializers.IntegerField()
    second_labelled = serializers.IntegerField()
    topics = serializers.ListField(child=serializers.DictField(), help_text="per topic: its sample and shortfall")
    short_topics = serializers.ListField(child=serializers.CharField())
    judges = StudyJudgeOutputSerializer(many=True)
    agreement = StudyAgreementOutputSerializer(many=True)
    distributions = serializers.DictField(child=StudyDistributionOutputSerializer(), help_text="by judge name")
    pairs = StudyPairOutputSerializer(many=True)


class StudyAssignmentOutputSerializer(serializers.Serializer[dict[str, Any]]):
    id = serializers.IntegerField()
    topic = serializers.CharField()
    condition = serializers.CharField()


class StudyAssignOutputSerializer(serializers.Serializer[dict[str, Any]]):
    assignments = StudyAssignmentOutputSerializer(many=True)


class StudySecondJudgeOutputSerializer(serializers.Serializer[dict[str, Any]]):
    job = serializers.IntegerField(help_text="follow it at /api/prelabel-jobs/{job}/")
    judge = serializers.CharField()
    pairs = serializers.IntegerField()


class StudiesApi(APIView):
    """List the studies, or sample a new one (the sample is drawn at once)."""

    permission_classes = [IsAdminUser]

    @extend_schema(responses={200: StudyOutputSerializer(many=True)})
    def get(self, request: Request) -> Response:
        return Response(StudyOutputSerializer(study_selectors.study_list(), many=True).data)

    @extend_schema(request=StudyInputSerializer, responses={201: StudyOutputSerializer})
    def post(self, request: Request) -> Response:
        data = StudyInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        try:
            study = study_services.study_create(
                campaign=v["campaign"],
                a=v["a"],
                b=v["b"],
                per_topic=v["per_topic"],
                seed=v["seed"],
                created_by=request.user,  # type: ignore[arg-type]
            )
        except study_services.StudyError as error:
            return Response({"detail": str(error)}, status=status.HTTP_400_BAD_REQUEST)
        return Response(StudyOutputSerializer(study).data, status=status.HTTP_201_CREATED)


class StudyReportApi(APIView):
    """The report: κ between every pair of judges, exact match, distributions, and the sampled pairs
    (`fmt=csv`: the pairs with all their labels as CSV)."""

    permission_classes = [IsAdminUser]

    @extend_schema(
        parameters=[OpenApiParameter("fmt", str, enum=["json", "csv"], required=False)],
        responses={200: StudyReportOutputSerializer, (200, "text/csv"): OpenApiTypes.STR},
    )
    def get(self, request: Request, study_id: int) -> Response | HttpResponse:
        study = study_selectors.study_get(study_id=study_id)
        if study is None:
            return Response({"detail": "no such study"}, status=status.HTTP_404_NOT_FOUND)
        table = study_selectors.study_table(study=study)
        if request.query_params.get("fmt") == "csv":
            response = HttpResponse(report.study_csv(table), content_type="text/csv")
            attachment(
                response,
                what=f"study-{study.pk}",
                ext="csv",
                campaign=study.campaign.name,
                label_sets=[study.a, study.b],
            )
            return response
        body = report.study_report(table)
        body["pairs"] = [row.__dict__ for row in table.rows]
        return Response(body)


class AssignInputSerializer(serializers.Serializer[dict[str, Any]]):
    assessor = serializers.SlugRelatedField(slug_field="username", queryset=User.objects.all())
    topics = serializers.ListField(child=serializers.CharField(), required=False, help_text="omit for all")


class StudyAssignApi(APIView):
    """Give an independent assessor the study's sample to re-judge blind (one adjudication assignment per topic)."""

    permission_classes = [IsAdminUser]

    @extend_schema(request=AssignInputSerializer, responses={201: StudyAssignOutputSerializer})
    def post(self, request: Request, study_id: int) -> Response:
        study = study_selectors.study_get(study_id=study_id)
        if study is None:
            return Response({"detail": "no such study"}, status=status.HTTP_404_NOT_FOUND)
        data = AssignInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        topics = None
        if v.get("topics"):
            found = {t.topic_id: t for t in study.campaign.topics.filter(topic_id__in=v["topics"])}
            missing = [t for t in v["topics"] if t not in found]
            if missing:
                return Response({"topics": f"not in the campaign: {', '.join(missing)}"}, status=400)
            topics = [found[t] for t in v["topics"]]
        try:
            made = study_services.study_assign(study=study, assessor=v["assessor"], topics=topics)
        except study_services.StudyError as error:
            return Response({"detail": str(error)}, status=status.HTTP_400_BAD_REQUEST)
        return Response(
            {"assignments": [{"id": a.pk, "topic": a.topic.topic_id, "condition": a.condition} for a in made]},
            status=status.HTTP_201_CREATED,
        )


class SecondJudgeInputSerializer(serializers.Serializer[dict[str, Any]]):
    judge = serializers.SlugRelatedField(slug_field="name", queryset=Judge.objects.filter(kind=JudgeKind.LLM))


class StudySecondJudgeApi(APIView):
    """Run a second LLM judge (same prompt, any provider) on the study's sampled pairs only; follow the job
    at /api/prelabel-jobs/<job>/."""

    permission_classes = [IsAdminUser]

    @extend_schema(request=SecondJudgeInputSerializer, responses={202: StudySecondJudgeOutputSerializer})
    def post(self, request: Request, study_id: int) -> Response:
        study = study_selectors.study_get(study_id=study_id)
        if study is None:
            return Response({"detail": "no such study"}, status=status.HTTP_404_NOT_FOUND)
        data = SecondJudgeInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            job = second_judge.study_second_judge_start(
                study=study,
                judge=data.validated_data["judge"],
                created_by=request.user,  # type: ignore[arg-type]
            )
        except study_services.StudyError as error:
            return Response({"detail": str(error)}, status=status.HTTP_400_BAD_REQUEST)
        return Response({"job": job.pk, "judge": job.judge.name, "pairs": job.total}, status=status.HTTP_202_ACCEPTED)
