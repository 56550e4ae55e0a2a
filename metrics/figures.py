"""The paper's Figures 2 to 5 as matplotlib figures, for a paper (PDF) or a slide (PNG).

Pure: plain data in (the dataclasses below, filled by `metrics.figure_data` from the very reports the
dashboard shows), a `matplotlib.figure.Figure` out. Nothing here computes a score or a κ: every number drawn
is one of the report's. Figures are made with the object-oriented API on the Agg canvas, never through
pyplot, so no global state is kept between requests and no display is needed. Every figure names its label
sets and its unit in the figure itself, so that a file taken out of the platform still says what it shows.
"""

from __future__ import annotations

import io
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from matplotlib import rc_context
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import TwoSlopeNorm
from matplotlib.figure import Figure

from judging.vocabulary import SUPPORT

RUN_COLOUR = "#1f5fbf"
TOPIC_COLOUR = "#d9822b"
BAR_COLOURS = ("#1f5fbf", "#d9822b", "#2e8b57", "#8e44ad", "#7f8c8d")
BAR_ORDER = SUPPORT.highest_first  # as the paper's Figure 5 reads, most support first
FORMATS = {"png": "image/png", "pdf": "application/pdf"}
PNG_DPI = 200
FOOT_SIZE = 8


@dataclass(frozen=True)
class SetName:
    """A label set as a figure names it: its spec (what to type to get it again) and its title."""

    spec: str
    title: str

    def axis(self, letter: str, width: int = 60) -> str:
        return textwrap.fill(f"{letter}: {self.title}", width)


@dataclass(frozen=True)
class ScorePanel:
    measure: str  # "precision" or "recall"
    tau: float | None
    run_x: Sequence[float]
    run_y: Sequence[float]
    topic_x: Sequence[float]
    topic_y: Sequence[float]


@dataclass(frozen=True)
class ScatterData:
    """Figure 2: each run's mean score under A and B, and each topic's mean over the runs that answered it."""

    a: SetName
    b: SetName
    unit: str
    topics: int  # topics both sets judged: the runs' means are over these
    run_ids: Sequence[str]
    topic_ids: Sequence[str]
    panels: Sequence[ScorePanel]


@dataclass(frozen=True)
class ConfusionData:
    """Figure 3: citations both sets labelled, rows A's label, columns B's, in `labels` order."""

    a: SetName
    b: SetName
    unit: str
    labels: Sequence[str]
    matrix: Sequence[Sequence[int]]
    agreement: float | None
    kappa: float | None


@dataclass(frozen=True)
class KappaGridData:
    """Figure 4: Cohen's κ between every pair of judges of a disagreement study, on its sample."""

    title: str  # which study, on which campaign, of which sets
    judges: Sequence[str]
    kappa: Sequence[Sequence[float | str | None]]  # '' on the diagonal, None where κ is undefined
    n: Sequence[Sequence[int | None]]  # sampled pairs both judges labelled
    unit: str


@dataclass(frozen=True)
class DistributionPanel:
    title: str  # what was counted, in which unit
    counts: Mapping[str, Mapping[str, int]]  # series name -> label -> count


@dataclass(frozen=True)
class DistributionData:
    """Figure 5: the share of each label in each label set (or study judge), one panel per unit counted."""

    a: SetName
    b: SetName
    panels: Sequence[DistributionPanel]


def _footer(fig: Figure, lines: Sequence[str]) -> None:
    # about as many characters as fit across the figure at this size
    width = int(fig.get_figwidth() * 72 / (FOOT_SIZE * 0.53))
    text = "\n".join(textwrap.fill(line, width) for line in lines)
    fig.text(0.01, 0.01, text, fontsize=FOOT_SIZE, va="bottom", ha="left", color="#333333")


def _sets_line(a: SetName, b: SetName) -> str:
    return f"Label sets: A = {a.spec} ({a.title}); B = {b.spec} ({b.title})."


