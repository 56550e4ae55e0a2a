"""REST API: campaigns (organizers), assignments, the assessor's queue and submit, judgments.

Permissions: organizers (staff) manage campaigns and assignments and read every judgment. An assessor
reads only their own assignments and judgments (another's is a 404, an organizer-only action a 403), and
only the assessor of an assignment can read its queue or submit to it. Blindness: the next-pair payload
carries `shown_label` only for post-edit assignments."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import BasePermission, IsAdminUser, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from assess.api import ErrorDetailSerializer
from assess.models import Run, Topic
from core.columns import column_bounds
from judging import build, queue, selectors, services
from judging.blindness import BlindnessViolation, card_shows_llm_label
from judging.forms import BuildInputSerializer, CampaignInputSerializer, SubmitInputSerializer
from judging.kinds import BuildOptionsInvalid, build_options_clean, kind_of
from judging.models import Assignment, Campaign, Condition, Judge, Judgment, Label

# --- campaigns ------------------------------------------------------------------------------------


class ConditionProgressSerializer(serializers.Serializer):
    condition = serializers.ChoiceField(choices=Condition.choices)
    done = serializers.IntegerField(help_text="pairs the condition's assignments judged")
    total = serializers.IntegerField(help_text="pairs the condition's assignments hold")
    percent = serializers.FloatField(
        allow_null=True, help_text="done of total, rounded down to 0.1; null when there is nothing to do"
    )


class CampaignOutputSerializer(serializers.ModelSerializer):
    runs: serializers.SlugRelatedField[Run] = serializers.SlugRelatedField(
        slug_field="run_id", many=True, read_only=True
    )
    topics: serializers.SlugRelatedField[Topic] = serializers.SlugRelatedField(
        slug_field="topic_id", many=True, read_only=True
    )
    post_edit_judge: serializers.SlugRelatedField[Judge] = serializers.SlugRelatedField(
        slug_field="name", read_only=True, allow_null=True
    )

    class Meta:
        model = Campaign
        fields = [
            "id",
            "name",
            "kind",
            "runs",
            "topics",
            "depth",
            "guidelines",
            "post_edit_judge",
            "highlight_evidence",
            "queue_order",
            "archived_at",
            "built_at",
            "build_summary",
            "created_at",
            "progress",
        ]

    progress = serializers.SerializerMethodField(
        help_text="per condition, never added together: from scratch, post-edit, and adjudication where assigned"
    )

    @extend_schema_field(ConditionProgressSerializer(many=True))
    def get_progress(self, campaign: Campaign) -> list[dict[str, Any]]:
        known: dict[int, selectors.CampaignProgress] = self.context.get("progress") or {}
        progress = known.get(campaign.pk) or selectors.campaign_progress(campaign=campaign)
        return [
            {"condition": c.condition, "done": c.share.done, "total": c.share.total, "percent": c.share.percent}
            for c in progress.conditions
        ]


class BuildConflictSerializer(serializers.Serializer):
    detail = serializers.CharField()
    missing_passages = serializers.ListField(child=serializers.CharField())


class CampaignViewSet(
    mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.CreateModelMixin, viewsets.GenericViewSet
):
    """Organizers only. Creating a campaign also builds its pairs, in one step: a build that stops (cited
    passages without text) creates nothing and answers 409 naming them."""

    permission_classes = [IsAdminUser]
    serializer_class = CampaignOutputSerializer
    queryset = Campaign.objects.select_related("post_edit_judge").prefetch_related("runs", "topics")

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        # The progress of every campaign of the page in two queries, not two per campaign.
        queryset = self.filter_queryset(self.get_queryset())
        page = self.paginate_queryset(queryset)
        campaigns = list(page if page is not None else queryset)
        context = {
            **self.get_serializer_context(),
            "progress": selectors.campaigns_progress(campaign_ids=[c.pk for c in campaigns]),
        }
        data = CampaignOutputSerializer(campaigns, many=True, context=context).data
        return self.get_paginated_response(data) if page is not None else Response(data)

    @extend_schema(
        request=CampaignInputSerializer,
        responses={
            201: CampaignOutputSerializer,
            409: OpenApiResponse(
                BuildConflictSerializer, description="passages cited by the pool have no text: nothing was created"
            ),
        },
    )
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = CampaignInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        try:
            campaign, _summary = build.campaign_create_and_build(
                name=v["name"],
                runs=v["runs"],
                topics=v["topics"],
                depth=v["depth"],
                guidelines=v.get("guidelines"),
                post_edit_judge=v.get("post_edit_judge"),
                highlight_evidence=v["highlight_evidence"],
                queue_order=v["queue_order"],
                allow_missing_text=v["allow_missing_text"],
                kind=v["kind"],
                build_options=v["build_options"],
            )
        except build.CampaignNotCreated as exc:
            return Response(
                {"detail": f"{exc.message} (allow_missing_text: true)", "missing_passages": exc.missing_passages},
                status=status.HTTP_409_CONFLICT,
            )
        campaign.refresh_from_db()
        return Response(CampaignOutputSerializer(campaign).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        request=BuildInputSerializer,
        responses={
            200: CampaignOutputSerializer,
            409: OpenApiResponse(BuildConflictSerializer, description="passages cited by the pool have no text"),
        },
    )
    @action(detail=True, methods=["post"])
    def build(self, request: Request, pk: str | None = None) -> Response:
        campaign = self.get_object()
        data = BuildInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        kind = kind_of(campaign)
        try:
            options = build_options_clean(kind, data.validated_data["build_options"], rebuild=True)
            kind.build(campaign, allow_missing_text=data.validated_data["allow_missing_text"], **options)
        except BuildOptionsInvalid as exc:
            raise serializers.ValidationError({"build_options": str(exc)}) from exc
        except build.CampaignBuildError as exc:
            return Response(
                {"detail": exc.message, "missing_passages": exc.missing_passages}, status=status.HTTP_409_CONFLICT
            )
        campaign.refresh_from_db()
        return Response(CampaignOutputSerializer(campaign).data)


# --- assignments ----------------------------------------------------------------------------------


class AssignmentOutputSerializer(serializers.ModelSerializer):
    assessor: serializers.SlugRelatedField[User] = serializers.SlugRelatedField(slug_field="username", read_only=True)
    topic: serializers.SlugRelatedField[Topic] = serializers.SlugRelatedField(slug_field="topic_id", read_only=True)
    campaign: serializers.SlugRelatedField[Campaign] = serializers.SlugRelatedField(slug_field="name", read_only=True)
    done = serializers.IntegerField(read_only=True)
    total = serializers.IntegerField(read_only=True)

    class Meta:
        model = Assignment
        fields = ["id", "campaign", "assessor", "topic", "condition", "order", "status", "done", "total"]


CAMPAIGN_ID = column_bounds(Campaign, "id", min_value=1)


@extend_schema_field({"type": "integer", "minimum": CAMPAIGN_ID["min_value"], "maximum": CAMPAIGN_ID["max_value"]})
class CampaignIdField(serializers.PrimaryKeyRelatedField):
    """A campaign by id; the schema states the id column's range (an id past it names no campaign: a 400)."""


