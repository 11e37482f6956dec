"""Where tasks come from: a ``Source`` drafts one task of a slot's kind for a server on a world seed.

Two sources stand behind the one ``draft``: ``IntentSource`` (a server's intents run as a dialogue on a
fork: ``hub.synth.goals``) and ``ChainSource`` (the chain machine's graph walks, for servers without
intents: ``hub.synth.chain.source``). A draft is checked afterwards (``hub.synth.gate``); the source
then ``learn``s whether it was kept.
"""

from __future__ import annotations

import random
from typing import Any, Protocol

from hub.engine.dispatcher import Dispatcher
from hub.engine.episodes import dated_system
from hub.kit import Server
from hub.kit.intent import MAX_TURNS, IntentError, Level
from hub.state.library import Library
from hub.state.sessions import SessionManager
from hub.synth import perturb, unsolvable
from hub.synth.answers import default_answer
from hub.synth.chain.sampler import Sampler
from hub.synth.config import Slot, Stats, SynthConfig
from hub.synth.goals import Dialogue, DraftFailed, check, clarify_turns, gt_turns, linked, run_dialogue, wanted_tools
from hub.synth.goals import render as render_turns
from hub.synth.grounding import ground
from hub.synth.steer import Steering
from hub.synth.writer import IntentWriter
from hub.tasks import InitialState, Task, Turn


class Source(Protocol):
    def world(self, server: str, rng: random.Random) -> int:
        """The world seed of this attempt (drawn from ``rng``, or by the source's own schedule)."""
        ...

    def draft(
        self, slot: Slot, server: str, world: int, rng: random.Random, *, attempt: int, anchor: str | None = None
    ) -> Task | None:
        """A task of ``slot``'s kind for ``server`` on ``world`` (``anchor``: one that calls that tool), not yet
        checked; None when this draw made none (the reason counted in the run's stats)."""
        ...

    def learn(self, server: str, kind: str, task: Task, kept: bool) -> None:
        """Whether a draft of this source was kept by the checks."""
        ...


