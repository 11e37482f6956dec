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

# A plain or chatty answer is composed: an optional owning-up ("Oh, sorry:", "Good catch."), a frame that carries
# the value ("the {name} is {v}", or one that fits its kind), now and then an afterthought. People vary each part.
OWNING_UP = (
    "Oh, sorry: ",
    "Sorry, ",
    "Ah, right: ",
    "Good catch. ",
    "Oops. ",
    "My bad, ",
    "Sorry, I left that out: ",
    "Right, ",
    "Ah, ",
    "Good question. ",
    "Oh, ",
    "Whoops, ",
    "Sorry, forgot that. ",
    "Of course. ",
    "Ah yes, ",
    "Fair point. ",
)
ANY = (
    "{v}.",
    "it's {v}.",
    "let's go with {v}.",
    "the {name} is {v}.",
    "{Name}: {v}.",
    "for the {name}, {v}.",
    "{v} for the {name}.",
    "the {name} I want is {v}.",
    "the {name} should be {v}.",
    "I meant to give you the {name}: {v}.",
    "as for the {name}, {v}.",
    "I'd go with {v} for the {name}.",
    "the {name}? {v}.",
)
AFTERTHOUGHTS = (
    " I forgot to say.",
    " Should have said that first.",
    " That's the one I meant.",
    " Sorry for the back and forth.",
    " Hope that's enough to go on.",
    " I should have put that in.",
    " Slipped my mind.",
)
OWN_RATE = 0.6
AFTER_RATE = 0.2
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
    terse = style in ("terse", "sloppy")
    forms = TERSE if terse else ANY + tuple(_lower(f) for f in BY_KIND[kind(text, name)])
    if not NOUN.match(name):  # "what it is" does not read as "the what it is is ..."
        forms = tuple(f for f in forms if "ame}" not in f)
    body = rng.choice(forms).format(v=text, name=name, Name=name[:1].upper() + name[1:])
    if terse:
        return body
    if rng.random() < OWN_RATE:
        leads = [w for w in OWNING_UP if not (w.endswith(": ") and re.search(r"[:?]", body))]  # one colon is enough
        lead = rng.choice(leads)
        body = lead + (_upper(body) if lead.endswith(". ") else body)
    else:
        body = _upper(body)
    return body + rng.choice(AFTERTHOUGHTS) if rng.random() < AFTER_RATE else body


def _lower(form: str) -> str:
    return form if form.startswith(("{", "I ", "I'")) else form[:1].lower() + form[1:]


def _upper(body: str) -> str:
    return body[:1].upper() + body[1:]
