"""Golden files of generated artefacts: where they live and how they are regenerated.

Regenerate with ``pytest tests/test_registry.py --regen-golden`` (or ``python -m tests.golden_files``)
and review the diff.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hub.core import build_library

GOLDEN = Path(__file__).resolve().parent / "golden"
GOLDEN_CATALOG = GOLDEN / "catalog.json"


def catalog() -> dict[str, Any]:
    return build_library().catalog()


def catalog_text(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, sort_keys=True) + "\n"


def write_catalog() -> Path:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    GOLDEN_CATALOG.write_text(catalog_text(catalog()))
    return GOLDEN_CATALOG


if __name__ == "__main__":
    print(f"wrote {write_catalog()}")
