"""The issue tracker tools: projects, members, issues, sprints, labels, comments and the workflow."""

from __future__ import annotations

from servers.issue_tracker import tools_read, tools_write, tools_write_sprints  # noqa: F401  (registers them)
from servers.issue_tracker.core import tracker

__all__ = ["tracker"]
