"""Accessibility: axe-core (from npm, installed by scripts/bootstrap into web/node_modules, never fetched at test
time) runs in Chromium on every dashboard page; no serious or critical violation is allowed, and ids are unique."""

from __future__ import annotations

from pathlib import Path

import pytest

from hub.engine.events import RunEvent, RunMetricEvent
from tests.test_web_browser import Browser, browser, playwright_api  # noqa: F401  (the fixture)
from tests.web_support import WRONG_SOURCE, hub_of, play, rollouts, ui_pages

AXE = Path(__file__).resolve().parent.parent / "web" / "node_modules" / "axe-core" / "axe.min.js"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not AXE.exists(), reason="axe-core missing: run scripts/bootstrap (npm install in web/)"),
]


async def serious(b: Browser) -> list[str]:
    """The page's serious and critical axe-core violations, one line per rule with its first nodes."""
    await b.page.add_script_tag(content=AXE.read_text())
    found = await b.page.evaluate(
        """async () => {
            const r = await axe.run(document, {resultTypes: ['violations']});
            return r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
                .map(v => v.id + ' (' + v.nodes.length + '): '
                     + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | '));
        }"""
    )
    return list(found)


async def duplicate_ids(b: Browser) -> list[str]:
    return list(
        await b.page.evaluate(
            """() => { const seen = {}, dup = new Set();
                document.querySelectorAll('[id]').forEach(e => { if (seen[e.id]) dup.add(e.id); seen[e.id] = 1; });
                return [...dup]; }"""
        )
    )


async def test_no_serious_axe_violation_on_any_page(browser: Browser) -> None:  # noqa: F811
    hub = hub_of(browser.live.app)
    hub.bus.publish(RunEvent("run-x", "grpo-x", {"lr": 1e-6}, "finished", 1.0))
    for step in range(30):
        hub.bus.publish(RunMetricEvent("run-x", step, {"reward": 0.02 * step, "loss/policy": 1.0, "kl": 0.01}, 2.0))
    scripts = [[WRONG_SOURCE, "Done."], [WRONG_SOURCE, "Done."], ["Done."]]
    closed = rollouts(hub, "bank-transfer-002", scripts, run="run-x", step=4)
    await hub.store.flush(10)
    engine_group = (await hub.store.query("SELECT group_id FROM episodes WHERE id = ?", (closed[0],)))[0]["group_id"]
    live = play(hub, "bank-transfer-002", finish=False)  # an open episode and its session
    await hub.store.flush(10)
    pages = {
        **ui_pages(live, "episode_open"),
        "episode_closed": f"/ui/episodes/{closed[0]}",
        "group": f"/ui/groups/{engine_group}",
        "run": "/ui/training/run-x",
        "run_analytics": "/ui/training/run-x/analytics",
    }
    report = {}
    for name, path in pages.items():
        await browser.goto(path)
        problems = await serious(browser) + [f"duplicate id {i}" for i in await duplicate_ids(browser)]
        if problems:
            report[name] = problems
        await browser.shot(f"axe_{name}")
    assert report == {}
    assert browser.errors == []
