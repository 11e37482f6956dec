"""The OpenRLHF agent file for PROVE hubs: pass this file as ``--train.agent_func_path`` (OpenRLHF 0.11.x).

OpenRLHF loads this file in every vLLM rollout actor, builds ``AgentExecutor()`` once, and for each
sample calls ``execute``, which makes one ``AgentInstance``, calls ``reset`` once and ``step`` after
each generation until ``done`` (``openrlhf/utils/agent.py``, ``MultiTurnAgentExecutor``):

- ``reset({"observation": prompt, "label": label})``: the label names the task (the launcher's
  prompt file has ``{"input": <first user turn>, "label": <task id>}``). The instance takes an
  episode of that task from a hub group (the n samples of one prompt run concurrently in one actor
  and share one group: same initial state, same state hash) and returns the conversation rendered
  with the model's chat template, tools included, as the observation.
- ``step({"action_text": ..., "sampling_params": ...})``: sends the model's raw text to the hub and
  returns ``rewards`` (0 until the episode ends, then the reward total), ``scores`` (the total),
  ``environment_feedback`` (tool results and the next user turn in the chat template, ending with
  the next assistant header), ``done`` and ``extra_logs`` (every reward component, as numbers).

The n samples of a prompt arrive as n concurrent ``execute`` calls sharing ONE ``sampling_params``
object (``RolloutRayActor.generate_responses``), on which the executor rewrites ``max_tokens`` every
turn: each sample works on its own copy and budgets from ``max_length`` and its own tokens. The
siblings open one hub group and are scored all-or-nothing (a group that loses its hub gets
``failed_reward`` for every sample: zero advantage).

Configuration travels with the job: ``prove-train`` writes a run config (``prove-agent.json``) and an
agent file beside it that names it (``AgentExecutor.CONFIG_FILE``). This stock file reads the
environment of the rollout actors (Ray's ``runtime_env``) or a JSON file named by ``PROVE_AGENT_CONFIG``:

- ``PROVE_HUB_URLS``: comma-separated hub URLs (``ws://host:port/ws`` or ``http://host:port``);
  groups are sharded across them, and a hub that dies fails only its own groups;
- ``PROVE_HUB_TOKEN``: the hubs' bearer token; ``PROVE_GROUP_SIZE``: ``--rollout.n_samples_per_prompt``;
- ``PROVE_MAX_STEPS``: model messages per episode (the paper caps rollouts at 10 assistant turns);
- ``PROVE_MAX_NEW_TOKENS``: tokens per turn (OpenRLHF otherwise gives each turn all the room left);
- ``PROVE_FAILED_REWARD``: the reward of every sample of a group lost with its hub (default 0);
- ``PROVE_RUN`` and ``PROVE_BATCH_SIZE``: the training run's id and ``--rollout.batch_size``, so that
  each group's ``open`` names its run and optimizer step (``trainer_client.steps``);
- ``PROVE_REWARD``: the reward preset the hubs score with (``outcome``, the default, or ``paper``).
"""

from __future__ import annotations

import asyncio
import contextvars
import copy
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

try:  # OpenRLHF loads this file by path: make the package importable from a source checkout too
    import trainer_client  # noqa: F401
except ImportError:  # pragma: no cover - depends on how the trainer was installed
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from openrlhf.utils.agent import AgentInstanceBase, MultiTurnAgentExecutor

from hub import wire
from trainer_client.chat import end_of_turn, feedback_text, render, template_drops_thinking
from trainer_client.hub_client import HubError
from trainer_client.hubs import GroupPool, HubDown, HubSet, Lease, NoHubAvailable
from trainer_client.steps import prompt_counter, step_of

log = logging.getLogger("trainer_client.openrlhf_agent")

COMPONENTS = tuple(c.name for c in wire.COMPONENTS)


