"""The data of the paper's Figures 2 to 5, taken from the reports the dashboard and the study page show.

One home for every number: Figure 2 and 3 read `reports.agreement_report` (the dashboard's scatter plots,
heat map, τ and κ), Figure 5 reads `selectors.support_stats` over `selectors.table_3_scope` (the dashboard's
Table 3) and the agreement report's label counts, Figure 4 reads the study's report (`metrics.study.report`,
the study page's κ grid). Nothing is computed here but the choice of what to draw; `metrics.figures` draws.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from matplotlib.figure import Figure

from judging.labels import LabelSet
from judging.scope import Scope
from metrics import figures
from metrics.reports import agreement_report
from metrics.selectors import support_stats, table_3_scope
from metrics.study import report as study_report_fns
from metrics.study import selectors as study_selectors
from metrics.study.models import Study

# name (as in file names and URLs) -> the paper's figure number and what it shows
FIGURES = {
    "scatter": ("Figure 2", "run scores, A against B, with per-topic means and Kendall τ"),
    "confusion": ("Figure 3", "confusion heat map of A's labels against B's"),
    "kappa": ("Figure 4", "Cohen's κ between the judges of a disagreement study"),
    "distribution": ("Figure 5", "label distribution of each label set"),
}


class FigureUnavailable(ValueError):
    """A figure that cannot be drawn from what is loaded (no study, a study that does not exist)."""


def _name(described: dict[str, object]) -> figures.SetName:
    return figures.SetName(spec=str(described["spec"]), title=str(described["title"]))


@dataclass(frozen=True)
class PaperFigureData:
    scatter: figures.ScatterData
    confusion: figures.ConfusionData
    distribution: figures.DistributionData


def paper_figure_data(*, a: LabelSet, b: LabelSet, scope: Scope) -> PaperFigureData:
    """Figures 2, 3 and 5 for label sets A and B in a scope, from the dashboard's own reports."""
    report = agreement_report(a=a, b=b, scope=scope)
    set_a, set_b = _name(report["label_set_a"]), _name(report["label_set_b"])
    runs, topic_means, labels = report["runs"], report["topic_means"], report["labels"]
    scatter = figures.ScatterData(
        a=set_a,
        b=set_b,
        unit=report["unit"],
        topics=len(report["topics"]),
        run_ids=runs["run_id"],
        topic_ids=topic_means["topic_id"],
        panels=[
            figures.ScorePanel(
                measure=measure,
                tau=report["tau"][measure],
                run_x=runs[f"{measure}_a"],
                run_y=runs[f"{measure}_b"],
                topic_x=topic_means[f"{measure}_a"],
                topic_y=topic_means[f"{measure}_b"],
            )
            for measure in ("precision", "recall")
        ],
    )
    confusion = figures.ConfusionData(
        a=set_a,
        b=set_b,
        unit=report["unit"],
        labels=labels["labels"],
        matrix=labels["matrix"],
        agreement=labels["agreement"],
        kappa=labels["kappa"],
    )
    table_scope = table_3_scope(scope, [a, b])
    stats = {row["label_set"]: row for row in support_stats(table_scope)}
    own = {
        f"{letter}: {s.spec}": {label: int(stats[s.spec][label]) for label in figures.BAR_ORDER}
        for letter, s in (("A", set_a), ("B", set_b))
        if s.spec in stats
    }
    both = {
        f"A: {set_a.spec}": dict(labels["distribution_a"]),
        f"B: {set_b.spec}": dict(labels["distribution_b"]),
    }
    distribution = figures.DistributionData(
        a=set_a,
        b=set_b,
        panels=[
            figures.DistributionPanel(
                title=f"{_all(report['unit'])} each set labelled, in the topics A or B judged (as Table 3)",
                counts=own,
            ),
            figures.DistributionPanel(
                title=f"{report['unit'][0].upper()}{report['unit'][1:]} both sets labelled (as Figure 3)", counts=both
            ),
        ],
    )
    return PaperFigureData(scatter=scatter, confusion=confusion, distribution=distribution)


def _all(unit: str) -> str:
    return "Every citation" if unit == "every citation" else f"All {unit}"


def study_kappa_data(*, study_id: int | None) -> figures.KappaGridData:
    """Figure 4 from a disagreement study's report, the study page's κ grid; FigureUnavailable without one."""
    return _kappa_data(_study(study_id))


def _study(study_id: int | None) -> Study:
    if study_id is None:
        raise FigureUnavailable(
            "Figure 4 needs a disagreement study: none was given (create one on /metrics/studies/, then pass its id)"
        )
    study = study_selectors.study_get(study_id=study_id)
    if study is None:
        raise FigureUnavailable(f"there is no disagreement study #{study_id}")
    return study


def study_distribution_panel(*, study_id: int) -> figures.DistributionPanel:
    """Each study judge's labels on the study's sample (the study page's Figure 5)."""
    study = _study(study_id)
    data = study_report_fns.study_report(study_selectors.study_table(study=study))
    return figures.DistributionPanel(
        title=f"Each judge of study #{study.pk} on its sample of pairs where A and B disagree (the paper's unit)",
        counts={name: d["counts"] for name, d in data["distributions"].items()},
    )


def _kappa_data(study: Study) -> figures.KappaGridData:
    table = study_selectors.study_table(study=study)
    data = study_report_fns.study_report(table)
    names = [j["name"] for j in data["judges"]]
    pairs = study_report_fns.agreements(table.rows, study_report_fns.columns_of(table))
    n = {(p.a, p.b): p.n for p in pairs} | {(p.b, p.a): p.n for p in pairs}
    return figures.KappaGridData(
        title=(
            f"Study #{study.pk} on campaign {data['campaign']}: A = {data['a']}, B = {data['b']}, "
            f"{data['per_topic']} pairs per topic (seed {data['seed']}); {data['sampled']:,} pairs sampled, "
            f"{data['adjudicated']:,} re-judged by the independent assessor"
        ),
        judges=names,
        kappa=study_report_fns.kappa_grid(pairs, names),
        n=[[(None if x == y else n.get((x, y))) for y in names] for x in names],
        unit="sampled pairs (where A and B disagree) both judges labelled",
    )


def figure_make(name: str, *, a: LabelSet, b: LabelSet, scope: Scope, study_id: int | None = None) -> Figure:
    """One figure by name (FIGURES); FigureUnavailable when it cannot be drawn."""
    makers: dict[str, Callable[[], Figure]] = {
        "scatter": lambda: figures.scatter_figure(paper_figure_data(a=a, b=b, scope=scope).scatter),
        "confusion": lambda: figures.confusion_figure(paper_figure_data(a=a, b=b, scope=scope).confusion),
        "kappa": lambda: figures.kappa_grid_figure(study_kappa_data(study_id=study_id)),
        "distribution": lambda: figures.distribution_figure(_distribution(a=a, b=b, scope=scope, study_id=study_id)),
    }
    if name not in makers:
        raise FigureUnavailable(f"no figure {name!r}: one of {', '.join(FIGURES)}")
    return makers[name]()


def _distribution(*, a: LabelSet, b: LabelSet, scope: Scope, study_id: int | None) -> figures.DistributionData:
    """Figure 5 of A and B; with a study, a third panel: its judges on its sample, as in the paper."""
    data = paper_figure_data(a=a, b=b, scope=scope).distribution
    if study_id is None:
        return data
    return replace(data, panels=[*data.panels, study_distribution_panel(study_id=study_id)])


def file_stem(name: str) -> str:
    """The file name of a figure, without its extension: `figure2-scatter`."""
    return f"figure{FIGURES[name][0].split()[1]}-{name}"
