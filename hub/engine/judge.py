"""A judge model for R_ask: any OpenAI-compatible chat endpoint decides whether an ask-turn reply asks for the value
the user left out (``prove-hub serve --judge-endpoint URL --judge-model NAME``).

The rules of ``hub.engine.clarify`` stay the default and the fallback: without a judge, and whenever the judge
cannot answer (unreachable, an HTTP error, a reply that is neither YES nor NO), the rules decide, and the verdict's
reason says so. The judge decides only whether the reply asks for the missing value; whether the model acted on
the ask turn (a write fails it) is the reward's own rule, never the judge's.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from hub.engine.clarify import AskVerdict, missing_params
from hub.tasks.model import Task

log = logging.getLogger("hub.engine.judge")

SYSTEM = (
    "You grade one reply of an AI assistant that uses tools for a user. The user's request left out a value the "
    "assistant needs before it can act. Answer YES if the reply asks the user for that value, in any wording. "
    "Answer NO if it does not: a statement, a claim that the work is done, a refusal, an offer to go ahead, a "
    "question about something else, or a list of many unrelated details. Answer with one word: YES or NO."
)


class AskJudge:
    """Decides R_ask with a chat model at ``endpoint`` (a base URL such as ``http://127.0.0.1:8000/v1``)."""

    def __init__(
        self,
        endpoint: str,
        model: str,
        api_key: str | None = None,
        *,
        timeout: float = 30.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        base = endpoint.rstrip("/")
        self.url = base if base.endswith("/chat/completions") else base + "/chat/completions"
        self.model = model
        self.headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.timeout = timeout
        self.transport = transport
        self.asked = 0
        self.failed = 0

    def prompt(self, task: Task, turn: int, reply: str) -> str:
        said = "\n".join(f"User: {t.user}" for t in task.turns[: turn + 1])
        params, _ = missing_params(task, turn)
        about = task.turns[turn].about
        missing = "; ".join(f"{p.replace('_', ' ')}" + (f" ({about[p]})" if p in about else "") for p in params)
        return (
            f"{said}\n\nThe value the user left out: {missing or 'a detail the request needs'}.\n\n"
            f"The assistant's reply:\n{reply}\n\nDoes the reply ask the user for the value they left out?"
        )

    async def decide(
        self, client: httpx.AsyncClient, task: Task, turn: int, reply: str, fallback: AskVerdict
    ) -> AskVerdict:
        """The judge's verdict on ``reply`` (ask turn ``turn``), or the rules' ``fallback`` with the reason why."""
        self.asked += 1
        body = {
            "model": self.model,
            "temperature": 0,
            "max_tokens": 4,
            "messages": [
                {"role": "system", "content": SYSTEM},
                {"role": "user", "content": self.prompt(task, turn, reply)},
            ],
        }
        try:
            response = await client.post(self.url, json=body)
            response.raise_for_status()
            text = _content(response.json())
        except (httpx.HTTPError, ValueError, KeyError, IndexError, TypeError) as exc:
            return self._fallback(fallback, f"{type(exc).__name__}: {exc}"[:200])
        word = text.strip().strip(".!*\"'").split()[0].upper() if text.strip() else ""
        if word not in ("YES", "NO"):
            return self._fallback(fallback, f"answered {text.strip()[:40]!r}, neither YES nor NO")
        return AskVerdict(word == "YES", f"the judge ({self.model}) says {word}")

    def _fallback(self, rules: AskVerdict, why: str) -> AskVerdict:
        self.failed += 1
        log.warning("the ask judge could not decide (%s); the rules decide", why)
        return AskVerdict(rules.asked, f"the judge could not decide ({why}); by the rules: {rules.reason}")

    async def verdicts(
        self, task: Task, replies: Sequence[tuple[int, str]], rules: Mapping[int, AskVerdict]
    ) -> dict[int, AskVerdict]:
        """A verdict per ask turn of ``task`` (``rules``: the rules' verdicts, the fallback)."""
        out = {}
        async with httpx.AsyncClient(timeout=self.timeout, headers=self.headers, transport=self.transport) as client:
            for i, t in enumerate(task.turns):
                if t.ask and i in rules:
                    reply = "\n".join(text for n, text in replies if n == i)
                    out[i] = await self.decide(client, task, i, reply, rules[i]) if reply.strip() else rules[i]
        return out


def _content(data: Any) -> str:
    content = data["choices"][0]["message"]["content"]
    if not isinstance(content, str):
        raise TypeError("the message content is not text")
    return content
