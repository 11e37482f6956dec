"""``python -m trainer_client.openrlhf_run [train_ppo_ray flags]``: OpenRLHF 0.11.2's ``train_ppo_ray`` as
``prove-train`` runs it, on a laptop's Ray or inside a job on a cluster.

It runs ``openrlhf.cli.train_ppo_ray`` unchanged, with three additions in every process of the run (this
driver, and every Ray worker through the ``worker_process_setup_hook`` of the Ray it starts):

- **no flash-attn needed**: when flash-attn is not installed, the few pure-PyTorch helpers OpenRLHF imports
  from it come from ``trainer_client.flash_attn_compat``; attention runs through SDPA. A real flash-attn is
  always used when installed.
- **no nvcc needed**: DeepSpeed's default AdamW (``FusedAdam``) is a CUDA extension compiled on first use. Unless
  it was prebuilt or ``nvcc`` is there to build it, the DeepSpeed config asks for ``torch_adam`` (PyTorch's own
  AdamW, which DeepSpeed 0.19.6 supports natively). ``PROVE_TORCH_ADAM=1`` / ``0`` forces the choice.
- **metrics to the hub from inside the run**: OpenRLHF's TensorBoard logger also sends every ``train/*`` and
  ``eval/*`` scalar to the run on the hubs (``run_metrics`` over ``/ws``), and the driver ends the run
  (``run_end``), so the hub's training pages are live wherever the job runs. The hubs, the token and the run
  come from ``PROVE_HUB_URLS``, ``PROVE_HUB_TOKEN``, ``PROVE_RUN`` (the job's runtime environment); nothing
  here prints them.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.abc
import importlib.machinery
import importlib.util
import logging
import os
import queue
import runpy
import shutil
import sys
import threading
import types
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

log = logging.getLogger("trainer_client.openrlhf_run")

TRAIN_MODULE = "openrlhf.cli.train_ppo_ray"
SETUP_HOOK = "trainer_client.openrlhf_run.setup_worker"
# what train_ppo_ray's own ray.init sets (it skips its ray.init once Ray is up, so this one sets them)
OPENRLHF_ENV = {"TOKENIZERS_PARALLELISM": "true", "NCCL_DEBUG": "WARN", "RAY_ENABLE_ZERO_COPY_TORCH_TENSORS": "1"}
JOB_CONFIG_VAR = "RAY_JOB_CONFIG_JSON_ENV_VAR"  # set by Ray's job manager in a submitted job's driver


# DeepSpeed's optimizer -----------------------------------------------------------------------------


def fused_adam_buildable() -> bool:
    """Whether DeepSpeed's FusedAdam can load: prebuilt into the installed DeepSpeed, or nvcc can build it."""
    forced = os.environ.get("PROVE_TORCH_ADAM")
    if forced in ("0", "1"):
        return forced == "0"
    try:
        from deepspeed.git_version_info import installed_ops  # type: ignore[import-not-found]

        if installed_ops.get("fused_adam"):
            return True
    except ImportError:
        pass
    cuda_home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
    return bool(shutil.which("nvcc") or (cuda_home and (Path(cuda_home) / "bin" / "nvcc").exists()))


def torch_adam_config(config: dict[str, Any], buildable: bool | None = None) -> dict[str, Any]:
    """A DeepSpeed config whose Adam/AdamW is PyTorch's own unless FusedAdam can load (see the module doc)."""
    optimizer = config.get("optimizer")
    if not isinstance(optimizer, dict) or optimizer.get("type") not in ("Adam", "AdamW"):
        return config
    if buildable if buildable is not None else fused_adam_buildable():
        return config
    optimizer.setdefault("params", {})["torch_adam"] = True
    return config


