"""REST API for the metrics: scores, Table 3, agreement and the judgment exports (the import is
`judging.exchange.api`).

Organizers (staff) only: the labels of LLM judges must never reach an assessor (DESIGN §3).
The export format parameter is `fmt` (DRF keeps `format` for content negotiation).
"""

from __future__ import annotations

import io
from dataclasses import asdict
from typing import Any

from django.core.paginator import Paginator
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, PolymorphicProxySerializer, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAdminUser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from assess.selectors import topics_unknown
from core.columns import SEED_MAX
from core.downloads import attachment
from judging.exchange.export import ExportFormat, judgments_export
from judging.exchange.qrels import QRELS_LEVEL_HELP, QrelsLevel
from judging.exchange.selectors import NistKeyChoice
from judging.label_set_names import SPEC_HELP, LabelSetError
from judging.label_set_pickers import label_set_describe
from judging.labels import LabelSet, label_set_get
from judging.scope import EVERY_CITATION, MAX_DEPTH, RELEVANCE_HELP, Scope, relevance_filter_parse, scope_for
from judging.vocabulary import SUPPORT
from metrics.exports import scores_csv, topic_scores_csv
from metrics.reports import agreement_report, depth_unit, scores_report
from metrics.selectors import DRILL_DOWN_PAGE, disagreement_groups, disagreements_load, support_stats
from metrics.topic_scores import topic_scores_report


