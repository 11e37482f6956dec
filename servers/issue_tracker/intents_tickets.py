"""What people want done with one ticket: a member picking up, filing, closing, reopening, escalating, renaming,
tagging or commenting on a ticket, asking where one stands, or sending their work to review; a lead handing a
colleague's ticket to someone else."""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from hub.kit.intent import Ref, Scene, Skip
from servers.issue_tracker.intents import (
    STATUS_WORDS,
    TYPE_WORDS,
    WORDS,
    board,
    find_me,
    find_user,
    hi,
    issue_ref,
    locate,
    me,
    member_and_ticket,
    named_ticket,
    new_label,
    not_the_dialogues,
    person,
    project_key,
    remember,
)
from servers.issue_tracker.tools import tracker


@tracker.intent(covers=("search_users", "search_issues", "get_issue", "assign_issue"), weight=1.5, follows=True)
def pick_up_ticket(s: Scene) -> None:
    """A developer takes an open ticket (starting it is a follow-up)."""
    u = me(
        s,
        "EXISTS (SELECT 1 FROM issues i WHERE i.project_id = m.project_id AND i.status = 'open' AND "
        "(i.assignee_id IS NULL OR i.assignee_id != u.user_id))",
    )
    i = s.pick(
        "SELECT * FROM issues WHERE project_id = ? AND status = 'open' AND (assignee_id IS NULL OR assignee_id != ?)",
        u["project_id"],
        u["user_id"],
    )
    b, what = named_ticket(s, i)
    s.say(WORDS.pick_up_ticket, me=u["name"], hi=hi(s, u), what=what)
    uid = find_me(s, u)
    key = locate(s, i, what, b, status="open") if s.rng.random() < 0.6 else locate(s, i, what, b)
    s.call("assign_issue", issue_id=key, assignee_id=uid)


@tracker.intent(covers=("search_users", "list_projects", "create_issue"), weight=1.5, follows=True)
def report_bug(s: Scene) -> None:
    """A member files a new bug, feature request or task on a board (tagging it is a follow-up)."""
    u = me(s)
    kind = s.rng.choice(("bug", "bug", "feature", "task"))
    title = s.rng.choice(WORDS.new_bugs if kind == "bug" else WORDS.new_work)
    if s.rows("SELECT 1 FROM issues WHERE project_id = ? AND title = ?", u["project_id"], title):
        raise Skip("that ticket exists already")
    priority = s.rng.choice(("medium", "high", "critical", "low"))
    what = s.given(title, f'"{title}"', "title", "create_issue", "title")
    urgency = {"low": "no rush", "medium": "normal priority", "high": "fairly urgent", "critical": "it's an emergency"}
    b, named = board(s, u["project_id"])
    if kind == "bug":
        s.say(WORDS.report_bug, hi=hi(s, u), p=b, what=what, urg=urgency[priority])
    else:
        s.say(WORDS.report_bug_other_type, hi=hi(s, u), k=TYPE_WORDS[kind], p=b, what=what, urg=urgency[priority])
    uid = find_me(s, u)
    key = project_key(s, u["project_id"], named)
    args: dict[str, Any] = {"project_id": key, "reporter_id": uid, "type": kind, "title": title}
    if priority != "medium":
        args["priority"] = priority
    made = s.call("create_issue", **args)
    remember(s, made, b)


@tracker.intent(covers=("search_users", "search_issues", "get_issue", "transition_issue", "add_comment"), weight=1.5)
def finish_ticket(s: Scene) -> None:
    """A ticket passed review: it is closed with a note (what else waits for review is a follow-up)."""
    u, i = member_and_ticket(s, "= 'in_review'")
    b, what = named_ticket(s, i)
    text = s.rng.choice(WORDS.comments)
    note = s.given(text, f'"{text}"', "comment", "add_comment", "body")
    s.say(WORDS.finish_ticket, hi=hi(s, u), what=what, note=note)
    uid = find_me(s, u)
    key = locate(s, i, what, b, status="in_review") if s.rng.random() < 0.6 else locate(s, i, what, b)
    s.call("transition_issue", issue_id=key, user_id=uid, to_status="done")
    s.call("add_comment", issue_id=key, author_id=uid, body=text)


@tracker.intent(covers=("get_issue", "search_users", "transition_issue", "add_comment"), weight=0.5)
def reopen_ticket(s: Scene) -> None:
    """A ticket the member holds the key of came back: it is reopened with a note."""
    u, i = member_and_ticket(s, "= 'done'")
    what = issue_ref(s, i, i["project_id"], by_key=True)
    s.say(WORDS.reopen_ticket, me=u["name"], what=what)
    s.call("get_issue", issue_id=i["issue_id"])
    uid = find_me(s, u)
    text = s.rng.choice(WORDS.reopen_notes)
    s.say(WORDS.reopen_ticket_reopen_with_note, n=text)
    s.call("transition_issue", issue_id=i["issue_id"], user_id=uid, to_status="open")
    s.call("add_comment", issue_id=i["issue_id"], author_id=uid, body=text)
    remember(s, i, i["project_id"])


