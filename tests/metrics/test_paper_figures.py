"""The paper's Figures 2-5 as files: `paper_figures` writes valid PDF and PNG files, the figures draw the
dashboard's own numbers and name their label sets and unit, and the dashboard offers them to organizers only."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone
from PIL import Image

from judging.exchange.reading import JudgmentFormat, JudgmentImportOptions
from judging.exchange.services import judgments_import
from judging.labels import label_set_get
from judging.scope import scope_for
from metrics.figure_data import figure_make, paper_figure_data, study_kappa_data
from metrics.figures import figure_bytes
from metrics.study.models import StudyItem
from metrics.study.services import study_create
from tests.conftest import nist_excerpts_import
from tests.factories import OrganizerFactory, UserFactory, study_campaign_build, study_labels_seed

pytestmark = pytest.mark.usefixtures("fresh_cache")

STEMS = ("figure2-scatter", "figure3-confusion", "figure4-kappa", "figure5-distribution")


@pytest.fixture
def two_judges(db, data_dir):
    """NIST's labels and Opus's for the two excerpt topics (runs from the NIST excerpts), as the demo loads."""
    nist_excerpts_import(data_dir)
    judgments_import(
        files=[data_dir / "excerpts" / "opus48_nist_verdicts.excerpt.jsonl"],
        fmt=JudgmentFormat.EXCHANGE,
        options=JudgmentImportOptions(judge="opus", kind="llm", label_field="opus_nist_label"),
    )


@pytest.fixture
def study(db):
    """A disagreement study on a small built campaign of its own: `human-study` against `gpt-study`."""
    campaign = study_campaign_build(pairs_per_topic=(24, 6))
    study_labels_seed(campaign, human="human-study", llm="gpt-study")
    return study_create(campaign=campaign, a="human-study", b="gpt-study", per_topic=12, seed=2)


def assert_png(data: bytes) -> None:
    image = Image.open(io.BytesIO(data))
    image.verify()
    assert image.format == "PNG"
    assert image.size[0] >= 1200
    assert image.size[1] >= 1000
    assert 30_000 < len(data) < 2_000_000


def assert_pdf(data: bytes) -> None:
    assert data.startswith(b"%PDF-")
    assert data.rstrip().endswith(b"%%EOF")
    assert b"/Type /Page" in data
    assert 8_000 < len(data) < 1_000_000


def figure_text(fig) -> str:
    """Every piece of text drawn: suptitle, footers, titles, axis labels, tick labels, legends, cell texts."""
    texts = [t.get_text() for t in fig.findobj(lambda artist: hasattr(artist, "get_text"))]
    return "\n".join(t for t in texts if t)


def test_the_command_writes_the_eight_files_with_a_study(study, tmp_path, capsys):
    # when
    call_command(
        "paper_figures", str(tmp_path / "out"), "--a", "human-study", "--b", "gpt-study", "--study", str(study.pk)
    )

    # then
    out = tmp_path / "out"
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{s}.{ext}" for s in STEMS for ext in ("pdf", "png"))
    for stem in STEMS:
        assert_png((out / f"{stem}.png").read_bytes())
        assert_pdf((out / f"{stem}.pdf").read_bytes())
    assert "8 files written" in capsys.readouterr().out


def test_the_command_says_figure_4_needs_a_study_and_writes_the_others(two_judges, tmp_path, capsys):
    # when
    call_command("paper_figures", str(tmp_path), "--a", "nist", "--b", "opus")

    # then
    out, err = capsys.readouterr()
    assert "Figure 4 skipped: Figure 4 needs a disagreement study: none was given" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        f"{s}.{ext}" for s in STEMS if s != "figure4-kappa" for ext in ("pdf", "png")
    )
    assert "6 files written" in out


def test_the_command_refuses_a_study_that_does_not_exist(two_judges, tmp_path):
    with pytest.raises(CommandError, match="there is no disagreement study #999"):
        call_command("paper_figures", str(tmp_path), "--a", "nist", "--b", "opus", "--study", "999")


def test_the_figures_draw_the_dashboards_numbers(two_judges, client):
    # given: what the dashboard shows for NIST against Opus
    client.force_login(OrganizerFactory())
    page = client.get("/metrics/", {"a": "nist", "b": "opus"}).context
    agreement, stats = page["agreement"], {s["label_set"]: s for s in page["stats"]}

    # when
    data = paper_figure_data(a=label_set_get("nist"), b=label_set_get("opus"), scope=scope_for())

    # then: Figure 2, the scatter and τ of the dashboard
    scatter = data.scatter
    assert list(scatter.run_ids) == agreement["runs"]["run_id"]
    assert list(scatter.topic_ids) == agreement["topic_means"]["topic_id"] == ["2024-142395", "2024-32912"]
    for panel in scatter.panels:
        assert panel.tau == agreement["tau"][panel.measure]
        assert list(panel.run_x) == agreement["runs"][f"{panel.measure}_a"]
        assert list(panel.run_y) == agreement["runs"][f"{panel.measure}_b"]
        assert list(panel.topic_y) == agreement["topic_means"][f"{panel.measure}_b"]
    # Figure 3, the heat map's matrix, agreement and κ
    assert data.confusion.matrix == agreement["labels"]["matrix"]
    assert data.confusion.kappa == agreement["labels"]["kappa"]
    assert data.confusion.unit == agreement["unit"] == "first citations"
    # Figure 5: Table 3's counts, then the counts over the citations both labelled
    own, both = data.distribution.panels
    for letter, spec in (("A", "nist/from_scratch"), ("B", "opus/none")):
        assert own.counts[f"{letter}: {spec}"] == {label: stats[spec][label] for label in ("FS", "PS", "NS")}
    assert both.counts["A: nist/from_scratch"] == agreement["labels"]["distribution_a"]
    assert both.counts["B: opus/none"] == agreement["labels"]["distribution_b"]


def test_the_figures_match_the_excerpt_counted_independently(two_judges, data_dir):
    # given: NIST's first-citation labels of the excerpt, counted straight from the file (slot 0 of each sentence)
    import json

    nist_first = {}
    for name in (
        "final.citation_judgments_without_prediction.20241025.excerpt.jsonl",
        "final.citation_judgments_Webassess.20241031.excerpt.jsonl",
    ):
        for line in (data_dir / "excerpts" / name).read_text().splitlines():
            row = json.loads(line)
            for s_index, sentence in enumerate(row["sentences"]):
                if sentence["citations"]:
                    nist_first[(row["run_id"], row["topic_id"], s_index)] = sentence["citations"][0]["support"]
    codes = {"2": "FS", "1": "PS", "0": "NS"}
    expected = {label: sum(1 for s in nist_first.values() if codes.get(s) == label) for label in ("FS", "PS", "NS")}

    # when
    data = paper_figure_data(a=label_set_get("nist"), b=label_set_get("opus"), scope=scope_for())

    # then
    assert data.distribution.panels[0].counts["A: nist/from_scratch"] == expected
    assert sum(expected.values()) == 129


def test_every_figure_names_its_label_sets_and_unit(two_judges, study):
    # given
    a, b, scope = label_set_get("nist"), label_set_get("opus"), scope_for()

    # when
    texts = {name: figure_text(figure_make(name, a=a, b=b, scope=scope, study_id=study.pk)) for name in STEMS_BY_NAME}

    # then
    for name in ("scatter", "confusion", "distribution"):
        assert "nist/from_scratch" in texts[name], name
        assert "opus/none" in texts[name], name
        assert "first citations" in texts[name].lower(), name
    assert "Kendall τ (runs) = " in texts["scatter"]
    assert "% of row" in texts["confusion"]
    assert "Unit: sampled pairs" in texts["kappa"]
    assert f"Study #{study.pk}" in texts["kappa"]
    assert "A = human-study/from_scratch, B = gpt-study/none" in texts["kappa"]


STEMS_BY_NAME = ("scatter", "confusion", "kappa", "distribution")


def test_figure_4_draws_the_study_pages_kappa_grid(study, client):
    # given: the study page's grid
    client.force_login(OrganizerFactory())
    page = client.get(f"/metrics/studies/{study.pk}/").context

    # when
    data = study_kappa_data(study_id=study.pk)

    # then
    assert list(data.judges) == page["names"]
    assert [list(row) for row in data.kappa] == [list(row) for _, row in page["kappa_rows"]]
    index = {name: i for i, name in enumerate(data.judges)}
    for pair in page["report"]["agreement"]:
        assert data.n[index[pair["a"]]][index[pair["b"]]] == data.n[index[pair["b"]]][index[pair["a"]]] == pair["n"]
    # A against B: every sampled pair
    assert max(pair["n"] for pair in page["report"]["agreement"]) == StudyItem.objects.filter(study=study).count() > 0


def test_the_bytes_are_a_png_or_a_pdf_and_nothing_else(two_judges):
    fig = figure_make("confusion", a=label_set_get("nist"), b=label_set_get("opus"), scope=scope_for())

    assert_png(figure_bytes(fig, "png"))
    assert_pdf(figure_bytes(fig, "pdf"))
    with pytest.raises(ValueError, match="format: one of png, pdf"):
        figure_bytes(fig, "svg")


def test_the_download_views_answer_organizers_with_each_figure_as_png_and_pdf(two_judges, study, client):
    # given
    client.force_login(OrganizerFactory())

    for name, stem in zip(STEMS_BY_NAME, STEMS, strict=True):
        for fmt, content_type in (("png", "image/png"), ("pdf", "application/pdf")):
            # when
            response = client.get(f"/metrics/figures/{name}.{fmt}", {"a": "nist", "b": "opus", "study": study.pk})

            # then
            assert response.status_code == 200, (name, fmt)
            assert response["Content-Type"] == content_type
            # issue 24: named <campaign>-<label set>-<what>-<date>.<ext> (was {stem}.{fmt})
            named = f"all-loaded-nist-from_scratch-vs-opus-{stem}-{timezone.localdate().isoformat()}.{fmt}"
            assert response["Content-Disposition"] == f'attachment; filename="{named}"'
            (assert_png if fmt == "png" else assert_pdf)(response.content)


def test_the_download_views_refuse_assessors(two_judges, client):
    client.force_login(UserFactory(username="alice"))

    for name in STEMS_BY_NAME:
        assert client.get(f"/metrics/figures/{name}.png", {"a": "nist", "b": "opus"}).status_code == 403


def test_figure_4_without_a_study_says_what_to_do(two_judges, client):
    client.force_login(OrganizerFactory())

    response = client.get("/metrics/figures/kappa.png", {"a": "nist", "b": "opus"})

    assert response.status_code == 400
    assert "needs a disagreement study" in response.content.decode()
    assert client.get("/metrics/figures/pie.png", {"a": "nist", "b": "opus"}).status_code == 404


def test_the_dashboard_links_every_figure_and_each_study(two_judges, study, client):
    client.force_login(OrganizerFactory())

    body = client.get("/metrics/", {"a": "nist", "b": "opus"}).content.decode()

    for name in ("scatter", "confusion", "distribution"):
        assert f"/metrics/figures/{name}.png?a=nist%2Ffrom_scratch&amp;b=opus%2Fnone" in body
        assert f"/metrics/figures/{name}.pdf?" in body
    assert f"/metrics/figures/kappa.png?a=nist%2Ffrom_scratch&amp;b=opus%2Fnone&amp;study={study.pk}" in body
