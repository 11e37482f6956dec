"""Check-backs: the follow-up a person asks after any change, "and how does it look now?".

Every server whose tools include a read of one entity by its id alone (``get_issue(issue_id)``,
``view_cart(customer_id)``, ``track_order(order_id)``) gets, for free, a follow-up intent per such
read: after a write of the dialogue touched (or created) an entity of that type, the user asks to see
it now, naming it as "the issue", "the order", and the agent reads it with the id it already holds.
They are built from the tools' declarations, not registered on the server: a server's own intents
stay its registry (and cover its tools without them).
"""

from __future__ import annotations

from typing import Any

from hub.kit import Server, Tool
from hub.kit.intent import CallRecord, Intent, Scene, Skip
from hub.synth.realism import names_in

VERBS = ("get", "view", "track")
PHRASINGS = (
    "How does the {noun} look now?",
    "Show me the {noun} now.",
    "Can you pull up the {noun} so I can double-check?",
    "What does the {noun} say now?",
    "Let me see the {noun} again, please.",
    "And where does the {noun} stand now?",
    "Did that go through? Show me the {noun}.",
    "Can I see the {noun} as it is now?",
    "What's the {noun} looking like after that?",
    "Read the {noun} back to me so I know it's right.",
    "Just to be sure, what does the {noun} show now?",
    "Pull the {noun} up again, I want to check it.",
)
WEIGHT = 0.6  # below a server's own follow-ups: those carry the dialogue's goal further
_BUILT: dict[int, list[Intent]] = {}


def checkbacks(server: Server) -> list[Intent]:
    """The check-back follow-ups of ``server`` (one per single-entity read), built once per server."""
    # keyed by identity, not name: two libraries may mount different servers under one name (the cached
    # intents hold their server, so its id is not reused while the entry lives)
    found = _BUILT.get(id(server))
    if found is None:
        found = _BUILT[id(server)] = [_intent(server, t) for t in server.tools.values() if _fits(t)]
    return found


def _fits(tool: Tool) -> bool:
    verb = tool.name.split("_", 1)[0]
    return tool.kind == "read" and verb in VERBS and len(tool.required) == 1 and bool(tool.params.get(tool.required[0]))


def phrasings(tool: str, noun: str) -> list[str]:
    """The phrasings of ``tool``'s check-back that do not say its name words."""
    return [p for p in PHRASINGS if not names_in(tool, p.format(noun=noun).lower().split())]


def _intent(server: Server, tool: Tool) -> Intent:
    param = tool.required[0]
    etype = str(tool.params[param])
    declared = server.entities.get(etype)
    noun = declared.name if declared else etype.replace("_", " ")
    key = declared.key if declared else param
    said = phrasings(tool.name, noun)

    def check_back(s: Scene) -> None:
        target = _last_touched(s, server, etype, key)
        if target is None:
            raise Skip(f"no {noun} changed in the dialogue yet")
        if declared is None or not s.rows(f"SELECT 1 FROM {declared.table} WHERE {declared.key} = ?", target):
            raise Skip(f"the {noun} is gone (the write removed it)")
        s.say(*said, noun=noun)
        s.call(tool.name, **{param: target})

    check_back.__name__ = f"check_back_{tool.name}"
    check_back.__doc__ = f"The user asks to see the {noun} the dialogue just changed."
    return Intent(server.name, check_back.__name__, check_back, (tool.name,), WEIGHT, True, check_back.__doc__, False)


def _last_touched(s: Scene, server: Server, etype: str, key: str) -> Any:
    """The id of the entity of ``etype`` the dialogue's last write changed or created, unless it was read
    back since (an agent would answer from that read)."""
    calls = list(s.calls)
    for i in range(len(calls) - 1, -1, -1):
        c = calls[i]
        if c.kind != "write":
            continue
        target = _entity_of(c, server.tools[c.tool], etype, key)
        if target is None:
            return None
        if any(_reads(later, target) for later in calls[i + 1 :]):
            return None
        return target
    return None


def _entity_of(c: CallRecord, tool: Tool, etype: str, key: str) -> Any:
    """The id of the ``etype`` entity a write acted on or made: the one its name says (``close_sprint`` acts
    on a sprint, not on the project the sprint belongs to)."""
    if etype not in c.tool.split("_", 1)[-1]:
        return None
    ids = [v for p, v in c.arguments.items() if tool.params.get(p) == etype and isinstance(v, str)]
    if isinstance(c.result, dict) and isinstance(c.result.get(key), str):
        ids.append(c.result[key])
    return ids[0] if len(set(ids)) == 1 else None


def _reads(c: CallRecord, target: Any) -> bool:
    return c.kind == "read" and target in c.arguments.values()