@tracker.intent(covers=("search_users", "search_issues", "get_issue", "update_issue"), weight=1.2, follows=True)
def escalate(s: Scene) -> None:
    """A member raises a ticket's priority (the other urgent bugs of the board are a follow-up)."""
    u = me(
        s,
        "EXISTS (SELECT 1 FROM issues i WHERE i.project_id = m.project_id AND i.status != 'done' AND "
        "i.priority IN ('low', 'medium'))",
    )
    i = s.pick(
        "SELECT * FROM issues WHERE project_id = ? AND status != 'done' AND priority IN ('low', 'medium')",
        u["project_id"],
    )
    new = "critical" if s.minimal else s.rng.choice(("high", "critical"))
    b, what = named_ticket(s, i)
    said = {"critical": "top priority", "high": "high priority"}[new]
    s.say(WORDS.escalate, hi=hi(s, u), me=u["name"], what=what, said=said)
    uid = find_me(s, u)
    key = locate(s, i, what, b)
    s.call("update_issue", issue_id=key, user_id=uid, priority=new)


@tracker.intent(covers=("search_users", "search_issues", "assign_issue"))
def hand_over(s: Scene) -> None:
    """A lead hands a colleague's in-progress ticket to someone else on the team."""
    row = s.pick(
        "SELECT i.*, a.name AS holder FROM issues i JOIN users a ON a.user_id = i.assignee_id WHERE "
        "i.status = 'in_progress' AND a.name IN (SELECT name FROM users GROUP BY name HAVING COUNT(*) = 1)"
    )
    lead = s.rows(
        "SELECT u.* FROM users u JOIN projects p ON p.lead_id = u.user_id WHERE p.project_id = ?", row["project_id"]
    )[0]
    if s.memory.get("me") and s.memory["me"]["user_id"] != lead["user_id"]:
        raise Skip("another lead")
    s.be(lead["name"])
    other, named = person(
        s,
        "u.user_id NOT IN (?, ?) AND u.user_id IN (SELECT user_id FROM project_members WHERE "
        "project_id = ? AND role != 'viewer')",
        row["assignee_id"],
        lead["user_id"],
        row["project_id"],
    )
    b, by_name = board(s, row["project_id"])
    what = s.refer(
        row["issue_id"],
        Ref(
            '{h}\'s in-progress "{t}" ticket on {p}',
            "SELECT issue_id FROM issues WHERE project_id = ? "
            "AND assignee_id = ? AND status = 'in_progress' AND title = ?",
            row["project_id"],
            row["assignee_id"],
            row["title"],
        ),
        h=row["holder"],
        t=row["title"],
        p=b,
    )
    s.say(WORDS.hand_over, h=row["holder"], p=b)
    holder = find_user(s, {"user_id": row["assignee_id"], "name": row["holder"]})
    where = {} if by_name else {"project_id": row["project_id"]}
    found = s.call("search_issues", assignee_id=holder, status="in_progress", **where)["issues"]
    if row["issue_id"] not in [x["issue_id"] for x in found]:
        raise Skip("the ticket is not listed")
    s.say(WORDS.hand_over_reassign, what=what, o=named)
    s.call("assign_issue", issue_id=row["issue_id"], assignee_id=find_user(s, other, row["project_id"]))
    remember(s, row, b)


@tracker.intent(covers=("search_issues", "get_issue", "list_projects", "search_users"), weight=1.5, follows=True)
def ticket_status(s: Scene) -> None:
    """A member asks where a ticket stands, naming it by its title (on a board) or by the key they hold."""
    i = s.pick("SELECT * FROM issues")
    b, named = board(s, i["project_id"])
    what = issue_ref(s, i, b)
    s.say(WORDS.ticket_status, what=what)
    if not what.startswith(i["issue_id"]) and s.rng.random() < 0.2:
        key = project_key(s, i["project_id"], named)
        locate(s, i, what, project_id=key)
    else:
        locate(s, i, what)
    if not s.turns[-1].calls:
        raise Skip("the agent holds that ticket already: nothing to look up")
    s.memory["board"] = b


@tracker.intent(covers=("search_users", "search_issues", "get_issue", "add_comment"), weight=1.2, follows=True)
def comment_on_ticket(s: Scene) -> None:
    """A member leaves a note on a ticket of their board."""
    u, i = member_and_ticket(s, "!= 'done'")
    not_the_dialogues(s, i, "note_on_it")
    b, what = named_ticket(s, i)
    text = s.rng.choice(WORDS.notes)
    note = s.given(text, f'"{text}"', "note", "add_comment", "body")
    s.say(WORDS.comment_on_ticket, hi=hi(s, u), what=what, note=note)
    uid = find_me(s, u)
    key = locate(s, i, what, b)
    s.call("add_comment", issue_id=key, author_id=uid, body=text)


