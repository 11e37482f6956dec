"""The run page and the why in real Chromium: every step of a 320-step reward curve opens by click and by
keyboard, smoothing and zoom redraw the curve, the hub's component curve, a closed episode's named argument.

Screenshots go to artifacts/screenshots/ (gitignored)."""

from __future__ import annotations

import math
import re

import pytest

from hub.engine.events import RunEvent, RunMetricEvent
from tests.test_web_browser import Browser, browser, playwright_api  # noqa: F401  (the fixture)
from tests.web_support import WRONG_SOURCE, hub_of, rollouts

pytestmark = [pytest.mark.browser]

STEPS = 320


async def long_run(b: Browser, rid: str = "run-long") -> None:
    hub = hub_of(b.live.app)
    hub.bus.publish(RunEvent(rid, "grpo-qwen-320", {}, "finished", 1.0))
    for step in range(STEPS):
        noisy = 0.5 + 0.4 * math.sin(step / 7.0) * (1 if step % 3 else -1)
        metrics = {
            "reward/mean": noisy,
            "reward/std": 0.1,
            "reward/max": noisy + 0.2,
            "loss/policy": 1.0 / (1 + step),
            "kl": 0.001 * step,
            "entropy": 2.0,
            "optim/lr": 1e-6,
            "perf/tokens_per_sec": 900.0 + step,
        }
        hub.bus.publish(RunMetricEvent(rid, step, metrics, 2.0))
    await hub.store.flush(10)


async def step_x(b: Browser, selector: str, step: float) -> tuple[float, float]:
    """The page position of ``step`` on a chart, from the frame the chart carries."""
    return await b.page.evaluate(  # type: ignore[no-any-return]
        """([sel, step]) => {
            const svg = document.querySelector(sel), box = svg.getBoundingClientRect(), w = svg.viewBox.baseVal.width;
            const n = (k) => Number(svg.getAttribute('data-' + k));
            const px = n('x0') + (step - n('d0')) / (n('d1') - n('d0')) * (n('x1') - n('x0'));
            return [box.left + px * box.width / w, box.top + box.height / 2];
        }""",
        [selector, step],
    )


async def test_every_step_of_a_320_step_curve_opens_by_click(browser: Browser) -> None:  # noqa: F811
    await long_run(browser)
    page = browser.page
    await page.set_viewport_size({"width": 1440, "height": 900})
    await browser.goto("/ui/training/run-long")
    curve = "#reward-curve svg"
    drawn = await page.locator(f"{curve} polyline.series").first.get_attribute("data-x")
    assert drawn is not None and len(drawn.split()) < STEPS  # downsampled: the steps are not all drawn points
    width = (await page.locator(curve).bounding_box() or {}).get("width", 0)
    assert width >= 0.9 * (1440 - 2 * 24 - 2 * 16)  # the curve takes the page's width
    # a function the page's click handler calls by name: record the steps instead of leaving the page
    await page.evaluate("() => { window.__opened = []; window.openStep = (svg, step) => window.__opened.push(step); }")
    for step in range(STEPS):
        x, y = await step_x(browser, curve, step)
        await page.mouse.click(x, y)
    assert await page.evaluate("window.__opened") == list(range(STEPS))
    x, y = await step_x(browser, curve, 187)
    await page.mouse.move(x, y)
    tip = page.locator(".chart-tip")
    await playwright_api.expect(tip.locator(".tip-step")).to_have_text("step 187")
    await playwright_api.expect(tip).to_contain_text("grpo-qwen-320: 0.9")  # the run's name; reward/mean at 187
    await playwright_api.expect(page.locator(curve)).to_have_attribute("data-hover", "187")
    await browser.shot("run_curve_hover_187")
    await page.evaluate("delete window.openStep")  # back to the page's own (a function declaration stays)
    await page.reload()
    x, y = await step_x(browser, curve, 187)
    await page.mouse.click(x, y)
    await page.wait_for_url(re.compile(r"/ui/episodes\?run=run-long&step=187$"))
    assert browser.errors == []


