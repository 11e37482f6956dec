"""Task synthesis: goal-level tasks grounded in live server state.

intent (the intent API: a Scene to pick entities, prove references, say turns and run calls),
goals (dialogues of intents on a fork, call links, turns per kind), pipeline (the driver: slots,
worlds, kinds, perturbations, checks), realism (the report and the literal baseline), samples
(golden sample tasks), capacity (distinct call structures a server's intents make); for servers
without intents: graph (dependency graph), sampler (live-state sampling), values, machine (the
chain state machine), render (templates; the LLM writers), validate (replay, grounding, dedup),
perturb (robustness knobs), output (split, manifest, export), cli (``prove-hub synth`` / ``graph``).
"""