class AgentConfig:
    """The agent's settings (a plain class: OpenRLHF loads this file outside ``sys.modules``, where
    dataclasses with postponed annotations cannot be built)."""

    FIELDS = (
        "hub_urls",
        "token",
        "group_size",
        "max_steps",
        "max_new_tokens",
        "failed_reward",
        "retry_after",
        "open_retries",
        "open_backoff",
        "reward",
        "run",
        "batch_size",
        "thinking_history",
    )

    def __init__(
        self,
        hub_urls: list[str] | None = None,
        token: str | None = None,
        group_size: int = 16,
        max_steps: int | None = None,
        max_new_tokens: int | None = None,
        failed_reward: float = 0.0,
        retry_after: float = 30.0,
        open_retries: int = 5,
        open_backoff: float = 1.0,
        reward: dict[str, Any] | None = None,
        run: str | None = None,
        batch_size: int | None = None,
        thinking_history: str | None = None,
    ) -> None:
        self.hub_urls = list(hub_urls or ["ws://127.0.0.1:8765/ws"])
        self.token = token
        self.group_size = int(group_size)
        self.max_steps = max_steps
        self.max_new_tokens = max_new_tokens  # tokens per turn (OpenRLHF resets max_tokens every turn)
        self.failed_reward = float(failed_reward)
        self.retry_after = float(retry_after)
        self.open_retries = int(open_retries)
        self.open_backoff = float(open_backoff)
        self.reward = reward  # the RewardConfig (a preset, overrides) sent with finish
        self.run = run  # the training run's id on the hubs (prove-train's run_start)
        self.batch_size = batch_size  # prompts per rollout batch: with it, groups carry their step (steps.py)
        self.thinking_history = thinking_history  # "keep" / "strip" earlier turns' <think>; None: the template's way
        if thinking_history not in (None, "keep", "strip"):
            raise ValueError(f"thinking_history is keep or strip, not {thinking_history!r}")
        if self.group_size < 1:
            raise ValueError("group_size must be at least 1")
        if max_new_tokens is not None and int(max_new_tokens) < 1:
            raise ValueError("max_new_tokens must be at least 1")

    def to_json(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.FIELDS}

    @classmethod
    def load(cls, path: str | Path) -> AgentConfig:
        """A run config file (JSON with the ``FIELDS``), as ``prove-train`` writes next to the prompts."""
        data = json.loads(Path(path).read_text())
        unknown = set(data) - set(cls.FIELDS)
        if unknown:
            raise ValueError(f"{path}: unknown agent config key(s): {', '.join(sorted(unknown))}")
        return cls(**data)

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> AgentConfig:
        env = dict(os.environ if env is None else env)
        data: dict[str, Any] = {}
        path = env.get("PROVE_AGENT_CONFIG")
        if path:
            data.update(cls.load(path).to_json())
        if env.get("PROVE_HUB_URLS"):
            data["hub_urls"] = [u for u in env["PROVE_HUB_URLS"].split(",") if u.strip()]
        for key, name in (
            ("PROVE_HUB_TOKEN", "token"),
            ("PROVE_RUN", "run"),
            ("PROVE_THINKING_HISTORY", "thinking_history"),
        ):
            if env.get(key):
                data[name] = env[key]
        if env.get("PROVE_REWARD"):
            data["reward"] = {**(data.get("reward") or {}), "preset": env["PROVE_REWARD"]}
        for key, name, kind in (
            ("PROVE_GROUP_SIZE", "group_size", int),
            ("PROVE_MAX_STEPS", "max_steps", int),
            ("PROVE_MAX_NEW_TOKENS", "max_new_tokens", int),
            ("PROVE_BATCH_SIZE", "batch_size", int),
            ("PROVE_FAILED_REWARD", "failed_reward", float),
            ("PROVE_RETRY_AFTER", "retry_after", float),
        ):
            if env.get(key):
                data[name] = kind(env[key])
        return cls(**data)


class Cohort:
    """The n samples of one prompt (one ``generate_responses`` call, which hands them one shared
    ``sampling_params`` object): one hub group, scored all-or-nothing."""

    def __init__(self, key: int) -> None:
        self.key = key
        self.members = 0
        self.reported = 0
        self.lost: str | None = None  # why the group was lost (a hub failed one of its samples)
        self.counted = False
        self.all_in = asyncio.Event()
        self.step: asyncio.Future[int | None] | None = None  # the optimizer step it feeds, asked once

    def report(self, failure: str | None) -> None:
        self.reported += 1
        if failure is not None and self.lost is None:
            self.lost = failure
        if self.reported >= self.members:
            self.all_in.set()