async def test_the_curve_works_by_keyboard(browser: Browser) -> None:  # noqa: F811
    await long_run(browser)
    page = browser.page
    await browser.goto("/ui/training/run-long")
    chart = page.locator("#reward-curve svg")
    await chart.focus()
    await page.keyboard.press("End")
    await playwright_api.expect(chart).to_have_attribute("data-hover", str(STEPS - 1))
    await page.keyboard.press("ArrowLeft")
    await playwright_api.expect(chart).to_have_attribute("data-hover", str(STEPS - 2))
    await page.keyboard.press("Home")
    await page.keyboard.press("ArrowRight")
    await playwright_api.expect(chart).to_have_attribute("data-hover", "1")
    await playwright_api.expect(page.locator(".chart-tip .tip-step")).to_have_text("step 1")
    await page.keyboard.press("Enter")
    await page.wait_for_url(re.compile(r"/ui/episodes\?run=run-long&step=1$"))
    assert browser.errors == []


async def test_families_smoothing_and_zoom(browser: Browser) -> None:  # noqa: F811
    await long_run(browser)
    page = browser.page
    await page.set_viewport_size({"width": 1440, "height": 900})
    await browser.goto("/ui/training/run-long")
    groups = await page.locator("details.metric-group").evaluate_all("els => els.map(e => e.dataset.group)")
    assert groups == ["reward", "loss", "kl / entropy", "lr", "throughput"]
    # the curve draws the reward's mean; its spread (std, max) has its own charts, not the curve's axis
    names = await page.locator("#reward-curve polyline.series").evaluate_all("els => els.map(e => e.dataset.name)")
    assert names == ["grpo-qwen-320"]
    reward_charts = page.locator('details[data-group="reward"] .chart-cell')
    assert await reward_charts.evaluate_all("els => els.map(e => e.dataset.metric)") == [
        "reward/max",
        "reward/mean",
        "reward/std",
    ]
    line = page.locator("#reward-curve polyline.series").first
    raw_points = await line.get_attribute("points")
    await page.locator("#smoothing").fill("0.9")
    await playwright_api.expect(page.locator("#smoothing-value")).to_have_text("0.90")
    assert await line.get_attribute("points") != raw_points
    await playwright_api.expect(page.locator("#reward-curve polyline.raw").first).to_be_attached()
    await browser.shot("run_smoothed")
    await page.locator("#zoom-from").fill("100")
    await page.locator("#zoom-to").fill("140")
    await page.locator("#run-options button[type=submit]").click()
    await page.wait_for_url(re.compile(r"from=100&to=140"))
    curve = page.locator("#reward-curve svg")
    await playwright_api.expect(curve).to_have_attribute("data-d0", "100")
    await playwright_api.expect(curve).to_have_attribute("data-d1", "140")
    xs = (await page.locator("#reward-curve polyline.series").first.get_attribute("data-x") or "").split()
    assert xs == [str(s) for s in range(100, 141)]  # a zoomed range at full resolution
    await browser.shot("run_zoomed")
    assert browser.errors == []


async def test_the_component_curve_comes_from_stored_episodes(browser: Browser) -> None:  # noqa: F811
    hub = hub_of(browser.live.app)
    hub.bus.publish(RunEvent("run-c", "grpo-c", {}, "running", 1.0))
    for step in range(3):
        rollouts(hub, "bank-transfer-002", [[WRONG_SOURCE, "Done."]] * 2, run="run-c", step=step)
    await hub.store.flush(10)
    page = browser.page
    await browser.goto("/ui/training/run-c")
    series = page.locator("#component-curve polyline.series")
    names = await series.evaluate_all("els => els.map(e => e.dataset.name)")
    assert "argument" in names and "coverage" in names and "reward" not in names
    argument = page.locator('#component-curve polyline.series[data-name="argument"]')
    await playwright_api.expect(argument).to_have_attribute("data-x", "0 1 2")
    await playwright_api.expect(argument).to_have_attribute("data-y", "0.75 0.75 0.75")  # one of four keys wrong
    await browser.shot("run_components")
    assert browser.errors == []


