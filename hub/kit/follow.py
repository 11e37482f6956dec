"""Follow-ups from declarations: the one-turn, one-call next question of a dialogue, as a table row.

Most follow-ups a server offers have one shape: read what the dialogue is about off ``s.memory`` (``Skip``
when it holds nothing that fits), say one of a few phrasings about it, make one call with arguments taken
from it; a read the dialogue already made is not asked again. Like ``hub.synth.checkback`` builds
check-backs from the tools' declarations, this module builds such intents from rows::

    FollowUp(
        "deal_now",
        "The rep asks to see the deal as it stands now.",
        lambda s: known(s, "deal", "deal_id"),  # the slots, or Skip
        "get_deal",
        lambda d: {"deal_id": d["deal_id"]},  # the call's arguments, from the slots
    )

and ``follow_ups(crm, ROWS, WORDS)`` registers one intent per row (its ``name``, ``doc``, ``tool`` as covers, its
``weight``; a follow-up only: ``follows=True, opens=False``). A row says the section of the server's catalog
named as the row (``[deal_now]`` in ``servers/crm/phrasings.toml``) unless it brings ``phrasings`` of its own.
What a server needs beyond that is a small function in a row's field (``check``, ``heard``, ``then``), not a
copy of the machinery.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from hub.kit.intent import Intent, Scene, register
from hub.kit.phrasings import Catalog

Slots = dict[str, Any]
Args = dict[str, Any]


@dataclass(frozen=True)
class FollowUp:
    """One follow-up intent. ``about`` reads the turn's slots off the dialogue (``Skip`` when nothing fits), or
    returns ``(arguments, slots)`` at once (then ``args`` stays ``None``); ``args`` makes the call's arguments
    from the slots. ``asked``: ``Skip`` when the dialogue already made the call (``True``: with the same
    arguments; a tuple: with the same values of those of these it takes; ``False``: never). ``check`` may
    ``Skip`` once the arguments are known; ``heard`` gives what ``say`` gets (default: every slot;
    ``said_only``: the slots a phrasing names); ``then`` sees the call's result (memory for the next turn,
    what the answer must tell); ``phrased`` gives the phrasings where they depend on the live state (an
    invoice's status)."""

    name: str
    doc: str
    about: Callable[[Scene], Slots | tuple[Args, Slots]]
    tool: str
    args: Callable[[Slots], Args] | None = None
    phrasings: tuple[str, ...] = ()
    weight: float = 1.0
    asked: bool | tuple[str, ...] = True
    check: Callable[[Scene, Args], None] | None = None
    heard: Callable[[Scene, Slots], Slots] | None = None
    said_only: bool = False
    then: Callable[[Scene, Args, Any], None] | None = None
    phrased: Callable[[Scene, Args], tuple[str, ...]] | None = None
    covers: tuple[str, ...] = ()

    def run(self, s: Scene) -> None:
        got = self.about(s)
        if isinstance(got, tuple):
            args, slots = got
        else:
            slots, args = got, (self.args(got) if self.args else {})
        if self.asked is True:
            s.asked(self.tool, **args)
        elif self.asked:
            s.asked(self.tool, **{k: v for k, v in args.items() if k in self.asked})
        if self.check is not None:
            self.check(s, args)
        phrasings = self.phrased(s, args) if self.phrased is not None else self.phrasings
        said = self.heard(s, slots) if self.heard is not None else slots
        if self.said_only:
            said = {k: v for k, v in said.items() if any("{" + k + "}" in p for p in phrasings)}
        s.say(*phrasings, **said)
        result = s.call(self.tool, **args)
        if self.then is not None:
            self.then(s, args, result)

    def intent(self) -> Callable[[Scene], None]:
        """The row as an intent function, named and documented as the row."""

        def follow_up(s: Scene) -> None:
            self.run(s)

        follow_up.__name__ = follow_up.__qualname__ = self.name
        follow_up.__doc__ = self.doc
        return follow_up


def follow_ups(server: Any, rows: Sequence[FollowUp], words: Catalog | None = None) -> list[Intent]:
    """Register each row on ``server`` as a follow-up only intent (covers: its tool, then ``covers``). A row
    without phrasings says the section of ``words`` (the server's catalog) named as the row."""
    return [
        register(server, _worded(row, words).intent(), (row.tool, *row.covers), row.weight, follows=True, opens=False)
        for row in rows
    ]


def _worded(row: FollowUp, words: Catalog | None) -> FollowUp:
    if row.phrasings or row.phrased is not None or words is None:
        return row
    return replace(row, phrasings=getattr(words, row.name))
