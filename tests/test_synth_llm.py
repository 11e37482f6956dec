"""The LLM rendering path against a fake OpenAI-compatible endpoint served on loopback."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from hub.synth.chain.render import LLMRenderer, RenderRequest, StepView, TemplateRenderer
from hub.synth.chain.validate import SeedIndex, ungrounded
from hub.synth.pipeline import Slot, SynthConfig, Synthesizer
from hub.testing import serve
from tests.conftest import LIBRARY


def fake_llm(mode: str, seen: list[dict[str, Any]]) -> Starlette:
    async def chat(request: Request) -> JSONResponse:
        body = await request.json()
        seen.append(body)
        draft = body["messages"][-1]["content"].split("DRAFT: ", 1)[1]
        text = {
            "good": f"Hello there! So, {draft} Thanks a lot.",
            "invent": f"{draft} Also check QQQ-12345 please.",
            "drop": "Could you help me with my account?",
        }[mode]
        return JSONResponse(
            {
                "id": "x",
                "object": "chat.completion",
                "model": body["model"],
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            }
        )

    return Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"])])


REQ = RenderRequest(
    "banking",
    "complete",
    [[StepView("deposit_funds", "Deposit.", {"account_id": "ACC-0001", "amount": 25.5}, {})]],
    date="2026-06-01",
)


async def test_llm_rewrite_is_used_when_it_keeps_every_value() -> None:
    seen: list[dict[str, Any]] = []
    async with serve(fake_llm("good", seen)) as live:
        with LLMRenderer(f"{live.url}/v1", "fake-model") as r:
            texts = await asyncio.to_thread(r.render, REQ, random.Random(0))
    assert texts[0].startswith("Hello there! So,") and "ACC-0001" in texts[0] and "25.5" in texts[0]
    assert r.fallbacks == 0 and seen[0]["model"] == "fake-model"
    prompt = seen[0]["messages"]
    assert "never invent ids" in prompt[0]["content"] and "MUST KEEP" in prompt[1]["content"]


async def test_llm_rewrite_that_invents_or_drops_falls_back_to_the_template() -> None:
    draft = TemplateRenderer().render(REQ, random.Random(0))
    for mode in ("invent", "drop"):
        seen: list[dict[str, Any]] = []
        async with serve(fake_llm(mode, seen)) as live:
            with LLMRenderer(f"{live.url}/v1/chat/completions", "m") as r:
                texts = await asyncio.to_thread(r.render, REQ, random.Random(0))
        assert texts == draft and r.fallbacks == 1 and len(seen) == 2  # one regeneration, then the draft


async def test_synthesis_through_the_llm_endpoint() -> None:
    seen: list[dict[str, Any]] = []
    async with serve(fake_llm("good", seen)) as live:
        config = SynthConfig(n=10, seed=5, llm_endpoint=f"{live.url}/v1", model="fake", worlds=2)
        with Synthesizer(LIBRARY, config) as synth:
            result = await asyncio.to_thread(synth.run)
    assert len(result.tasks) == 10 and seen
    assert isinstance(synth.renderer, LLMRenderer) and synth.renderer.client.is_closed
    assert synth.intents.writer is not None and synth.intents.writer.llm.client.is_closed
    assert all(t.turns[0].user.startswith("Hello there!") for t in result.tasks)
    assert all(not ungrounded(t, SeedIndex(LIBRARY, t.initial.seed)) for t in result.tasks)


async def test_intent_turns_are_written_from_the_goal_and_dialogue_never_from_the_calls() -> None:
    seen: list[dict[str, Any]] = []
    async with serve(fake_llm("good", seen)) as live:
        config = SynthConfig(n=10, seed=5, llm_endpoint=f"{live.url}/v1", model="fake", worlds=1)
        with Synthesizer(LIBRARY, config) as synth:

            def some_tasks() -> list[Any]:
                found = [synth.attempt(Slot("mcp", "complete", None), "payments", j) for j in range(12)]
                return [t for t in found if t is not None]

            tasks = await asyncio.to_thread(some_tasks)
    assert tasks and all(t.meta["synth"]["source"] == "intent" for t in tasks)
    assert all(turn.user.startswith("Hello there!") for t in tasks for turn in t.turns)
    prompts = [m["messages"][1]["content"] for m in seen]
    assert all("GOAL:" in p and "PERSONA:" in p and "DIALOGUE SO FAR:" in p for p in prompts)
    tools = set(LIBRARY.mount("payments").tools)
    assert not any(name in p.split("DRAFT:")[0] for p in prompts for name in tools)  # never the call list
    later = [p for p in prompts if '"Hello there!' in p.split("DIALOGUE SO FAR:")[1].split("MUST KEEP")[0]]
    assert later  # a follow-up turn is written knowing what the user already said


async def test_unreachable_endpoint_falls_back() -> None:
    with LLMRenderer("http://127.0.0.1:9/v1", "m", timeout=0.5) as r:
        texts = await asyncio.to_thread(r.render, REQ, random.Random(0))
    assert texts == TemplateRenderer().render(REQ, random.Random(0)) and r.fallbacks == 1


async def test_a_client_passed_in_stays_open_and_an_own_one_is_closed() -> None:
    seen: list[dict[str, Any]] = []
    async with serve(fake_llm("good", seen)) as live:
        with httpx.Client(timeout=10) as client:
            with LLMRenderer(f"{live.url}/v1", "m", client=client) as shared:
                await asyncio.to_thread(shared.render, REQ, random.Random(0))
            assert not client.is_closed  # still the caller's to use
            with Synthesizer(LIBRARY, SynthConfig(n=1, seed=5, worlds=1), renderer=shared) as synth:
                pass
            assert not client.is_closed and synth.intents.writer is None
        with LLMRenderer(f"{live.url}/v1", "m") as own:
            await asyncio.to_thread(own.render, REQ, random.Random(0))
    assert own.client.is_closed and len(seen) == 2
