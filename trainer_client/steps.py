"""Which optimizer step a rollout feeds, seen from the rollout actors.

OpenRLHF 0.11.2 never tells the agent the trainer's step (``generate_responses`` gets a prompt, a label,
sampling parameters and a length), but it draws prompts in rollout batches of ``--rollout.batch_size``
and, in synchronous training, dispatches a batch only once the previous one has trained. So the order in
which prompts start is the step: prompt k (counting from 0 over the whole job) belongs to step
``k // batch_size + 1``. The count must be job-wide, since each vLLM engine is its own actor: inside Ray
it is a named actor shared by the job's engines, elsewhere (one process) a plain counter.

With ``--train.async_enable`` rollouts run ahead of training, so the number is the rollout batch, which
the policy trails by at most the queue size; a resumed run counts from its restart.
"""

from __future__ import annotations

import sys
from typing import Any


class LocalCounter:
    """Prompt numbers within one process."""

    def __init__(self) -> None:
        self.n = 0

    async def next(self) -> int:
        self.n += 1
        return self.n - 1


class RayCounter:
    """Prompt numbers across every actor of the Ray job (a named actor, created by the first caller)."""

    def __init__(self, name: str) -> None:
        import ray

        @ray.remote(num_cpus=0)
        class PromptCounter:
            def __init__(self) -> None:
                self.n = 0

            def next(self) -> int:
                self.n += 1
                return self.n - 1

        self.actor = PromptCounter.options(name=name, get_if_exists=True).remote()  # type: ignore[attr-defined]

    async def next(self) -> int:
        return int(await self.actor.next.remote())


def prompt_counter(run: str | None) -> Any:
    """A job-wide counter inside a Ray worker, else a process-local one."""
    ray = sys.modules.get("ray")
    if ray is not None and ray.is_initialized():
        return RayCounter(f"prove-prompts-{run or 'default'}")
    return LocalCounter()


def step_of(prompt_index: int, batch_size: int) -> int:
    """The 1-based optimizer step of the ``prompt_index``-th prompt of the job."""
    return prompt_index // batch_size + 1
