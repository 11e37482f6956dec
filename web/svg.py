"""Server-rendered SVG charts: line charts (reward curves, training metrics, calls per second) and bar charts.

The charts are plain strings built from numbers only; every piece of text (titles, labels, series
names) goes through ``escape``, so a chart can be inserted into a page with ``|safe``.

Axis ticks are "nice" (1, 2, 5 times a power of ten) and labelled for any magnitude: plain decimals
from 0.001 to 10,000, SI suffixes above (12k, 3.5M), scientific notation below (1e-6, 2.5e-6).
Each line carries its points' values (``data-x``/``data-y``) so ``dashboard.js`` can show the exact
value under the pointer; ``downsample`` keeps each bucket's minimum and maximum so spikes survive.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from html import escape

PALETTE = ("#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#ca8a04", "#db2777", "#4b5563")
Point = tuple[float, float]
SI = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


@dataclass(frozen=True)
class Series:
    name: str
    points: Sequence[Point]
    color: str | None = None
    dashed: bool = False


@dataclass(frozen=True)
class Frame:
    """The plotting area inside the SVG and the data range it maps (``log``: the y axis is log10)."""

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
    log: bool = False

    def x(self, value: float) -> float:
        span = self.x1 - self.x0 or 1.0
        return self.left + (value - self.x0) / span * (self.width - self.left - self.right)

    def y(self, value: float) -> float:
        v = math.log10(value) if self.log else value
        span = self.y1 - self.y0 or 1.0
        return self.height - self.bottom - (v - self.y0) / span * (self.height - self.top - self.bottom)


def _decimals(step: float) -> int:
    """Decimals needed to tell ticks ``step`` apart (2.5 -> 1, 0.05 -> 2, 200 -> 0)."""
    for d in range(0, 10):
        if abs(round(step, d) - step) <= abs(step) * 1e-6:
            return d
    return 10


def fmt(value: float, step: float | None = None) -> str:
    """A short label for ``value``; ``step`` (the tick spacing) decides how many digits it needs."""
    if value == 0 or not math.isfinite(value):
        return "0" if value == 0 else str(value)
    step = abs(step) if step else None
    mag = abs(value)
    if mag >= 1e4:
        for size, suffix in SI:
            if mag >= size:
                digits = _decimals(step / size) if step else 1
                text = f"{value / size:.{min(digits, 3)}f}"
                return (text.rstrip("0").rstrip(".") if "." in text else text) + suffix
    if mag < 1e-3 or (step is not None and step < 1e-3):
        digits = _decimals(step / 10 ** math.floor(math.log10(mag))) if step else 2
        mant, exp = f"{value:.{min(digits, 4)}e}".split("e")
        if "." in mant:
            mant = mant.rstrip("0").rstrip(".")
        return f"{mant}e{int(exp)}"
    digits = _decimals(step) if step else max(0, 3 - math.floor(math.log10(mag)))
    text = f"{value:,.{min(digits, 6)}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def value_label(value: float) -> str:
    """A value shown alone (a card, a hover): four significant digits, any magnitude."""
    if value == 0 or not math.isfinite(value):
        return fmt(value)
    mag = abs(value)
    if 1e-3 <= mag < 1e4:
        return f"{value:.4g}" if mag < 1000 else f"{value:,.1f}"
    return fmt(value)


def nice_step(span: float, ticks: int = 4) -> float:
    raw = span / max(1, ticks)
    power = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if m * power >= raw:
            return m * power
    return 10 * power


def nice_range(lo: float, hi: float, ticks: int = 4) -> tuple[float, float]:
    """Widen [lo, hi] to multiples of a nice tick step; a flat range gets some height."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return 0.0, 1.0
    if hi - lo <= abs(hi) * 1e-9 + 1e-300:
        pad = abs(hi) * 0.1 or 1.0
        lo, hi = lo - pad, hi + pad
    step = nice_step(hi - lo, ticks)
    return math.floor(lo / step) * step, math.ceil(hi / step) * step


def _open(width: int, height: int, title: str, extra: str = "") -> list[str]:
    label = escape(title)
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="{label}"{extra}>',
        f"<title>{label}</title>",
        f'<text x="8" y="14" class="chart-title">{label}</text>',
    ]


