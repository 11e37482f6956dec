"""Episodes: a task played out in its own forked session, step by step, from the model's raw text.

Open: the task's initial state is built once (a template session: seed or snapshot plus setup
calls) and each episode forks it, so every episode of a GRPO group starts from the same state
hash. The model gets a system prompt, the offered tools as OpenAI function schemas and the first
user turn. Step: the model's raw text is parsed (Hermes/Qwen ``<tool_call>`` blocks or OpenAI
``tool_calls``), its calls run through the dispatcher (the episode id on every event), and the
tool results come back; a message without a call moves to the next user turn, and the episode
ends after the last turn or at the step cap. Malformed text is a format error recorded in the
episode, never a crash. Finish: the reward breakdown (``hub.engine.reward``).

What an episode produces (the model's messages and the tool results) is counted in bytes; past
``max_episode_bytes`` (``HUB_MAX_EPISODE_BYTES``) no further call of the step runs and the episode
ends with reason ``byte_cap``, so no episode makes the hub hold more than that (plus one result).
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from hub.engine.clarify import AskVerdict
from hub.engine.dispatcher import CallOutcome, Dispatcher
from hub.engine.events import (
    Diff,
    EpisodeEvent,
    EventBus,
    EvidenceEvent,
    RewardEvent,
    TaskEvent,
    ToolCallEvent,
    TurnEvent,
)
from hub.engine.evidence import ExpectedStates, collect, diff_sessions
from hub.engine.explain import explain
from hub.engine.judge import AskJudge
from hub.engine.parsing import ParsedCall, parse_model_output
from hub.engine.reward import CallRecord, RewardBreakdown, rule_verdict, score
from hub.engine.users import UserModel, UserView, answer_as_user, open_with_user
from hub.engine.world import World, build_initial, build_initial_async
from hub.errors import EpisodeError, SessionError, TaskError
from hub.kit.names import split_name
from hub.state.library import Library
from hub.state.sessions import Session, SessionManager
from hub.suites.scoring import suite_score, suite_turn_end
from hub.tasks.io import TaskSet
from hub.tasks.model import Task
from hub.wire import EpisodeLimits, RewardConfig

log = logging.getLogger("hub.engine.episodes")

DEFAULT_SYSTEM = (
    "You are a helpful assistant that can use tools. To call a tool, reply with one or more blocks\n"
    '<tool_call>{"name": "<tool name>", "arguments": {<JSON arguments>}}</tool_call>\n'
    "You will get each tool's result back. When you have what you need, answer the user in plain text "
    "without a tool call. If a detail you need is missing, ask the user for it instead of guessing. "
    "If none of the tools can do what the user asks, say so and make no call."
)


def dated_system(now: datetime) -> str:
    """The default system prompt with the task's reference date and time, as an assistant is told the date."""
    return f"{DEFAULT_SYSTEM}\nToday is {now:%A}, {now:%B} {now.day}, {now.year}; the time is {now:%H:%M}."


def inline_task(data: Mapping[str, Any]) -> Task:
    try:
        return Task.model_validate(data)
    except ValidationError as exc:
        raise TaskError(f"invalid inline task: {exc}") from None


# Episodes --------------------------------------------------------------------------------------


@dataclass
class StepResult:
    episode: str
    messages: list[dict[str, Any]]  # tool results, then the next user turn if the model answered
    done: bool
    reason: str | None
    calls: list[dict[str, Any]]  # per call: name, ok, error_kind
    format_errors: list[str]
    turn: int
    step: int
    reward: dict[str, Any] | None = None  # the reward so far, when the episode was opened with step_reward
    tools: list[dict[str, Any]] | None = None  # the whole offered list, when a turn offered more tools

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = ({"tools": self.tools} if self.tools is not None else {}) | {
            "episode": self.episode,
            "messages": self.messages,
            "done": self.done,
            "reason": self.reason,
            "calls": self.calls,
            "format_errors": self.format_errors,
            "turn": self.turn,
            "step": self.step,
        }
        if self.reward is not None:
            data["reward"] = self.reward
        return data


