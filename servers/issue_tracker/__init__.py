"""Issue tracker: projects, members, issues, sprints, labels, comments and a workflow.

Business rules: issues move open -> in_progress -> in_review -> done, in_progress -> open,
in_review -> in_progress and done -> open (reopen); any other transition is rejected with the
allowed ones listed. Starting work needs an assignee, and assignees must be project members.
An issue needs a story-point estimate (Fibonacci: 1, 2, 3, 5, 8, 13, 21) before it is planned
into a sprint, done issues are not re-estimated or moved, and a sprint's committed points may
not exceed its capacity. Sprints go planned -> active -> closed; closed sprints take no issues,
a project has at most one active sprint, a sprint starts only with issues in it, and a sprint
closes only when none of its issues is unfinished or `carry_over_to` names a planned sprint of
the same project to receive them. A reopened issue from a closed sprint goes back to the backlog.
"""

from servers.issue_tracker import intents_board, intents_followups, intents_planning, intents_tickets  # noqa: F401
from servers.issue_tracker.tools import tracker as server

__all__ = ["server"]
