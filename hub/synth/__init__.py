"""Task synthesis (issue 5): the paper's state-machine pipeline grounded in live server state.

graph (dependency graph per server), sampler (live-state sampling), values (plain argument
values), machine (the state machine that walks and executes chains), perturb (robustness knobs),
render (templates or an LLM), validate (replay, error filter, grounding, dedup), output (split,
manifest, export), pipeline (the driver), cli (``prove-hub synth`` / ``prove-hub graph``).
"""
