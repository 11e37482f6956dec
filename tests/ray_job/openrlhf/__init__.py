"""A stand-in for OpenRLHF 0.11.2 that a CPU-only Ray cluster can run (vLLM and DeepSpeed need GPUs): shipped with
the job by tests/test_trainer_ray.py, it loads the agent file in a Ray actor the way OpenRLHF's vLLM engine does
and logs training scalars through a TensorboardLogger the way OpenRLHF's PPO trainer actor does."""