class RolloutContext:
    """What one ``execute`` call shares with the instance it creates (contextvars are per asyncio task)."""

    def __init__(
        self,
        pool: GroupPool,
        config: AgentConfig,
        tokenizer: Any,
        cohort: Cohort | None = None,
        max_length: int | None = None,
        executor: AgentExecutor | None = None,
    ) -> None:
        self.pool = pool
        self.executor = executor
        self.config = config
        self.tokenizer = tokenizer
        self.cohort = cohort
        self.max_length = max_length
        self.last_output: Any = None  # the engine's last RequestOutput (token ids and finish reason)
        self.last_prompt_len = 0  # tokens this sample had when its last generation started
        self.instance: AgentInstance | None = None


_CONTEXT: contextvars.ContextVar[RolloutContext] = contextvars.ContextVar("prove_rollout")


class _RecordingEngine:
    """The vLLM engine, with this sample's last output and length kept for the agent (the EOS is in
    token ids, not text), and each turn capped at ``max_new_tokens``."""

    def __init__(self, engine: Any, ctx: RolloutContext) -> None:
        self._engine = engine
        self._ctx = ctx

    async def generate(self, prompt_token_ids: Any, sampling_params: Any, *args: Any, **kwargs: Any) -> Any:
        instance = self._ctx.instance
        if instance is not None and instance.lease is None:  # no episode (its group failed to open): end at once
            out = ended_output(self._ctx.tokenizer, sampling_params)
            self._ctx.last_prompt_len, self._ctx.last_output = len(prompt_token_ids), out
            return out
        cap = self._ctx.config.max_new_tokens
        if cap and (sampling_params.max_tokens is None or sampling_params.max_tokens > cap):
            sampling_params.max_tokens = int(cap)  # the executor hands the engine its own deep copy
        self._ctx.last_prompt_len = len(prompt_token_ids)
        out = await self._engine.generate(prompt_token_ids, sampling_params, *args, **kwargs)
        self._ctx.last_output = out
        return out

    def __getattr__(self, name: str) -> Any:
        return getattr(self._engine, name)


def ended_output(tokenizer: Any, sampling_params: Any) -> Any:
    """What the engine would return for a generation that stopped at once: the EOS alone (with its log-prob
    when the sampling parameters ask for log-probs), so OpenRLHF's loop calls ``step`` right away."""
    from types import SimpleNamespace

    eos = getattr(tokenizer, "eos_token_id", None)
    ids = [int(eos)] if eos is not None else []
    logprobs = [{i: SimpleNamespace(logprob=0.0)} for i in ids] if getattr(sampling_params, "logprobs", None) else None
    output = SimpleNamespace(token_ids=ids, text="", finish_reason="stop", stop_reason=None, logprobs=logprobs)
    return SimpleNamespace(outputs=[output])


def task_of(label: Any) -> str:
    """The task id a prompt's label names: the id itself, or JSON with a ``task`` key."""
    text = str(label or "").strip()
    if text.startswith("{"):
        text = str(json.loads(text).get("task", ""))
    if not text:
        raise ValueError("the prompt has no label naming its task (export prompts with `prove-train --export`)")
    return text


def scalar(value: float) -> Any:
    """A 0-d tensor (OpenRLHF calls ``.item()`` on ``rewards``)."""
    try:
        import torch
    except ImportError:  # pragma: no cover - OpenRLHF always has torch
        return _Scalar(value)
    return torch.tensor(float(value))


class _Scalar(float):
    def item(self) -> float:
        return float(self)


class UnknownTask(RuntimeError):
    """A prompt names a task the hub does not have: a configuration error, so the run stops."""