def _num(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def scatter_figure(data: ScatterData) -> Figure:
    """Figure 2: one panel per measure; runs as dots, topic means as squares, the diagonal, τ in each title."""
    fig = Figure(figsize=(5.2 * len(data.panels), 6.4), layout="constrained")
    FigureCanvasAgg(fig)
    fig.get_layout_engine().set(rect=(0, 0.09, 1, 0.91))  # type: ignore[call-arg, union-attr]
    axes = fig.subplots(1, len(data.panels), squeeze=False)[0]
    for ax, panel in zip(axes, data.panels, strict=True):
        ax.plot([0, 1], [0, 1], linestyle="--", color="#9aa3ad", linewidth=0.8, zorder=1)
        ax.scatter(
            panel.topic_x,
            panel.topic_y,
            marker="s",
            s=22,
            color=TOPIC_COLOUR,
            alpha=0.7,
            label=f"topics ({len(data.topic_ids)}): mean over the runs that answered",
            zorder=2,
        )
        ax.scatter(
            panel.run_x,
            panel.run_y,
            marker="o",
            s=26,
            color=RUN_COLOUR,
            alpha=0.85,
            label=f"runs ({len(data.run_ids)}): mean over the {data.topics} topics",
            zorder=3,
        )
        ax.set_xlim(-0.02, 1.02)
        ax.set_ylim(-0.02, 1.02)
        ax.set_aspect("equal")
        ax.grid(True, color="#e3e6ea", linewidth=0.6)
        ax.set_title(f"Weighted {panel.measure}\nKendall τ (runs) = {_num(panel.tau)}", fontsize=11)
        ax.set_xlabel(data.a.axis("A", 48), fontsize=9)
        ax.set_ylabel(data.b.axis("B", 48), fontsize=9)
        ax.legend(loc="upper left", fontsize=7.5, frameon=True, framealpha=0.9)
    fig.suptitle("Run scores under label set A against B (the paper's Figure 2)", fontsize=12)
    _footer(
        fig,
        [
            _sets_line(data.a, data.b),
            f"Unit: {data.unit}; weights FS 1, PS 0.5, NS 0. A run's score is its mean over the {data.topics} "
            "topics both sets judged (a topic it did not answer counts 0); τ is Kendall's tau-b between the "
            "two sets' run scores.",
        ],
    )
    return fig


def confusion_figure(data: ConfusionData) -> Figure:
    """Figure 3: counts, and each cell's share of its row (of A's label), shaded by that share."""
    counts = [list(row) for row in data.matrix]
    totals = [sum(row) for row in counts]
    shares = [[(c / t if t else 0.0) for c in row] for row, t in zip(counts, totals, strict=True)]
    n = sum(totals)
    fig = Figure(figsize=(7.0, 6.6), layout="constrained")
    FigureCanvasAgg(fig)
    fig.get_layout_engine().set(rect=(0, 0.1, 1, 0.9))  # type: ignore[call-arg, union-attr]
    ax = fig.subplots()
    image = ax.imshow(shares, cmap="Blues", vmin=0.0, vmax=1.0)
    titles = [f"{SUPPORT.titles.get(label, label)}\n({label})" for label in data.labels]
    ax.set_xticks(range(len(data.labels)), titles, fontsize=9)
    ax.set_yticks(range(len(data.labels)), [t.replace("\n", " ") for t in titles], fontsize=9)
    ax.xaxis.set_label_position("top")
    ax.xaxis.tick_top()
    ax.set_xlabel(data.b.axis("B", 56), fontsize=9)
    ax.set_ylabel(data.a.axis("A", 44), fontsize=9)
    for i, row in enumerate(counts):
        for j, count in enumerate(row):
            ink = "white" if shares[i][j] > 0.55 else "#1d232b"
            ax.text(j, i - 0.08, f"{count:,}", ha="center", va="center", color=ink, fontsize=13, weight="bold")
            ax.text(j, i + 0.2, f"{100 * shares[i][j]:.1f}% of row", ha="center", va="center", color=ink, fontsize=8.5)
    bar = fig.colorbar(image, ax=ax, shrink=0.75)
    bar.set_label("share of A's label (row)", fontsize=9)
    fig.suptitle(
        f"Confusion matrix, A's label against B's (the paper's Figure 3)\n"
        f"{n:,} {data.unit} both labelled; exact agreement {_num(data.agreement)}, Cohen's κ {_num(data.kappa)}",
        fontsize=11,
    )
    _footer(
        fig,
        [
            _sets_line(data.a, data.b),
            f"Unit: {data.unit} both sets labelled (a citation labelled by one set only is left out); "
            "each cell: the count, and its share of A's row.",
        ],
    )
    return fig


def kappa_grid_figure(data: KappaGridData) -> Figure:
    """Figure 4: a symmetric grid of κ between judges, each cell with its κ and the pairs it is over."""
    size = len(data.judges)
    fig = Figure(figsize=(max(6.4, 1.9 * size + 2.6), max(5.6, 1.5 * size + 2.8)), layout="constrained")
    FigureCanvasAgg(fig)
    fig.get_layout_engine().set(rect=(0, 0.1, 1, 0.9))  # type: ignore[call-arg, union-attr]
    ax = fig.subplots()
    values = [[(k if isinstance(k, float) else float("nan")) for k in row] for row in data.kappa]
    # κ runs from -1 to 1: blue above chance, red below it, white at chance (0)
    image = ax.imshow(values, cmap="RdBu", norm=TwoSlopeNorm(vmin=-1.0, vcenter=0.0, vmax=1.0))
    names = [textwrap.fill(name, 18) for name in data.judges]
    ax.set_xticks(range(size), names, fontsize=8.5)
    ax.set_yticks(range(size), names, fontsize=8.5)
    ax.xaxis.tick_top()
    for i in range(size):
        for j in range(size):
            kappa, n = data.kappa[i][j], data.n[i][j]
            if i == j:
                ax.text(j, i, "—", ha="center", va="center", color="#666666", fontsize=12)
                continue
            if not isinstance(kappa, float):
                ax.text(j, i, f"κ n/a\nn = {n or 0}", ha="center", va="center", color="#666666", fontsize=9)
                continue
            ink = "white" if abs(kappa) > 0.6 else "#1d232b"
            ax.text(j, i - 0.1, f"κ {kappa:.2f}", ha="center", va="center", color=ink, fontsize=12, weight="bold")
            ax.text(j, i + 0.22, f"n = {n}", ha="center", va="center", color=ink, fontsize=8.5)
    bar = fig.colorbar(image, ax=ax, shrink=0.75)
    bar.set_label("Cohen's κ (unweighted)", fontsize=9)
    fig.suptitle(f"Cohen's κ between judges (the paper's Figure 4)\n{textwrap.fill(data.title, 90)}", fontsize=11)
    _footer(fig, [f"Unit: {data.unit}. κ is unweighted Cohen's κ; n/a where it is undefined (one label only)."])
    return fig


def distribution_figure(data: DistributionData) -> Figure:
    """Figure 5: per label, one bar per label set, the share of that set's labels, annotated with the count."""
    panels = len(data.panels)
    fig = Figure(figsize=((5.6 if panels < 3 else 4.9) * panels, 5.8), layout="constrained")
    FigureCanvasAgg(fig)
    fig.get_layout_engine().set(rect=(0, 0.1, 1, 0.9))  # type: ignore[call-arg, union-attr]
    axes = fig.subplots(1, panels, squeeze=False, sharey=True)[0]
    peak = max(
        (
            100 * c / sum(counts.values())
            for p in data.panels
            for counts in p.counts.values()
            if sum(counts.values())
            for c in counts.values()
        ),
        default=100.0,
    )
    for ax, panel in zip(axes, data.panels, strict=True):
        series = list(panel.counts)
        width = 0.8 / max(1, len(series))
        for k, name in enumerate(series):
            counts = panel.counts[name]
            total = sum(counts.values())
            shares = [100 * counts.get(label, 0) / total if total else 0.0 for label in BAR_ORDER]
            xs = [g - 0.4 + width * (k + 0.5) for g in range(len(BAR_ORDER))]
            bars = ax.bar(
                xs,
                shares,
                width * 0.92,
                color=BAR_COLOURS[k % len(BAR_COLOURS)],
                label=textwrap.fill(f"{name} ({total:,})", 44),
            )
            ax.bar_label(bars, [f"{counts.get(label, 0):,}" for label in BAR_ORDER], fontsize=7.5, padding=2)
        ax.set_xticks(range(len(BAR_ORDER)), [SUPPORT.titles[label] for label in BAR_ORDER], fontsize=9)
        ax.set_ylim(0, min(100.0, 1.2 * peak + 4))
        ax.set_ylabel("share of the set's labels (%)", fontsize=9)
        ax.grid(True, axis="y", color="#e3e6ea", linewidth=0.6)
        ax.set_axisbelow(True)
        ax.set_title(textwrap.fill(panel.title, 58), fontsize=9.5)
        ax.legend(loc="upper right", fontsize=7.5, framealpha=0.9)
    fig.suptitle("Label distribution of each label set (the paper's Figure 5)", fontsize=12)
    _footer(
        fig,
        [
            _sets_line(data.a, data.b),
            "Bars: the share of each label among the set's labels in the panel's unit; the number on a bar is the count; "
            "the legend gives each set's total.",
        ],
    )
    return fig


def figure_bytes(fig: Figure, fmt: str) -> bytes:
    """The figure as a PNG or a PDF file's bytes."""
    if fmt not in FORMATS:
        raise ValueError(f"format: one of {', '.join(FORMATS)}")
    buffer = io.BytesIO()
    # TrueType (Type 42) fonts embedded in the PDF: what publishers' PDF checks accept (not Type 3).
    with rc_context({"pdf.fonttype": 42}):
        fig.savefig(buffer, format=fmt, dpi=PNG_DPI if fmt == "png" else None, metadata=_metadata(fig, fmt))
    return buffer.getvalue()


def _metadata(fig: Figure, fmt: str) -> dict[str, str]:
    title = fig.get_suptitle().split("\n")[0] if fig.get_suptitle() else ""  # type: ignore[attr-defined]
    return {"Title": title} if fmt == "pdf" else {"Title": title, "Software": "support assessment platform"}
