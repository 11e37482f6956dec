"""verl's real agent-loop machinery playing hub episodes through trainer_client.verl_agent_loop (run in .venvs/verl).

Usage: python verl_loop.py WS_URL SCRIPTS_JSON OUT_DIR. SCRIPTS_JSON maps a task id to [first user turn,
oracle script]. The agent loop is registered and instantiated the way verl's AgentLoopWorker does it (its
agent_loop_config_path file, then hydra.utils.instantiate with the same arguments), with a byte-level tokenizer
built offline and a fake token server that replays each task's oracle script as token ids. Prints a JSON
summary; every check that fails raises.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import hydra
from omegaconf import OmegaConf
from verl.experimental.agent_loop.agent_loop import DictConfigWrap, ToolListWrap, _agent_loop_registry
from verl.utils.dataset.rl_dataset import RLHFDataset
from verl.workers.rollout.replica import TokenOutput

from trainer_client.tiny import byte_tokenizer
from trainer_client.verl_agent_loop import HubAgentLoop


class FakeTokenServer:
    """verl's LLM server client, faked: the reply to a prompt is the next message of its task's oracle script."""

    def __init__(self, tokenizer: Any, scripts: dict[str, tuple[str, list[str]]]) -> None:
        self.tokenizer = tokenizer
        self.scripts = scripts
        self.turns: dict[str, int] = {}
        self.generated: dict[str, list[list[int]]] = {}

    async def generate(
        self, *, request_id: str, prompt_ids: list[int], sampling_params: dict[str, Any], **_: Any
    ) -> TokenOutput:
        prompt = self.tokenizer.decode(prompt_ids)
        task = next(t for t, (user, _) in self.scripts.items() if user in prompt)
        turn = self.turns.get(request_id, 0)
        self.turns[request_id] = turn + 1
        ids = self.tokenizer.encode(self.scripts[task][1][turn] + "<|im_end|>", add_special_tokens=False)
        self.generated.setdefault(request_id, []).append(ids)
        return TokenOutput(token_ids=ids, log_probs=[-0.5] * len(ids), stop_reason="completed")


async def main() -> None:
    url, scripts, out_dir = sys.argv[1], json.loads(sys.argv[2]), Path(sys.argv[3])
    loop_file = out_dir / "agent_loops.yaml"
    loop_file.write_text(
        "- name: prove_hub\n  _target_: trainer_client.verl_agent_loop.HubAgentLoop\n"
        f"  hub_url: {url}\n  max_turns: 8\n"
    )
    config = OmegaConf.create(
        {
            "actor_rollout_ref": {
                "rollout": {"prompt_length": 8192, "response_length": 8192, "n": 2,
                            "agent": {"agent_loop_config_path": str(loop_file)}},
            },
            "data": {"apply_chat_template_kwargs": {}},
        }
    )  # fmt: skip
    for entry in OmegaConf.load(config.actor_rollout_ref.rollout.agent.agent_loop_config_path):
        _agent_loop_registry[entry.name] = entry  # what AgentLoopWorker.__init__ does with the file
    tokenizer = byte_tokenizer()
    server = FakeTokenServer(tokenizer, scripts)

    async def sample(task: str, uid: str) -> Any:
        loop = hydra.utils.instantiate(
            config=_agent_loop_registry["prove_hub"],
            trainer_config=DictConfigWrap(config=config),
            server_manager=server,
            tokenizer=tokenizer,
            processor=None,
            hf_model_type=None,
            dataset_cls=RLHFDataset,
            data_config=DictConfigWrap(config.data),
            tools=ToolListWrap([]),
        )
        return await loop.run({"temperature": 1.0}, uid=uid, extra_info={"hub_task": task}, raw_prompt=[])

    jobs = [(task, f"uid-{task}") for task in scripts for _ in range(2)]
    outputs = await asyncio.gather(*(sample(t, u) for t, u in jobs))
    await HubAgentLoop.close_clients()
    summary = []
    for (task, _), out in zip(jobs, outputs):
        response, mask = out.response_ids, out.response_mask
        generated = [tok for tok, m in zip(response, mask) if m == 1]
        inserted = [tok for tok, m in zip(response, mask) if m == 0]
        assert len(response) == len(mask) == len(out.response_logprobs)
        expected = "".join(s + "<|im_end|>" for s in scripts[task][1])
        assert tokenizer.decode(generated) == expected, (tokenizer.decode(generated), expected)
        assert all(lp == 0.0 for lp, m in zip(out.response_logprobs, mask) if m == 0)
        tensors = out.as_dict()  # what verl's postprocessing consumes
        assert abs(tensors["rm_scores"][-1].item() - out.reward_score) < 1e-6  # float32
        summary.append(
            {
                "task": task,
                "reward": out.reward_score,
                "group": out.extra_fields["hub_group"],
                "state_hash": out.extra_fields["hub_state_hash"],
                "reason": out.extra_fields["hub_reason"],
                "generated_tokens": len(generated),
                "inserted_text": tokenizer.decode(inserted),
                "prompt_text": tokenizer.decode(out.prompt_ids),
                "num_turns": out.num_turns,
            }
        )
    print(json.dumps(summary))


if __name__ == "__main__":
    asyncio.run(main())
