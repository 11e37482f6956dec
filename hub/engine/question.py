"""The oracle's clarifying question: what a person would ask for a withheld value.

On an ask turn the oracle (the SFT export, the oracle policy, the realism report) asks for each withheld value by
what it is and in the intent's own words for it (``Turn.about``: "the comment"), the way people ask:

    withheld ``body`` of ``add_comment``, about "the comment"        "What should the comment say?"
    withheld ``duration_minutes`` of ``schedule_meeting``            "How long should the meeting be?"
    withheld ``start`` of ``schedule_call``                          "Which day and time works for the call?"
    withheld ``amount`` of ``transfer_funds``                        "How much should I transfer?"

Each kind of value has a few phrasings; a task's is chosen by a hash of its id, the turn and the parameter, so the
questions vary across a set and never between two runs. Only a phrasing the ask check (``hub.engine.clarify``)
accepts is used, so the oracle's reply always earns R_ask, and it names nothing else (no keyword stuffing).
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hub.engine.clarify import (
    STOP_WORDS,
    WH_WORDS,
    judge_reply,
    missing_params,
    other_words,
    question_words,
    value_kinds,
    withheld_step,
)

if TYPE_CHECKING:
    from hub.tasks.model import Task

# Per kind of value, how a person asks for it. ``{noun}``: the intent's words for the value ("the comment" ->
# "comment"); ``{thing}``: what the call makes or changes ("schedule_meeting" -> "meeting"); ``{act}``: the money
# verb ("transfer_funds" -> "transfer"). A phrasing whose slot the task cannot fill is skipped.
PHRASINGS: dict[str, tuple[str, ...]] = {
    "money": (
        "How much should I {act}?",
        "How much would you like to {act}?",
        "What {noun} did you have in mind?",
        "How much would you like it to be?",
    ),
    "count": ("How many would you like?", "What {noun} should I put down?", "How many should it be?"),
    "rating": ("How many stars would you give it?", "What {noun} would you give it?"),
    "level": ("What level should I set it to?", "What should the {noun} be?"),
    "duration": ("How long should the {thing} be?", "How long do you need?", "How long should it last?"),
    "frequency": ("How often should it repeat?", "How often should the {thing} happen?"),
    "time": (
        "Which day and time works for the {thing}?",
        "When should the {thing} be?",
        "What day and time should I put down?",
        "When would you like it?",
    ),
    "date": ("Which day should it be?", "What date should I put down?", "When should the {thing} be?"),
    "person": ("Who is it for?", "Who should I put down?", "Whose name should it go under?"),
    "place": ("Where should that be?", "What's the {noun}?", "What {noun} should I use?"),
    "text": ("What should the {noun} say?", "What would you like the {noun} to say?", "What should I write?"),
    "topic": ("What is the {thing} about?", "What should the {noun} be?"),
    "label": (
        "What should I call the {thing}?",
        "What {noun} should I use?",
        "What would you like to name the {thing}?",
    ),
    "choice": ("Which {noun} do you mean?", "Which one would you like?", "Which {noun} should I use?"),
    "amount": ("What should the {noun} be?", "What {noun} would you like?"),
}
PLAIN = ("What should the {noun} be?", "What {noun} would you like?", "Could you tell me the {noun}?")
MONEY_VERBS = frozenset("send transfer pay deposit withdraw bid offer tip spend charge refund donate".split())
MAKING = frozenset("create add schedule make new book register start open plan set".split())


def clarifying_question(task: Task, turn: int, schemas: Mapping[str, Mapping[str, Any]] | None = None) -> str:
    """The oracle's reply on ask turn ``turn``: one question per withheld value (``schemas``: the offered tools'
    input schemas, which the ask check reads; without them, the check as it reads the task alone)."""
    schemas = schemas or {}
    params, _ = missing_params(task, turn)
    if not params:
        return "What exactly would you like me to use? I'm missing a detail."
    wanted = question_words(task, turn, schemas)
    others = other_words(schemas, wanted)
    return " ".join(_question(task, turn, p, schemas, {p: wanted[p]}, others) for p in params)


def _question(
    task: Task,
    turn: int,
    param: str,
    schemas: Mapping[str, Mapping[str, Any]],
    wanted: Mapping[str, Any],
    others: Mapping[tuple[str, ...], str],
) -> str:
    about = task.turns[turn].about.get(param, "").strip()
    about = about.removeprefix("the ") if about.split(" ")[1:2] and about.split(" ")[1] in WH_WORDS else about
    step = withheld_step(task, turn, param)
    prop = (schemas.get(step.name, {}) if step else {}).get("properties", {}).get(param, {})
    slots = _slots(param, about, step.tool if step else "")
    kinds = ["date" if k == "time" and _a_day(param, prop) else k for k in value_kinds(param, prop)]
    said = [p for k in kinds for p in PHRASINGS[k]]
    if about.split(" ", 1)[0].lower() in WH_WORDS and len(about.split()) > 2:  # "how much to bid": the question
        said.append(f"Could you tell me {about}?")
    fits = [s.format(**slots) for s in said if _fills(s, slots)]
    start = zlib.crc32(f"{task.id}/{turn}/{param}".encode()) % max(1, len(fits))
    plain = [s.format(**slots) for s in PLAIN if _fills(s, slots)]
    for text in [*fits[start:], *fits[:start], *plain]:
        if judge_reply(text, wanted, others).asked:
            return text
    return f"Could you tell me {about or 'the ' + param.replace('_', ' ')}?"


def _slots(param: str, about: str, tool: str) -> dict[str, str]:
    """The words a phrasing may use: the intent's noun for the value, the call's object and money verb."""
    noun = about.removeprefix("the ").rsplit("'s ", 1)[-1]  # "the customer's name" -> "name": what is asked for
    if noun.split(" ", 1)[0].lower() in WH_WORDS:  # "how often": a question, not a noun
        noun = ""
    elif not noun:  # a hand-written task: the parameter's words
        noun = " ".join(w for w in param.split("_") if w not in STOP_WORDS) or param.replace("_", " ")
    verb, _, obj = tool.partition("_")
    words = [w for w in obj.split("_") if w and w not in STOP_WORDS]
    act = verb if verb in MONEY_VERBS else next((w for w in words if w in MONEY_VERBS), "")
    thing = " ".join(words) if verb in MAKING and words else ""
    return {"noun": noun, "thing": thing, "act": act}


def _fills(phrasing: str, slots: Mapping[str, str]) -> bool:
    return all(slots[k] for k in ("noun", "thing", "act") if "{" + k + "}" in phrasing)


def _a_day(param: str, prop: Mapping[str, Any]) -> bool:
    """Whether a time value is a day without a time of day (``due_date``, ``format: date``)."""
    formats = {b.get("format") for b in prop.get("anyOf") or [prop] if isinstance(b, Mapping)}
    return "date" in formats or (
        "date-time" not in formats and bool({"date", "day", "birthday"} & set(param.split("_")))
    )
