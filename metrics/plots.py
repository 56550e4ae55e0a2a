"""Server-side SVG plots (no JavaScript, nothing from the internet): the confusion-matrix heat map and the
scatter of run scores, human against LLM, with per-topic means (the paper's Figure 2)."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

RUN_COLOUR = "#1f5fbf"
TOPIC_COLOUR = "#d9822b"


def _num(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def heatmap(
    matrix: Sequence[Sequence[int]],
    percent: Sequence[Sequence[float]],
    labels: Sequence[str],
    *,
    a: str,
    b: str,
    links: Sequence[Sequence[str]] | None = None,
    unit: str = "citations",
) -> SafeString:
    """A 3x3 heat map: rows are judge a's labels, columns judge b's; darker is more of all `unit`. With
    `links`, each cell opens its link (the drill-down of that cell)."""
    cell, left, top = 86, 96, 58
    size = len(labels)
    width, height = left + cell * size + 12, top + cell * size + 12
    peak = max((p for row in percent for p in row), default=0.0) or 1.0
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="plot heatmap" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="confusion matrix of {escape(a)} against {escape(b)}">',
        f'<text x="{left + cell * size / 2}" y="16" text-anchor="middle" class="axis-title">{escape(b)}</text>',
        f'<text x="14" y="{top + cell * size / 2}" text-anchor="middle" class="axis-title" '
        f'transform="rotate(-90 14 {top + cell * size / 2})">{escape(a)}</text>',
    ]
    for j, label in enumerate(labels):
        parts.append(
            f'<text x="{left + cell * j + cell / 2}" y="{top - 10}" text-anchor="middle">{escape(label)}</text>'
        )
    for i, label in enumerate(labels):
        y = top + cell * i
        parts.append(f'<text x="{left - 10}" y="{y + cell / 2 + 5}" text-anchor="end">{escape(label)}</text>')
        for j in range(size):
            x = left + cell * j
            share = percent[i][j] / peak
            fill = f"rgba(31, 95, 191, {0.08 + 0.85 * share:.3f})"
            ink = "#fff" if share > 0.55 else "#1d232b"
            body = (
                f'<g class="cell"><rect x="{x}" y="{y}" width="{cell - 2}" height="{cell - 2}" fill="{fill}">'
                f"<title>{escape(a)} {escape(label)}, {escape(b)} {escape(labels[j])}: {matrix[i][j]} "
                f"{escape(unit)}</title></rect>"
                f'<text x="{x + cell / 2}" y="{y + cell / 2 - 2}" text-anchor="middle" fill="{ink}" '
                f'font-weight="600">{matrix[i][j]}</text>'
                f'<text x="{x + cell / 2}" y="{y + cell / 2 + 16}" text-anchor="middle" fill="{ink}" '
                f'font-size="12">{percent[i][j]:.1f}%</text></g>'
            )
            if links is not None:
                body = f'<a href="{escape(links[i][j])}" class="cell-link" data-cell="{label}-{labels[j]}">{body}</a>'
            parts.append(body)
    parts.append("</svg>")
    return mark_safe("".join(parts))


def scatter(
    *,
    title: str,
    tau: float | None,
    run_ids: Sequence[str],
    run_x: Sequence[float],
    run_y: Sequence[float],
    topic_ids: Sequence[str],
    topic_x: Sequence[float],
    topic_y: Sequence[float],
    x_label: str,
    y_label: str,
) -> SafeString:
    """Run scores (dots) and per-topic means (squares) of two judges on 0..1 axes, the diagonal, τ in the title."""
    size, left, top, bottom = 300, 48, 34, 44
    width, height = left + size + 16, top + size + bottom
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="plot scatter" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="{escape(title)}">',
        f'<text x="{left + size / 2}" y="18" text-anchor="middle" class="plot-title">{escape(title)} '
        f"(Kendall τ = {_num(tau)})</text>",
        f'<rect x="{left}" y="{top}" width="{size}" height="{size}" fill="none" stroke="#dde1e6"/>',
        f'<line x1="{left}" y1="{top + size}" x2="{left + size}" y2="{top}" stroke="#b8c0cc" stroke-dasharray="4 4"/>',
    ]
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        x, y = left + tick * size, top + size - tick * size
        parts.append(f'<text x="{x}" y="{top + size + 16}" text-anchor="middle" font-size="11">{tick:g}</text>')
        parts.append(f'<text x="{left - 6}" y="{y + 4}" text-anchor="end" font-size="11">{tick:g}</text>')
    parts.append(
        f'<text x="{left + size / 2}" y="{top + size + 36}" text-anchor="middle" class="axis-title">{escape(x_label)}</text>'
    )
    parts.append(
        f'<text x="12" y="{top + size / 2}" text-anchor="middle" class="axis-title" '
        f'transform="rotate(-90 12 {top + size / 2})">{escape(y_label)}</text>'
    )
    for topic_id, x_value, y_value in zip(topic_ids, topic_x, topic_y, strict=True):
        x, y = left + x_value * size, top + size - y_value * size
        parts.append(
            f'<rect class="topic-point" x="{x - 3.5:.1f}" y="{y - 3.5:.1f}" width="7" height="7" fill="{TOPIC_COLOUR}" '
            f'fill-opacity="0.75"><title>topic {escape(topic_id)}: {x_value:.3f} / {y_value:.3f}</title></rect>'
        )
    for run_id, x_value, y_value in zip(run_ids, run_x, run_y, strict=True):
        x, y = left + x_value * size, top + size - y_value * size
        parts.append(
            f'<circle class="run-point" cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{RUN_COLOUR}" fill-opacity="0.8">'
            f"<title>{escape(run_id)}: {x_value:.3f} / {y_value:.3f}</title></circle>"
        )
    parts.append(
        f'<g font-size="11"><circle cx="{left + 10}" cy="{top + 12}" r="4" fill="{RUN_COLOUR}"/>'
        f'<text x="{left + 18}" y="{top + 16}">runs</text>'
        f'<rect x="{left + 56}" y="{top + 8.5}" width="7" height="7" fill="{TOPIC_COLOUR}"/>'
        f'<text x="{left + 68}" y="{top + 16}">topic means</text></g>'
    )
    parts.append("</svg>")
    return mark_safe("".join(parts))
