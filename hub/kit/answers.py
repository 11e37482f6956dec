"""How a user answers when the assistant asks for a value they left out: in context, in a form that fits
the kind of value ("it should be $685.09", "call it 'Offsite planning'", "45 minutes is enough"), in the
persona's style. The value's words are kept verbatim."""

from __future__ import annotations

import random
import re

from hub.kit.voice import Style

MONEY = re.compile(r"^[$€£]\s?\d|^\d[\d,.]*\s?(USD|EUR|GBP)$")
DURATION = re.compile(r"\b\d+\s*(minutes?|mins?|hours?|hrs?|days?|weeks?|nights?)\b|\b(half an|an) hour\b", re.I)
WHEN = re.compile(
    r"\b(january|february|march|april|may|june|july|august|september|october|november|december|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|today|tomorrow|\d{1,2}(:\d\d)?\s?[ap]m|"
    r"\d{4}-\d\d-\d\d)\b",
    re.I,
)
COUNT = re.compile(r"^(\d+|one|two|three|four|five|six|seven|eight|nine|ten|a dozen)( [a-z]+)?$", re.I)
QUOTED = re.compile(r"^(['\"]).*\1$", re.S)
NOUN = re.compile(r"^(?!(?:what|which|how|who|whom|when|where|why|whether|if)\b)[a-z]", re.I)
NAMING = ("name", "title", "subject", "topic")  # what the user calls a thing they are making

ANY = (
    "Oh, sorry: {v}.",
    "Sorry, forgot that. It's {v}.",
    "Ah, right: {v}.",
    "{v}, sorry about that.",
    "Good catch. {v}.",
    "Let's go with {v}.",
    "Sorry, I left that out: {v}.",
    "The {name} is {v}.",
    "Right, the {name} is {v}.",
    "{Name}: {v}.",
    "For the {name}, {v}.",
    "Oops. {v}.",
    "Oh, the {name}? {v}.",
    "Sorry, the {name} should be {v}.",
    "I meant to give you the {name}: {v}.",
    "{v} for the {name}.",
    "The {name} I want is {v}.",
    "Ah, the {name}. {v}.",
    "My bad, the {name} is {v}.",
    "Good question. The {name} is {v}.",
    "As for the {name}, {v}.",
    "I'd go with {v} for the {name}.",
)
BY_KIND = {
    "money": (
        "It should be {v}.",
        "{v} exactly.",
        "Put down {v}.",
        "Make that {v}.",
        "{v} should cover it.",
        "Let's say {v}.",
        "{v} is the figure.",
    ),
    "duration": ("{v} is enough.", "{v} should do.", "Give it {v}.", "Plan for {v}.", "Let's keep it to {v}."),
    "when": ("{v} works.", "Let's do {v}.", "Go for {v}.", "{v} is what I had in mind."),
    "count": ("{v} should do.", "Make it {v}.", "{v}, please.", "I'll need {v}."),
    "naming": ("Call it {v}.", "Name it {v}.", "Let's call it {v}.", "{v} works as the {name}.", "Use {v} for it."),
    "message": ("Say {v}.", "Something like {v}.", "Just write {v}.", "Put {v}.", "Word it as {v}."),
    "other": ("Use {v}.", "It's {v}.", "Make it {v}.", "That would be {v}.", "Go with {v}."),
}
TERSE = (
    "{v}",
    "{v}, sorry",
    "oh, {v}",
    "{name}: {v}",
    "{v} pls",
    "it's {v}",
    "{v}, forgot that",
    "{v} i think",
    "{name} is {v}",
    "{name} should be {v}",
    "oh the {name}, {v}",
    "{v} for the {name}",
    "{name}? {v}",
    "the {name} is {v}",
    "sorry, {name} is {v}",
    "use {v} for the {name}",
)


def kind(text: str, name: str) -> str:
    """The kind of value, which decides how a person says it back."""
    if MONEY.search(text):
        return "money"
    if DURATION.search(text):
        return "duration"
    if any(w in name for w in NAMING) and "customer" not in name:
        return "naming"
    if QUOTED.match(text) and " " in text:
        return "message"
    if WHEN.search(text):
        return "when"
    if COUNT.match(text) or "quantity" in name or "number of" in name:
        return "count"
    return "other"


def reply(text: str, name: str, rng: random.Random, style: Style = "plain") -> str:
    """One answer carrying ``text`` (the value as the user writes it) about the ``name`` of the value."""
    forms = TERSE if style in ("terse", "sloppy") else ANY + BY_KIND[kind(text, name)]
    if not NOUN.match(name):  # "what it is" does not read as "the what it is is ..."
        forms = tuple(f for f in forms if "ame}" not in f)
    return rng.choice(forms).format(v=text, name=name, Name=name[:1].upper() + name[1:])