class LabelSetField(serializers.CharField):
    """A label set named by its spec (`nist`, `gpt-4o/none`, `campaign:NAME/from_scratch`)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("help_text", SPEC_HELP)
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> LabelSet:  # type: ignore[override]
        try:
            return label_set_get(super().to_internal_value(data))
        except LabelSetError as exc:
            raise serializers.ValidationError(str(exc)) from exc


class ScopeInputSerializer(serializers.Serializer[dict[str, Any]]):
    campaign = serializers.CharField(required=False, allow_blank=True, max_length=128)
    depth = serializers.IntegerField(required=False, min_value=0, max_value=MAX_DEPTH, help_text="0 = every citation")
    topics = serializers.CharField(
        required=False, allow_blank=True, max_length=100_000, help_text="comma-separated topic ids"
    )
    relevance = serializers.CharField(required=False, allow_blank=True, max_length=80, help_text=RELEVANCE_HELP)


class ScoresInputSerializer(ScopeInputSerializer):
    labels = LabelSetField()
    resamples = serializers.IntegerField(required=False, min_value=0, max_value=10000, default=1000)
    seed = serializers.IntegerField(required=False, default=20241025, min_value=0, max_value=SEED_MAX)
    fmt = serializers.ChoiceField(choices=["json", "csv"], required=False, default="json")
    per_topic = serializers.BooleanField(
        required=False, default=False, help_text="one row per (run, topic) of the set's judged topics instead"
    )


class AgreementInputSerializer(ScopeInputSerializer):
    a = LabelSetField()
    b = LabelSetField()
    resamples = serializers.IntegerField(required=False, min_value=0, max_value=10000, default=1000)
    seed = serializers.IntegerField(required=False, default=20241025, min_value=0, max_value=SEED_MAX)


class DisagreementsInputSerializer(ScopeInputSerializer):
    a = LabelSetField()
    b = LabelSetField()
    topic = serializers.CharField(
        required=False, allow_blank=True, max_length=64, help_text="one topic id (default every topic)"
    )
    label_a = serializers.ChoiceField(
        choices=list(SUPPORT.names), required=False, help_text="a confusion cell: A's label"
    )
    label_b = serializers.ChoiceField(choices=list(SUPPORT.names), required=False, help_text="and B's label")
    page = serializers.IntegerField(required=False, min_value=1, max_value=2**31 - 1, default=1)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if ("label_a" in attrs) != ("label_b" in attrs):
            raise serializers.ValidationError("label_a and label_b: both or neither")
        if attrs.get("topic") and topics_unknown([attrs["topic"]]):
            raise serializers.ValidationError({"topic": f"no such topic: {attrs['topic']}"})
        return attrs


class ExportInputSerializer(ScopeInputSerializer):
    fmt = serializers.ChoiceField(choices=ExportFormat.CHOICES, default=ExportFormat.CSV)
    labels = serializers.ListField(child=LabelSetField(), required=False)
    level = serializers.ChoiceField(
        choices=QrelsLevel.CHOICES, default=QrelsLevel.SENTENCE, help_text="qrels only: " + QRELS_LEVEL_HELP
    )
    nist_keys = serializers.ChoiceField(
        choices=NistKeyChoice.CHOICES,
        default=NistKeyChoice.SOURCE,
        help_text="nist only: each answer's source spelling, or sentenceId (Webassess) / sentenceID (2024-10-25)",
    )


class LabelSetOutputSerializer(serializers.Serializer[dict[str, Any]]):
    spec = serializers.CharField()
    title = serializers.CharField()
    rule = serializers.CharField()
    condition = serializers.CharField(allow_blank=True)


class IntervalsOutputSerializer(serializers.Serializer[dict[str, Any]]):
    resamples = serializers.IntegerField()
    seed = serializers.IntegerField()
    level = serializers.FloatField()
    method = serializers.CharField()
    note = serializers.CharField()


class RunScoreOutputSerializer(serializers.Serializer[dict[str, Any]]):
    run_id = serializers.CharField()
    group = serializers.CharField(allow_blank=True)
    task = serializers.CharField(allow_blank=True)
    judge = serializers.CharField()
    weighted_precision = serializers.FloatField(allow_null=True, help_text="null: not judged (no judged citation)")
    weighted_recall = serializers.FloatField(allow_null=True, help_text="null: not judged (no judged citation)")
    mean_sentences = serializers.FloatField()
    topics = serializers.IntegerField()
    judged_citations = serializers.IntegerField(help_text="the run's citations the set labels, of `citations`")
    citations = serializers.IntegerField(help_text="the run's citations in the unit, over the report's topics")
    coverage = serializers.CharField(help_text='"212 of 312 citations judged", or "not judged"')
    precision_low = serializers.FloatField(allow_null=True)
    precision_high = serializers.FloatField(allow_null=True)
    recall_low = serializers.FloatField(allow_null=True)
    recall_high = serializers.FloatField(allow_null=True)


class CoverageOutputSerializer(serializers.Serializer[dict[str, Any]]):
    min_share = serializers.FloatField(help_text="runs with less of their citations judged are ranked after the others")
    runs_judged = serializers.IntegerField()
    runs_enough = serializers.IntegerField()
    runs_total = serializers.IntegerField()
    note = serializers.CharField()


class ScoresOutputSerializer(serializers.Serializer[dict[str, Any]]):
    """`ScoresReport.as_dict()`: every run's scores in one label set, at a depth, over the named topics."""

    label_set = LabelSetOutputSerializer()
    depth = serializers.IntegerField(allow_null=True, help_text="null: every citation")
    unit = serializers.CharField()
    topics = serializers.ListField(child=serializers.CharField())
    intervals = IntervalsOutputSerializer()
    coverage = CoverageOutputSerializer()
    runs = RunScoreOutputSerializer(many=True)


class TopicScoreOutputSerializer(serializers.Serializer[dict[str, Any]]):
    run_id = serializers.CharField()
    topic_id = serializers.CharField()
    label_set = serializers.CharField()
    weighted_precision = serializers.FloatField()
    weighted_recall = serializers.FloatField()
    sentences = serializers.IntegerField()
    judged_citations = serializers.IntegerField()
    citations = serializers.IntegerField(help_text="the answer's citations in the unit, judged or not")


