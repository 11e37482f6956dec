"""The request guard against a real uvicorn on loopback: no foreign page can drive or read the hub."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
import pytest_asyncio
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from hub.core import Hub
from hub.testing import LiveHub, serve
from hub.transports.guard import RedactToken, Refusal, check_host, check_origin
from tests.web_support import csrf_field, make_app

EVIL = "http://evil.example"
DEPOSIT = {"arguments": {"account_id": "ACC-0001", "amount": 100.0}}


@pytest_asyncio.fixture
async def live(tmp_path: Path) -> AsyncIterator[LiveHub]:
    async with serve(make_app(tmp_path)) as hub:
        yield hub


def hub_of(live: LiveHub) -> Hub:
    return live.app.state.hub  # type: ignore[no-any-return]


def banking_hash(live: LiveHub, sid: str = "default") -> str:
    return hub_of(live).sessions.get(sid).fork_of("banking").state_hash()


def own(live: LiveHub) -> str:
    return f"http://127.0.0.1:{live.port}"


async def test_cross_origin_text_plain_post_is_refused_and_state_unchanged(live: LiveHub) -> None:
    before = banking_hash(live)
    async with httpx.AsyncClient(base_url=live.url) as http:
        r = await http.post(
            "/api/sessions/default/call/banking/deposit_funds",
            content=json.dumps(DEPOSIT),
            headers={"Origin": EVIL, "Content-Type": "text/plain"},
        )
    assert r.status_code == 403
    assert r.json()["code"] == "forbidden_origin" and "evil.example" in r.json()["error"]
    assert banking_hash(live) == before
    assert hub_of(live).sessions.get("default").calls == 0


async def test_cross_origin_dashboard_form_is_refused(live: LiveHub) -> None:
    async with httpx.AsyncClient(base_url=live.url) as http:
        r = await http.post(
            "/ui/catalog/banking/deposit_funds/run",
            data={"session": "victim", "account_id": "ACC-0001", "amount": "100"},
            headers={"Origin": EVIL},
        )
    assert r.status_code == 403 and r.json()["code"] == "forbidden_origin"
    assert "victim" not in hub_of(live).sessions.sessions


@pytest.mark.parametrize(
    "path", ["/api/catalog", "/api/sessions", "/ui/", "/ui/sessions", "/metrics", "/healthz", "/ui/sse/overview"]
)
async def test_foreign_host_is_refused_everywhere(live: LiveHub, path: str) -> None:
    async with httpx.AsyncClient(base_url=live.url) as http:
        r = await http.get(path, headers={"Host": "evil.example"})
    assert r.status_code == 403 and r.json()["code"] == "forbidden_host"


async def test_same_origin_browser_use_still_works(live: LiveHub) -> None:
    async with httpx.AsyncClient(base_url=live.url) as http:
        for origin in (own(live), f"http://localhost:{live.port}", None):
            headers = {"Origin": origin} if origin else {}
            r = await http.post("/api/sessions/mine/call/banking/deposit_funds", json=DEPOSIT, headers=headers)
            assert r.status_code == 200 and r.json()["ok"], (origin, r.text)
        token = csrf_field((await http.get("/ui/catalog/banking/deposit_funds")).text)
        r = await http.post(
            "/ui/catalog/banking/deposit_funds/run",
            headers={"Origin": own(live)},
            data={"session": "form", "account_id": "ACC-0001", "amount": "5", **token},
        )
        assert r.status_code == 200
        assert (await http.get("/ui/", headers={"Host": f"localhost:{live.port}"})).status_code == 200
        assert (await http.get("/metrics", headers={"Host": f"[::1]:{live.port}"})).status_code == 200
    assert hub_of(live).sessions.get("mine").calls == 3
    assert hub_of(live).sessions.get("form").calls == 1


@pytest.mark.parametrize(
    "origin",
    [
        "null",
        "http://127.0.0.1:1",
        "https://evil.example",
        "file://",
        "chrome-extension://x",
        "http://127.0.0.1.evil.example",
    ],
)
async def test_other_origins_are_refused(live: LiveHub, origin: str) -> None:
    async with httpx.AsyncClient(base_url=live.url) as http:
        r = await http.post("/api/sessions", json={}, headers={"Origin": origin})
    assert r.status_code == 403 and r.json()["code"] == "forbidden_origin"


async def test_cross_origin_websocket_upgrade_is_refused(live: LiveHub) -> None:
    with pytest.raises(InvalidStatus) as refused:
        async with connect(live.ws_url, origin=EVIL):  # type: ignore[arg-type]
            pass
    assert refused.value.response.status_code == 403
    assert b"forbidden_origin" in refused.value.response.body
    with pytest.raises(InvalidStatus):
        async with connect(live.ws_url, additional_headers={"Host": "evil.example"}):
            pass
    async with connect(live.ws_url, origin=own(live)) as ws:  # type: ignore[arg-type]
        await ws.send(json.dumps({"type": "hello"}))
        assert json.loads(await ws.recv())["type"] == "welcome"


async def test_token_mode_accepts_any_case_of_the_bearer_scheme(tmp_path: Path) -> None:
    async with serve(make_app(tmp_path, token="s3cret")) as live, httpx.AsyncClient(base_url=live.url) as http:
        for scheme in ("Bearer", "bearer", "BEARER"):
            r = await http.get("/api/catalog", headers={"Authorization": f"{scheme} s3cret"})
            assert r.status_code == 200, scheme
        assert (await http.get("/api/catalog", headers={"Authorization": "bearer wrong"})).status_code == 401
        assert (
            await http.get("/api/catalog", headers={b"Authorization": "Bearer s\xe9cret".encode("latin-1")})
        ).status_code == 401
        assert (await http.get("/api/catalog")).status_code == 401


class Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


async def test_token_in_the_query_never_reaches_the_access_log(tmp_path: Path) -> None:
    lines = Lines()
    access = logging.getLogger("uvicorn.access")
    async with serve(make_app(tmp_path, token="s3cret"), log_level="info") as live:
        access.addHandler(lines)  # after uvicorn's logging config, which replaces the handlers
        try:
            async with httpx.AsyncClient(base_url=live.url) as http:
                assert (await http.get("/api/catalog?token=s3cret&x=1")).status_code == 200
        finally:
            access.removeHandler(lines)
    logged = [line for line in lines.lines if "/api/catalog" in line]
    assert logged and all("s3cret" not in line for line in logged)
    assert "token=***&x=1" in logged[0]


def test_redaction_leaves_other_records_alone() -> None:
    record = logging.LogRecord(
        "uvicorn.access", logging.INFO, "", 0, '%s - "%s %s"', ("1.2.3.4", "GET", "/a?b=1"), None
    )
    RedactToken().filter(record)
    assert record.getMessage() == '1.2.3.4 - "GET /a?b=1"'


@pytest.mark.parametrize(
    "host, ok",
    [
        ("127.0.0.1:8765", True),
        ("localhost", True),
        ("[::1]:1", True),
        ("127.1.2.3:80", True),
        ("evil.example", False),
        ("127.0.0.1.nip.io", False),
        ("", False),
        ("localhost:notaport", False),
        ("[::1", False),
    ],
)
def test_host_check(host: str, ok: bool) -> None:
    try:
        check_host(host)
        accepted = True
    except Refusal:
        accepted = False
    assert accepted is ok


def test_origin_check_compares_the_port() -> None:
    check_origin("http://localhost:8765", 8765, False)
    check_origin("http://127.0.0.1", None, False)
    with pytest.raises(Refusal):
        check_origin("http://127.0.0.1:8766", 8765, False)
    with pytest.raises(Refusal):
        check_origin("http://127.0.0.1", 8765, False)


@pytest.mark.parametrize("origin", ["http://[::1", "http://127.0.0.1:99999", "http://127.0.0.1:x", ""])
def test_malformed_origins_are_refused(origin: str) -> None:
    with pytest.raises(Refusal):
        check_origin(origin, 8765, False)


async def test_a_form_post_without_the_pages_csrf_token_is_refused_and_changes_nothing(live: LiveHub) -> None:
    hub = hub_of(live)
    form = {"session": "victim", "account_id": "ACC-0001", "amount": "100"}
    async with httpx.AsyncClient(base_url=live.url) as http, httpx.AsyncClient(base_url=live.url) as other:
        page = await http.get("/ui/catalog/banking/deposit_funds")
        cookie = page.headers["set-cookie"].lower()
        assert "prove_csrf=" in cookie and "samesite=strict" in cookie and "httponly" in cookie
        token = csrf_field(page.text)
        mine = csrf_field((await other.get("/ui/catalog/banking/deposit_funds")).text)
        episodes = len(hub.episodes.episodes)
        bare = httpx.AsyncClient(base_url=live.url)  # a cross-site post: no Origin, no cookie, no token
        async with bare:
            r = await bare.post("/ui/catalog/banking/deposit_funds/run", data=form)
            assert r.status_code == 403 and r.json()["code"] == "forbidden_csrf", r.text
            r = await bare.post("/ui/catalog/banking/deposit_funds/run", data={**form, **token})  # a token, no cookie
            assert r.status_code == 403 and r.json()["code"] == "forbidden_csrf"
            r = await bare.post("/ui/tasks/bank-transfer-002/replay")
            assert r.status_code == 403 and r.json()["code"] == "forbidden_csrf"
        for forged in ({}, mine, {"csrf_token": "0" * 64}):  # the cookie, with no token or another browser's
            r = await http.post("/ui/catalog/banking/deposit_funds/run", data={**form, **forged})
            assert r.status_code == 403 and r.json()["code"] == "forbidden_csrf"
        assert (await http.post("/ui/tasks/bank-transfer-002/replay", data=mine)).status_code == 403
        assert "victim" not in hub.sessions.sessions and len(hub.episodes.episodes) == episodes
        r = await http.post(
            "/ui/catalog/banking/deposit_funds/run",
            data=form,
            headers={"HX-Request": "true", "X-CSRF-Token": token["csrf_token"]},
        )
        assert r.status_code == 200 and hub.sessions.get("victim").calls == 1
        r = await http.post("/ui/tasks/bank-transfer-002/replay", data=token, follow_redirects=False)
        assert r.status_code == 303 and len(hub.episodes.episodes) == episodes + 1
