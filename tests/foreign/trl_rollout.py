"""One GRPO step of TRL's GRPOTrainer on hub tasks through the OpenEnv door (run in .venvs/openenv).

Usage: python trl_rollout.py HUB_URL OUT_DIR TASK... . The model is a random-weight Qwen2 built offline with
the byte-level tokenizer of trainer_client.tiny (nothing is downloaded), given TRL's own Qwen2.5 chat template
so TRL can parse tool calls. Prints a JSON summary of the rollouts' rewards and the tool calls the hub ran.
"""

from __future__ import annotations

import json
import sys

from datasets import Dataset
from trl import GRPOConfig, GRPOTrainer
from trl.chat_template_utils import qwen2_5_chat_template

from examples.trl_grpo import hub_environments
from trainer_client.tiny import byte_tokenizer, tiny_qwen2


def main() -> None:
    hub, out_dir, tasks = sys.argv[1], sys.argv[2], sys.argv[3:]
    classes, rows = hub_environments(hub, tasks)
    tokenizer = byte_tokenizer()
    tokenizer.chat_template = qwen2_5_chat_template
    tokenizer.padding_side = "left"
    model = tiny_qwen2(len(tokenizer))
    rewards: list[float] = []
    probe = next(iter(classes.values()))()
    probe.reset(task=tasks[0])
    first_tool = next(n for n in dir(type(probe)) if "__" in n and not n.startswith("_"))
    probe_result = getattr(probe, first_tool)(**{})  # a call with missing arguments: the hub's own error
    probe_reward = probe.get_reward()
    trainer = GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        train_dataset=Dataset.from_list(rows),
        environment_factory=classes,
        args=GRPOConfig(
            output_dir=out_dir,
            per_device_train_batch_size=2,
            num_generations=2,
            max_completion_length=24,
            max_steps=1,
            learning_rate=1e-4,
            use_cpu=True,
            report_to=[],
            logging_steps=1,
            save_strategy="no",
            max_tool_calling_iterations=2,
            seed=0,
        ),
    )
    result = trainer.train()
    for entry in trainer.state.log_history:
        for key, value in entry.items():
            if key.startswith("rewards/") and key.endswith("/mean"):
                rewards.append(value)
    print(
        json.dumps(
            {
                "steps": result.global_step,
                "reward_means": rewards,
                "loss": result.training_loss,
                "probe_result": probe_result,
                "probe_reward": probe_reward,
                "environments": sorted(classes),
            }
        )
    )


if __name__ == "__main__":
    main()
