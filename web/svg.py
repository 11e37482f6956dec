"""Server-rendered SVG charts: a line chart (reward curves, calls per second) and a bar chart (components).

The charts are plain strings built from numbers only; every piece of text (titles, labels, series
names) goes through ``escape``, so a chart can be inserted into a page with ``|safe``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

PALETTE = ("#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#ca8a04", "#db2777", "#4b5563")
Point = tuple[float, float]


@dataclass(frozen=True)
class Series:
    name: str
    points: Sequence[Point]


@dataclass(frozen=True)
class Frame:
    """The plotting area inside the SVG and the data range it maps."""

    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    x0: float
    x1: float
    y0: float
    y1: float

    def x(self, value: float) -> float:
        span = self.x1 - self.x0 or 1.0
        return self.left + (value - self.x0) / span * (self.width - self.left - self.right)

    def y(self, value: float) -> float:
        span = self.y1 - self.y0 or 1.0
        return self.height - self.bottom - (value - self.y0) / span * (self.height - self.top - self.bottom)


def fmt(value: float) -> str:
    """A short label for an axis tick or a bar value."""
    if value == 0:
        return "0"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    if abs(value) >= 10:
        return f"{value:.0f}"
    return f"{value:.2f}".rstrip("0").rstrip(".")


def nice_range(lo: float, hi: float) -> tuple[float, float]:
    """Widen [lo, hi] to round numbers; a flat range gets some height."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return 0.0, 1.0
    if hi - lo < 1e-12:
        pad = abs(hi) * 0.1 or 1.0
        lo, hi = lo - pad, hi + pad
    step = 10 ** math.floor(math.log10(hi - lo))
    return math.floor(lo / step) * step, math.ceil(hi / step) * step


def _open(width: int, height: int, title: str) -> list[str]:
    label = escape(title)
    return [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {width} {height}" '
            f'width="{width}" height="{height}" role="img" aria-label="{label}">',
            f'<title>{label}</title>',
            f'<text x="8" y="14" class="chart-title">{label}</text>']


def _y_axis(frame: Frame, ticks: int = 4) -> list[str]:
    out = []
    for i in range(ticks + 1):
        value = frame.y0 + (frame.y1 - frame.y0) * i / ticks
        y = frame.y(value)
        out.append(f'<line x1="{frame.left}" x2="{frame.width - frame.right}" y1="{y:.1f}" y2="{y:.1f}" class="grid"/>')
        out.append(f'<text x="{frame.left - 4}" y="{y + 3:.1f}" text-anchor="end" class="tick">{fmt(value)}</text>')
    return out


def _empty(width: int, height: int, title: str, message: str) -> str:
    parts = _open(width, height, title)
    parts.append(f'<text x="{width / 2:.0f}" y="{height / 2:.0f}" text-anchor="middle" class="empty">'
                 f'{escape(message)}</text></svg>')
    return "".join(parts)


def line_chart(series: Sequence[Series], *, title: str = "", width: int = 560, height: int = 200,
               x_label: str = "", y_range: tuple[float, float] | None = None,
               empty: str = "no data yet") -> str:
    """Lines over a shared x axis, with a legend when there is more than one series."""
    points = [p for s in series for p in s.points if math.isfinite(p[0]) and math.isfinite(p[1])]
    if not points:
        return _empty(width, height, title, empty)
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    y0, y1 = y_range or nice_range(min(ys), max(ys))
    frame = Frame(width, height, 44, 12, 24, 28, min(xs), max(xs), y0, y1)
    parts = _open(width, height, title) + _y_axis(frame)
    parts.append(f'<text x="{frame.left}" y="{height - 8}" class="tick">{fmt(frame.x0)}</text>')
    parts.append(f'<text x="{width - frame.right}" y="{height - 8}" text-anchor="end" class="tick">{fmt(frame.x1)}</text>')
    if x_label:
        parts.append(f'<text x="{width / 2:.0f}" y="{height - 8}" text-anchor="middle" class="tick">{escape(x_label)}</text>')
    for i, s in enumerate(series):
        parts.append(_polyline(frame, s, PALETTE[i % len(PALETTE)]))
    if len(series) > 1:
        parts.extend(_legend(series, width, frame.right))
    parts.append("</svg>")
    return "".join(parts)


def _polyline(frame: Frame, s: Series, color: str) -> str:
    coords = " ".join(f"{frame.x(x):.1f},{frame.y(y):.1f}" for x, y in s.points if math.isfinite(x) and math.isfinite(y))
    if len(s.points) == 1:
        x, y = s.points[0]
        return f'<circle cx="{frame.x(x):.1f}" cy="{frame.y(y):.1f}" r="3" fill="{color}"><title>{escape(s.name)}</title></circle>'
    return (f'<polyline points="{coords}" fill="none" stroke="{color}" stroke-width="1.8">'
            f'<title>{escape(s.name)}</title></polyline>')


def _legend(series: Sequence[Series], width: int, right: int) -> list[str]:
    out: list[str] = []
    x = float(width - right)
    for i, s in reversed(list(enumerate(series))):
        label = escape(s.name)
        x -= 14 + 6.2 * len(s.name)
        out.append(f'<rect x="{x:.0f}" y="6" width="10" height="10" fill="{PALETTE[i % len(PALETTE)]}"/>'
                   f'<text x="{x + 13:.0f}" y="15" class="tick">{label}</text>')
    return out


def bar_chart(bars: Sequence[tuple[str, float]], *, title: str = "", width: int = 560, height: int = 200,
              y_range: tuple[float, float] | None = None, empty: str = "no data") -> str:
    """One bar per (label, value); negative values hang below the zero line."""
    bars = [(label, v) for label, v in bars if math.isfinite(v)]
    if not bars:
        return _empty(width, height, title, empty)
    values = [v for _, v in bars]
    y0, y1 = y_range or nice_range(min(0.0, *values), max(0.0, *values))
    slot = (width - 44 - 12) / len(bars)
    tilt = max(len(label) for label, _ in bars) * 6.0 > slot  # long labels: draw them slanted
    bottom = 34 + (int(min(60.0, max(len(label) for label, _ in bars) * 3.5)) if tilt else 0)
    frame = Frame(width, height, 44, 12, 24, bottom, 0, len(bars), y0, y1)
    parts = _open(width, height, title) + _y_axis(frame)
    zero = frame.y(0.0)
    for i, (label, value) in enumerate(bars):
        x, top = frame.left + i * slot + slot * 0.15, frame.y(value)
        y, h = min(top, zero), abs(zero - top)
        color = PALETTE[i % len(PALETTE)] if value >= 0 else "#dc2626"
        parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{slot * 0.7:.1f}" height="{h:.1f}" fill="{color}">'
                     f'<title>{escape(label)}: {fmt(value)}</title></rect>')
        parts.append(f'<text x="{x + slot * 0.35:.1f}" y="{y - 3:.1f}" text-anchor="middle" class="tick">{fmt(value)}</text>')
        parts.append(_bar_label(x + slot * 0.35, height - bottom + 12, label, tilt))
    parts.append("</svg>")
    return "".join(parts)


def _bar_label(x: float, y: float, label: str, tilt: bool) -> str:
    if not tilt:
        return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="middle" class="tick">{escape(label)}</text>'
    return (f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="end" transform="rotate(-35 {x:.1f} {y:.1f})" class="tick">'
            f'{escape(label)}</text>')
