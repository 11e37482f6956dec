"""Query rendering: the user's turns, from templates (default: offline, deterministic) or an LLM.

Templates: several per tool family (look up, find, create, change, remove, other action) and per
information level (complete: polite, with entity names and context; minimal: terse; missing: a
value of a later step held back and given in a later turn). Every rendered turn names the real
entities and values its calls need (``mentioned``); values an earlier call returns are referred
to, not named. The LLM renderer (an OpenAI-compatible ``/chat/completions`` endpoint) rewrites the
template draft under an anti-hallucination instruction; a rewrite that drops a needed value or
invents an id is retried once, then the draft is kept (the regeneration fallback).
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from typing import Any, Protocol

import httpx
from pydantic import BaseModel, ConfigDict

FAMILIES: dict[str, tuple[str, ...]] = {
    "lookup": ("get", "view", "track", "show", "check", "read", "head", "tail", "count", "compute", "print"),
    "find": ("list", "search", "find", "locate", "grep", "geocode", "reverse", "disk", "sort", "unique", "cut", "diff"),
    "create": (
        "create",
        "add",
        "open",
        "schedule",
        "register",
        "book",
        "write",
        "make",
        "place",
        "post",
        "reserve",
        "log",
        "save",
        "touch",
        "concatenate",
        "copy",
    ),
    "change": (
        "update",
        "set",
        "change",
        "edit",
        "move",
        "shift",
        "assign",
        "transition",
        "reassign",
        "label",
        "mark",
        "apply",
        "select",
        "inflate",
        "refuel",
        "replace",
        "redeem",
        "convert",
        "advance",
        "respond",
        "switch",
        "append",
        "restock",
        "transfer",
        "deposit",
        "withdraw",
        "rate",
    ),
    "remove": ("cancel", "delete", "remove", "close", "unfollow", "unlike", "leave", "stop", "freeze", "block", "end"),
}

TEMPLATES: dict[str, dict[str, tuple[str, ...]]] = {
    "complete": {
        "lookup": (
            "could you look up {obj}{args}?",
            "please pull up the details of {obj}{args}.",
            "I need to see {obj}{args}.",
            "can you check {obj}{args} for me?",
        ),
        "find": (
            "could you {verb} {obj}{args}?",
            "please {verb} {obj}{args}.",
            "I'd like you to {verb} {obj}{args}.",
            "help me {verb} {obj}{args}.",
        ),
        "create": (
            "please {verb} {obj}{args}.",
            "I'd like to {verb} {obj}{args}.",
            "could you {verb} {obj}{args}?",
            "go ahead and {verb} {obj}{args}.",
        ),
        "change": (
            "please {verb} {obj}{args}.",
            "I need you to {verb} {obj}{args}.",
            "could you {verb} {obj}{args}?",
            "can you {verb} {obj}{args} for me?",
        ),
        "remove": (
            "please {verb} {obj}{args}.",
            "I want to {verb} {obj}{args}.",
            "could you {verb} {obj}{args}?",
            "go ahead and {verb} {obj}{args}.",
        ),
        "action": ("please {verb} {obj}{args}.", "could you {verb} {obj}{args}?", "I'd like to {verb} {obj}{args}."),
    },
    "minimal": {
        "lookup": ("{obj}{args}?", "details on {obj}{args}.", "check {obj}{args}."),
        "find": ("{verb} {obj}{args}.", "{obj}{args}?", "{verb} {obj}{args}, quick."),
        "create": ("{verb} {obj}{args}.", "new {obj}{args}.", "{verb} {obj}{args}, thanks."),
        "change": ("{verb} {obj}{args}.", "{verb} {obj}{args}, thx.", "{verb} {obj}{args} now."),
        "remove": ("{verb} {obj}{args}.", "{verb} {obj}{args}, please.", "just {verb} {obj}{args}."),
        "action": ("{verb} {obj}{args}.", "{verb} {obj}{args}, please."),
    },
}
OPENERS = {
    "complete": ("Hi! ", "Hello! ", "Hey there. ", "Good morning! ", "Quick favor. ", ""),
    "minimal": ("", "", "pls: "),
}
PERSONAS = (
    "I'm handling this for a colleague. ",
    "I'm on the ops team. ",
    "This is for a customer on the line. ",
    "I'm doing some admin today. ",
    "",
)
THEN = (" Then ", " After that, ", " Next, ", " Once that's done, ", " And then ")
FOLLOW = ("Thanks. Now ", "Great. Next, ", "Perfect. Also, ", "OK, one more thing: ", "Thanks! Now ")
CLARIFY_ANSWER = ("It's {value}.", "Sorry, I meant {value}.", "Use {value}.", "The {param} is {value}.")
DEFER_HINT = (
    " I'll tell you the {param} for that later.",
    " (I still need to confirm the {param}.)",
    " I don't have the {param} yet.",
)
DEFER_GIVE = ("The {param} is {value}. ", "OK, the {param} should be {value}. ", "Got it: {param} {value}. ")
ID_TOKEN = re.compile(r"\b[A-Z]{2,6}-[0-9A-Z]{2,}(?:-[0-9A-Z]+)*\b")


@dataclass
class StepView:
    """What rendering needs to know of one call."""

    tool: str
    description: str
    mentioned: dict[str, Any]  # argument -> value the user states
    referenced: dict[str, str]  # argument -> phrase for a value an earlier call returns
    labels: dict[str, str] = field(default_factory=dict)  # argument -> entity label ("Maria's checking")


@dataclass
class RenderRequest:
    server: str
    level: str  # complete / missing / minimal
    turns: list[list[StepView]]
    omit: tuple[int, int, str] | None = None  # clarify: (turn, step, argument) held back until the user is asked
    defer: tuple[int, int, str] | None = (
        None  # missing level: (turn >= 1, step, argument) announced in turn 0, given later
    )
    context: dict[str, Any] = field(default_factory=dict)  # sampling context summary, for the LLM prompt
    date: str = ""


def family(tool: str) -> str:
    verb = tool.split("_", 1)[0]
    for fam, verbs in FAMILIES.items():
        if verb in verbs:
            return fam
    return "action"


def humanize(tool: str) -> tuple[str, str]:
    """``transfer_funds`` -> ("transfer", "funds"); ``get_account`` -> ("get", "the account")."""
    verb, _, obj = tool.partition("_")
    obj = obj.replace("_", " ") or "it"
    return verb, obj if family(tool) in ("find", "create") else f"the {obj}"


def fmt(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.2f}".rstrip("0").rstrip(".") if value != int(value) else f"{value:.1f}"
    if isinstance(value, list):
        return ", ".join(fmt(v) for v in value)
    if (
        isinstance(value, str)
        and (" " in value or not ID_TOKEN.fullmatch(value))
        and not re.fullmatch(r"[\w./:@-]+", value)
    ):
        return f"'{value}'"
    return str(value)


def param_phrase(name: str) -> str:
    for suffix in ("_ids", "_id"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name.replace("_", " ")


class Renderer(Protocol):
    def render(self, req: RenderRequest, rng: random.Random) -> list[str]: ...


class TemplateRenderer:
    """Offline, deterministic rendering (all choices from the task's rng)."""

    def render(self, req: RenderRequest, rng: random.Random) -> list[str]:
        style = "minimal" if req.level == "minimal" else "complete"
        texts: list[str] = []
        for t, steps in enumerate(req.turns):
            parts = [self._step(s, style, rng, req, t, i) for i, s in enumerate(steps)]
            body = parts[0] + "".join(rng.choice(THEN) + p for p in parts[1:])
            if t == 0:
                text = _cap(
                    rng.choice(OPENERS[style]) + (rng.choice(PERSONAS) if style == "complete" else "") + _cap(body)
                )
                if style == "complete" and rng.random() < 0.3 and req.date:
                    text += f" (Today is {req.date}.)"
                if req.defer is not None:
                    text += self._announce(req, rng)
            else:
                prefix = ""
                if req.defer is not None and req.defer[0] == t:
                    _, step_i, param = req.defer
                    value = req.turns[t][step_i].mentioned[param]
                    prefix = rng.choice(DEFER_GIVE).format(param=param_phrase(param), value=fmt(value))
                text = prefix + rng.choice(FOLLOW) + body
            texts.append(text.strip())
        if req.omit is not None:
            texts = self._clarify(req, texts, rng)
        return texts

    def _step(self, s: StepView, style: str, rng: random.Random, req: RenderRequest, turn: int, index: int) -> str:
        verb, obj = humanize(s.tool)
        args = []
        for p, v in s.mentioned.items():
            if (turn, index, p) in (req.omit, req.defer):
                continue
            label = f" ({s.labels[p]})" if style == "complete" and p in s.labels else ""
            args.append(f"{param_phrase(p)} {fmt(v)}{label}")
        for p, phrase in s.referenced.items():
            if style == "complete" or rng.random() < 0.5:
                args.append(f"{param_phrase(p)}: {phrase}")
        joined = (" with " if style == "complete" else ": ") + ", ".join(args) if args else ""
        template = rng.choice(TEMPLATES[style][family(s.tool)])
        return template.format(verb=verb, obj=obj, args=joined)

    def _announce(self, req: RenderRequest, rng: random.Random) -> str:
        assert req.defer is not None
        turn, step_i, param = req.defer
        verb, obj = humanize(req.turns[turn][step_i].tool)
        return f" Later I'll also want to {verb} {obj}." + rng.choice(DEFER_HINT).format(param=param_phrase(param))

    def _clarify(self, req: RenderRequest, texts: list[str], rng: random.Random) -> list[str]:
        """Clarify: turn 0 without the value; an answer turn with it (its calls are turn 0's)."""
        assert req.omit is not None
        turn, step_i, param = req.omit
        value = req.turns[turn][step_i].mentioned[param]
        answer = rng.choice(CLARIFY_ANSWER).format(value=fmt(value), param=param_phrase(param))
        return [texts[0], answer, *texts[1:]]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


# The LLM path ----------------------------------------------------------------------------------


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="ignore")
    role: str
    content: str | None = None