class TopicScoresOutputSerializer(serializers.Serializer[dict[str, Any]]):
    """`TopicScoresReport.as_dict()` (`per_topic=true`): one row per (run, topic); their means are the run scores."""

    label_set = LabelSetOutputSerializer()
    depth = serializers.IntegerField(allow_null=True, help_text="null: every citation")
    unit = serializers.CharField()
    topics = serializers.ListField(child=serializers.CharField())
    columns = serializers.ListField(child=serializers.CharField())
    rows = TopicScoreOutputSerializer(many=True)


class StatsRowOutputSerializer(serializers.Serializer[dict[str, Any]]):
    """One label set's row of the paper's Table 3, counted in `unit`."""

    label_set = serializers.CharField()
    title = serializers.CharField()
    judge = serializers.CharField()
    kind = serializers.CharField()
    condition = serializers.CharField(allow_blank=True)
    unit = serializers.CharField()
    topics = serializers.IntegerField()
    judged = serializers.IntegerField()
    not_judged = serializers.IntegerField()
    ties = serializers.IntegerField()
    unlabelled = serializers.IntegerField()
    distinct_pairs = serializers.IntegerField()
    FS = serializers.IntegerField()
    PS = serializers.IntegerField()
    NS = serializers.IntegerField()


class StatsOutputSerializer(serializers.Serializer[dict[str, Any]]):
    rows = StatsRowOutputSerializer(many=True)


class AgreementOutputSerializer(serializers.Serializer[dict[str, Any]]):
    """`agreement_report`: two label sets over the citations both labelled, in `unit` (DESIGN §5)."""

    a = serializers.CharField()
    b = serializers.CharField()
    label_set_a = LabelSetOutputSerializer()
    label_set_b = LabelSetOutputSerializer()
    depth = serializers.IntegerField(allow_null=True, help_text="null: every citation")
    unit = serializers.CharField()
    n_label = serializers.CharField()
    labels = serializers.DictField(
        help_text="confusion matrix (counts and %), exact agreement, Cohen's kappa (unweighted, linear) with its "
        "interval, Krippendorff's alpha, each label's precision and recall, the label distributions"
    )
    labels_unit = serializers.CharField()
    pairs = serializers.DictField(help_text="the same figures once per distinct pair")
    tau = serializers.JSONField(help_text="Kendall tau-b of the run scores, for precision and for recall")
    tau_ci = serializers.JSONField(help_text="tau's 95% intervals (see `intervals.method`)")
    intervals = IntervalsOutputSerializer()
    topics = serializers.ListField(child=serializers.CharField(), help_text="the topics both sets judged")
    runs = serializers.JSONField(
        help_text="each run's scores by both sets (the scatter plot's points), of the runs `coverage` says τ uses"
    )
    coverage = serializers.JSONField(
        help_text="the runs τ and the scatter use (both sets judged at least `min_share` of their citations) and "
        "each left-out run's coverage in words"
    )
    topic_means = serializers.JSONField(help_text="per topic, the runs' mean scores by both sets")
    per_topic = serializers.DictField(help_text="by topic id: citations both labelled, labelled differently, pairs")
    per_topic_units = serializers.DictField(child=serializers.CharField())
    scope = serializers.DictField(help_text="what the figures are over: topics, runs, citations")
    self_consistency = serializers.DictField(help_text="by label set: pairs labelled alike on several citations")
    self_consistency_unit = serializers.CharField()


class DisagreementMatrixOutputSerializer(serializers.Serializer[dict[str, Any]]):
    labels = serializers.ListField(child=serializers.CharField())
    rows = serializers.CharField()
    columns = serializers.CharField()
    counts = serializers.ListField(child=serializers.ListField(child=serializers.IntegerField()))
    unit = serializers.CharField()


class DisagreementsOutputSerializer(serializers.Serializer[dict[str, Any]]):
    label_set_a = LabelSetOutputSerializer()
    label_set_b = LabelSetOutputSerializer()
    cell = serializers.ListField(
        child=serializers.CharField(), allow_null=True, help_text="[A's label, B's label], or null: every cell"
    )
    citations = serializers.IntegerField()
    citations_unit = serializers.CharField()
    pairs = serializers.IntegerField()
    pairs_unit = serializers.CharField()
    matrix = DisagreementMatrixOutputSerializer()
    page = serializers.IntegerField()
    pages = serializers.IntegerField()
    rows = serializers.ListField(child=serializers.DictField(), help_text="one card per pair and pair of labels")