class AgentInstance(AgentInstanceBase):
    """One sample: one hub episode, from ``reset`` to the step that returns ``done``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        ctx = _CONTEXT.get(None)
        if ctx is None:
            raise RuntimeError("AgentInstance is created by AgentExecutor.execute (no rollout context)")
        ctx.instance = self
        self.ctx = ctx
        self.lease: Lease | None = None
        self.messages: list[dict[str, Any]] = []
        self.tools: list[dict[str, Any]] = []
        self.steps = 0
        self.format_errors = 0
        self.failure: str | None = None
        self.turn_cut = False  # the last generation hit its token limit: the episode ended there, truncated
        self.finished = False
        self.result: dict[str, Any] | None = None  # the final step's result, once the episode is scored

    async def reset(self, states: dict, **kwargs: Any) -> dict:
        if self.ctx.executor is not None:
            self.ctx.executor.check_thinking(self.ctx.tokenizer)
        task = task_of(states.get("label"))
        cohort = self.ctx.cohort
        step = await self.ctx.executor.step_of(cohort) if self.ctx.executor and cohort else None
        try:
            self.lease = await self.ctx.pool.acquire(
                task, key=cohort.key if cohort else None, n=cohort.members if cohort else None, step=step
            )
        except HubError as exc:
            if exc.code == "unknown_task":
                raise UnknownTask(
                    f"task {task!r} is not on the hub ({exc.message}); prove-train checks every "
                    "prompt's task on every hub before training: did a hub restart with other tasks?"
                ) from exc
            self.failure = str(exc)
        except (NoHubAvailable, HubDown) as exc:
            self.failure = str(exc)
        if self.lease is None:
            log.error("sample of %s gets no episode: %s", task, self.failure)
            return {"observation": states.get("observation", "")}
        group = self.lease.group
        self.messages = [dict(m) for m in group.messages]
        self.tools = list(group.tools)
        return {"observation": render(self.ctx.tokenizer, self.messages, self.tools, add_generation_prompt=True)}

    async def step(self, states: dict, **kwargs: Any) -> dict:
        action = str(states.get("action_text") or "")
        if self.failure is not None or self.lease is None:
            return self._failed(self.failure or "no episode")
        if self._cut_by_limit():  # a cut turn is no answer: score the calls made so far, marked truncated
            self.turn_cut = True
            log.info("episode %s: a turn hit its token limit; scored as truncated", self.lease.episode)
            return await self._finish(truncated=True)
        self.steps += 1
        try:
            obs = await self.ctx.pool.hubs.call(self.lease.hub, "step", self.lease.episode, action)
        except (HubDown, HubError) as exc:
            return self._failed(str(exc))
        self.format_errors += len(obs.get("format_errors") or [])
        new = list(obs.get("messages") or [])
        closed = self._model_closed_turn(action)
        history = list(self.messages)
        self.messages += [{"role": "assistant", "content": action}, *new]
        if obs.get("done"):
            return await self._finish(truncated=False)
        feedback = feedback_text(self.ctx.tokenizer, history, new, self.tools, model_closed_turn=closed)
        if self._out_of_budget(feedback):
            return await self._finish(truncated=True)
        return {
            "rewards": scalar(0.0),
            "scores": scalar(0.0),
            "environment_feedback": feedback,
            "done": False,
            "extra_logs": self._logs(None, failed=False, truncated=False),
        }

    # Helpers ----------------------------------------------------------------------------------

    def _model_closed_turn(self, action: str) -> bool:
        """Whether the token stream already ends the assistant turn (vLLM keeps the EOS id, not its text)."""
        eot = end_of_turn(self.ctx.tokenizer)
        if action.rstrip().endswith(eot):
            return True
        ids = self._action_ids()
        tok = self.ctx.tokenizer
        eot_id = tok.convert_tokens_to_ids(eot) if tok is not None and hasattr(tok, "convert_tokens_to_ids") else None
        return bool(ids) and eot_id is not None and ids[-1] == eot_id

    def _cut_by_limit(self) -> bool:
        out = self.ctx.last_output
        return out is not None and bool(out.outputs) and getattr(out.outputs[0], "finish_reason", None) == "length"

    def _action_ids(self) -> list[int]:
        out = self.ctx.last_output
        return list(getattr(out.outputs[0], "token_ids", []) or []) if out is not None and out.outputs else []

    def _out_of_budget(self, feedback: str) -> bool:
        """No room for another action in ``max_length``, counting this sample's own tokens only (the
        ``sampling_params`` OpenRLHF passes are shared by the prompt's n samples)."""
        if self.ctx.max_length is None or self.ctx.last_output is None or self.ctx.tokenizer is None:
            return False
        fed = len(self.ctx.tokenizer(text=feedback, add_special_tokens=False)["input_ids"])
        used = self.ctx.last_prompt_len + len(self._action_ids()) + fed
        return int(self.ctx.max_length) - used <= 0

    async def _finish(self, truncated: bool) -> dict:
        assert self.lease is not None
        hubs = self.ctx.pool.hubs
        try:
            reward = await hubs.call(
                self.lease.hub, "finish", self.lease.episode, self.ctx.config.reward, truncated=truncated
            )
        except (HubDown, HubError) as exc:
            return self._failed(str(exc))
        self.finished = True
        try:
            await hubs.call(self.lease.hub, "close_episodes", [self.lease.episode])
        except (HubDown, HubError) as exc:  # the reward is in; a lost close only leaves a fork until the TTL
            log.warning("closing %s failed: %s", self.lease.episode, exc)
        return self._done(float(reward["total"]), self._logs(reward, failed=False, truncated=truncated))

    def _failed(self, reason: str) -> dict:
        if not self.finished:
            where = self.lease.url if self.lease else "no hub"
            log.warning("episode %s (%s) failed: %s", self.lease.episode if self.lease else "-", where, reason)
        self.failure = self.failure or reason
        self.finished = True
        return self._done(self.ctx.config.failed_reward, self._logs(None, failed=True, truncated=False))

    def _done(self, value: float, logs: dict[str, float]) -> dict:
        """The sample's last step: ``value`` as its reward and score, with ``logs``."""
        self.result = {
            "rewards": scalar(value),
            "scores": scalar(value),
            "environment_feedback": "",
            "done": True,
            "extra_logs": logs,
        }
        return self.result

    def _logs(self, reward: dict[str, Any] | None, *, failed: bool, truncated: bool) -> dict[str, float]:
        """The same keys for every sample and every step (OpenRLHF stacks the last step's across the batch)."""
        comps = (reward or {}).get("components") or {}
        logs = {f"reward_{k}": float(comps.get(k) or 0.0) for k in COMPONENTS}
        logs["reward_total"] = float((reward or {}).get("total") or 0.0)
        logs["reward_normalized"] = float((reward or {}).get("normalized") or 0.0)
        logs["n_calls"] = float((reward or {}).get("n_calls") or 0)
        logs["n_gt"] = float((reward or {}).get("n_gt") or 0)
        logs["agent_steps"] = float(self.steps)
        logs["format_errors"] = float(self.format_errors)
        logs["hub_failed"] = 1.0 if failed else 0.0
        logs["group_lost"] = 1.0 if failed else 0.0
        logs["truncated"] = 1.0 if truncated else 0.0  # the episode was cut, by a turn's limit or a full context
        logs["turn_cut"] = 1.0 if truncated and self.turn_cut else 0.0
        logs["context_truncated"] = 1.0 if truncated and not self.turn_cut else 0.0
        return logs

    async def release(self) -> None:
        """The sample raised: end its episode on the hub (best effort) so the fork does not wait for the TTL."""
        if self.finished or self.lease is None:
            return
        self.finished = True
        try:
            await self.ctx.pool.hubs.call(self.lease.hub, "close_episodes", [self.lease.episode])
        except (HubDown, HubError) as exc:
            log.warning("closing %s failed: %s", self.lease.episode, exc)

    async def conclude(self) -> None:
        """OpenRLHF left its loop without a final step (no room left for another generation): score the
        episode now, as truncated, so the sample has its reward and every log key."""
        if self.finished:
            return
        if self.lease is None:
            self._failed(self.failure or "no episode")
            return
        await self._finish(truncated=True)


