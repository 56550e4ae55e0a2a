"""The quality page's plots as server-side SVG, like the dashboard's (`metrics/plots.py`): each assessor's speed
over time, and the heat map of Cohen's κ between every two assessors on the pairs they share."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from metrics.quality.stats import Agreement, SpeedPoint

COLOURS = ("#1f5fbf", "#d9822b", "#2e8b57", "#b03a48", "#7b52ab", "#4f7f8f", "#a0782c", "#d45f9e", "#5a6b2a", "#333")


def _kappa_fill(kappa: float | None) -> str:
    if kappa is None:
        return "#f1f3f5"
    if kappa < 0:
        return f"rgba(176, 58, 72, {min(0.15 + 0.7 * -kappa, 0.85):.3f})"
    return f"rgba(31, 95, 191, {0.08 + 0.85 * min(kappa, 1.0):.3f})"


def kappa_heatmap(
    names: Sequence[str], cells: Sequence[Sequence[Agreement | None]], *, unit: str = "pairs"
) -> SafeString:
    """Assessor by assessor Cohen's κ; a cell is "—" where the two share no labelled item or κ is undefined.
    `cells[i][j]` is None on the diagonal."""
    size = len(names)
    cell = 64 if size <= 8 else 44
    longest = max((len(n) for n in names), default=10)
    left, top = 16 + 7 * longest, 20 + 5 * longest
    width, height = left + cell * size + 5 * longest, top + cell * size + 10
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="plot kappa-heatmap" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="Cohen\'s kappa between assessors, over the {unit} '
        f'both labelled">'
    ]
    for j, name in enumerate(names):
        x = left + cell * j + cell / 2
        parts.append(
            f'<text x="{x}" y="{top - 8}" transform="rotate(-45 {x} {top - 8})" font-size="12">{escape(name)}</text>'
        )
    for i, name in enumerate(names):
        y = top + cell * i
        parts.append(
            f'<text x="{left - 8}" y="{y + cell / 2 + 4}" text-anchor="end" font-size="12">{escape(name)}</text>'
        )
        for j in range(size):
            x = left + cell * j
            figure = cells[i][j]
            if figure is None:
                parts.append(f'<rect x="{x}" y="{y}" width="{cell - 2}" height="{cell - 2}" fill="#dde1e6"/>')
                continue
            kappa = figure.kappa
            text = "—" if kappa is None else f"{kappa:.2f}"
            ink = "#fff" if kappa is not None and abs(kappa) > 0.6 else "#1d232b"
            title = f"{names[i]} vs {names[j]}: κ {text}, n = {figure.n} {unit}"
            parts.append(
                f'<g class="cell" data-a="{escape(names[i])}" data-b="{escape(names[j])}">'
                f'<rect x="{x}" y="{y}" width="{cell - 2}" height="{cell - 2}" fill="{_kappa_fill(kappa)}">'
                f"<title>{escape(title)}</title></rect>"
                f'<text x="{x + cell / 2 - 1}" y="{y + cell / 2 - 1}" text-anchor="middle" fill="{ink}" '
                f'font-size="12" font-weight="600">{text}</text>'
                f'<text x="{x + cell / 2 - 1}" y="{y + cell / 2 + 13}" text-anchor="middle" fill="{ink}" '
                f'font-size="10">n {figure.n}</text></g>'
            )
    parts.append("</svg>")
    return mark_safe("".join(parts))


def speed_plot(series: Sequence[tuple[str, Sequence[SpeedPoint]]], *, block: int) -> SafeString:
    """Median seconds per judgment of each block of `block` judgments against the assessor's active hours, one
    line per assessor."""
    points = [p for _, s in series for p in s]
    width, height, left, right, top, bottom = 640, 300, 56, 170, 30, 46
    plot_w, plot_h = width - left - right, height - top - bottom
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="plot speed-plot" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="median seconds per judgment over active hours">',
        f'<text x="{left + plot_w / 2}" y="16" text-anchor="middle" class="plot-title">Median seconds per judgment, '
        f"per {block} judgments</text>",
        f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#dde1e6"/>',
    ]
    if not points:
        parts.append(
            f'<text x="{left + plot_w / 2}" y="{top + plot_h / 2}" text-anchor="middle">— nothing judged</text>'
        )
        parts.append("</svg>")
        return mark_safe("".join(parts))
    span = max(max(p.active_hours for p in points), 1 / 60)
    peak = max(p.median_seconds for p in points) * 1.1 or 1.0

    def x_of(hours: float) -> float:
        return left + hours / span * plot_w

    def y_of(value: float) -> float:
        return top + plot_h - value / peak * plot_h

    for k in range(5):
        value, hours = peak * k / 4, span * k / 4
        parts.append(
            f'<text x="{left - 6}" y="{y_of(value) + 4:.1f}" text-anchor="end" font-size="11">{value:.0f}</text>'
            f'<text x="{x_of(hours):.1f}" y="{top + plot_h + 16}" text-anchor="middle" font-size="11">{hours:.1f}</text>'
        )
    parts.append(
        f'<text x="{left + plot_w / 2}" y="{height - 8}" text-anchor="middle" class="axis-title">active hours '
        f"(each assessor's own)</text>"
        f'<text x="14" y="{top + plot_h / 2}" text-anchor="middle" class="axis-title" '
        f'transform="rotate(-90 14 {top + plot_h / 2})">seconds</text>'
    )
    for k, (name, speed) in enumerate(series):
        colour = COLOURS[k % len(COLOURS)]
        if speed:
            coords = " ".join(f"{x_of(p.active_hours):.1f},{y_of(p.median_seconds):.1f}" for p in speed)
            parts.append(f'<polyline points="{coords}" fill="none" stroke="{colour}" stroke-width="1.5"/>')
            for p in speed:
                parts.append(
                    f'<circle cx="{x_of(p.active_hours):.1f}" cy="{y_of(p.median_seconds):.1f}" r="2.5" fill="{colour}">'
                    f"<title>{escape(name)}: {p.median_seconds:.1f} s at {p.active_hours:.2f} active hours</title></circle>"
                )
        y = top + 10 + 16 * k
        label = name if speed else f"{name} (—)"
        parts.append(
            f'<rect x="{left + plot_w + 10}" y="{y - 8}" width="10" height="10" fill="{colour}"/>'
            f'<text x="{left + plot_w + 24}" y="{y + 1}" font-size="11">{escape(label[:26])}</text>'
        )
    parts.append("</svg>")
    return mark_safe("".join(parts))