class AssignmentInputSerializer(serializers.Serializer):
    campaign = CampaignIdField(queryset=Campaign.objects.all())
    assessor = serializers.SlugRelatedField(slug_field="username", queryset=User.objects.all())
    topics = serializers.ListField(child=serializers.CharField(max_length=64), min_length=1)
    condition = serializers.ChoiceField(choices=Condition.choices)


class IsAdminOrReadOnlyOwn(BasePermission):
    def has_permission(self, request: Request, view: Any) -> bool:
        if not (request.user and request.user.is_authenticated):
            return False
        return bool(request.user.is_staff or request.method in ("GET", "HEAD", "OPTIONS"))


class AssignmentViewSet(
    mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.CreateModelMixin, viewsets.GenericViewSet
):
    """Organizers see and create all assignments; an assessor lists only their own."""

    permission_classes = [IsAdminOrReadOnlyOwn]
    serializer_class = AssignmentOutputSerializer

    def get_queryset(self) -> QuerySet[Assignment]:
        qs = Assignment.objects.select_related("campaign", "assessor", "topic")
        if not self.request.user.is_staff:
            qs = qs.filter(assessor_id=self.request.user.pk)
        return selectors.assignments_with_progress(qs).order_by("assessor__username", "order", "pk")

    @extend_schema(request=AssignmentInputSerializer, responses={201: AssignmentOutputSerializer(many=True)})
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = AssignmentInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        campaign: Campaign = v["campaign"]
        topics = {t.topic_id: t for t in campaign.topics.filter(topic_id__in=v["topics"])}
        missing = [t for t in v["topics"] if t not in topics]
        if missing:
            raise serializers.ValidationError({"topics": f"not in campaign {campaign.name}: {', '.join(missing)}"})
        try:
            made = services.assignments_create(
                campaign=campaign,
                assessor=v["assessor"],
                topics=[topics[t] for t in v["topics"]],
                condition=v["condition"],
            )
        except BlindnessViolation as violation:
            body = {"detail": violation.message, "violations": [asdict(found) for found in violation.violations]}
            return Response(body, status=status.HTTP_400_BAD_REQUEST)
        qs = self.get_queryset().filter(pk__in=[a.pk for a in made])
        return Response(AssignmentOutputSerializer(qs, many=True).data, status=status.HTTP_201_CREATED)