def _scope(data: dict[str, Any], *, default_depth: int | None = None) -> Scope:
    topics = [t.strip() for t in data["topics"].split(",") if t.strip()] if data.get("topics") else None
    depth = data.get("depth", default_depth)
    relevance = relevance_filter_parse(data["relevance"]) if data.get("relevance") else None
    return scope_for(campaign=data.get("campaign") or None, depth=depth, topics=topics, relevance=relevance)


def _query(request: Request, serializer_class: type[serializers.Serializer[dict[str, Any]]]) -> dict[str, Any]:
    params: dict[str, Any] = request.query_params.dict()
    if "labels" in request.query_params and issubclass(serializer_class, ExportInputSerializer):
        params["labels"] = request.query_params.getlist("labels")
    serializer = serializer_class(data=params)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def _bad_request(exc: Exception) -> Response:
    return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)


class ScoresApi(APIView):
    permission_classes = [IsAdminUser]

    @extend_schema(
        parameters=[ScoresInputSerializer],
        responses={
            200: PolymorphicProxySerializer(
                component_name="Scores",
                serializers=[ScoresOutputSerializer, TopicScoresOutputSerializer],
                resource_type_field_name=None,
            ),
            (200, "text/csv"): OpenApiTypes.STR,
        },
    )
    def get(self, request: Request) -> Response | HttpResponse:
        """Every run's weighted precision and recall for one label set, with 95% topic-bootstrap intervals;
        with `per_topic=true`, one row per (run, topic) instead, whose means are the run scores."""
        data = _query(request, ScoresInputSerializer)
        if data["per_topic"]:
            return self._per_topic(data)
        try:
            report = scores_report(
                label_set=data["labels"], scope=_scope(data), resamples=data["resamples"], seed=data["seed"]
            )
        except ValueError as exc:
            return _bad_request(exc)
        if data["fmt"] == "csv":
            buffer = io.StringIO()
            scores_csv(buffer, [report], intervals=data["resamples"] > 0)
            return _csv_download(buffer, data, what="scores", label_sets=[data["labels"].spec])
        # The relevance filter narrows the citations every figure is computed over: named beside the unit.
        return Response({**report.as_dict(), "relevance": data.get("relevance") or None})

    def _per_topic(self, data: dict[str, Any]) -> Response | HttpResponse:
        try:
            report = topic_scores_report(label_set=data["labels"], scope=_scope(data))
        except ValueError as exc:
            return _bad_request(exc)
        if data["fmt"] == "csv":
            buffer = io.StringIO()
            topic_scores_csv(buffer, [report])
            return _csv_download(buffer, data, what="topic-scores", label_sets=[data["labels"].spec])
        return Response(report.as_dict())


def _csv_download(buffer: io.StringIO, data: dict[str, Any], *, what: str, label_sets: list[str]) -> HttpResponse:
    response = HttpResponse(buffer.getvalue(), content_type="text/csv; charset=utf-8")
    return attachment(response, what=what, ext="csv", campaign=data.get("campaign") or "", label_sets=label_sets)


class StatsApi(APIView):
    permission_classes = [IsAdminUser]

    @extend_schema(parameters=[ScopeInputSerializer], responses={200: StatsOutputSerializer})
    def get(self, request: Request) -> Response:
        """Per label set: topics, labelled citations, not judged, ties, FS / PS / NS (the paper's Table 3)."""
        data = _query(request, ScopeInputSerializer)
        try:
            return Response({"rows": support_stats(_scope(data))})
        except ValueError as exc:
            return _bad_request(exc)


