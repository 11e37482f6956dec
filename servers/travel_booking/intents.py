"""What travellers want of the travel booking service."""

from __future__ import annotations
