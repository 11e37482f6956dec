"""Dashboard building blocks: SVG charts, tool forms, live counters, the timeline, the episode filter."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from hub.engine.events import EventBus, ToolCallEvent
from tests.conftest import LIBRARY
from web import models
from web.forms import FormError, arguments_from_form, fields_of
from web.live import LiveStats
from web.queries import EpisodeFilter, decode_cursor, encode_cursor
from web.svg import Series, bar_chart, line_chart, nice_range

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def test_line_chart_draws_one_polyline_per_series_with_a_legend() -> None:
    svg = line_chart(
        [Series("reward", [(0, 0.1), (1, 0.5), (2, 0.9)]), Series("mean", [(0, 0.2), (2, 0.6)])], title="r"
    )
    root = parse(svg)
    lines = root.findall(f"{SVG}polyline")
    assert len(lines) == 2
    xs = [float(p.split(",")[0]) for p in lines[0].attrib["points"].split()]
    assert xs == sorted(xs) and xs[0] < xs[-1]
    assert "reward" in svg and "mean" in svg


def test_line_chart_escapes_text_and_handles_no_data() -> None:
    svg = line_chart([Series("<b>x</b>", [(0, 1), (1, 2)])], title="<script>alert(1)</script>")
    assert "<script>" not in svg and "&lt;script&gt;" in svg
    parse(svg)
    empty = line_chart([], title="calls", empty="nothing yet")
    assert "nothing yet" in empty and parse(empty) is not None
    flat = line_chart([Series("one", [(5, 3.0)])])
    assert parse(flat).find(f"{SVG}circle") is not None


def test_bar_chart_bars_and_negative_values() -> None:
    svg = bar_chart([("validity", 1.0), ("coverage", 0.5), ("efficiency", -0.25)], title="components")
    rects = parse(svg).findall(f"{SVG}rect")
    assert len(rects) == 3
    heights = [float(r.attrib["height"]) for r in rects]
    assert heights[0] == pytest.approx(2 * heights[1], rel=0.01) and heights[2] > 0
    assert rects[2].attrib["fill"] == "#dc2626"
    assert "no data" in bar_chart([])


def test_nice_range_rounds_and_widens_flat_ranges() -> None:
    assert nice_range(0.13, 0.87) == (0.0, 1.0)  # ticks every 0.25
    assert nice_range(0.13, 0.47) == (0.1, 0.5)
    lo, hi = nice_range(2.0, 2.0)
    assert lo < 2.0 < hi


def test_form_fields_follow_the_schema() -> None:
    schema = LIBRARY.tool("banking", "transfer_funds").input_schema
    fields = {f.name: f for f in fields_of(schema)}
    assert fields["amount"].kind == "number" and fields["amount"].widget == "input"
    assert fields["memo"].default == "" and not fields["memo"].required
    opt = next(f for t in LIBRARY.all_tools() for f in fields_of(t.input_schema) if f.nullable and f.enum)
    assert opt.widget == "select" and opt.options == opt.enum


def test_form_to_arguments() -> None:
    schema = {
        "type": "object",
        "required": ["n"],
        "properties": {
            "n": {"type": "integer"},
            "x": {"type": "number"},
            "on": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "name": {"type": "string"},
            "kind": {"anyOf": [{"enum": ["a", "b"], "type": "string"}, {"type": "null"}]},
        },
    }
    args = arguments_from_form(
        schema, {"n": "3", "x": "2.5", "on": "false", "tags": '["a"]', "name": " hi ", "kind": "b"}
    )
    assert args == {"n": 3, "x": 2.5, "on": False, "tags": ["a"], "name": " hi ", "kind": "b"}
    assert arguments_from_form(schema, {"n": "1", "name": ""}) == {"n": 1}
    assert arguments_from_form(schema, {"n": "1", "__json": '{"n": 7}'}) == {"n": 7}
    for bad in ({"n": "three"}, {"tags": "[oops"}, {"__json": "[1]"}):
        with pytest.raises(FormError):
            arguments_from_form(schema, bad)


def _call(ts: float, ok: bool = True) -> ToolCallEvent:
    return ToolCallEvent("s", "banking", "get_account", {}, ok, None, None, None, 0.1, False, ts)


def test_live_stats_counts_calls_per_second() -> None:
    bus = EventBus()
    live = LiveStats.attach(bus, window_s=60)
    for ts in (100.1, 100.5, 101.2, 103.9):
        bus.publish(_call(ts))
    bus.publish(_call(103.95, ok=False))
    assert live.calls == 5 and live.failed == 1
    assert live.rate(span_s=4, now=103.5) == pytest.approx(5 / 4)
    assert live.rate(span_s=2, now=103.5) == pytest.approx(2 / 2)
    series = dict(live.series(span_s=4, now=104.0))
    assert series == {-4.0: 2.0, -3.0: 1.0, -2.0: 0.0, -1.0: 2.0, 0.0: 0.0}
    bus.publish(_call(500.0))
    assert [b[0] for b in live.buckets] == [500]  # the window slid past the old seconds


def test_timeline_interleaves_turns_and_calls_and_parses_model_text() -> None:
    turns = [
        {"seq": 0, "role": "user", "content": "hi", "ts": 1.0},
        {
            "seq": 1,
            "role": "assistant",
            "content": '<tool_call>{"name": "banking__get_account", '
            '"arguments": {"account_id": "ACC-0001"}}</tool_call>',
            "ts": 2.0,
        },
        {"seq": 2, "role": "assistant", "content": "<tool_call>{broken</tool_call>", "ts": 4.0},
    ]
    calls = [{"ts": 2.0, "tool": "get_account"}, {"ts": 4.5, "tool": ""}]
    items = models.timeline(turns, calls)
    assert [(i["kind"], i.get("seq", i.get("tool"))) for i in items] == [
        ("turn", 0),
        ("turn", 1),
        ("call", "get_account"),
        ("turn", 2),
        ("call", ""),
    ]
    assert items[1]["parsed"] == [
        {"name": "banking__get_account", "arguments": {"account_id": "ACC-0001"}, "error": None}
    ]
    assert items[3]["format_errors"] or items[3]["parsed"][0]["error"]


def test_reward_rows_weigh_components() -> None:
    rows = {
        r["name"]: r
        for r in models.reward_rows({"validity": 1.0, "coverage": 0.5, "abstention": 1.0}, {"w_val": 0.5, "w_cov": 0.5})
    }
    assert rows["coverage"]["contribution"] == pytest.approx(0.25)
    assert rows["abstention"]["weight"] is None and rows["abstention"]["contribution"] is None


def test_episode_filter_sql_and_cursor() -> None:
    clauses, params = EpisodeFilter(task="t", server="banking", min_reward=0.5, errors=True).where()
    assert len(clauses) == 4 and params == ["t", '%"banking"%', 0.5]
    assert EpisodeFilter(min_reward=0.0).query() == {"min_reward": "0.0"}
    assert decode_cursor(encode_cursor(1712.25, "ep-1")) == (1712.25, "ep-1")
    assert decode_cursor("garbage") is None