# --- the assessor's queue and submit --------------------------------------------------------------


class DoneOfTotalSerializer(serializers.Serializer):
    done = serializers.IntegerField()
    total = serializers.IntegerField()


class ProgressOutputSerializer(serializers.Serializer):
    topic = DoneOfTotalSerializer()
    overall = DoneOfTotalSerializer()


class TopicOutputSerializer(serializers.Serializer):
    topic_id = serializers.CharField()
    text = serializers.CharField()


class CardSentenceSerializer(serializers.Serializer):
    text = serializers.CharField()
    index = serializers.IntegerField(allow_null=True, help_text="its index in the answer (`context`)")


class CardPassageSerializer(serializers.Serializer):
    passage_id = serializers.CharField()
    title = serializers.CharField(allow_blank=True)
    text = serializers.CharField(allow_blank=True)
    url = serializers.CharField(allow_blank=True)


class CardPairSerializer(serializers.Serializer):
    pair_id = serializers.IntegerField()
    token = serializers.UUIDField(help_text="send it back with the judgment: a repeated submit stores one")
    sentence = CardSentenceSerializer()
    # A declared field, popped from the class by DRF's metaclass: it does not hide the serializer's `context`.
    context = serializers.ListField(  # type: ignore[assignment]
        child=serializers.CharField(allow_blank=True), help_text="the answer's sentences"
    )
    passage = CardPassageSerializer()
    shown_label = serializers.ChoiceField(
        choices=Label.choices, required=False, help_text="post-edit assignments only: the LLM's label, pre-selected"
    )


class CardOutputSerializer(serializers.Serializer):
    """The next card as the API answers it: `card_payload` gathers the queue state, this serializer writes it."""

    assignment = serializers.IntegerField()
    condition = serializers.ChoiceField(choices=Condition.choices)
    topic = TopicOutputSerializer()
    progress = ProgressOutputSerializer()
    held_back = serializers.IntegerField()
    finished = serializers.BooleanField()
    pair = CardPairSerializer(allow_null=True, help_text="null once the assignment is finished")


