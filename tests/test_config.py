"""Settings: read once from HUB_* variables and flags, validated, loopback unless a token is set."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from hub.config import Settings


def test_environment_then_flags() -> None:
    env = {"HUB_PORT": "9001", "HUB_SEED": "3", "HUB_TASKS_PATH": "/data/train.jsonl", "HUB_MOUNTS": "a.b:C,d.e:F=g"}
    s = Settings.from_env(env, seed=5, token=None)
    assert (s.port, s.seed, s.tasks_path, s.mounts) == (9001, 5, "/data/train.jsonl", ["a.b:C", "d.e:F=g"])


def test_bad_values_are_clear_errors() -> None:
    with pytest.raises(ValidationError, match="port"):
        Settings.from_env({"HUB_PORT": "lots"})
    with pytest.raises(ValidationError, match="Extra inputs"):
        Settings(colour="blue")  # type: ignore[call-arg]


def test_non_loopback_needs_a_token() -> None:
    assert Settings().check().loopback
    with pytest.raises(ValueError, match="requires a bearer token"):
        Settings(host="0.0.0.0").check()
    assert not Settings(host="0.0.0.0", token="t").check().loopback
