"""The dashboard in headless Debian chromium (Playwright) against a real uvicorn on loopback.

Screenshots go to artifacts/screenshots/ (gitignored). Skipped when /usr/bin/chromium or the
front-end packages (web/node_modules, installed by scripts/bootstrap) are missing.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from mcp import Client
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from hub.testing import LiveHub, serve
from tests.web_support import NO_LIST, WRONG_SOURCE, XSS, hub_of, make_app, play, ui_pages
from web.routes import VENDOR

CHROMIUM = Path("/usr/bin/chromium")
SHOTS = Path(__file__).resolve().parent.parent / "artifacts" / "screenshots"
TIMEOUT_MS = 15_000

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian chromium at /usr/bin/chromium"),
    pytest.mark.skipif(
        not all(p.exists() for p in VENDOR.values()), reason="web/node_modules missing: run scripts/bootstrap"
    ),
]

playwright_api = pytest.importorskip("playwright.async_api")


@dataclass
class Browser:
    live: LiveHub
    page: playwright_api.Page
    dialogs: list[str]
    errors: list[str]

    def url(self, path: str) -> str:
        return self.live.url + path

    async def goto(self, path: str) -> None:
        response = await self.page.goto(self.url(path))
        assert response is not None and response.ok, f"{path}: {response and response.status}"

    async def shot(self, name: str) -> None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        await self.page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


@pytest.fixture
async def browser(tmp_path: Path) -> AsyncIterator[Browser]:
    app = make_app(tmp_path)
    async with serve(app) as live, playwright_api.async_playwright() as pw:
        chromium = await pw.chromium.launch(
            executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
        )
        try:
            page = await chromium.new_page(viewport={"width": 1400, "height": 900})
            page.set_default_timeout(TIMEOUT_MS)
            b = Browser(live, page, [], [])
            page.on("dialog", lambda d: (b.dialogs.append(d.message), d.dismiss()))
            page.on("pageerror", lambda e: b.errors.append(str(e)))
            yield b
            await page.close()  # close SSE streams before the server stops
        finally:
            await chromium.close()


async def test_every_page_loads(browser: Browser) -> None:
    hub = hub_of(browser.live.app)
    eid = play(hub, "bank-transfer-002")
    await hub.store.flush(10)
    for name, path in ui_pages(eid).items():
        await browser.goto(path)
        assert await browser.page.evaluate("typeof window.htmx") == "object", name
        await browser.shot(name)
    assert browser.errors == []


async def test_tool_call_over_mcp_appears_on_the_open_overview(browser: Browser) -> None:
    page = browser.page
    await browser.goto("/ui/")
    await page.locator('body[data-sse="open"]').wait_for()
    await page.locator('#stats [data-live="1"]').wait_for()  # the stream has delivered its first message
    async with Client(f"{browser.live.url}/sessions/x/mcp/banking") as client:
        await client.call_tool("get_account", {"account_id": "ACC-0004"})
    row = page.locator('#call-rows tr[data-call="banking.get_account"]', has_text="ACC-0004")
    await row.wait_for()
    await playwright_api.expect(row).to_contain_text("x")
    await playwright_api.expect(page.locator("#stat-calls")).not_to_have_text("0")
    await browser.shot("overview_live")
    assert browser.errors == []


async def test_open_episode_updates_live_and_shows_its_reward(browser: Browser) -> None:
    hub = hub_of(browser.live.app)
    engine = hub.episodes
    (ep,) = engine.open_group("bank-transfer-002", 1)
    page = browser.page
    await browser.goto(f"/ui/episodes/{ep.id}")
    await page.locator('body[data-sse="open"]').wait_for()
    engine.step(
        ep.id,
        '<tool_call>{"name": "banking__transfer_funds", "arguments": {"from_account_id": "ACC-0001", '
        '"to_account_id": "ACC-0002", "amount": 300.0, "memo": "Rent June"}}</tool_call>',
    )
    await page.locator('#timeline .item.call[data-call="banking.transfer_funds"]').wait_for()
    engine.step(
        ep.id, '<tool_call>{"name": "banking__list_transactions", "arguments": {"account_id": "ACC-0002"}}</tool_call>'
    )
    engine.step(ep.id, "Done: $300 moved.")
    await page.locator("#timeline .item.assistant", has_text="Done: $300 moved.").wait_for()
    engine.finish(ep.id)
    await page.locator('#status [data-status="finished"]').wait_for()
    await playwright_api.expect(page.locator("#live-mark")).to_have_count(0)  # a finished episode is not live
    await page.locator("#reward-table").wait_for()
    await playwright_api.expect(page.locator("#state-match")).to_be_visible()
    await playwright_api.expect(page.locator("#episode-cards")).to_contain_text(re.compile(r"reward\s*\d\.\d{3}", re.I))
    await browser.shot("episode_live")
    assert browser.errors == []


async def test_run_a_tool_from_the_catalog(browser: Browser) -> None:
    page = browser.page
    await browser.goto("/ui/catalog")
    await page.fill("#catalog-q", "deposit_funds")
    await playwright_api.expect(page.locator("#catalog-count")).to_have_text(re.compile(r"^\s*\d tools? matching"))
    await page.locator("#server-banking a", has_text="deposit_funds").click()
    await page.wait_for_url(re.compile(r"/ui/catalog/banking/deposit_funds"))
    await page.fill("#f-session", "ui-browser")
    await page.fill("#f-account_id", "ACC-0003")
    await page.fill("#f-amount", "42.5")
    await page.click("#run-tool")
    await playwright_api.expect(page.locator("#result-status")).to_have_text("ok")
    await playwright_api.expect(page.locator("#tool-result .diff")).to_contain_text("banking.transactions")
    await browser.shot("tool_run")
    assert "ui-browser" in hub_of(browser.live.app).sessions.sessions
    assert browser.errors == []


async def test_replay_button_posts_with_the_pages_csrf_token(browser: Browser) -> None:
    await browser.goto("/ui/tasks/bank-transfer-002")
    await browser.page.click("#replay")
    await browser.page.wait_for_url(re.compile(r"/ui/episodes/ep-"))
    eid = browser.page.url.rsplit("/", 1)[-1]
    assert hub_of(browser.live.app).episodes.get(eid).done
    assert browser.errors == []


def attacker_app(target: str) -> Starlette:
    """A page on another site that posts the run-tool form to the hub as soon as it loads."""
    html = (
        f'<form id="f" method="post" action="{target}"><input name="session" value="victim">'
        '<input name="account_id" value="ACC-0001"><input name="amount" value="100"></form>'
        '<script>document.getElementById("f").submit()</script>'
    )

    async def page(request: Request) -> HTMLResponse:
        return HTMLResponse(html)

    return Starlette(routes=[Route("/", page)])


async def test_a_cross_site_form_post_from_a_real_browser_is_refused(browser: Browser) -> None:
    hub = hub_of(browser.live.app)
    await browser.goto("/ui/catalog/banking/deposit_funds")  # the browser holds the hub's CSRF cookie
    target = browser.url("/ui/catalog/banking/deposit_funds/run")
    async with serve(attacker_app(target)) as evil:
        async with browser.page.expect_response(target) as answer:
            await browser.page.goto(f"http://localhost:{evil.port}/")
        response = await answer.value
    # Chromium sends its Origin on a cross-site POST, so the guard answers first; without one, the missing
    # token does (tests/test_guard.py), and the SameSite=Strict cookie never travels cross-site anyway.
    assert response.status == 403 and (await response.json())["code"] == "forbidden_origin"
    assert "victim" not in hub.sessions.sessions and hub.sessions.get("default").calls == 0


async def test_script_in_tool_arguments_renders_as_text(browser: Browser) -> None:
    hub = hub_of(browser.live.app)
    hub.dispatcher.call("xss", "banking", "get_account", {"account_id": XSS})
    await hub.store.flush(10)
    page = browser.page
    await browser.goto("/ui/sessions/xss")
    await playwright_api.expect(page.locator("table").first).to_contain_text(XSS)
    await browser.goto("/ui/")
    await playwright_api.expect(page.locator("#call-rows")).to_contain_text(XSS)
    assert browser.dialogs == [] and await page.locator("#call-rows script").count() == 0


# Debugging RL: kept evidence, points lost, groups, live training ----------------------------------


async def test_a_closed_episode_shows_its_diff(browser: Browser) -> None:
    hub = hub_of(browser.live.app)
    eid = play(hub, "bank-transfer-002", [WRONG_SOURCE, "Done."])
    hub.episodes.close(eid)
    await hub.store.flush(10)
    page = browser.page
    await browser.goto(f"/ui/episodes/{eid}")
    await playwright_api.expect(page.locator("#state-differs")).to_be_visible()
    await playwright_api.expect(page.locator("#final-state")).to_contain_text("banking.accounts")
    await playwright_api.expect(page.locator("#final-state tr.changed", has_text="ACC-0003").first).to_be_visible()
    await playwright_api.expect(page.locator("#start-diff")).to_contain_text("banking.transactions")
    await playwright_api.expect(page.locator('#reward-table tr[data-component="coverage"]')).to_contain_text("0.250")
    await page.locator(".timeline .item.call button.copy").first.click()
    await playwright_api.expect(page.locator('.timeline .item.call button.copy[data-copied="1"]')).to_have_count(1)
    await browser.shot("episode_closed_evidence")
    assert browser.errors == []


async def test_episodes_sort_by_a_component(browser: Browser) -> None:
    hub = hub_of(browser.live.app)
    full = play(hub, "bank-transfer-002")
    half = play(hub, "bank-transfer-002", [NO_LIST, "Done."])
    none = play(hub, "bank-transfer-002", ["I cannot do that."])
    await hub.store.flush(10)
    page = browser.page
    await browser.goto("/ui/episodes")
    await page.locator('th a.sort[data-sort="coverage"]').click()
    await page.wait_for_url(re.compile(r"sort=coverage"))
    rows = page.locator("#episode-list tbody tr[data-episode]")
    await playwright_api.expect(rows.first).to_have_attribute("data-episode", none)
    assert [await r.get_attribute("data-episode") for r in await rows.all()] == [none, half, full]
    await playwright_api.expect(rows.nth(1).locator('td[data-component="coverage"]')).to_contain_text("−0.250")
    await page.locator('th a.sort[data-sort="coverage"]').click()  # again: fewest points lost first
    await page.wait_for_url(re.compile(r"sort=-coverage"))
    await playwright_api.expect(rows.first).to_have_attribute("data-episode", full)
    await browser.shot("episodes_sorted_by_coverage")
    assert browser.errors == []


async def test_group_page_shows_rollouts_and_advantages(browser: Browser) -> None:
    hub = hub_of(browser.live.app)
    engine = hub.episodes
    eps = engine.open_group("bank-transfer-002", 4)
    from hub.tasks import oracle_script

    scripts = [oracle_script(engine.get(eps[0].id).task), [WRONG_SOURCE, "Done."], [NO_LIST, "Done."], ["No."]]
    for ep, script in zip(eps, scripts):
        for message in script:
            if not engine.get(ep.id).done:
                engine.step(ep.id, message)
        engine.finish(ep.id)
        engine.close(ep.id)
    await hub.store.flush(10)
    page = browser.page
    await browser.goto(f"/ui/episodes/{eps[2].id}")
    await page.locator("#group-link").click()
    await page.wait_for_url(re.compile(r"/ui/groups/grp-"))
    rows = page.locator("#rollouts tbody tr")
    await playwright_api.expect(rows).to_have_count(4)
    advantages = [await r.locator("td.advantage").inner_text() for r in await rows.all()]
    assert advantages[0].startswith("+") and advantages[3].startswith("-"), advantages
    await playwright_api.expect(page.locator("#call-grid tr.diverge")).to_have_count(1)
    await playwright_api.expect(page.locator("#call-grid td.odd").first).to_be_visible()
    await browser.shot("group")
    assert browser.errors == []


async def test_training_page_gains_points_live_and_reads_small_values(browser: Browser) -> None:
    from hub.engine.events import RunEvent, RunMetricEvent

    hub = hub_of(browser.live.app)
    hub.bus.publish(RunEvent("run-live", "grpo-live", {"lr": 1e-6}, "running", 1.0))
    for step in range(5):
        metrics = {"reward": 0.1 * step, "optim/lr": 1e-6, "loss/policy": 0.5}
        hub.bus.publish(RunMetricEvent("run-live", step, metrics, 2.0))
    await hub.store.flush(10)
    page = browser.page
    await browser.goto("/ui/training/run-live")
    await page.locator('body[data-sse="open"]').wait_for()
    await playwright_api.expect(page.locator("#last-step")).to_have_text("4")
    await page.evaluate("window.__sameDocument = true")
    lr = page.locator('.chart-cell[data-metric="optim/lr"] svg')
    await playwright_api.expect(lr.locator("text.tick", has_text=re.compile(r"^1e-6$"))).to_have_count(1)
    await playwright_api.expect(lr.locator("text.chart-title")).to_contain_text("1e-6 @ 4")
    points_before = await page.locator("#reward-curve polyline.series").get_attribute("data-x")
    for step in range(5, 12):
        metrics = {"reward": 0.1 * step, "optim/lr": 1e-6, "loss/policy": 0.4}
        hub.bus.publish(RunMetricEvent("run-live", step, metrics, 3.0))
    await playwright_api.expect(page.locator("#last-step")).to_have_text("11")
    assert await page.evaluate("window.__sameDocument === true")  # no reload: the charts were swapped in
    points_after = await page.locator("#reward-curve polyline.series").get_attribute("data-x")
    assert points_before is not None and points_after is not None
    assert len(points_after.split()) == 12 > len(points_before.split())
    await lr.scroll_into_view_if_needed()
    box = await lr.bounding_box()
    assert box is not None
    await page.mouse.move(box["x"] + box["width"] * 0.6, box["y"] + box["height"] / 2)
    await playwright_api.expect(page.locator(".chart-tip")).to_contain_text("1e-6")
    hub.bus.publish(RunEvent("run-live", "", {}, "finished", 4.0))
    await playwright_api.expect(page.locator('#run-status [data-status="finished"]')).to_be_visible()
    await browser.shot("training_live")
    assert browser.errors == []


async def test_first_failed_call_is_one_click_away(browser: Browser) -> None:
    hub = hub_of(browser.live.app)
    calls = ['<tool_call>{"name": "banking__get_account", "arguments": {"account_id": "ACC-0001"}}</tool_call>'] * 12
    calls.append('<tool_call>{"name": "banking__get_account", "arguments": {"account_id": "ACC-9999"}}</tool_call>')
    from hub.wire import EpisodeLimits

    (ep,) = hub.episodes.open_group("bank-balance-001", 1, EpisodeLimits(max_steps=40))
    for message in calls + ["Done."]:
        hub.episodes.step(ep.id, message)
    hub.episodes.finish(ep.id)
    await hub.store.flush(10)
    page = browser.page
    await browser.goto(f"/ui/episodes/{ep.id}")
    await page.locator("#jump-failed").click()
    target = page.locator(".timeline .item.call.bad").first
    await playwright_api.expect(target).to_be_in_viewport()
    assert browser.errors == []


async def test_a_point_on_the_reward_curve_opens_that_steps_episodes(browser: Browser) -> None:
    from hub.engine.events import RunEvent, RunMetricEvent

    hub = hub_of(browser.live.app)
    hub.bus.publish(RunEvent("run-click", "grpo", {}, "finished", 1.0))
    for step in range(4):
        hub.bus.publish(RunMetricEvent("run-click", step, {"reward": 0.2 * step}, 2.0))
    eps = hub.episodes.open_group("bank-balance-001", 2, run="run-click", step=3)
    await hub.store.flush(10)
    page = browser.page
    await browser.goto("/ui/training/run-click")
    chart = page.locator("#reward-curve svg")
    box = await chart.bounding_box()
    assert box is not None
    await page.mouse.click(box["x"] + box["width"] * 0.985, box["y"] + box["height"] / 2)  # the last step
    await page.wait_for_url(re.compile(r"/ui/episodes\?run=run-click&step=3"))
    rows = page.locator("#episode-list tbody tr[data-episode]")
    await playwright_api.expect(rows).to_have_count(2)
    assert {await r.get_attribute("data-episode") for r in await rows.all()} == {e.id for e in eps}
    assert browser.errors == []