def patch_strategy(module: types.ModuleType) -> None:
    """``DeepspeedStrategy.get_ds_train_config`` returns configs that take torch AdamW without nvcc."""
    cls = module.DeepspeedStrategy
    original = cls.get_ds_train_config
    if getattr(original, "_prove", False):
        return

    def get_ds_train_config(self: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return torch_adam_config(original(self, *args, **kwargs))

    get_ds_train_config._prove = True  # type: ignore[attr-defined]
    cls.get_ds_train_config = get_ds_train_config


# Metrics to the hub --------------------------------------------------------------------------------


class HubMetrics:
    """Sends ``run_metrics`` to the run on every hub from a thread of its own, so a slow or dead hub never
    holds up training; ``close`` waits (a little) for what is queued."""

    def __init__(self, urls: Sequence[str], token: str | None, run: str) -> None:
        self.urls, self.token, self.run = list(urls), token, run
        self.queue: queue.Queue[tuple[int, dict[str, float]] | None] = queue.Queue(maxsize=10_000)
        self.sent = 0
        self.thread = threading.Thread(target=self._serve, name="prove-hub-metrics", daemon=True)
        self.thread.start()

    def send(self, step: int, metrics: dict[str, float]) -> None:
        if metrics:
            with contextlib.suppress(queue.Full):
                self.queue.put_nowait((int(step), metrics))

    def close(self, timeout: float = 30.0) -> None:
        with contextlib.suppress(queue.Full):
            self.queue.put_nowait(None)
        self.thread.join(timeout)

    def _serve(self) -> None:
        asyncio.run(self._forward())

    async def _forward(self) -> None:
        from trainer_client.hub_client import HubClient, HubError
        from trainer_client.hubs import ws_url

        clients = [
            HubClient(ws_url(u), self.token, client="prove-train-job", retries=3, backoff=0.5) for u in self.urls
        ]
        loop = asyncio.get_running_loop()
        try:
            while (item := await loop.run_in_executor(None, self.queue.get)) is not None:
                step, metrics = item
                for client in clients:
                    try:
                        await client.run_metrics(self.run, step, metrics)
                        self.sent += 1
                    except HubError as exc:  # the hub is one observer; training goes on without it
                        log.warning("a hub refused or lost the run's metrics of step %d: %s", step, exc.code)
        finally:
            for client in clients:
                with contextlib.suppress(HubError, OSError):
                    await client.close()


_SINK: HubMetrics | None = None
_SINK_LOCK = threading.Lock()


def hub_metrics() -> HubMetrics | None:
    """The process's metrics sender, from the run's environment (None outside a prove-train run)."""
    global _SINK
    urls = [u for u in os.environ.get("PROVE_HUB_URLS", "").split(",") if u.strip()]
    run = os.environ.get("PROVE_RUN")
    if not urls or not run:
        return None
    with _SINK_LOCK:
        if _SINK is None:
            _SINK = HubMetrics(urls, os.environ.get("PROVE_HUB_TOKEN") or None, run)
            log.info("training metrics go to %d hub(s) for run %s", len(urls), run)
        return _SINK


def scalars(prefix: str, logs: dict[str, Any]) -> dict[str, float]:
    out: dict[str, float] = {}
    for key, value in logs.items():
        with contextlib.suppress(TypeError, ValueError):
            number = float(value)
            if number == number and abs(number) != float("inf"):  # the hub refuses NaN and infinities
                out[f"{prefix}/{key}"] = number
    return out


def patch_logger(module: types.ModuleType) -> None:
    """OpenRLHF's ``TensorboardLogger`` also sends its scalars to the hubs."""
    cls = module.TensorboardLogger
    if getattr(cls, "_prove", False):
        return

    def forwarding(name: str, prefix: str) -> Callable[..., None]:
        original = getattr(cls, name)

        def method(self: Any, global_step: int, logs_dict: dict[str, Any]) -> None:
            original(self, global_step, logs_dict)
            sink = hub_metrics()
            if sink is not None:
                sink.send(global_step, scalars(prefix, logs_dict))

        return method

    cls.log_train = forwarding("log_train", "train")
    cls.log_eval = forwarding("log_eval", "eval")
    original_close = cls.close

    def close(self: Any) -> None:
        original_close(self)
        if _SINK is not None:
            _SINK.close()

    cls.close = close
    cls._prove = True


# Patching modules as they are imported ------------------------------------------------------------

PATCHES: dict[str, Callable[[types.ModuleType], None]] = {
    "openrlhf.utils.deepspeed.deepspeed": patch_strategy,
    "openrlhf.utils.logging_utils": patch_logger,
}


class _PatchLoader(importlib.abc.Loader):
    def __init__(self, loader: importlib.abc.Loader, patch: Callable[[types.ModuleType], None]) -> None:
        self.loader, self.patch = loader, patch

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        self.loader.exec_module(module)
        self.patch(module)


class _PatchFinder(importlib.abc.MetaPathFinder):
    """Finds the patched modules through the other finders and patches them once they have run."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        patch = PATCHES.get(fullname)
        if patch is None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None and spec.loader is not None:
                spec.loader = _PatchLoader(spec.loader, patch)  # type: ignore[arg-type]
                return spec
        return None


_FINDER = _PatchFinder()

FLASH_ATTN = ("flash_attn", "flash_attn.bert_padding", "flash_attn.utils", "flash_attn.utils.distributed")


class _FlashAttnStandIn(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves ``FLASH_ATTN`` from ``trainer_client.flash_attn_compat`` (installed only without a real flash-attn;
    torch is imported only when OpenRLHF imports them)."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if fullname not in FLASH_ATTN:
            return None
        package = fullname in ("flash_attn", "flash_attn.utils")
        origin = "trainer_client.flash_attn_compat"
        return importlib.machinery.ModuleSpec(fullname, self, origin=origin, is_package=package)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        from trainer_client import flash_attn_compat

        module.__file__ = flash_attn_compat.__file__
        if module.__name__ in ("flash_attn", "flash_attn.utils"):
            module.__path__ = []
        elif module.__name__ == "flash_attn.bert_padding":
            for name in flash_attn_compat.BERT_PADDING:
                setattr(module, name, getattr(flash_attn_compat, name))
        else:
            module.all_gather = flash_attn_compat.all_gather  # type: ignore[attr-defined]


FLASH_ATTN_STAND_IN = _FlashAttnStandIn()


def flash_attn_stand_in() -> bool:
    """Serve the stand-in unless flash-attn is installed; whether the stand-in is in use."""
    if FLASH_ATTN_STAND_IN in sys.meta_path:
        return True
    if importlib.util.find_spec("flash_attn") is not None:
        return False
    sys.meta_path.append(FLASH_ATTN_STAND_IN)
    return True


def setup_worker() -> None:
    """Every process of the run (Ray's ``worker_process_setup_hook``): the stand-ins and patches above."""
    flash_attn_stand_in()
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
    for name, patch in PATCHES.items():  # already imported (a reused worker): patch in place
        module = sys.modules.get(name)
        if module is not None:
            patch(module)


# The driver ---------------------------------------------------------------------------------------


def ray_runtime_env(environ: dict[str, str] | None = None) -> dict[str, Any]:
    """What this driver's ``ray.init`` adds: the setup hook and OpenRLHF's defaults; outside a submitted job
    (whose runtime environment already carries them) also the run's ``PROVE_*`` settings, for workers of a
    cluster this driver joins rather than starts."""
    env = dict(os.environ if environ is None else environ)
    in_job = JOB_CONFIG_VAR in env
    env_vars = {k: v for k, v in OPENRLHF_ENV.items() if k not in env}
    if not in_job:
        env_vars.update({k: v for k, v in env.items() if k.startswith("PROVE_")})
    return {"env_vars": env_vars, "worker_process_setup_hook": SETUP_HOOK}


def end_run(status: str) -> None:
    """``run_end`` on every hub (the launcher may not be there to send it: a detached or remote job)."""
    urls = [u for u in os.environ.get("PROVE_HUB_URLS", "").split(",") if u.strip()]
    run = os.environ.get("PROVE_RUN")
    if _SINK is not None:
        _SINK.close()
    if not urls or not run:
        return

    async def send() -> None:
        from trainer_client.hub_client import HubClient, HubError
        from trainer_client.hubs import ws_url

        for url in urls:
            token = os.environ.get("PROVE_HUB_TOKEN") or None
            client = HubClient(ws_url(url), token, client="prove-train-job", retries=3)
            try:
                await client.run_end(run, status)
            except HubError as exc:
                log.warning("ending the run on a hub failed: %s", exc.code)
            finally:
                with contextlib.suppress(HubError, OSError):
                    await client.close()

    asyncio.run(send())


def main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="prove-train job: %(message)s")
    args = list(sys.argv[1:] if argv is None else argv)
    setup_worker()
    import ray

    if not ray.is_initialized():
        ray.init(runtime_env=ray_runtime_env())
    sys.argv = [TRAIN_MODULE, *args]
    status = "failed"
    try:
        runpy.run_module(TRAIN_MODULE, run_name="__main__", alter_sys=True)
        status = "finished"
    except SystemExit as exc:
        status = "finished" if exc.code in (0, None) else "failed"
        raise
    finally:
        end_run(status)
    return 0


if __name__ == "__main__":
    sys.exit(main())
