"""Stands in for ``python -m openrlhf.cli.train_ppo_ray`` on a CPU-only cluster: what touches the PROVE client
runs as OpenRLHF runs it (the agent file loaded by path in a Ray actor, scalars logged in another actor)."""

import asyncio
import hashlib
import importlib.util
import json
import os
import sys

import ray


@ray.remote(num_cpus=0)
class RolloutRayActor:
    def __init__(self, agent_func_path):
        spec = importlib.util.spec_from_file_location("agent_module", agent_func_path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        self.executor = module.AgentExecutor()

    def seen(self):
        config = self.executor.config.to_json()
        # the hubs' addresses and the token stay out of the job's log: a digest shows which hubs the actor has
        urls = ",".join(config["hub_urls"]).encode()
        return {
            "config": {k: v for k, v in config.items() if k not in ("token", "hub_urls")},
            "hub_urls_sha256": hashlib.sha256(urls).hexdigest(),
            "has_token": bool(config["token"]),
            "pid": os.getpid(),
            "cwd": os.getcwd(),
            "env": sorted(k for k in os.environ if k.startswith("PROVE_")),
        }

    def open_group(self, label):
        async def go():
            lease = await self.executor.pool.acquire(label, key=1, n=2)
            await self.executor.pool.release(1)
            await self.executor.pool.hubs.close()
            return lease.group.task

        return asyncio.run(go())


@ray.remote(num_cpus=0)
class PPOTrainer:
    def fit(self, steps):
        from openrlhf.utils.logging_utils import TensorboardLogger

        logger = TensorboardLogger()
        for step in range(1, steps + 1):
            logger.log_train(step, {"policy_loss": 1.0 / step, "reward": 0.25 * step})
        logger.close()
        return type(logger).__dict__.get("_prove", False)


def main(argv):
    assert ray.is_initialized(), "trainer_client.openrlhf_run starts Ray before train_ppo_ray"
    agent = argv[argv.index("--train.agent_func_path") + 1]
    prompts = argv[argv.index("--data.prompt_dataset") + 1]
    rows = [json.loads(line) for line in open(prompts)]
    actor = RolloutRayActor.remote(agent)
    seen = ray.get(actor.seen.remote(), timeout=240)
    seen["opened"] = ray.get(actor.open_group.remote(rows[0]["label"]), timeout=120)
    seen["patched_logger"] = ray.get(PPOTrainer.remote().fit.remote(2), timeout=120)
    seen["prompts"] = len(rows)
    seen["driver_pid"] = os.getpid()
    seen["python"] = sys.executable
    print("ROLLOUT_SAW " + json.dumps(seen), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
