"""The engine: the dispatcher, events, worlds, episodes, the reward and the store."""