def card_payload(state: queue.QueueState) -> dict[str, Any]:
    """The next pair as JSON. `shown_label` exists only for post-edit assignments (blindness)."""
    body: dict[str, Any] = {
        "assignment": state.assignment.pk,
        "condition": state.assignment.condition,
        "topic": {"topic_id": state.assignment.topic.topic_id, "text": state.assignment.topic.text},
        "progress": {
            "topic": {"done": state.topic_progress.done, "total": state.topic_progress.total},
            "overall": {"done": state.overall_progress.done, "total": state.overall_progress.total},
        },
        "held_back": state.held_back,
        "finished": state.card is None,
        "pair": None,
    }
    card = state.card
    if card is not None:
        pair: dict[str, Any] = {
            "pair_id": card.campaign_pair.pair_id,
            "token": card.token,
            "sentence": {
                "text": card.sentence_text,
                "index": next((s.index for s in card.context if s.is_judged), None),
            },
            "context": [s.text for s in card.context],
            "passage": {
                "passage_id": card.passage.passage_id,
                "title": card.passage.title,
                "text": card.passage.text,
                "url": card.passage.url,
            },
        }
        if card_shows_llm_label(state.assignment):
            pair["shown_label"] = card.shown_label
        body["pair"] = pair
    return body


class _OwnAssignmentView(APIView):
    permission_classes = [IsAuthenticated]

    def assignment(self, request: Request, assignment_id: int) -> Assignment:
        found = selectors.assessor_assignment_get(user=request.user, assignment_id=assignment_id)  # type: ignore[arg-type]
        if found is None:
            get_object_or_404(Assignment.objects.none())
        assert found is not None
        return found


class NextPairView(_OwnAssignmentView):
    """The next pair of the caller's own assignment, with its submission token."""

    @extend_schema(responses={200: CardOutputSerializer})
    def get(self, request: Request, assignment_id: int) -> Response:
        assignment = self.assignment(request, assignment_id)
        return Response(CardOutputSerializer(card_payload(queue.queue_state(assignment=assignment))).data)


class JudgmentSerializer(serializers.ModelSerializer):
    judge: serializers.SlugRelatedField[Judge] = serializers.SlugRelatedField(slug_field="name", read_only=True)

    class Meta:
        model = Judgment
        fields = [
            "id",
            "judge",
            "assignment",
            "pair",
            "citation",
            "label",
            "condition",
            "shown_label",
            "label_changed",
            "seconds",
            "flagged",
            "comment",
            "created_at",
        ]


class SubmitOutputSerializer(serializers.Serializer):
    judgment = JudgmentSerializer()
    created = serializers.BooleanField(help_text="false: the token's judgment was already stored (a repeat)")
    next = CardOutputSerializer()


class SubmitView(_OwnAssignmentView):
    """Store one judgment per token; the response holds the stored judgment and the next pair."""

    @extend_schema(
        request=SubmitInputSerializer,
        responses={
            201: SubmitOutputSerializer,
            200: OpenApiResponse(SubmitOutputSerializer, description="this token's judgment was already stored"),
            409: OpenApiResponse(
                ErrorDetailSerializer, description="refused: the pair is not this assignment's to judge now"
            ),
        },
    )
    def post(self, request: Request, assignment_id: int) -> Response:
        assignment = self.assignment(request, assignment_id)
        data = SubmitInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        try:
            result, state = services.judgment_submit_and_next(
                assignment=assignment,
                pair_id=v["pair_id"],
                label=v["label"],
                token=v["token"],
                seconds=v["seconds"],
                flagged=v["flagged"],
                comment=v["comment"],
                not_judged_reason=v["not_judged_reason"],
            )
        except services.SubmissionRejected as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        body = SubmitOutputSerializer(
            {"judgment": result.judgment, "created": result.created, "next": card_payload(state)}
        )
        return Response(body.data, status=status.HTTP_201_CREATED if result.created else status.HTTP_200_OK)


# --- judgments ------------------------------------------------------------------------------------


class JudgmentViewSet(viewsets.ReadOnlyModelViewSet):
    """Organizers read every judgment; an assessor reads only their own."""

    serializer_class = JudgmentSerializer
    permission_classes = [IsAuthenticated]

    def get_queryset(self) -> QuerySet[Judgment]:
        user = self.request.user
        if user.is_staff:
            return Judgment.objects.select_related("judge").order_by("-pk")
        return selectors.assessor_judgments(user=user).select_related("judge")  # type: ignore[arg-type]
