"""Render hub conversations with a model's chat template: the first prompt, then each step's feedback.

A multi-turn rollout in OpenRLHF is one growing token sequence: the prompt, the model's action, the
environment's feedback, the next action, ... The feedback must be exactly what the chat template
puts between the end of one assistant message and the start of the next one's content: the end of
the assistant turn, the tool results (and any new user turn), and the next assistant header.

``feedback_text`` finds it without knowing the template: it renders the conversation with a marker
in place of the assistant message and keeps what follows the marker. That works for any template
(Qwen2.5/Qwen3 with ``<tool_response>``, Granite, Llama, ...), including ones that rewrite earlier
turns (Qwen3 drops old ``<think>`` blocks), since only the text after the marker is used.

The end-of-turn token: vLLM's output ``token_ids`` keep the EOS that stopped generation while its
``text`` leaves it out, so when the model stopped on its own the sequence already holds the
end-of-turn token and the feedback must not repeat it (``model_closed_turn=True``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, Protocol

MARKER = "\x00PROVE-ASSISTANT-MARKER\x00"

# A plain ChatML template with Hermes-style tools, for tokenizers without a chat template of their own.
CHATML_TOOLS_TEMPLATE = (
    "{% if tools %}<|im_start|>system\n"
    "{% if messages[0].role == 'system' %}{{ messages[0].content }}\n\n{% endif %}"
    "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>"
    "{% for tool in tools %}\n{{ tool | tojson }}{% endfor %}\n</tools>\n\n"
    "For each function call, return a json object with function name and arguments within "
    '<tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n'
    "</tool_call><|im_end|>\n"
    "{% elif messages[0].role == 'system' %}<|im_start|>system\n{{ messages[0].content }}<|im_end|>\n{% endif %}"
    "{% for message in messages %}"
    "{% if message.role == 'tool' %}"
    "{% if loop.first or messages[loop.index0 - 1].role != 'tool' %}<|im_start|>user{% endif %}"
    "\n<tool_response>\n{{ message.content }}\n</tool_response>"
    "{% if loop.last or messages[loop.index0 + 1].role != 'tool' %}<|im_end|>\n{% endif %}"
    "{% elif message.role != 'system' or not loop.first %}"
    "<|im_start|>{{ message.role }}\n{{ message.content }}<|im_end|>\n"
    "{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
).replace("%}\n", "%}{{ '\\n' }}")  # the same output whether or not the renderer trims newlines after tags (HF does)


class ChatTokenizer(Protocol):
    """What this module needs of a Hugging Face tokenizer."""

    chat_template: Any
    eos_token: Any

    def apply_chat_template(self, conversation: Any, **kwargs: Any) -> Any: ...


def render(
    tokenizer: ChatTokenizer | None,
    messages: Sequence[dict[str, Any]],
    tools: Sequence[dict[str, Any]],
    add_generation_prompt: bool = True,
) -> str:
    """The conversation as the model sees it (the tokenizer's chat template, or ChatML with tools)."""
    clean = [_plain(m) for m in messages]
    if tokenizer is not None and getattr(tokenizer, "chat_template", None):
        kwargs: dict[str, Any] = {"tokenize": False, "add_generation_prompt": add_generation_prompt}
        if tools:
            kwargs["tools"] = list(tools)
        return str(tokenizer.apply_chat_template(clean, **kwargs))
    return _render_chatml(clean, tools, add_generation_prompt)


def _render_chatml(messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]], add_generation_prompt: bool) -> str:
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    env = ImmutableSandboxedEnvironment(trim_blocks=False, lstrip_blocks=False)
    env.filters["tojson"] = lambda v: json.dumps(v, ensure_ascii=False)
    template = env.from_string(CHATML_TOOLS_TEMPLATE)
    return template.render(messages=messages, tools=list(tools), add_generation_prompt=add_generation_prompt)


def _plain(message: dict[str, Any]) -> dict[str, Any]:
    """A message with string content (templates choke on None)."""
    out = dict(message)
    if out.get("content") is None:
        out["content"] = ""
    return out


def end_of_turn(tokenizer: ChatTokenizer | None) -> str:
    """The text that ends an assistant turn (the EOS token's text; ChatML's ``<|im_end|>`` without one)."""
    eos = getattr(tokenizer, "eos_token", None) if tokenizer is not None else None
    return str(eos) if eos else "<|im_end|>"


def feedback_text(
    tokenizer: ChatTokenizer | None,
    history: Sequence[dict[str, Any]],
    new_messages: Sequence[dict[str, Any]],
    tools: Sequence[dict[str, Any]],
    *,
    model_closed_turn: bool,
) -> str:
    """What follows the model's action in the token stream: the end of its turn (unless the model
    already emitted it), ``new_messages`` (tool results, a user turn) and the next assistant header."""
    convo = [*history, {"role": "assistant", "content": MARKER}, *new_messages]
    full = render(tokenizer, convo, tools, add_generation_prompt=True)
    at = full.rfind(MARKER)
    if at < 0:
        raise ValueError("the chat template dropped the assistant message; cannot derive the feedback text")
    tail = full[at + len(MARKER) :]
    eot = end_of_turn(tokenizer)
    if model_closed_turn and tail.startswith(eot):
        tail = tail[len(eot) :]
    return tail


THINK = re.compile(r"<think>.*?</think>\s*", re.S)
PROBE_THOUGHT = "PROVE-PROBE-THOUGHT"


def strip_thinking(text: str) -> str:
    """The message without its ``<think>...</think>`` blocks (what Qwen3-style templates show of earlier turns)."""
    return THINK.sub("", text)


def template_drops_thinking(tokenizer: ChatTokenizer | None) -> bool:
    """Whether the chat template drops an earlier assistant turn's ``<think>`` block once a new user turn comes
    (Qwen3 does): rendered with a probe thought, the thought is gone."""
    probe = [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": f"<think>{PROBE_THOUGHT}</think>b"},
        {"role": "user", "content": "c"},
    ]
    return PROBE_THOUGHT not in render(tokenizer, probe, [], add_generation_prompt=True)
