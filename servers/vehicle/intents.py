"""What drivers want of their connected car."""

from __future__ import annotations
