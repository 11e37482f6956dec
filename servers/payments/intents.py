"""Intents of payments: see docs/SERVER_GUIDE.md, "Intents"."""
