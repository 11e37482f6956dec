"""Intents of team_chat: see docs/SERVER_GUIDE.md, "Intents"."""
