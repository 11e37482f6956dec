"""Transports: MCP, the JSON API, the rollout WebSocket, metrics, and the request guards."""