@dataclass
class Episode:
    id: str
    task: Task
    session_id: str
    group: str
    limits: EpisodeLimits
    start_hash: str
    messages: list[dict[str, Any]]
    turn: int = 0
    steps: int = 0
    seq: int = 0
    calls: list[CallRecord] = field(default_factory=list)
    replies: list[tuple[int, str]] = field(default_factory=list)  # (turn, text) of each model message
    format_errors: list[str] = field(default_factory=list)
    format_error_messages: int = 0
    done: bool = False
    reason: str | None = None
    reward: RewardBreakdown | None = None
    reward_config: RewardConfig | None = None
    run: str | None = None
    run_step: int | None = None
    step_reward: bool = False  # every step's observation carries the reward so far
    added: list[str] = field(default_factory=list)  # tools a later turn offered (BFCL's miss_func)
    turn_states: list[dict[str, Any]] = field(default_factory=list)  # a suite's scorer: each turn's end state
    user_calls: list[CallRecord] = field(default_factory=list)  # calls the user made on their own side
    user_view: UserView = field(default_factory=UserView)  # the dialogue as a simulated user's model sees it
    awaiting_user: bool = False  # the model answered: a simulated user speaks next
    nbytes: int = 0  # the model's messages and the tool results so far (characters)

    def summary(self) -> dict[str, Any]:
        return {
            "episode": self.id,
            "task": self.task.id,
            "group": self.group,
            "session": self.session_id,
            "state_hash": self.start_hash,
            "turn": self.turn,
            "steps": self.steps,
            "done": self.done,
            "reason": self.reason,
        }


def function_schema(library: Library, name: str, strip_enums: bool = False, bare: bool = False) -> dict[str, Any]:
    """The OpenAI function schema of an offered ``server__tool`` (without enum lists when asked; named by the tool
    alone with ``bare``, as a benchmark's harness names it)."""
    parts = split_name(name)
    if parts is None:
        raise TaskError(f"offered tool {name!r} is not of the form server__tool")
    tool = library.tool(*parts)
    parameters = without_enums(tool.input_schema) if strip_enums else tool.input_schema
    shown = parts[1] if bare else name
    return {"type": "function", "function": {"name": shown, "description": tool.description, "parameters": parameters}}


def without_enums(node: Any) -> Any:
    """A copy of a JSON schema without its ``enum`` lists (the types stay)."""
    if isinstance(node, dict):
        return {k: without_enums(v) for k, v in node.items() if k != "enum"}
    if isinstance(node, list):
        return [without_enums(v) for v in node]
    return node


MAX_EXPIRED = 100_000


@dataclass
class _Judged:
    breakdown: RewardBreakdown
    final_hash: str
    evidence: EvidenceEvent | None
    ts: float