async def test_a_closed_episode_names_its_wrong_argument_in_the_browser(browser: Browser) -> None:  # noqa: F811
    hub = hub_of(browser.live.app)
    engine = hub.episodes
    (eid,) = rollouts(hub, "bank-transfer-002", [[WRONG_SOURCE, "Done."]])
    await hub.store.flush(10)
    page = browser.page
    await browser.goto(f"/ui/episodes/{eid}")
    wrong = page.locator('#why-steps tr[data-gt="g1"] .arg.wrong[data-key="from_account_id"]')
    await playwright_api.expect(wrong).to_have_text(
        re.compile(r'from_account_id: "ACC-0003"\s*, expected\s*"ACC-0001"')
    )
    await playwright_api.expect(page.locator("#why-missing")).to_contain_text("g2")
    await playwright_api.expect(page.locator("#why-preset")).to_have_text(engine.reward.preset)
    await browser.shot("episode_why_closed")
    await page.locator("#group-link").click()
    await playwright_api.expect(page.locator("#why-rollouts")).to_contain_text('from_account_id: "ACC-0003"')
    await browser.shot("group_why")
    assert browser.errors == []


async def test_the_runs_failure_table_in_the_browser(browser: Browser) -> None:  # noqa: F811
    hub = hub_of(browser.live.app)
    hub.bus.publish(RunEvent("run-f", "grpo-f", {}, "running", 1.0))
    missing = '<tool_call>{"name": "banking__get_account", "arguments": {"account_id": "ACC-9999"}}</tool_call>'
    made_up = '<tool_call>{"name": "banking__get_account_v2", "arguments": {"account_id": "ACC-0001"}}</tool_call>'
    for step, script in enumerate([[missing, "Done."], [made_up, "<tool_call>{broken</tool_call>", "Done."]]):
        rollouts(hub, "bank-balance-001", [script], run="run-f", step=step)
    await hub.store.flush(10)
    page = browser.page
    await browser.goto("/ui/training/run-f")
    await page.locator("#analytics-link").click()
    await page.wait_for_url(re.compile(r"/ui/training/run-f/analytics$"))
    row = page.locator('#failure-table tr[data-tool="banking.get_account"]')
    await playwright_api.expect(row.locator('td[data-kind="tool"]')).to_have_text("1")
    await playwright_api.expect(page.locator("#failure-table tbody tr")).to_have_count(1)  # no made-up name in it
    await playwright_api.expect(page.locator("#unknown-count")).to_have_text("1")
    await playwright_api.expect(page.locator("code.unknown-name")).to_have_text("banking.get_account_v2")
    await playwright_api.expect(page.locator("#unparsed-count")).to_have_text("1")
    await page.locator("#variance").select_option("nonzero")
    await page.locator("#group-filter button").click()
    await page.wait_for_url(re.compile(r"variance=nonzero"))
    await browser.shot("run_analytics")
    assert browser.errors == []


async def test_the_episode_list_updates_over_sse_without_polling(browser: Browser) -> None:  # noqa: F811
    hub = hub_of(browser.live.app)
    engine = hub.episodes
    page = browser.page
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    await page.set_viewport_size({"width": 1440, "height": 900})
    await browser.goto("/ui/episodes")
    await page.locator('body[data-sse="open"]').wait_for()
    await playwright_api.expect(page.locator("#episode-count")).to_contain_text("0 episodes")
    fetched = len(requests)
    (ep,) = engine.open_group("bank-balance-001", 1, run="run-s", step=0)
    engine.step(ep.id, "Done.")
    engine.finish(ep.id)
    row = page.locator(f'#episode-list tr[data-episode="{ep.id}"]')
    await playwright_api.expect(row).to_be_visible()
    await playwright_api.expect(row).to_contain_text("run-s · 0")
    fits = "() => { const p = document.getElementById('episode-list'); return p.scrollWidth <= p.clientWidth; }"
    assert await page.evaluate(fits)  # no column falls off at 1440 px
    list_fetches = [u for u in requests[fetched:] if "/ui/episodes" in u]
    assert len(list_fetches) == 1, list_fetches  # one fetch for the change, no timer re-fetching the list
    await page.locator('#episode-list a.sort[data-sort="reward"]').click()
    await playwright_api.expect(page.locator("#sort-select")).to_have_value("reward")
    await playwright_api.expect(page.locator("#sort-label")).to_have_text("reward, highest first")
    await browser.shot("episodes_list")
    assert browser.errors == []