def _y_axis(frame: Frame, ticks: int = 4) -> list[str]:
    if frame.log:
        values = [10.0**e for e in range(math.ceil(frame.y0), math.floor(frame.y1) + 1)]
        values, step = values[:: max(1, len(values) // 6)], None
    else:
        step = nice_step(frame.y1 - frame.y0, ticks)
        first = math.ceil(frame.y0 / step - 1e-9)
        values = [k * step for k in range(first, math.floor(frame.y1 / step + 1e-9) + 1)]
    out = []
    for value in values:
        y = frame.y(value)
        out.append(f'<line x1="{frame.left}" x2="{frame.width - frame.right}" y1="{y:.1f}" y2="{y:.1f}" class="grid"/>')
        out.append(
            f'<text x="{frame.left - 4}" y="{y + 3:.1f}" text-anchor="end" class="tick">{fmt(value, step)}</text>'
        )
    return out


def _empty(width: int, height: int, title: str, message: str) -> str:
    parts = _open(width, height, title)
    parts.append(
        f'<text x="{width / 2:.0f}" y="{height / 2:.0f}" text-anchor="middle" class="empty">'
        f"{escape(message)}</text></svg>"
    )
    return "".join(parts)


def _finite(points: Sequence[Point], log: bool) -> list[Point]:
    return [p for p in points if math.isfinite(p[0]) and math.isfinite(p[1]) and (not log or p[1] > 0)]


def line_chart(
    series: Sequence[Series],
    *,
    title: str = "",
    width: int = 560,
    height: int = 200,
    x_label: str = "",
    y_range: tuple[float, float] | None = None,
    log: bool = False,
    empty: str = "no data yet",
    href: str | None = None,
) -> str:
    """Lines over a shared x axis, a legend when there is more than one series, hover data on each line.

    ``log``: a log10 y axis (values ≤ 0 are left out and the title says so). ``href``: clicking the chart
    opens this URL with ``{x}`` replaced by the x value of the nearest point.
    """
    cleaned = [Series(s.name, _finite(s.points, log), s.color, s.dashed) for s in series]
    points = [p for s in cleaned for p in s.points]
    if not points:
        return _empty(width, height, title, empty if not log else "no positive values for a log axis")
    if log and sum(len(s.points) for s in series) > len(points):
        title += " (values ≤ 0 not shown)"
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    if log:
        lo, hi = math.log10(min(ys)), math.log10(max(ys))
        y0, y1 = float(math.floor(lo)), float(max(math.ceil(hi), math.floor(lo) + 1))
    else:
        y0, y1 = y_range or nice_range(min(ys), max(ys))
    top = 34 if len(series) > 1 else 24  # a legend gets its own row under the title
    frame = Frame(width, height, 52, 12, top, 28, min(xs), max(xs), y0, y1, log)
    # The frame in data units too: dashboard.js turns a pointer or key position into a step (every step, not only
    # the points drawn) and redraws lines smoothed (EMA) from each line's data-x/data-y.
    extra = (
        f' data-x0="{frame.left}" data-x1="{width - frame.right}" data-d0="{_num(frame.x0)}" data-d1="{_num(frame.x1)}"'
        f' data-y0="{_num(frame.y0)}" data-y1="{_num(frame.y1)}" data-top="{frame.top}" data-bottom="{frame.bottom}"'
        f' data-log="{int(log)}" tabindex="0"'
    )
    if href:
        extra += f' data-href="{escape(href)}"'
    parts = _open(width, height, title, extra) + _y_axis(frame)
    parts.append(f'<text x="{frame.left}" y="{height - 8}" class="tick">{fmt(frame.x0)}</text>')
    parts.append(
        f'<text x="{width - frame.right}" y="{height - 8}" text-anchor="end" class="tick">{fmt(frame.x1)}</text>'
    )
    if x_label:
        parts.append(
            f'<text x="{width / 2:.0f}" y="{height - 8}" text-anchor="middle" class="tick">{escape(x_label)}</text>'
        )
    for i, s in enumerate(cleaned):
        if s.points:
            parts.append(_polyline(frame, s, s.color or PALETTE[i % len(PALETTE)]))
    if len(series) > 1:
        parts.extend(_legend(cleaned, width, frame.right))
    parts.append('<line class="cursor" x1="0" x2="0" y1="0" y2="0"/></svg>')
    return "".join(parts)


def _polyline(frame: Frame, s: Series, color: str) -> str:
    data = (
        f' data-name="{escape(s.name)}" data-x="{" ".join(_num(x) for x, _ in s.points)}"'
        f' data-y="{" ".join(_num(y) for _, y in s.points)}"'
    )
    if len(s.points) == 1:
        x, y = s.points[0]
        return (
            f'<circle cx="{frame.x(x):.1f}" cy="{frame.y(y):.1f}" r="3" fill="{color}" class="series"{data}>'
            f"<title>{escape(s.name)}: {value_label(y)}</title></circle>"
        )
    coords = " ".join(f"{frame.x(x):.1f},{frame.y(y):.1f}" for x, y in s.points)
    dash = ' stroke-dasharray="5 3"' if s.dashed else ""
    return (
        f'<polyline class="series" points="{coords}" fill="none" stroke="{color}" stroke-width="1.6"{dash}{data}>'
        f"<title>{escape(s.name)}</title></polyline>"
    )


def _num(v: float) -> str:
    return f"{v:.6g}"


def _legend(series: Sequence[Series], width: int, right: int) -> list[str]:
    """One row under the title, right-aligned; names that do not fit are cut (the hover shows them whole)."""
    out: list[str] = []
    x = float(width - right)
    for i, s in reversed(list(enumerate(series))):
        name = s.name if len(s.name) <= 28 else s.name[:27] + "…"
        step = 18 + 6.5 * len(name)
        if x - step < 8:
            break
        x -= step
        out.append(
            f'<rect x="{x:.0f}" y="19" width="9" height="9" fill="{s.color or PALETTE[i % len(PALETTE)]}"/>'
            f'<text x="{x + 12:.0f}" y="27" class="tick">{escape(name)}</text>'
        )
    return out


def downsample(points: Sequence[Point], buckets: int) -> list[Point]:
    """At most about ``2 * buckets`` points: per equal-width x bucket its minimum and maximum, in x order.

    Unlike taking every k-th point, a one-step spike survives; the first and last points always stay.
    """
    if len(points) <= 2 * buckets:
        return list(points)
    x0, x1 = points[0][0], points[-1][0]
    width = (x1 - x0) / buckets or 1.0
    out: list[Point] = [points[0]]
    current, lo, hi = -1, points[0], points[0]
    for p in points[1:-1]:
        b = min(buckets - 1, int((p[0] - x0) / width))
        if b != current:
            if current >= 0:
                out.extend(sorted({lo, hi}))
            current, lo, hi = b, p, p
        elif p[1] < lo[1]:
            lo = p
        elif p[1] > hi[1]:
            hi = p
    if current >= 0:
        out.extend(sorted({lo, hi}))
    out.append(points[-1])
    return out


def downsample_rows(
    rows: Iterable[tuple[str, int, float]], spans: Mapping[str, tuple[float, float, int]], buckets: int
) -> dict[str, list[Point]]:
    """``downsample`` for many series at once, in one pass over (name, x, y) rows sorted by name then x.

    ``spans`` gives each name's first x, last x and row count (a cheap indexed query), so no series is
    collected in full first: a 50-metric x 2,000-step run streams through without 100,000 list entries.
    The loop keeps plain numbers and makes a point only for what it keeps (it is the page's hot path).
    """
    out: dict[str, list[Point]] = {}
    keep: list[Point] = []
    name = None
    x0 = width = 0.0
    last, current, thin = 0, -1, False
    lo_x = lo_y = hi_x = hi_y = 0.0

    def flush() -> None:
        if current >= 0:
            keep.extend(sorted({(lo_x, lo_y), (hi_x, hi_y)}))

    for row_name, step, value in rows:
        if row_name != name:
            if thin:
                flush()
            name, keep, current = row_name, [], -1
            out[name] = keep
            first, final, count = spans[name]
            thin = count > 2 * buckets
            x0, width, last = first, ((final - first) / buckets) or 1.0, int(final)
        if not thin or step == x0 or step == last:
            if thin and step == last:
                flush()
                current = -1
            keep.append((float(step), value))
            continue
        b = int((step - x0) / width)
        if b >= buckets:
            b = buckets - 1
        if b != current:
            flush()
            current, lo_x, lo_y, hi_x, hi_y = b, float(step), value, float(step), value
        elif value < lo_y:
            lo_x, lo_y = float(step), value
        elif value > hi_y:
            hi_x, hi_y = float(step), value
    if thin:
        flush()
    return out


def bar_chart(
    bars: Sequence[tuple[str, float]],
    *,
    title: str = "",
    width: int = 560,
    height: int = 200,
    y_range: tuple[float, float] | None = None,
    empty: str = "no data",
) -> str:
    """One bar per (label, value); negative values hang below the zero line."""
    bars = [(label, v) for label, v in bars if math.isfinite(v)]
    if not bars:
        return _empty(width, height, title, empty)
    values = [v for _, v in bars]
    y0, y1 = y_range or nice_range(min(0.0, *values), max(0.0, *values))
    slot = (width - 52 - 12) / len(bars)
    tilt = max(len(label) for label, _ in bars) * 6.0 > slot  # long labels: draw them slanted
    bottom = 34 + (int(min(60.0, max(len(label) for label, _ in bars) * 3.5)) if tilt else 0)
    frame = Frame(width, height, 52, 12, 24, bottom, 0, len(bars), y0, y1)
    parts = _open(width, height, title) + _y_axis(frame)
    zero = frame.y(0.0)
    for i, (label, value) in enumerate(bars):
        x, top = frame.left + i * slot + slot * 0.15, frame.y(value)
        y, h = min(top, zero), abs(zero - top)
        color = PALETTE[i % len(PALETTE)] if value >= 0 else "#dc2626"
        parts.append(
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{slot * 0.7:.1f}" height="{h:.1f}" fill="{color}">'
            f"<title>{escape(label)}: {value_label(value)}</title></rect>"
        )
        parts.append(
            f'<text x="{x + slot * 0.35:.1f}" y="{y - 3:.1f}" text-anchor="middle" class="tick">'
            f"{value_label(value)}</text>"
        )
        parts.append(_bar_label(x + slot * 0.35, height - bottom + 12, label, tilt))
    parts.append("</svg>")
    return "".join(parts)


def points_chart(
    rows: Sequence[tuple[str, float, float]], *, title: str = "", width: int = 520, height: int = 200
) -> str:
    """Per component (label, points earned, points lost): a green bar earned and a red bar lost, stacked to its maximum.

    A weight-0 component has no bar at all, so it can never look like the biggest contributor.
    """
    rows = [(label, max(0.0, got), max(0.0, lost)) for label, got, lost in rows if got > 0 or lost > 0]
    if not rows:
        return _empty(width, height, title, "no weighted components")
    top = max(got + lost for _, got, lost in rows)
    frame = Frame(width, height, 52, 12, 24, 34, 0, len(rows), *nice_range(0.0, top))
    frame = Frame(width, height, 52, 12, 24, 34, 0, len(rows), 0.0, frame.y1)
    parts = _open(width, height, title) + _y_axis(frame)
    slot = (width - frame.left - frame.right) / len(rows)
    for i, (label, got, lost) in enumerate(rows):
        x = frame.left + i * slot + slot * 0.2
        y_got, y_max = frame.y(got), frame.y(got + lost)
        zero = frame.y(0.0)
        name = escape(label)
        parts.append(
            f'<rect class="earned" x="{x:.1f}" y="{y_got:.1f}" width="{slot * 0.6:.1f}" '
            f'height="{zero - y_got:.1f}" fill="#16a34a">'
            f"<title>{name}: earned {value_label(got)}</title></rect>"
        )
        if lost > 0:
            parts.append(
                f'<rect class="lost" x="{x:.1f}" y="{y_max:.1f}" width="{slot * 0.6:.1f}" '
                f'height="{y_got - y_max:.1f}" fill="#fca5a5">'
                f"<title>{name}: lost {value_label(lost)}</title></rect>"
                f'<text x="{x + slot * 0.3:.1f}" y="{y_max - 3:.1f}" text-anchor="middle" class="tick lost">'
                f"−{value_label(lost)}</text>"
            )
        parts.append(_bar_label(x + slot * 0.3, height - 34 + 12, label, False))
    parts.append("</svg>")
    return "".join(parts)


def _bar_label(x: float, y: float, label: str, tilt: bool) -> str:
    if not tilt:
        return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="middle" class="tick">{escape(label)}</text>'
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="end" transform="rotate(-35 {x:.1f} {y:.1f})" class="tick">'
        f"{escape(label)}</text>"
    )
