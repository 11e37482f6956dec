"""Idle traffic of the episode list: bytes a real Chromium receives per minute with the list open and nothing
happening. Prints a table.

    .venv/bin/python benchmarks/bench_dash_idle.py [--calls 25000] [--seconds 60]

The store is filled as ``bench_dashboard`` fills it; the hub is served by uvicorn on loopback; Chromium (Debian's,
through Playwright) opens /ui/episodes and Chrome's own network events (CDP ``Network.dataReceived`` /
``Network.eventSourceMessageReceived`` / ``Network.responseReceived``) count every byte that arrives for
``--seconds``. For comparison, the same run measures one full list fragment, which the former 3-second poll
fetched 20 times a minute. Goal: ≤ 10 KB/min idle (the issue measured ~1.6 MB/min with the poll).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx  # noqa: E402
from bench_dashboard import fill  # noqa: E402
from playwright.async_api import async_playwright  # noqa: E402

from hub.app import create_app  # noqa: E402
from hub.config import Settings  # noqa: E402
from hub.core import Hub  # noqa: E402
from hub.testing import serve  # noqa: E402

CHROMIUM = "/usr/bin/chromium"


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=25_000)
    parser.add_argument("--seconds", type=float, default=60.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "store.db")
        await fill(path, args.calls)
        settings = Settings(store_path=path)
        app = create_app(settings, Hub(settings))
        async with serve(app) as live, async_playwright() as pw:
            async with httpx.AsyncClient(base_url=live.url) as http:
                fragment = len((await http.get("/ui/episodes", headers={"HX-Request": "true"})).content)
            browser = await pw.chromium.launch(
                executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
            )
            page = await browser.new_page(viewport={"width": 1440, "height": 900})
            cdp = await page.context.new_cdp_session(page)
            await cdp.send("Network.enable")
            received = {"bytes": 0, "requests": 0}
            cdp.on(
                "Network.dataReceived",
                lambda e: received.__setitem__("bytes", received["bytes"] + e["encodedDataLength"]),
            )
            cdp.on("Network.requestWillBeSent", lambda e: received.__setitem__("requests", received["requests"] + 1))
            await page.goto(f"{live.url}/ui/episodes")
            await page.locator('body[data-sse="open"]').wait_for()
            received.update(bytes=0, requests=0)
            t0 = time.monotonic()
            await asyncio.sleep(args.seconds)  # idle on purpose: the measurement is what arrives meanwhile
            span = time.monotonic() - t0
            await browser.close()
    per_min = received["bytes"] * 60 / span
    print(f"\n## Idle episode list traffic ({args.calls // 5:,} episodes stored, {span:.0f} s idle, Chromium)\n")
    print("| figure | value |\n|---|---|")
    print(f"| bytes received while idle, per minute | {per_min:,.0f} B ({per_min / 1024:.2f} KB) |")
    print(f"| requests made while idle | {received['requests']} |")
    print(f"| one list fragment (what the former 3 s poll fetched) | {fragment:,} B |")
    print(f"| the former poll, per minute (20 fragments) | {20 * fragment / 1024:,.0f} KB |")
    print("| target | ≤ 10 KB/min |")


if __name__ == "__main__":
    asyncio.run(main())
