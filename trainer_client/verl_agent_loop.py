"""A verl agent loop that plays PROVE hub episodes over ``/ws``, token in and token out.

verl's rollout (``verl.experimental.agent_loop``) loads it by config: list it in the file named by
``actor_rollout_ref.rollout.agent.agent_loop_config_path``::

    - name: prove_hub
      _target_: trainer_client.verl_agent_loop.HubAgentLoop
      hub_url: ws://127.0.0.1:8765/ws
      hub_token: null          # or the hub's bearer token
      max_turns: 16            # model messages per episode (the hub's own cap, max_steps, also applies)

(the class is not ``@register``-ed: that would replace this entry, and its ``hub_url``, when the module is
imported), and give each dataset row ``agent_name: prove_hub`` and its task id in ``extra_info.hub_task`` (``verl_rows``
builds such rows from the hub's task list). Per sample, ``run`` opens the task's episode, renders the hub's
system prompt, first user turn and offered tools with the model's chat template (verl's Continuous Token
builder), then loops: the rollout server generates token ids, their text goes to the hub as the model's raw
output, and the tool results (and any next user turn) are appended exactly as the chat template renders them
after the assistant turn. ``response_mask`` is 1 on generated tokens and 0 on everything the hub added, so
the loss sees only the model's tokens; the hub's reward total is the sample's ``reward_score`` and its
components ride in ``extra_fields``.

GRPO groups: the samples of one prompt (verl repeats a row ``rollout.n`` times under one ``uid``) share one
hub group, opened once with ``n = rollout.n`` from one initial state; the hub's dashboard shows them side
by side. A group whose samples land on several agent-loop workers is opened on each (still from the same
state hash); episodes a worker opened but never played are closed when that worker has more than
``max_open_groups`` groups waiting. Rows without a ``uid`` open one episode each.

This module needs verl and imports only ``hub.wire`` from the hub (through ``trainer_client.hub_client``).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, ClassVar
from uuid import uuid4

from verl.experimental.agent_loop.agent_loop import AgentLoopBase, AgentLoopOutput

from trainer_client.hub_client import Group, HubClient

AGENT_NAME = "prove_hub"


class GroupPool:
    """The open GRPO groups of one worker, by key (the prompt's uid and task): each opened once, handed out
    one episode per sample."""

    def __init__(self, max_open_groups: int = 64) -> None:
        self.max_open_groups = max_open_groups
        self.groups: OrderedDict[tuple[str, str], asyncio.Future[tuple[Group, list[str]]]] = OrderedDict()

    async def take(self, client: HubClient, task: str, key: str | None, n: int) -> tuple[str, Group]:
        """One episode of ``task``: from the group of ``key`` (opened with ``n`` episodes on first use)."""
        if key is None:
            group = await client.open(task, n=1)
            return group.episodes[0], group
        slot = (key, task)
        found = self.groups.get(slot)
        if found is None:
            found = self.groups[slot] = asyncio.get_running_loop().create_future()
            await self._evict(client)
            try:
                group = await client.open(task, n=n)
            except BaseException as exc:
                self.groups.pop(slot, None)
                found.set_exception(exc)
                raise
            found.set_result((group, list(group.episodes)))
        group, free = await found
        episode = free.pop(0)
        if not free:
            self.groups.pop(slot, None)
        return episode, group

    async def _evict(self, client: HubClient) -> None:
        while len(self.groups) > self.max_open_groups:
            _, oldest = self.groups.popitem(last=False)
            if oldest.done() and oldest.exception() is None:
                await client.close_episodes(oldest.result()[1])


class HubAgentLoop(AgentLoopBase):  # type: ignore[misc]
    """Plays one hub episode per sample; see the module's docstring for the configuration."""

    _clients: ClassVar[dict[tuple[int, str, str | None], HubClient]] = {}
    _pools: ClassVar[dict[int, GroupPool]] = {}

    def __init__(
        self,
        *args: Any,
        hub_url: str | None = None,
        hub_token: str | None = None,
        max_turns: int = 16,
        max_open_groups: int = 64,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        if not hub_url:
            raise ValueError(f"the {AGENT_NAME} agent loop needs hub_url (ws://HOST:PORT/ws) in its config entry")
        self.hub_url = hub_url
        self.hub_token = hub_token
        self.max_turns = max_turns
        self.max_open_groups = max_open_groups
        self.response_length = int(self.rollout_config.response_length)
        self.group_size = int(self.rollout_config.n)

    async def client(self) -> HubClient:
        """One connection per worker event loop (the hub pipelines every sample's requests on it)."""
        key = (id(asyncio.get_running_loop()), self.hub_url, self.hub_token)
        found = self._clients.get(key)
        if found is None:
            found = self._clients[key] = HubClient(self.hub_url, self.hub_token, client="verl-agent-loop")
            await found.connect()
        return found

    @classmethod
    async def close_clients(cls) -> None:
        """Close this process's hub connections (at the end of a run; episodes live on in the hub)."""
        clients, cls._clients = list(cls._clients.values()), {}
        for client in clients:
            await client.close()

    def pool(self) -> GroupPool:
        return self._pools.setdefault(id(asyncio.get_running_loop()), GroupPool(self.max_open_groups))

    async def run(self, sampling_params: dict[str, Any], **kwargs: Any) -> AgentLoopOutput:
        task = task_of(kwargs)
        client = await self.client()
        uid = kwargs.get("uid")
        episode, group = await self.pool().take(client, task, None if uid is None else str(uid), self.group_size)
        try:
            return await self.play(client, episode, group, sampling_params)
        finally:
            await client.close_episodes([episode])

    async def play(
        self, client: HubClient, episode: str, group: Group, sampling_params: dict[str, Any]
    ) -> AgentLoopOutput:
        messages, tools = list(group.messages), group.tools
        tokens = await self.ct_build_initial_tokens(messages, tools=tools)
        mask: list[int] = []
        logprobs: list[float] | None = None
        request_id = uuid4().hex
        turns, reason = 0, "response_length"
        while len(mask) < self.response_length:
            out = await self.server_manager.generate(
                request_id=request_id, prompt_ids=tokens, sampling_params=sampling_params
            )
            if logprobs is None and out.log_probs:
                logprobs = [0.0] * len(mask)  # a server that starts reporting log-probs mid-episode
            merged, mask, logprobs = await self.ct_merge_assistant_token(
                tokens, out.token_ids, mask, logprobs, assistant_logprobs=out.log_probs or None
            )
            tokens = merged.token_ids
            text = self.tokenizer.decode(out.token_ids, skip_special_tokens=True)
            obs = await client.step(episode, text)
            turns += 1
            if obs["done"] or turns >= self.max_turns:
                reason = obs["reason"] or "max_turns"
                break
            previous = [*messages, {"role": "assistant", "content": text}]
            messages = [*previous, *obs["messages"]]
            merged, mask, logprobs = await self.ct_merge_context_msg(
                previous, messages, tokens, mask, logprobs, tools=tools
            )
            tokens = merged.token_ids
        reward = await client.finish(episode)
        n = len(mask)
        keep = min(n, self.response_length)
        return AgentLoopOutput(
            prompt_ids=tokens[: len(tokens) - n],
            response_ids=tokens[len(tokens) - n :][:keep],
            response_mask=mask[:keep],
            response_logprobs=logprobs[:keep] if logprobs else None,
            reward_score=float(reward["total"]),
            num_turns=2 * turns + 1,
            metrics={},
            extra_fields={
                "hub_episode": episode,
                "hub_group": group.group,
                "hub_task": group.task,
                "hub_state_hash": group.state_hash,
                "hub_reason": reason,
                "hub_reward": reward["components"],
                "turn_scores": [],
                "tool_rewards": [],
            },
        )


def task_of(fields: dict[str, Any]) -> str:
    """The hub task id of a dataset row: ``extra_info.hub_task``, or a ``hub_task`` column."""
    extra = fields.get("extra_info")
    task = (extra.get("hub_task") if isinstance(extra, dict) else None) or fields.get("hub_task")
    if not isinstance(task, str) or not task:
        raise ValueError(f"a {AGENT_NAME} row names its hub task in extra_info.hub_task; got {sorted(fields)}")
    return task


def verl_rows(tasks: Sequence[dict[str, Any]], data_source: str = "prove_hub") -> list[dict[str, Any]]:
    """verl dataset rows for hub tasks (whole task objects, as ``HubClient.tasks(full=True)`` gives them): the
    first user turn as the prompt verl's dataset filters by length on, the task id for the agent loop."""
    return [
        {
            "data_source": data_source,
            "prompt": [{"role": "user", "content": t["turns"][0]["user"]}],
            "agent_name": AGENT_NAME,
            "reward_model": {"style": "rule", "ground_truth": t["id"]},
            "extra_info": {"hub_task": t["id"], "index": i, "split": t.get("split")},
        }
        for i, t in enumerate(tasks)
    ]