class AgreementApi(APIView):
    permission_classes = [IsAdminUser]

    @extend_schema(parameters=[AgreementInputSerializer], responses={200: AgreementOutputSerializer})
    def get(self, request: Request) -> Response:
        """Agreement of two label sets over the citations both labelled, in the unit it names: confusion
        matrix, exact agreement, Cohen's kappa with its interval, Krippendorff's alpha, per-label precision and
        recall, a per-distinct-pair view, Kendall τ of run scores with its interval, self-consistency."""
        data = _query(request, AgreementInputSerializer)
        try:
            report = agreement_report(
                a=data["a"], b=data["b"], scope=_scope(data), resamples=data["resamples"], seed=data["seed"]
            )
        except ValueError as exc:
            return _bad_request(exc)
        return Response(report)


class DisagreementsApi(APIView):
    permission_classes = [IsAdminUser]

    @extend_schema(parameters=[DisagreementsInputSerializer], responses={200: DisagreementsOutputSerializer})
    def get(self, request: Request) -> Response:
        """The drill-down: the citations two label sets label differently (or those of one confusion cell),
        as cards of one pair and one pair of labels each, 25 a page; both counts name their unit."""
        data = _query(request, DisagreementsInputSerializer)
        try:
            scope = _scope(data)
            found = disagreement_groups(
                a=data["a"],
                b=data["b"],
                scope=scope,
                topic_id=data.get("topic") or None,
                label_a=data.get("label_a"),
                label_b=data.get("label_b"),
            )
        except ValueError as exc:
            return _bad_request(exc)
        page = Paginator(found.groups, DRILL_DOWN_PAGE).get_page(data["page"])
        unit = depth_unit(scope.depth)
        return Response(
            {
                "label_set_a": label_set_describe(data["a"]),
                "label_set_b": label_set_describe(data["b"]),
                "cell": [data["label_a"], data["label_b"]] if "label_a" in data else None,
                "citations": found.citations,
                "citations_unit": unit,
                "pairs": page.paginator.count,
                "pairs_unit": "pairs, once per pair of labels (a citation with no stored pair is its own)",
                "matrix": {
                    "labels": list(SUPPORT.names),
                    "rows": "A",
                    "columns": "B",
                    "counts": found.matrix,
                    "unit": unit,
                },
                "page": page.number,
                "pages": page.paginator.num_pages,
                "rows": [asdict(r) for r in disagreements_load(list(page.object_list))],
            }
        )


class JudgmentsExportApi(APIView):
    permission_classes = [IsAdminUser]

    @extend_schema(
        parameters=[
            ExportInputSerializer,
            OpenApiParameter(
                "labels", str, many=True, description="label sets to export (repeatable; default every one-judge set)"
            ),
        ],
        responses={(200, "text/csv"): str, (200, "application/x-ndjson"): str, (200, "text/plain"): str},
    )
    def get(self, request: Request) -> HttpResponse | Response:
        """The exchange file (csv, jsonl), NIST-style JSONL or trec_eval qrels (`fmt=qrels`, `level=sentence|topic`;
        one label set each); every citation by default."""
        data = _query(request, ExportInputSerializer)
        buffer = io.StringIO()
        try:
            judgments_export(
                buffer,
                fmt=data["fmt"],
                scope=_scope(data, default_depth=EVERY_CITATION),
                label_sets=data.get("labels") or None,
                qrels_level=data["level"],
                nist_keys=data["nist_keys"],
            )
        except ValueError as exc:
            return _bad_request(exc)
        content_type, ext = {ExportFormat.CSV: ("text/csv", "csv"), ExportFormat.QRELS: ("text/plain", "txt")}.get(
            data["fmt"], ("application/x-ndjson", "jsonl")
        )
        response = HttpResponse(buffer.getvalue(), content_type=f"{content_type}; charset=utf-8")
        what = f"qrels-{data['level']}" if data["fmt"] == ExportFormat.QRELS else f"judgments-{data['fmt']}"
        specs = [s.spec for s in data.get("labels") or []]
        return attachment(response, what=what, ext=ext, campaign=data.get("campaign") or "", label_sets=specs)