class AgentExecutor(MultiTurnAgentExecutor):
    """OpenRLHF builds one per rollout actor with no arguments; each ``execute`` is one sample.

    The n samples of a prompt arrive as n concurrent ``execute`` calls sharing one ``sampling_params``
    object (``RolloutRayActor.generate_responses``): they form a ``Cohort``, open one hub group, each
    work on their own copy of the parameters, and are scored all-or-nothing: when the hub fails any of
    them, every sample of the group gets ``failed_reward`` (zero advantage under group normalisation)."""

    CONFIG_FILE: str | None = None  # a run config next to a generated agent file (``prove-train``)

    def __init__(self, config: AgentConfig | None = None, hubs: HubSet | None = None) -> None:
        super().__init__(AgentInstance)
        if config is None:
            config = AgentConfig.load(self.CONFIG_FILE) if self.CONFIG_FILE else AgentConfig.from_env()
            if config.token is None and os.environ.get("PROVE_HUB_TOKEN"):  # a cluster job's runtime environment
                config.token = os.environ["PROVE_HUB_TOKEN"]
        self.config = config
        self._hubs = hubs
        self._pool: GroupPool | None = None
        self._cohorts: dict[int, Cohort] = {}
        self._counter: Any = None
        self.groups = 0
        self.groups_lost = 0
        self._thinking_checked = False

    @property
    def pool(self) -> GroupPool:
        if self._pool is None:  # built on first use, inside the actor's event loop
            hubs = self._hubs or HubSet(
                self.config.hub_urls,
                self.config.token,
                retry_after=self.config.retry_after,
                open_retries=self.config.open_retries,
                open_backoff=self.config.open_backoff,
            )
            limits = {"max_steps": self.config.max_steps} if self.config.max_steps else None
            self._pool = GroupPool(hubs, self.config.group_size, limits, run=self.config.run)
        return self._pool

    def check_thinking(self, tokenizer: Any) -> None:
        """Once: say so when the chat template drops earlier turns' <think> blocks, which training keeps (one
        growing token sequence per sample), so that evaluation is run to see the same context."""
        if self._thinking_checked or tokenizer is None:
            return
        self._thinking_checked = True
        if template_drops_thinking(tokenizer):
            log.warning(
                "this model's chat template drops earlier turns' <think> blocks; training keeps them in the context "
                "(token-in, token-out): evaluate with prove-hub eval --thinking-history keep and a template that "
                "keeps them, so training and evaluation see the same context"
            )

    def _join(self, sampling_params: Any) -> Cohort:
        key = id(sampling_params)  # alive while any sample of the prompt runs: its id names the prompt's call
        cohort = self._cohorts.get(key)
        if cohort is None:
            cohort = self._cohorts[key] = Cohort(key)
        cohort.members += 1
        return cohort

    async def execute(self, prompt, label, sampling_params, max_length: int, hf_tokenizer, llm_engine, images=None):  # type: ignore[no-untyped-def]
        cohort = self._join(sampling_params)  # before any await: every sibling joins in this loop pass
        own_params = copy.deepcopy(sampling_params)
        ctx = RolloutContext(self.pool, self.config, hf_tokenizer, cohort, max_length, self)
        token = _CONTEXT.set(ctx)
        try:
            await asyncio.sleep(0)  # let the siblings join, so the group is opened with all n of them
            result = await super().execute(
                prompt, label, own_params, max_length, hf_tokenizer, _RecordingEngine(llm_engine, ctx), images
            )
            instance = ctx.instance
            assert instance is not None
            await instance.conclude()
        except BaseException:
            if ctx.instance is not None:
                await ctx.instance.release()
            cohort.report("a sample of the group raised")
            if cohort.all_in.is_set():
                await self._settle(cohort)
            raise
        finally:
            _CONTEXT.reset(token)
        cohort.report(instance.failure)
        await cohort.all_in.wait()
        await self._settle(cohort)
        return self._final(result, instance, cohort)

    async def step_of(self, cohort: Cohort) -> int | None:
        """The optimizer step the prompt feeds (``trainer_client.steps``), when the batch size is known."""
        if not self.config.batch_size:
            return None
        if cohort.step is None:
            cohort.step = asyncio.ensure_future(self._next_step())
        return await cohort.step

    async def _next_step(self) -> int | None:
        assert self.config.batch_size
        if self._counter is None:
            self._counter = prompt_counter(self.config.run)
        return step_of(await self._counter.next(), int(self.config.batch_size))

    async def _settle(self, cohort: Cohort) -> None:
        if self._cohorts.pop(cohort.key, None) is None:
            return  # a sibling settled it
        self.groups += 1
        if cohort.lost is not None:
            self.groups_lost += 1
            log.warning(
                "group lost (%s): all %d samples get reward %g; %d of %d groups lost so far",
                cohort.lost,
                cohort.members,
                self.config.failed_reward,
                self.groups_lost,
                self.groups,
            )
        await self.pool.release(cohort.key)

    def _final(self, result: dict[str, Any], instance: AgentInstance, cohort: Cohort) -> dict[str, Any]:
        """The sample's output with its final reward and logs: all-or-nothing over its group."""
        final = instance.result if cohort.lost is None else instance._failed(cohort.lost)
        assert final is not None
        value = float(final["rewards"].item())
        return {**result, "reward": value, "scores": value, "extra_logs": dict(final["extra_logs"])}

    async def aclose(self) -> None:
        """Close unused episodes and the hub connections (tests and scripts; OpenRLHF never calls it)."""
        if self._pool is not None:
            await self._pool.drain()
            await self._pool.hubs.close()
