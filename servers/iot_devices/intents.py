"""What people want of their smart home."""

from __future__ import annotations