@tracker.intent(covers=("search_users", "search_issues", "get_issue", "update_issue"), follows=True)
def rename_ticket(s: Scene) -> None:
    """A member gives a ticket of their board a clearer title."""
    u, i = member_and_ticket(s, "!= 'done'")
    b, what = named_ticket(s, i)
    new = f"{i['title']} ({s.rng.choice(('iOS only', 'after login', 'since the last release', 'on slow networks'))})"
    s.say(WORDS.rename_ticket, hi=hi(s, u), what=what, n=new)
    uid = find_me(s, u)
    key = locate(s, i, what, b)
    s.call("update_issue", issue_id=key, user_id=uid, title=new)
    s.memory["issue"] = {**s.memory["issue"], "title": new}


@tracker.intent(covers=("get_issue", "search_users", "search_issues"), weight=0.5)
def who_reported(s: Scene) -> None:
    """A member holding a ticket key asks about it, then what else its owner has going."""
    i = s.pick(
        "SELECT i.*, a.name AS owner FROM issues i JOIN users a ON a.user_id = i.assignee_id WHERE "
        "i.status != 'done' AND a.name IN (SELECT name FROM users GROUP BY name HAVING COUNT(*) = 1)"
    )
    what = issue_ref(s, i, i["project_id"], by_key=True)
    s.say(WORDS.who_reported, what=what)
    s.call("get_issue", issue_id=i["issue_id"])
    remember(s, i, i["project_id"])
    if s.by_chance(0.5):
        s.say(WORDS.who_reported_owner_load, o=i["owner"])
        s.call("search_issues", assignee_id=i["assignee_id"], status="in_progress")
        s.listed_others("issue")


@tracker.intent(covers=("search_users", "search_issues", "get_issue", "label_issue"), weight=1.5, follows=True)
def tag_ticket(s: Scene) -> None:
    """A member tags a ticket of a board with one of the board's labels."""
    i = s.pick(
        "SELECT i.* FROM issues i WHERE i.status != 'done' AND EXISTS (SELECT 1 FROM labels l WHERE l.project_id = "
        "i.project_id AND l.name NOT IN (SELECT label FROM issue_labels WHERE issue_id = i.issue_id))"
    )
    not_the_dialogues(s, i, "tag_it")
    lab = new_label(s, i)
    b, what = named_ticket(s, i)
    tag = s.given(lab, f"'{lab}'", "label", "label_issue", "label")
    s.say(WORDS.tag_ticket, what=what, l=tag)
    key = locate(s, i, what, b)
    s.call("label_issue", issue_id=key, label=lab)


@tracker.intent(covers=("search_users", "search_issues"), weight=1.5, follows=True)
def my_open_work(s: Scene) -> None:
    """A member asks for their tickets in one state, perhaps on one board, and names one to go on with."""
    u = me(s, "EXISTS (SELECT 1 FROM issues i WHERE i.assignee_id = u.user_id AND i.status != 'done')")
    status = s.rng.choice(("open", "in_progress", "in_review"))
    on_board = s.rng.random() < 0.4
    args: dict[str, Any] = {"status": status}
    b = board(s, u["project_id"])[0]
    if on_board:
        args["project_id"] = u["project_id"]
    s.say(WORDS.my_open_work, hi=hi(s, u), me=u["name"], st=STATUS_WORDS[status], on=f" on {b}" if on_board else "")
    uid = find_me(s, u)
    mine = s.call("search_issues", assignee_id=uid, **({} if s.minimal else args))["issues"]
    mine = [x for x in mine if x["status"] != "done"]
    i = s.choose(mine, itemgetter("title"), none="nothing listed", alike="two tickets share the title")
    remember(s, i, b if i["project_id"] == u["project_id"] else i["project_id"], named=False)


@tracker.intent(covers=("search_users", "search_issues", "transition_issue"), weight=1.2)
def send_for_review(s: Scene) -> None:
    """A developer lists what they have in progress and sends one ticket to review."""
    u = me(s, "EXISTS (SELECT 1 FROM issues i WHERE i.assignee_id = u.user_id AND i.status = 'in_progress')")
    s.say(WORDS.send_for_review, hi=hi(s, u), me=u["name"])
    uid = find_me(s, u)
    mine = s.call("search_issues", assignee_id=uid, status="in_progress")["issues"]
    i = s.choose(mine, itemgetter("title"), none="nothing listed", alike="two tickets share the title")
    s.say(WORDS.send_for_review_move_one, t=i["title"])
    s.call("transition_issue", issue_id=i["issue_id"], user_id=uid, to_status="in_review")
    remember(s, i)
