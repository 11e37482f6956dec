"""The LLM path for intents: each user turn rewritten from the goal, the persona and the dialogue so far."""

from __future__ import annotations

import json
from typing import Any

import httpx

from hub.synth.chain.render import ID_TOKEN, LLMRenderer

WRITER_PROMPT = (
    "You play a user talking to an assistant that has tools. Write the user's next message from the GOAL, the "
    "PERSONA (name, tone: terse or chatty, and style: terse, plain, chatty, sloppy or indirect), the REFERENCE "
    "DATE and the DIALOGUE SO FAR, in your own words. "
    "Refer to things as a person would (names, dates, amounts), never by tool or function names. Use ONLY the "
    "entities and values in the DRAFT and the CONTEXT; never invent ids, names or numbers. Every value listed "
    "under MUST KEEP must appear verbatim. Reply with the message text only."
)


class IntentWriter:
    """Rewrites intent turns through an OpenAI-compatible endpoint, from the goal, the persona, the
    sampling context and the dialogue so far (never from the calls); falls back to the draft."""

    def __init__(
        self,
        endpoint: str,
        model: str,
        *,
        timeout: float = 30.0,
        api_key: str | None = None,
        client: httpx.Client | None = None,
    ) -> None:
        self.llm = LLMRenderer(endpoint, model, timeout=timeout, api_key=api_key, client=client)
        self.calls = 0
        self.fallbacks = 0

    def close(self) -> None:
        self.llm.close()

    def __enter__(self) -> IntentWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def rewrite(self, dialogue: Any, turns: list[Any], context: dict[str, Any], omitted: str | None) -> list[Any]:
        """``turns`` (hub.tasks.Turn) with each user text rewritten; the ground truth is untouched."""
        intents = [i for i in dialogue.scene.server.intents if i.name in dialogue.scene.intents]
        goal = " Then: ".join(i.description for i in intents) or "(unstated)"
        persona = f"{dialogue.persona.name}, {dialogue.persona.tone}, {dialogue.persona.style}"
        out = []
        said: list[str] = []
        for turn in turns:
            keep = [v for v in _slot_texts(dialogue) if v in turn.user and v != omitted]
            text = self._write(goal, persona, dialogue.scene.today(), context, said, keep, turn.user, omitted)
            said.append(text)
            out.append(turn.model_copy(update={"user": text}))
        return out

    def _write(
        self,
        goal: str,
        persona: str,
        date: str,
        context: dict[str, Any],
        said: list[str],
        keep: list[str],
        draft: str,
        omitted: str | None,
    ) -> str:
        allowed = set(ID_TOKEN.findall(draft))
        user = (
            f"GOAL: {goal}\nPERSONA: {persona}\nREFERENCE DATE: {date}\nCONTEXT: {json.dumps(context)[:1500]}\n"
            f"DIALOGUE SO FAR: {json.dumps(said)}\nMUST KEEP: {json.dumps(keep)}\nDRAFT: {draft}"
        )
        for _ in range(2):
            self.calls += 1
            text = self.llm.ask(WRITER_PROMPT, user)
            if (
                text
                and all(v in text for v in keep)
                and set(ID_TOKEN.findall(text)) <= allowed
                and (omitted is None or omitted not in text)
            ):
                return text.strip()
        self.fallbacks += 1
        return draft


def _slot_texts(dialogue: Any) -> list[str]:
    """The values the user states (slot texts), longest first."""
    out = {str(v) for t in dialogue.turns for v in t.slots.values() if str(v).strip()}
    return sorted(out, key=len, reverse=True)
