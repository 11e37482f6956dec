"""Who talks in a server's dialogues, declared once on the server's entity type.

Every server's dialogues are spoken by one kind of entity (a bank customer, a workspace member, a map
user) who is picked from the live state, becomes the persona, says who they are in a way proven to pick
them out, and is found by the agent with one discovery read. A server declares that once, on the entity
type whose rows talk (its table, key and finder are the entity's)::

    CUSTOMER = Speaker(
        CustomerId,
        select="SELECT customer_id, name, email, city FROM customers",
        memory="customer",
        says=(Says("I'm {name}", "name"), Says("I'm {name} from {city}", "name", "city")),
        search=Search(by=("name", "email")),
    )

and its intents use ``CUSTOMER.me(s)`` (who talks), ``CUSTOMER.who(s, c)`` (how they say so),
``CUSTOMER.find(s, c)`` (the agent's discovery call, once per dialogue) and ``CUSTOMER.asks(s, c, ...)``
(a turn in their words, then that call). What an earlier turn established lives in
``s.memory[speaker.memory]``, so a follow-up never changes who talks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hub.kit import EntityId, EntityType
from hub.kit.intent import Scene, Skip, row_ref
from hub.kit.phrasings import Said

BECAME = "speaker_id"  # memory: the key of the row an opener made the persona (``Speaker.become``)


@dataclass(frozen=True, init=False)
class Says:
    """One way the speaker says who they are: ``text`` filled from their row, offered only where the
    ``columns`` it states pick out one row of the speaker's table."""

    text: str
    columns: tuple[str, ...]

    def __init__(self, text: str, *columns: str) -> None:
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "columns", columns)


@dataclass(frozen=True)
class Search:
    """The discovery read that finds the speaker: the entity's finder lists rows under the entity's table name
    (unless ``tool`` and ``listed`` say otherwise); its ``query`` argument takes the first of the ``by`` columns
    whose value no other row shares (else the last)."""

    by: tuple[str, ...] = ("name",)
    missing: str = "the speaker is past the first page of the search"
    argument: str = "query"
    tool: str = ""
    listed: str = ""


@dataclass(frozen=True)
class Speaker:
    """Who talks (rows of ``of``, the entity type), how they say so, how the agent finds them (the module
    docstring shows one)."""

    of: type[EntityId]
    select: str
    memory: str = "me"
    name: str = "name"
    alias: str = ""
    says: tuple[Says, ...] = (Says("I'm {name}", "name"),)
    again: tuple[str, ...] = ()
    search: Search | None = None
    keep: tuple[str, ...] = ()
    late: bool = False  # whether a later turn may bring the speaker in after an opener nobody of the table spoke

    @property
    def entity(self) -> EntityType:
        return self.of.entity

    def me(self, s: Scene, where: str = "1=1", *params: Any) -> dict[str, Any]:
        """The speaker: the one an earlier turn established, or the one an opener made the persona before anyone
        found them (``become``); ``Skip`` when they do not fit ``where``. Else, on the opening turn, a fresh pick
        among those that fit, who becomes the persona."""
        fits = self._where(f"{self.alias}{self.entity.key} = ? AND ({where})")
        known = s.recall(self.memory, self.entity.key, fits, *params, who=self.entity.table)
        if known is not None:
            return known
        became = s.memory.get(BECAME)
        if became:
            found = s.rows(fits, became, *params)
            if not found:
                raise Skip(f"the {self.entity.name} talking does not fit")
            return found[0]
        if s.turns and not self.late:
            raise Skip(f"a follow-up of a dialogue nobody of {self.entity.table} spoke")
        row = s.pick(self._where(where), *params)
        s.be(str(row[self.name]))
        return row

    def become(self, s: Scene, row: dict[str, Any]) -> None:
        """Make ``row`` the persona of an opener that does not say who talks (a customer reading a receipt), so
        that a later turn speaks as them; ``me`` returns them until a discovery read finds them."""
        s.be(str(row[self.name]))
        s.memory[BECAME] = row[self.entity.key]

    def who(self, s: Scene, row: dict[str, Any]) -> str:
        """How the speaker says who they are: one of ``says`` that picks them out; once an earlier turn
        found them, one of ``again`` ("Still me"), or nothing."""
        if self.known(s, row):
            return s.rng.choice(self.again) if self.again else ""
        refs = [row_ref(say.text, self.entity.table, self.entity.key, row, say.columns) for say in self.says]
        return s.refer(row[self.entity.key], *refs, **row)

    def find(self, s: Scene, row: dict[str, Any], **filters: Any) -> str:
        """The agent's discovery read for the speaker's id (none once an earlier turn found them)."""
        if self.known(s, row):
            return str(row[self.entity.key])
        if self.search is None:
            raise TypeError(f"the speaker of {self.entity.table} declares no search")
        query = self._query(s, row, self.search)
        hit = s.find(
            self.search.tool or self.entity.finder,
            self.search.listed or self.entity.table,
            self.entity.key,
            row[self.entity.key],
            missing=self.search.missing,
            **{self.search.argument: query},
            **filters,
        )
        kept = {k: hit[k] for k in (self.entity.key, self.name, *self.keep) if k in hit}
        s.memory[self.memory] = {**kept, self.entity.key: row[self.entity.key], self.name: row[self.name]}
        return str(row[self.entity.key])

    def asks(self, s: Scene, row: dict[str, Any], *phrasings: Said, minimal: Sequence[str] = (), **slots: Any) -> str:
        """The speaker's turn (``{me}``: how they say who they are) in one of ``phrasings``, then the
        discovery read for their id, which is returned."""
        s.say(*phrasings, minimal=minimal, me=self.who(s, row), **slots)
        return self.find(s, row)

    def known(self, s: Scene, row: dict[str, Any]) -> bool:
        """Whether an earlier turn found this speaker (the agent holds their id)."""
        found = s.memory.get(self.memory) or {}
        return bool(found.get(self.entity.key) == row[self.entity.key])

    def _where(self, condition: str) -> str:
        joiner = " AND " if " where " in self.select.lower() else " WHERE "
        return f"{self.select}{joiner}{condition}"

    def _query(self, s: Scene, row: dict[str, Any], search: Search) -> Any:
        for column in search.by[:-1]:
            shared = s.value(f"SELECT COUNT(*) FROM {self.entity.table} WHERE {column} = ?", row[column])
            if shared == 1:
                return row[column]
        return row[search.by[-1]]