class ChatChoice(BaseModel):
    model_config = ConfigDict(extra="ignore")
    message: ChatMessage


class ChatResponse(BaseModel):
    """The part of an OpenAI-compatible chat completion this renderer reads."""

    model_config = ConfigDict(extra="ignore")
    choices: list[ChatChoice]


SYSTEM_PROMPT = (
    "You write what a user types to an assistant that has tools. Rewrite the DRAFT user message so it sounds "
    "natural, keeping its meaning. Use ONLY entities and values that appear in the draft or in the CONTEXT; "
    "never invent ids, names or numbers. Every value listed under MUST KEEP must appear verbatim. "
    "Reply with the message text only."
)


class LLMRenderer:
    """Rewrites each template draft through an OpenAI-compatible endpoint; falls back to the draft."""

    def __init__(
        self,
        endpoint: str,
        model: str,
        *,
        timeout: float = 30.0,
        api_key: str | None = None,
        client: httpx.Client | None = None,
    ) -> None:
        self.url = endpoint.rstrip("/") + (
            "" if endpoint.rstrip("/").endswith("/chat/completions") else "/chat/completions"
        )
        self.model = model
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.owns_client = client is None
        self.client = client or httpx.Client(timeout=timeout, headers=headers)
        self.templates = TemplateRenderer()
        self.calls = 0
        self.fallbacks = 0

    def close(self) -> None:
        """Close the HTTP client this renderer made; one passed in stays open (it is the caller's)."""
        if self.owns_client:
            self.client.close()

    def __enter__(self) -> LLMRenderer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def render(self, req: RenderRequest, rng: random.Random) -> list[str]:
        drafts = self.templates.render(req, rng)
        allowed = set(ID_TOKEN.findall(" ".join(drafts)))
        return [self._rewrite(d, allowed, req) for d in drafts]

    def _rewrite(self, draft: str, allowed: set[str], req: RenderRequest) -> str:
        needed = [v for v in _values_in(draft) if v]
        for _ in range(2):
            text = self._ask(draft, needed, req)
            if text and all(v in text for v in needed) and set(ID_TOKEN.findall(text)) <= allowed:
                return text.strip()
        self.fallbacks += 1
        return draft

    def _ask(self, draft: str, needed: list[str], req: RenderRequest) -> str | None:
        self.calls += 1
        user = (
            f"CONTEXT: {json.dumps(req.context)[:1500]}\nREFERENCE DATE: {req.date}\n"
            f"MUST KEEP: {json.dumps(needed)}\nDRAFT: {draft}"
        )
        return self.ask(SYSTEM_PROMPT, user)

    def ask(self, system: str, user: str) -> str | None:
        """One chat completion; None when the endpoint fails or answers nothing."""
        body = {
            "model": self.model,
            "temperature": 0.7,
            "max_tokens": 300,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
        }
        try:
            resp = self.client.post(self.url, json=body)
            resp.raise_for_status()
            parsed = ChatResponse.model_validate(resp.json())
        except (httpx.HTTPError, ValueError):
            return None
        return parsed.choices[0].message.content if parsed.choices else None


VALUE_TOKEN = re.compile(r"'[^']+'|\b[A-Z]{2,6}-[0-9A-Z-]+\b|\b\d+(?:\.\d+)?\b|/[\w./-]+")


def _values_in(draft: str) -> list[str]:
    """The values a draft states: quoted strings, ids, numbers and paths (the rewrite must keep them)."""
    return [m.group(0).strip("'") for m in VALUE_TOKEN.finditer(draft)]