class EpisodeEngine:
    def __init__(
        self,
        library: Library,
        sessions: SessionManager,
        dispatcher: Dispatcher,
        bus: EventBus,
        tasks: TaskSet | None = None,
        *,
        reward: RewardConfig | None = None,
        limits: EpisodeLimits | None = None,
        max_episodes: int = 5000,
        max_templates: int = 256,
        keep_evidence: bool = True,
        judge: AskJudge | None = None,
        user_model: UserModel | None = None,
        max_episode_bytes: int | None = None,
    ) -> None:
        self.library = library
        self.sessions = sessions
        self.dispatcher = dispatcher
        self.bus = bus
        self.tasks = tasks if tasks is not None else TaskSet()
        self.reward = reward or RewardConfig()
        self.limits = limits or EpisodeLimits()
        self.max_episodes = max_episodes
        self.max_templates = max_templates
        self.keep_evidence = keep_evidence
        self.judge = judge  # a chat model that decides R_ask (the rules decide without one)
        self.user_model = user_model
        self.max_episode_bytes = max_episode_bytes
        self.expected = ExpectedStates(library)
        self.episodes: dict[str, Episode] = {}
        self.expired: OrderedDict[str, None] = OrderedDict()  # swept episodes, so a late step hears why
        self._templates: OrderedDict[str, str] = OrderedDict()
        self._building: dict[str, asyncio.Future[Session]] = {}  # templates being built, by task fingerprint
        self._tools: dict[str, list[dict[str, Any]]] = {}
        self._schema_maps: dict[str, dict[str, dict[str, Any]]] = {}
        self._announced: set[str] = set()
        self._unreplayable: dict[str, str] = {}  # task id -> why its ground truth does not replay
        self._changed: dict[str, int] = {}  # task id -> rows its ground truth changes
        self.opened = 0
        self.finished = 0
        self.reward_sum = 0.0

    # Tasks and templates ---------------------------------------------------------------------

    def resolve(self, task: str | Mapping[str, Any] | Task) -> Task:
        """A task by id, or an inline task (validated against the library)."""
        if isinstance(task, str):
            return self.tasks.get(task)
        found = task if isinstance(task, Task) else inline_task(task)
        found.check_against(self.library)
        return found

    def template(self, task: Task) -> Session:
        """The task's initial state, built once and kept (LRU) to fork episodes from."""
        found, sid = self._held_template(task)
        if found is not None:
            return found
        try:
            session = build_initial(task, self.sessions, self.dispatcher, sid)
        except SessionError:
            self._drop(sid)  # the budget ran out half-way: hold nothing
            raise
        return self._keep_template(task, session)

    async def template_async(self, task: Task) -> Session:
        """``template`` from the event loop: seeds, setup calls and forks built off it. Opens of one task that
        come while its template is being built wait for that build: the template (``tpl-<fingerprint>``) is one
        session, and a second build would find it half-made and close it under the first."""
        key = task.fingerprint()
        building = self._building.get(key)
        if building is None:
            found, sid = self._held_template(task)
            if found is not None:
                return found
            building = self._building[key] = asyncio.ensure_future(self._build_template(task, sid))
            building.add_done_callback(lambda _: self._building.pop(key, None))
        return await asyncio.shield(building)

    async def _build_template(self, task: Task, sid: str) -> Session:
        try:
            session = await build_initial_async(task, self.sessions, self.dispatcher, sid)
        except SessionError:
            self._drop(sid)
            raise
        return self._keep_template(task, session)

    def _held_template(self, task: Task) -> tuple[Session | None, str]:
        key = task.fingerprint()
        sid = self._templates.get(key)
        if sid is not None and sid in self.sessions.sessions:
            self._templates.move_to_end(key)
            return self.sessions.get(sid, create=False), sid
        if key in self._building:  # being built from the loop: a template of its own, not that one half-made
            return None, f"tpl-{key}-{secrets.token_hex(4)}"
        sid = f"tpl-{key}"
        self._drop(sid)
        return None, sid

    def _drop(self, sid: str) -> None:
        if sid in self.sessions.sessions:
            self.sessions.close(sid, internal=True)

    def _keep_template(self, task: Task, session: Session) -> Session:
        session.internal = True
        replaced = self._templates.get(task.fingerprint())
        if replaced is not None and replaced != session.id:  # one built off the loop while the loop built this
            self._drop(replaced)
        self._templates[task.fingerprint()] = session.id
        while len(self._templates) > self.max_templates:
            _, old = self._templates.popitem(last=False)
            self._drop(old)
        return session

    def expect(self, task: Task) -> None:
        """Give a task without expected final hashes the ones its ground truth leaves (replayed once, privately), so
        the state term can score it; a ground truth that does not replay leaves it without (the reward says so)."""
        if task.expected_server_hashes or task.scorer or task.id in self._unreplayable:
            return
        try:
            session = self.expected.session(task)
        except TaskError as exc:
            self._unreplayable[task.id] = exc.message
            log.warning("task %s has no expected final state: %s", task.id, exc.message)
            return
        task.expected_server_hashes = {s: session.fork_of(s).state_hash() for s in task.servers}
        task.expected_state_hash = session.state_hash(task.servers)

    def tools_of(self, task: Task, added: list[str] | None = None) -> list[dict[str, Any]]:
        """The offered tools' function schemas (with ``added``: also those later turns offered so far)."""
        names = [*task.tools, *(added or ())]
        key = "\x00".join(names) + ("\x00-enums" if task.strip_enums else "") + ("\x00-bare" if task.bare_names else "")
        found = self._tools.get(key)
        if found is None:
            found = self._tools[key] = [
                function_schema(self.library, n, task.strip_enums, task.bare_names) for n in names
            ]
        return found

    def reads_of(self, task: Task) -> frozenset[str]:
        """The read-only tools among the task's offered and ground-truth tools (the reward asks which calls read)."""
        names = {*task.tools, *(s.name for s in task.gt_steps())}
        return frozenset(n for n in names if (p := split_name(n)) and self._is_read(*p))

    def _is_read(self, server: str, tool: str) -> bool:
        mount = self.library.mounts.get(server)
        found = mount.tools.get(tool) if mount is not None else None
        return found is not None and found.kind == "read"

    def schemas_of(self, task: Task) -> dict[str, dict[str, Any]]:
        key = "\x00".join(task.tools) + ("\x00-enums" if task.strip_enums else "")
        found = self._schema_maps.get(key)
        if found is None:
            names = [*task.tools, *(n for t in task.turns for n in t.adds_tools)]
            found = self._schema_maps[key] = {
                n: function_schema(self.library, n, task.strip_enums)["function"]["parameters"] for n in names
            }
        return found

    # Lifecycle -------------------------------------------------------------------------------

    def open_group(
        self,
        task_ref: str | Mapping[str, Any] | Task,
        n: int = 1,
        limits: EpisodeLimits | None = None,
        *,
        run: str | None = None,
        step: int | None = None,
        step_reward: bool = False,
    ) -> list[Episode]:
        """``n`` episodes of one task, each in its own fork of the same initial state (a GRPO group);
        with ``step_reward``, every step's observation carries the reward so far (``reward_so_far``)."""
        task = self._plan_group(task_ref, n)
        base = self.template(task)
        self.expect(task)
        eids = ["ep-" + secrets.token_hex(8) for _ in range(n)]
        # All n forks or none (capacity): no episode exists, and no event is published, before they all do.
        forks = self.sessions.fork_group(base.id, ["es-" + eid[3:] for eid in eids])
        return self._opened(task, eids, forks, limits, run, step, step_reward)

    async def _open_group_off_loop(
        self,
        task_ref: str | Mapping[str, Any] | Task,
        n: int = 1,
        limits: EpisodeLimits | None = None,
        *,
        run: str | None = None,
        step: int | None = None,
        step_reward: bool = False,
    ) -> list[Episode]:
        """``open_group`` with the template's setup calls and the n copies run off the loop, in lanes."""
        task = self._plan_group(task_ref, n)
        base = await self.template_async(task)
        self.expect(task)
        eids = ["ep-" + secrets.token_hex(8) for _ in range(n)]
        forks = await self.sessions.fork_group_async(base.id, ["es-" + eid[3:] for eid in eids])
        return self._opened(task, eids, forks, limits, run, step, step_reward)

    def _plan_group(self, task_ref: str | Mapping[str, Any] | Task, n: int) -> Task:
        if n < 1:
            raise EpisodeError("n must be at least 1", "bad_message")
        if len(self.episodes) + n > self.max_episodes:
            raise EpisodeError(f"episode cap reached ({self.max_episodes} open); close finished episodes", "capacity")
        return self.resolve(task_ref)

    def _opened(
        self,
        task: Task,
        eids: list[str],
        forks: list[Session],
        limits: EpisodeLimits | None,
        run: str | None,
        step: int | None,
        step_reward: bool,
    ) -> list[Episode]:
        tools = self.tools_of(task)
        self._announce(task)
        group = "grp-" + secrets.token_hex(6)
        eps = [
            self._open_one(task, eid, session, group, limits or self.limits, tools, run, step)
            for eid, session in zip(eids, forks)
        ]
        for ep in eps:
            ep.step_reward = step_reward
        return eps

    def _open_one(
        self,
        task: Task,
        eid: str,
        session: Session,
        group: str,
        limits: EpisodeLimits,
        tools: list[dict[str, Any]],
        run: str | None,
        step: int | None,
    ) -> Episode:
        start_hash = session.state_hash(task.servers)
        messages = [{"role": "system", "content": task.system or DEFAULT_SYSTEM}]
        if not self.simulated(task):  # a simulated user's first message comes in open_group_async
            messages.append({"role": "user", "content": task.turns[0].user})
        ep = Episode(eid, task, session.id, group, limits, start_hash, messages, run=run, run_step=step)
        self.episodes[eid] = ep
        self.opened += 1
        now = time.time()
        self.bus.publish(EpisodeEvent("open", eid, task.id, group, session.id, start_hash, now, run=run, step=step))
        for m in messages:
            self._turn(ep, m["role"], m["content"])
        if not self.simulated(task):
            self._user_acts(ep)
        return ep

    def simulated(self, task: Task) -> bool:
        """Whether a model plays this task's user (the task has one and the hub has a user endpoint)."""
        return task.user is not None and self.user_model is not None

    async def open_group_async(
        self, task_ref: str | Mapping[str, Any] | Task, n: int = 1, limits: EpisodeLimits | None = None, **kw: Any
    ) -> list[Episode]:
        """``open_group`` from the event loop (setup calls and copies off it, in lanes); with a simulated user,
        its first message (``hub.engine.users``)."""
        return await open_with_user(self, await self._open_group_off_loop(task_ref, n, limits, **kw))

    async def step_async(self, eid: str, output: str | dict[str, Any]) -> StepResult:
        """``step`` from the event loop: each call runs in the episode session's lane (``Dispatcher.run``); when
        the model answered and a model plays the user, the user's reply or the end."""
        ep, calls, errors, answered = self._begin_step(eid, output)
        outcomes = [await self._execute_async(ep, call) for call in calls]
        return await answer_as_user(self, self._end_step(ep, calls, outcomes, errors, answered))

    def _announce(self, task: Task) -> None:
        if task.id not in self._announced:
            self._announced.add(task.id)
            self.bus.publish(TaskEvent(task.id, task.kind, task.servers, task.model_dump(), time.time()))

    def owner_of(self, sid: str) -> str | None:
        """The live episode whose session ``sid`` is (only the episode's steps may change it), or None."""
        eid = "ep-" + sid[3:] if sid.startswith("es-") else None
        return eid if eid is not None and eid in self.episodes else None

    def get(self, eid: str) -> Episode:
        found = self.episodes.get(eid)
        if found is None:
            if eid in self.expired:
                raise EpisodeError(
                    f"episode {eid}'s session expired (idle longer than the session TTL); open a new episode",
                    "session_expired",
                )
            raise EpisodeError(f"unknown or closed episode {eid!r}", "unknown_episode")
        return found

    def _turn(self, ep: Episode, role: str, content: str) -> None:
        self.bus.publish(TurnEvent(ep.id, ep.seq, role, content, time.time()))
        ep.seq += 1

    # Steps -----------------------------------------------------------------------------------

    def step(self, eid: str, output: str | dict[str, Any]) -> StepResult:
        """Apply one model message: run its calls, or move to the next user turn."""
        ep, calls, errors, answered = self._begin_step(eid, output)
        outcomes = [self._execute(ep, call) for call in calls]
        return self._end_step(ep, calls, outcomes, errors, answered)

    def _begin_step(self, eid: str, output: str | dict[str, Any]) -> tuple[Episode, list[ParsedCall], list[str], int]:
        ep = self.get(eid)
        if ep.done:
            raise EpisodeError(f"episode {eid} is done ({ep.reason}); call finish", "episode_done")
        if ep.session_id not in self.sessions.sessions:
            raise EpisodeError(f"episode {eid}'s session expired (idle longer than the session TTL)", "session_expired")
        raw = output if isinstance(output, str) else _json_text(output)
        if len(raw) > ep.limits.max_output_chars:
            output, raw = raw[: ep.limits.max_output_chars], raw[: ep.limits.max_output_chars]
        ep.steps += 1
        answered = ep.turn
        ep.nbytes += len(raw)
        self._turn(ep, "assistant", raw)
        parsed = parse_model_output(output, call_prefix=f"call_{ep.steps}")
        errors = list(parsed.format_errors)
        ep.replies.append((ep.turn, parsed.content))
        calls = parsed.calls
        if len(calls) > ep.limits.max_calls_per_step:
            errors.append(f"{len(calls)} tool calls in one message; only the first {ep.limits.max_calls_per_step} run")
            for extra in calls[ep.limits.max_calls_per_step :]:
                extra.error = extra.error or f"not run: more than {ep.limits.max_calls_per_step} calls in one message"
        if errors:
            ep.format_errors.extend(errors)
            ep.format_error_messages += 1
        return ep, calls, errors, answered

    def _end_step(
        self, ep: Episode, calls: list[ParsedCall], outcomes: list[CallOutcome], errors: list[str], answered: int
    ) -> StepResult:
        messages, summaries = [], []
        for call, outcome in zip(calls, outcomes):
            summaries.append({"name": call.name, "ok": outcome.ok, "error_kind": outcome.error_kind})
            messages.append(
                {"role": "tool", "tool_call_id": call.id, "name": call.name or "", "content": outcome.text()}
            )
        offered = len(ep.added)
        if not calls and self.simulated(ep.task):
            ep.awaiting_user = True  # step_async asks the user model
        elif not calls:
            messages.extend(self._advance(ep))
        if not ep.done and ep.steps >= ep.limits.max_steps:
            ep.done, ep.reason = True, "step_cap"
        if not ep.done and self._over_bytes(ep):
            ep.done, ep.reason = True, "byte_cap"
        reward = self.reward_so_far(ep, answered).model_dump() if ep.step_reward else None
        tools = self.tools_of(ep.task, ep.added) if len(ep.added) != offered else None
        return StepResult(ep.id, messages, ep.done, ep.reason, summaries, errors, ep.turn, ep.steps, reward, tools)

    def _over_bytes(self, ep: Episode) -> bool:
        return self.max_episode_bytes is not None and ep.nbytes >= self.max_episode_bytes

    def _advance(self, ep: Episode) -> list[dict[str, Any]]:
        if ep.task.scorer:
            suite_turn_end(self.sessions.get(ep.session_id, create=False), ep)
        ep.turn += 1
        if ep.turn >= len(ep.task.turns):
            ep.turn = len(ep.task.turns) - 1
            ep.done, ep.reason = True, "completed"
            return []
        user = {"role": "user", "content": ep.task.turns[ep.turn].user}
        self._turn(ep, "user", user["content"])
        ep.added.extend(ep.task.turns[ep.turn].adds_tools)
        self._user_acts(ep)
        return [user]

    def _user_acts(self, ep: Episode) -> None:
        """The calls the user makes on their own side as they say this turn (the model does not see them)."""
        for call in ep.task.turns[ep.turn].user_calls:
            out = self.dispatcher.call(
                ep.session_id, call.server, call.tool, call.arguments, episode=ep.id, create_session=False
            )
            ep.user_calls.append(
                CallRecord(call.name, call.arguments, ep.turn, out.ok, out.error_kind, out.text(), ep.steps)
            )

    def _execute(self, ep: Episode, call: ParsedCall) -> CallOutcome:
        name, target = self._target(ep, call)
        if target is None:
            outcome = self._refuse(ep, call, name is not None and name in self.schemas_of(ep.task))
        else:
            outcome = self.dispatcher.call(ep.session_id, *target, call.arguments, episode=ep.id, create_session=False)
        return self._record(ep, call, name, outcome)

    async def _execute_async(self, ep: Episode, call: ParsedCall) -> CallOutcome:
        name, target = self._target(ep, call)
        if target is None:
            outcome = self._refuse(ep, call, name is not None and name in self.schemas_of(ep.task))
        else:
            outcome = await self.dispatcher.run(
                ep.session_id, *target, call.arguments, episode=ep.id, create_session=False
            )
        return self._record(ep, call, name, outcome)

    def _target(self, ep: Episode, call: ParsedCall) -> tuple[str | None, tuple[str, str] | None]:
        """The call's full tool name, and the (server, tool) it runs, or None when it is not run (malformed, or not
        offered)."""
        name = call.name
        if self._over_bytes(ep) and call.error is None:
            call.error = f"not run: the episode reached its size cap of {self.max_episode_bytes:,} bytes"
        if ep.task.bare_names and name is not None:  # a tool's own name, as the task shows it
            name = ep.task.full_names().get(name, name)
        # a later turn's tool is shown from that turn on, but runs if named earlier (as in BFCL's harness)
        offered = name is not None and name in self.schemas_of(ep.task)
        if call.error is None and offered:
            return name, split_name(name)  # type: ignore[arg-type]
        return name, None

    def _record(self, ep: Episode, call: ParsedCall, name: str | None, outcome: CallOutcome) -> CallOutcome:
        ep.nbytes += len(outcome.text())
        ep.calls.append(
            CallRecord(
                name,
                call.arguments,
                ep.turn,
                outcome.ok,
                outcome.error_kind,
                outcome.text(),
                ep.steps,
                outcome.result if outcome.ok else None,
            )
        )
        return outcome

    def _refuse(self, ep: Episode, call: ParsedCall, offered: bool) -> CallOutcome:
        """A call that is not run: malformed, or a tool the task does not offer. Recorded like any call."""
        if call.error is not None:
            outcome = CallOutcome(False, None, call.error, "arguments" if offered else "format")  # type: ignore[arg-type]
        else:
            outcome = CallOutcome(
                False,
                None,
                f"unknown tool {call.name!r}; the available tools are: "
                f"{', '.join(t['function']['name'] for t in self.tools_of(ep.task, ep.added)) or 'none'}",
                "unknown_tool",
            )
        server, tool = split_name(call.name or "") or ("", call.name or "")
        self.bus.publish(
            ToolCallEvent(
                session=ep.session_id,
                server=server,
                tool=tool,
                arguments=call.arguments,
                ok=False,
                result=None,
                error=outcome.error,
                error_kind=outcome.error_kind,
                latency_ms=0.0,
                state_changed=False,
                ts=time.time(),
                episode=ep.id,
            )
        )
        return outcome

    # Finish ----------------------------------------------------------------------------------

    def final_hashes(self, ep: Episode) -> dict[str, str]:
        session = self.sessions.get(ep.session_id, create=False)
        return {s: session.fork_of(s).state_hash() for s in ep.task.servers}

    def state_rows(self, task: Task, final: Session, hashes: Mapping[str, str]) -> float | None:
        """The share of the rows the ground truth changes that the episode left right, less the rows it changed
        that it should not have: 1 - (rows differing from the expected state) / (rows the ground truth changes)."""
        want = task.expected_server_hashes
        if not want or all(hashes.get(s) == h for s, h in want.items()):
            return None
        try:
            wrong = rows_in(self.expected.diff(task, final))
            changed = self._changed.get(task.id)
            if changed is None:
                changed = self._changed[task.id] = rows_in(self._gt_change(task))
        except TaskError:
            return None
        return max(0.0, 1.0 - wrong / max(1, changed))

    def _gt_change(self, task: Task) -> Diff:
        start = World(self.library).start(task, "start")
        return diff_sessions(self.expected.session(task), start, task.servers)

    async def finish_judged(
        self, eid: str, config: RewardConfig | None = None, *, truncated: bool = False
    ) -> RewardBreakdown:
        """``finish``, with the judge model (when the hub has one) deciding whether each ask turn's reply asks for
        what is missing; the rules decide without one, and wherever it cannot."""
        ep = self.get(eid)
        config = config or self.reward
        asks = [i for i, t in enumerate(ep.task.turns) if t.ask]
        fresh = ep.reward is None or ep.reward_config != config
        if self.judge is None or not asks or config.clarify_check != "question" or not fresh:
            return await self.finish_async(eid, config, truncated=truncated)
        schemas, reads = self.schemas_of(ep.task), self.reads_of(ep.task)
        acted = {c.turn for c in ep.calls if not (config.ask_reads and c.name in reads)}  # failed whatever was said
        rules = {i: rule_verdict(ep.task, i, schemas, ep.replies) for i in asks if i not in acted}
        verdicts = await self.judge.verdicts(ep.task, list(ep.replies), rules)
        return await self.finish_async(eid, config, truncated=truncated, verdicts=verdicts)

    def finish(
        self,
        eid: str,
        config: RewardConfig | None = None,
        *,
        truncated: bool = False,
        verdicts: Mapping[int, AskVerdict] | None = None,
    ) -> RewardBreakdown:
        """End the episode (if it is still running) and score it; idempotent for the same config. ``truncated``:
        the client cut the episode (a turn hit its token limit): it ends as ``truncated``, scored on the calls
        made so far, and the breakdown says so. ``verdicts``: the ask turns a judge model decided
        (``finish_judged``)."""
        ep, config = self.get(eid), config or self.reward
        if ep.reward is not None and ep.reward_config == config:
            return ep.reward
        session = self._ending(ep, truncated)
        return self._finished(ep, config, self._judge(ep, session, config, verdicts))

    async def finish_async(
        self,
        eid: str,
        config: RewardConfig | None = None,
        *,
        truncated: bool = False,
        verdicts: Mapping[int, AskVerdict] | None = None,
    ) -> RewardBreakdown:
        """``finish`` from the event loop: hashes, score and evidence (diffs) are computed in the session's lane."""
        ep, config = self.get(eid), config or self.reward
        if ep.reward is not None and ep.reward_config == config:
            return ep.reward
        session = self._ending(ep, truncated)
        assert session.lane is not None
        judged = await session.lane.run(lambda: self._judge(ep, session, config, verdicts))
        return self._finished(ep, config, judged)

    def _ending(self, ep: Episode, truncated: bool) -> Session:
        try:
            session = self.sessions.get(ep.session_id, create=False)
        except SessionError as exc:
            raise EpisodeError(f"episode {ep.id}'s session expired: {exc}", "session_expired") from None
        if not ep.done:
            ep.done, ep.reason = True, "truncated" if truncated else "finished"
        return session

    def _judge(
        self, ep: Episode, session: Session, config: RewardConfig, verdicts: Mapping[int, AskVerdict] | None = None
    ) -> _Judged:
        """The reward, the final hash and (on the first finish) the evidence: reads of the session's forks."""
        if ep.task.scorer:
            breakdown = suite_score(self, ep, session)
        else:
            breakdown = self._score(ep, ep.task, config, self.final_hashes(ep), session, verdicts)
        breakdown.truncated = ep.reason == "truncated"
        now = time.time()
        evidence = None
        if ep.reward is None and self.keep_evidence:
            evidence = collect(ep.task, session, self._start_of(ep.task), self.expected, ep.id, now)
        return _Judged(breakdown, session.state_hash(ep.task.servers), evidence, now)

    def _finished(self, ep: Episode, config: RewardConfig, judged: _Judged) -> RewardBreakdown:
        breakdown, now = judged.breakdown, judged.ts
        first = ep.reward is None
        ep.reward, ep.reward_config = breakdown, config
        if first:
            self.finished += 1
            self.reward_sum += breakdown.total
        self.bus.publish(
            EpisodeEvent(
                "finish",
                ep.id,
                ep.task.id,
                ep.group,
                ep.session_id,
                ep.start_hash,
                now,
                final_hash=judged.final_hash,
                reason=ep.reason,
                steps=ep.steps,
                calls=len(ep.calls),
                format_errors=len(ep.format_errors),
                reward=breakdown.total,
            )
        )
        self.bus.publish(
            RewardEvent(
                ep.id,
                ep.task.id,
                breakdown.total,
                breakdown.mode,
                breakdown.components,
                breakdown.weights,
                now,
                max=breakdown.max,
                ledger=[r.model_dump() for r in breakdown.ledger],
                preset=breakdown.preset,
                why=self.why(ep, config, breakdown),
            )
        )
        if first and judged.evidence is not None:
            self.bus.publish(judged.evidence)
        return breakdown

    def why(self, ep: Episode, config: RewardConfig, breakdown: RewardBreakdown) -> dict[str, Any] | None:
        """What the dashboard shows after close (``hub.engine.explain``); none for a suite's own scorer, whose
        breakdown has no alignment to the hub's ground truth."""
        if ep.task.scorer:
            return {"preset": breakdown.preset, "mode": breakdown.mode, "reasons": dict(breakdown.reasons)}
        return explain(ep.task, ep.calls, breakdown, self.schemas_of(ep.task), config)

    def _score(
        self,
        ep: Episode,
        task: Task,
        config: RewardConfig,
        hashes: dict[str, str] | None,
        session: Session | None = None,
        verdicts: Mapping[int, AskVerdict] | None = None,
    ) -> RewardBreakdown:
        rows = None
        if config.state_gate is not None and session is not None and hashes is not None:
            rows = self.state_rows(task, session, hashes)
        return score(
            task,
            ep.calls,
            self.schemas_of(ep.task),
            config,
            final_hashes=hashes,
            state_rows=rows,
            messages=ep.steps,
            format_error_messages=ep.format_error_messages,
            replies=ep.replies,
            reads=self.reads_of(ep.task),
            verdicts=verdicts,
        )

    def reward_so_far(self, ep: Episode, turn: int | None = None) -> RewardBreakdown:
        """The reward as if the task ended with user turn ``turn`` (default: the current one): the calls so far
        against the ground truth of the turns up to it. Once the episode is done this is exactly ``finish``'s
        reward; before, the final-state term (``state``) is not computable and is left out."""
        if ep.done:
            session = self.sessions.sessions.get(ep.session_id)
            return self._score(ep, ep.task, self.reward, self.final_hashes(ep), session)
        last = ep.turn if turn is None else turn
        prefix = ep.task.model_copy(update={"turns": ep.task.turns[: last + 1]})
        return self._score(ep, prefix, self.reward.model_copy(update={"w_state": 0.0, "state_gate": None}), None)

    def _start_of(self, task: Task) -> Session | None:
        """The template session the task's episodes were forked from, while it is held."""
        sid = self._templates.get(task.fingerprint())
        return self.sessions.sessions.get(sid) if sid is not None else None

    def close(self, eid: str) -> None:
        """Forget the episode and close its session."""
        ep = self.episodes.pop(eid, None)
        if ep is None:
            raise EpisodeError(f"unknown or closed episode {eid!r}", "unknown_episode")
        if ep.session_id in self.sessions.sessions:
            self.sessions.close(ep.session_id)

    def sweep(self) -> list[str]:
        """Forget episodes whose session the session manager has swept."""
        gone = [eid for eid, ep in self.episodes.items() if ep.session_id not in self.sessions.sessions]
        for eid in gone:
            del self.episodes[eid]
            self.expired[eid] = None
        while len(self.expired) > MAX_EXPIRED:
            self.expired.popitem(last=False)
        return gone

    def stats(self) -> dict[str, Any]:
        return {
            "open": len(self.episodes),
            "opened": self.opened,
            "finished": self.finished,
            "mean_reward": self.reward_sum / self.finished if self.finished else None,
        }


def rows_in(diff: Diff) -> int:
    """How many rows a state diff adds, removes or changes."""
    return sum(
        len(d.get(k, [])) for tables in diff.values() for d in tables.values() for k in ("added", "removed", "changed")
    )


def _json_text(message: dict[str, Any]) -> str:
    return json.dumps(message, default=str)
