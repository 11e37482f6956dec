"""The chain machine: synthesis by graph walks over a server's tools, for servers without intents.

``graph`` (the tool dependency graph), ``sampler`` (live entities read through the server's read tools),
``values`` (argument values from schemas), ``machine`` (the paper's state machine that walks a chain of
calls), ``render`` (the user's turns from templates or an LLM), ``validate`` (ids a turn names exist).
"""
