"""What people want of maps."""

from __future__ import annotations
