"""Settings, read once from ``HUB_*`` environment variables and CLI flags, then passed in."""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Mapping
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

REFERENCE_NOW = datetime(2026, 6, 1, 9, 0, 0)
UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def parse_size(text: str) -> int | None:
    """Bytes from '4294967296', '512M', '4G' or '1.5GiB'; 'none' or '0' for no limit."""
    value = text.strip().upper().removesuffix("IB").removesuffix("B")
    if value in ("NONE", "0", ""):
        return None
    unit = value[-1] if value[-1] in UNITS else ""
    try:
        return int(float(value[: len(value) - len(unit)]) * UNITS[unit])
    except ValueError:
        raise ValueError(f"not a size: {text!r} (write bytes, or a number with K, M, G or T)") from None


def is_loopback_host(host: str) -> bool:
    """Whether ``host`` is a loopback address (``127.0.0.0/8``, ``::1``) or ``localhost``: decided by the address,
    never by a name's prefix (``127.0.0.1.nip.io`` is a DNS name that may point anywhere)."""
    name = host.strip().removeprefix("[").removesuffix("]").lower()
    if name == "localhost":
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return bool((mapped or address).is_loopback)


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    host: str = "127.0.0.1"
    port: int = Field(8765, ge=0, le=65535)
    seed: int = 0
    token: str | None = None
    now: datetime = REFERENCE_NOW
    session_ttl_s: float = Field(3600.0, gt=0)
    max_sessions: int = Field(10_000, ge=2)
    max_body_bytes: int = Field(1_000_000, ge=1024)
    max_episode_bytes: int | None = Field(16 * 2**20, ge=1024)
    """Bytes one episode may produce (model messages and tool results) before it ends with ``byte_cap``."""
    max_connections: int = Field(4096, ge=8)
    """Open TCP connections at most, all addresses together (also kept below the descriptor limit)."""
    max_connections_per_address: int = Field(1024, ge=1)
    hello_timeout_s: float = Field(5.0, gt=0)
    """How long a ``/ws`` socket that is not yet authenticated may stay without a valid ``hello``."""
    idle_timeout_s: float = Field(900.0, gt=0)
    """How long an authenticated ``/ws`` socket may stay without a message before the hub closes it."""
    auth_failures: int = Field(20, ge=1)
    """Failed token attempts one address may make per minute; past them it is refused (``rate_limited``)."""
    max_state_bytes: int | None = Field(4 * 2**30, ge=1)  # bytes all session forks may hold; "4G" works too
    seed_cache: int = Field(8, ge=1, le=1000)  # seed worlds kept per server (LRU)
    store_path: str = "prove_hub.db"
    tasks_path: str | None = None
    mounts: list[str] = Field(default_factory=list)
    builtin: bool = True
    """Serve the built-in servers (``--no-builtin``: only the mounted ones)."""
    only: list[str] = Field(default_factory=list)
    """Serve only these servers, built-in or mounted (``--only NAME ...``)."""
    reward: Literal["paper", "outcome"] = "outcome"
    """The reward preset episodes are scored with unless ``finish`` names another (``--reward paper``)."""
    judge_endpoint: str | None = None
    """An OpenAI-compatible base URL whose model decides R_ask (``--judge-endpoint``); the rules decide without."""
    judge_model: str | None = None
    judge_api_key: str | None = None
    user_endpoint: str | None = None
    """An OpenAI-compatible base URL whose model plays the user of tasks that have one (``--user-endpoint``)."""
    user_model: str | None = None
    user_api_key: str | None = None
    shard: int | None = Field(None, ge=0)
    """This hub is shard ``shard`` of ``serve --workers N`` (set by the front, ``HUB_SHARD``): it shares the store
    and ends only its own episodes."""
    shard_restarted: bool = False
    """The front restarted this shard after it died: its episodes left open end as ``interrupted``/``shard_lost``."""

    @field_validator("max_state_bytes", "max_episode_bytes", mode="before")
    @classmethod
    def _size(cls, value: object) -> object:
        return parse_size(value) if isinstance(value, str) else value

    @property
    def loopback(self) -> bool:
        return is_loopback_host(self.host)

    def check(self) -> Settings:
        if self.judge_endpoint and not self.judge_model:
            raise ValueError("--judge-endpoint needs --judge-model (HUB_JUDGE_MODEL): the model that decides R_ask")
        if not self.loopback and not self.token:
            raise ValueError(f"binding {self.host} (not loopback) requires a bearer token: set HUB_TOKEN or --token")
        return self

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: object) -> Settings:
        env = os.environ if env is None else env
        values: dict[str, object] = {}
        for name in cls.model_fields:
            key = f"HUB_{name.upper()}"
            if key in env:
                values[name] = _split(name, env[key])
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls.model_validate(values)


def _split(name: str, value: str) -> str | list[str]:
    """Lists from comma-separated variables; mount specs split only before a ``module:`` (their options hold commas)."""
    if name == "mounts":
        return [v.strip() for v in re.split(r",(?=\s*[\w.]+:\w)", value) if v.strip()]
    return [v for v in value.split(",") if v.strip()] if name == "only" else value
