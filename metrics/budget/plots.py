"""The planning curve as server-side SVG: expected interval width against budget, LLM + sample beside human-only."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

LLM_COLOUR = "#1f5fbf"
HUMAN_COLOUR = "#d9822b"


def width_curve(points: Sequence[dict[str, float]], *, title: str) -> SafeString:
    """Budget (share of pairs) on x, mean expected 95% interval width on y; one line per estimator."""
    width, height, left, right, top, bottom = 460, 250, 52, 16, 28, 40
    if not points:
        return mark_safe("")
    x_max = max(p["budget"] for p in points)
    # A 95% interval of a score in [0, 1] is shown clipped to it, so a width above 1 says nothing more: the axis
    # stops at 1 and such points sit on its top.
    y_max = min(1.0, max(max(p["width"], p["width_human_only"]) for p in points) * 1.05) or 1.0

    def x(v: float) -> float:
        return left + (width - left - right) * v / x_max

    def y(v: float) -> float:
        return top + (height - top - bottom) * (1 - min(v, y_max) / y_max)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="plot budget-plan" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="{escape(title)}">',
        f'<text x="{width / 2}" y="16" text-anchor="middle" class="axis-title">{escape(title)}</text>',
        f'<line x1="{left}" y1="{y(0)}" x2="{width - right}" y2="{y(0)}" stroke="#888"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{y(0)}" stroke="#888"/>',
        f'<text x="{(left + width - right) / 2}" y="{height - 6}" text-anchor="middle" class="axis-title">'
        "budget: share of the pairs judged by people (%)</text>",
        f'<text x="12" y="{(top + height - bottom) / 2}" text-anchor="middle" class="axis-title" '
        f'transform="rotate(-90 12 {(top + height - bottom) / 2})">95% interval width (score, 0 to 1)</text>',
    ]
    for p in points:
        parts.append(
            f'<text x="{x(p["budget"]):.1f}" y="{y(0) + 14}" text-anchor="middle" class="tick">{p["budget"]:.0%}</text>'
        )
    for frac in (0.0, 0.5, 1.0):
        v = y_max * frac
        parts.append(f'<text x="{left - 4}" y="{y(v) + 4:.1f}" text-anchor="end" class="tick">{v:.2f}</text>')
    for key, colour, name in (("width", LLM_COLOUR, "LLM + sample"), ("width_human_only", HUMAN_COLOUR, "human only")):
        path = " ".join(f"{x(p['budget']):.1f},{y(p[key]):.1f}" for p in points)
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{path}"/>')
        for p in points:
            parts.append(
                f'<circle cx="{x(p["budget"]):.1f}" cy="{y(p[key]):.1f}" r="3" fill="{colour}">'
                f"<title>{name}: {p['budget']:.0%} of the pairs ({p['pairs']:.0f}), width {p[key]:.3f}</title></circle>"
            )
    # The legend sits low on the left, where both curves (falling with the budget) are high.
    legend_y = y(0) - 36
    parts.append(
        f'<rect x="{left + 10}" y="{legend_y}" width="10" height="10" fill="{LLM_COLOUR}"/>'
        f'<text x="{left + 24}" y="{legend_y + 9}" class="tick">LLM + sample</text>'
        f'<rect x="{left + 10}" y="{legend_y + 16}" width="10" height="10" fill="{HUMAN_COLOUR}"/>'
        f'<text x="{left + 24}" y="{legend_y + 25}" class="tick">human only</text>'
    )
    parts.append("</svg>")
    return mark_safe("".join(parts))