class IntentSource:
    """Tasks from a server's intents: one to three of them run as a dialogue on a fork of one world."""

    def __init__(
        self,
        library: Library,
        config: SynthConfig,
        servers: dict[str, Server],
        worlds: list[int],
        sessions: SessionManager,
        dispatcher: Dispatcher,
        steer: Steering,
        stats: Stats,
    ) -> None:
        self.library = library
        self.config = config
        self.servers = servers
        self.worlds = worlds
        self.sessions, self.dispatcher = sessions, dispatcher
        self.steer = steer
        self.stats = stats
        self.writer = IntentWriter(config.llm_endpoint, config.model or "default") if config.llm_endpoint else None
        self._samplers: dict[int, Sampler] = {}

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()

    def world(self, server: str, rng: random.Random) -> int:
        return self.worlds[rng.randrange(len(self.worlds))]

    def draft(
        self, slot: Slot, server: str, world: int, rng: random.Random, *, attempt: int, anchor: str | None = None
    ) -> Task | None:
        srv = self.servers[server]
        sid = f"synth-{slot.kind}-{attempt}-{rng.getrandbits(40):x}"
        level: Level = slot.level if slot.kind != "abstain" else "complete"
        first = self.steer.pick_intent(srv, rng, slot.kind, anchor)
        max_turns = MAX_TURNS - 1 if slot.kind == "clarify" else MAX_TURNS  # the ask turn comes on top
        try:
            dialogue = run_dialogue(
                srv,
                self.sessions,
                self.dispatcher,
                sid,
                world,
                level,
                rng,
                first,
                max_turns,
                self.steer.follow_weight(server, slot.kind, anchor),
                self.steer.fresh(server, slot.kind),
            )
            check(dialogue)
        except DraftFailed as exc:
            self.stats.dropped[exc.reason] += 1
            self.steer.learn(server, slot.kind, [first.name], False)
            return None
        except IntentError as exc:
            self.stats.dropped["intent_error"] += 1
            if len(self.stats.intent_errors) < 20:
                self.stats.intent_errors.append(str(exc))
            return None
        finally:
            if sid in self.sessions.sessions:
                self.sessions.close(sid)
        if not linked(dialogue.links):
            self.stats.dropped["unlinked"] += 1
            self.steer.learn(server, slot.kind, dialogue.scene.intents, False)
            return None
        try:
            task = self._task(slot, dialogue, rng, attempt)
        except DraftFailed as exc:
            self.stats.dropped[exc.reason] += 1
            task = None
        if task is None:
            self.steer.learn(server, slot.kind, dialogue.scene.intents, False)
        return task

    def learn(self, server: str, kind: str, task: Task, kept: bool) -> None:
        self.steer.learn(server, kind, task.meta["synth"]["intents"], kept)

    def _task(self, slot: Slot, d: Dialogue, rng: random.Random, attempt: int) -> Task | None:
        omitted = None
        if slot.kind == "clarify":
            if len(d.turns) > 2:  # the ask turn comes on top: at most 3 turns in all
                raise DraftFailed("clarify_too_long")
            turns, given = clarify_turns(d, rng)
            turns[0].missing = [given.param]
            turns[0].about = {given.param: given.about}
            omitted = given.text
        elif slot.kind == "abstain":
            turns = [Turn(user=render_turns(d, rng)[0])]
        else:
            turns = [Turn(user=t, calls=c) for t, c in zip(render_turns(d, rng), gt_turns(d))]
        if self.writer is not None:
            turns = self.writer.rewrite(d, turns, self._context(d.server, d.world, attempt), omitted)
        ungrounded = self._ground(d, turns) if slot.kind != "abstain" else []
        if slot.kind != "abstain" and all(c.kind == "read" for c in d.calls) and not any(t.answer for t in turns):
            raise DraftFailed("unanswered")  # a task that only reads is done when the reply tells what it found
        tools, servers, perturbs = self._offer(slot, d, rng)
        synth = {
            "seed": self.config.seed,
            "attempt": attempt,
            "world": d.world,
            "source": "intent",
            "variant": slot.variant or ("missing_value" if slot.kind == "clarify" else "goal"),
            "level": slot.level if slot.kind != "abstain" else None,
            "intents": list(d.scene.intents),
            "persona": {
                "name": d.persona.name,
                "tone": d.persona.tone,
                "style": d.persona.style,
                "habits": list(d.persona.habits),
            },
            "proofs": [
                {"text": p.text, "sql": p.sql, "params": p.params, "target": p.target, "turn": p.turn}
                for p in d.scene.proofs
            ],
            "links": [[[a, kind] for a, kind in e] for e in d.links] if slot.kind != "abstain" else [],
            "recoveries": [],
            "request_servers": [d.server],
            "withheld": unsolvable.withheld(d.server, [(c.tool, c.arguments) for c in d.turns[0].calls])
            if slot.kind == "abstain"
            else [],
            "mentioned_ids": [],
            "omitted": omitted,
            "today": d.scene.now.date().isoformat(),
            "ungrounded": ungrounded,
            **perturbs,
        }
        try:
            return Task(
                id=f"synth-{self.config.seed}-{slot.kind}-{attempt:05d}-{d.server}",
                kind=slot.kind,
                system=dated_system(d.scene.now),
                servers=servers,  # type: ignore[arg-type]
                initial=InitialState(seed=d.world),
                turns=turns,
                tools=tools,
                strip_enums=bool(perturbs["enum_stripped"]),
                meta={"synth": synth},
            )
        except ValueError:
            self.stats.dropped["malformed"] += 1
            return None

    def _ground(self, d: Dialogue, turns: list[Turn]) -> list[str]:
        """Record where every ground-truth value comes from, against the task's own user turns (a clarify
        task's calls answer the turn after its ask turn), and what each reading turn's reply must tell; the
        ungrounded values (``g<step>.<key>``)."""
        shift = 1 if turns[0].ask else 0
        turn_of = [c.turn + shift for c in d.calls]
        records, bad = ground(d.calls, turn_of, [t.user for t in turns], d.scene.server, d.scene.now)
        for step, record in zip((s for t in turns for s in t.calls), records):
            step.sources = record
        for draft in d.turns:
            turn = turns[draft.calls[0].turn + shift] if draft.calls else None
            if turn is not None:
                turn.answer = list(draft.answer) or default_answer(draft.calls, turn.user)
        return bad

    def _offer(self, slot: Slot, d: Dialogue, rng: random.Random) -> tuple[list[str], list[str], dict[str, Any]]:
        """The offered tools: the server's, or (abstain) none that could do what the user asks."""
        wanted: list[str] = []
        if slot.variant == "irrelevance":
            wanted = wanted_tools(d, opening_only=False)
        elif slot.variant == "missing_function":
            wanted = [n for n in wanted_tools(d) if self.library.tool(*n.split("__", 1)).kind == "write"]
            if not wanted:
                raise DraftFailed("no_write_to_withhold")
        c = self.config
        reading = all(call.kind == "read" for call in d.calls)
        rates = (c.distractor_rate, c.enum_strip_rate)
        tools, servers, perturbs = perturb.offer(
            self.library, slot.kind, slot.variant, d.server, wanted, rng, *rates, reading=reading
        )
        if not tools:
            raise DraftFailed("nothing_to_offer")
        return tools, servers, perturbs | {"wanted": wanted}

    def _context(self, server: str, world: int, attempt: int) -> dict[str, Any]:
        """The sampling context an LLM writer gets: a few real entities of the server on this world."""
        sampler = self._samplers.get(world)
        if sampler is None:
            c = self.config
            sampler = self._samplers[world] = Sampler(
                self.library, c.seed, world_seed=world, k=c.sampler_k, min_support=c.min_support
            )
        return sampler.for_task(server, attempt).summary()
