"""What people want of the issue tracker: a team member filing, picking up, estimating and closing tickets, and a
lead running sprints.

The user is a project member who says who they are (their name); the agent finds their user id with
``search_users``, issues with ``search_issues`` (the project key, words of the title, a status) and sprints
with ``list_sprints``. People name a ticket by its title ("the checkout page crash") or, when they hold it,
by its key ("WEB-0042"); projects by their key ("the WEB board"); sprints as "the current one", "the next one".
"""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Ref, Scene, Skip
from hub.kit.phrasings import phrasings
from hub.kit.speaker import Says, Search, Speaker
from servers.issue_tracker.core import UserId
from servers.issue_tracker.seed import PROJECTS

WORDS = phrasings(__package__)

NAMES = {spec[0]: spec[1] for spec in PROJECTS}

UNIQUE = "u.name IN (SELECT name FROM users GROUP BY name HAVING COUNT(*) = 1)"
WORKER = (
    "SELECT u.*, m.project_id, m.role, p.name AS project FROM users u JOIN project_members m USING (user_id) "
    f"JOIN projects p USING (project_id) WHERE m.role != 'viewer' AND {UNIQUE}"
)
TYPE_WORDS = {"bug": "bug", "feature": "feature request", "task": "task"}
SPRINT_ASKS = WORDS.family("sprint_asks")
STATUS_WORDS = {"open": "not started", "in_progress": "in progress", "in_review": "in review", "done": "done"}
ROLES = {"developer": "a developer", "qa": "QA", "designer": "a designer", "viewer": "a viewer"}


SPEAKER = Speaker(
    UserId,
    select=WORKER,
    alias="u.",
    says=(Says("{name}", "name"),),
    search=Search(missing="the member is not on the first page of the search"),
    late=True,
)
find_me = SPEAKER.find


def me(s: Scene, where: str = "1=1", *params: Any) -> dict[str, Any]:
    """The member talking (``SPEAKER.me``), in one of their projects that fits ``where`` (any of them, so that a
    later turn may be about another of their boards)."""
    u = SPEAKER.me(s, where, *params)
    return s.rng.choice(s.rows(WORKER + f" AND u.user_id = ? AND ({where})", u["user_id"], *params))


def member_and_ticket(s: Scene, status: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The member talking and a ticket of their board whose status fits ``status`` (an SQL test: "!= 'done'")."""
    u = me(s, f"EXISTS (SELECT 1 FROM issues i WHERE i.project_id = m.project_id AND i.status {status})")
    return u, s.pick(f"SELECT * FROM issues WHERE project_id = ? AND status {status}", u["project_id"])


def find_user(s: Scene, u: dict[str, Any], project_id: str | None = None) -> str:
    args: dict[str, Any] = {"query": u["name"]}
    if project_id:
        args["project_id"] = project_id
    hit = s.discover(UserId, u["user_id"], missing="the person is not on the first page of the search", **args)
    return str(hit["user_id"])


def person(s: Scene, where: str, *params: Any) -> tuple[dict[str, Any], str]:
    """Someone else, named so that exactly one user fits."""
    u = s.pick(f"SELECT * FROM users u WHERE {UNIQUE} AND ({where})", *params)
    text = s.named(u, "users", "user_id", "{name}")
    return u, text


ALIASES = WORDS.family("aliases")


def board(s: Scene, key: str) -> tuple[str, bool]:
    """How the user names a project: by its name ("Mobile App"), by what it is about ("the phone app"), or by its
    key ("MOB"); True when the agent has to read the key off the project list."""
    draw = s.rng.random()
    if draw < 0.35:
        return NAMES[key], True
    if draw < 0.8 and key in ALIASES:
        return s.rng.choice(ALIASES[key]), True
    return key, False


def named_board(s: Scene, where: str = "") -> tuple[dict[str, Any], str, bool]:
    """A project (``where``: an SQL test on it, as ``p``) and how the member names its board (see ``board``)."""
    p = s.pick("SELECT p.* FROM projects p" + (f" WHERE {where}" if where else ""))
    b, named = board(s, p["project_id"])
    return p, b, named


def project_key(s: Scene, key: str, named: bool) -> str:
    """The project key: read off the project list when the user gave the name, else the key they said."""
    if not named:
        return key
    hit = s.find("list_projects", "projects", "name", NAMES[key], missing="the project is not listed")
    return str(hit["project_id"])


TITLED = (  # a ticket named by its title on its board, and what else the member says of it (the columns that says)
    ('the "{t}" {k} on the {p} board', ()),
    ('the {st} "{t}" {k} on the {p} board', ("status",)),
    ('the {pr}-priority "{t}" {k} on the {p} board', ("priority",)),
    ('the "{t}" {k} on the {p} board', ("type",)),
    ('the {st}, {pr}-priority "{t}" {k} on the {p} board', ("status", "priority", "type")),
)


def issue_ref(s: Scene, i: dict[str, Any], b: str, by_key: bool | None = None) -> str:
    """A ticket as a member names it: by key when they hold it, else by its title (and status) in its project."""
    if by_key is None:
        by_key = s.rng.random() < 0.1
    s.memory.pop("by_owner", None)
    if by_key:
        return s.named(i, "issues", "issue_id", "{issue_id}")
    if s.rng.random() < 0.55:
        mine = owner_ref(s, i)
        if mine is not None:
            return mine
    sql = "SELECT issue_id FROM issues WHERE project_id = ? AND title = ?"
    refs = [
        Ref(text, sql + "".join(f" AND {c} = ?" for c in said), i["project_id"], i["title"], *(i[c] for c in said))
        for text, said in TITLED
    ]
    return s.refer(
        i["issue_id"],
        *refs,
        Ref('{key}, the "{t}" {k}', "SELECT issue_id FROM issues WHERE issue_id = ?", i["issue_id"]),
        t=i["title"],
        k=TYPE_WORDS[i["type"]],
        p=b,
        st=STATUS_SAID[i["status"]],
        pr=i["priority"],
        key=i["issue_id"],
    )


def named_ticket(s: Scene, i: dict[str, Any]) -> tuple[str, str]:
    """How a member names a ticket of a board: the board as they call it, and the ticket on it."""
    b = board(s, i["project_id"])[0]
    return b, issue_ref(s, i, b)


def new_label(s: Scene, i: dict[str, Any]) -> str:
    """One of the ticket's board labels that the ticket does not carry yet."""
    return str(
        s.pick(
            "SELECT name FROM labels WHERE project_id = ? AND name NOT IN (SELECT label FROM issue_labels WHERE "
            "issue_id = ?)",
            i["project_id"],
            i["issue_id"],
        )["name"]
    )


STATUS_SAID = {"open": "not-started", "in_progress": "in-progress", "in_review": "in-review", "done": "finished"}
OWNED = {"open": "not-started", "in_progress": "in-progress", "in_review": "in-review"}


def owner_ref(s: Scene, i: dict[str, Any]) -> str | None:
    """A ticket named by who has it ("Dana's in-review ticket", "my in-progress ticket") when that person has no
    other ticket in that state; None when the ticket has no owner or the description would not be unique."""
    if not i["assignee_id"] or i["status"] not in OWNED:
        return None
    name = s.value("SELECT name FROM users WHERE user_id = ?", i["assignee_id"])
    if len(s.rows("SELECT 1 FROM users WHERE name = ?", name)) != 1:
        return None
    sql = "SELECT issue_id FROM issues WHERE assignee_id = ? AND status = ?"
    if [r["issue_id"] for r in s.rows(sql, i["assignee_id"], i["status"])] != [i["issue_id"]]:
        return None
    s.memory["by_owner"] = {"user_id": i["assignee_id"], "name": name}
    if s.speaker == name:
        return s.refer(i["issue_id"], Ref("my {st} ticket", sql, i["assignee_id"], i["status"]), st=OWNED[i["status"]])
    text = s.rng.choice(("{o}'s {st} ticket", "the {st} ticket assigned to {o}", "{o}'s only {st} ticket"))
    return s.refer(i["issue_id"], Ref(text, sql, i["assignee_id"], i["status"]), o=name, st=OWNED[i["status"]])


def locate(s: Scene, i: dict[str, Any], ref: str, b: str | None = None, **filters: Any) -> str:
    """Find the ticket the way the user named it: by key (read it), by who has it, or by its title; it becomes the
    ticket the dialogue is about (and ``b``, how the user named its board, the dialogue's board)."""
    owner = s.memory.pop("by_owner", None)
    if owner is not None:
        me_ = s.memory.get("me")
        uid = me_["user_id"] if me_ and me_["user_id"] == owner["user_id"] else find_user(s, owner)
        hit = s.find(
            "search_issues",
            "issues",
            "issue_id",
            i["issue_id"],
            missing="the ticket is not listed",
            assignee_id=uid,
            status=i["status"],
        )
        remember(s, i, b)
        return str(hit["issue_id"])
    if ref.startswith(i["issue_id"]):
        if not any(c.tool == "get_issue" and c.arguments.get("issue_id") == i["issue_id"] for c in s.calls):
            s.call("get_issue", issue_id=i["issue_id"])
        remember(s, i, b)
        return str(i["issue_id"])
    if STATUS_SAID[i["status"]] in ref and "status" not in filters:
        filters = {**filters, "status": i["status"]}  # the user said which state it is in
    hit = s.find(
        "search_issues",
        "issues",
        "issue_id",
        i["issue_id"],
        missing="the ticket is not on the first page",
        query=i["title"],
        **filters,
    )
    remember(s, i, b)
    return str(hit["issue_id"])


def remember(s: Scene, i: dict[str, Any], b: str | None = None, named: bool = True) -> None:
    """The ticket (and its board) the dialogue is about now, for the follow-ups; ``named``: the user has said which
    one it is (not so for one the agent listed among others)."""
    s.memory["issue"] = {"issue_id": i["issue_id"], "project_id": i["project_id"], "title": i["title"], "named": named}
    s.memory["project"] = i["project_id"]
    if b is not None:
        s.memory["board"] = b


def hi(s: Scene, u: dict[str, Any]) -> str:
    """How the member opens: their name in the opening turn, nothing in a follow-up (they said it already)."""
    if s.turns:
        return s.rng.choice(("Also, ", "While you're at it, ", "One more: ", "Next, "))
    return s.rng.choice(("{n} here: ", "this is {n}: ", "it's {n}, ")).format(n=u["name"])


def ticket(s: Scene, where: str = "1=1", *params: Any) -> dict[str, Any]:
    """The ticket the dialogue is about, read again now; ``Skip`` when there is none or it does not fit."""
    known = s.known("issue", "no ticket in the dialogue")
    found = s.rows(f"SELECT * FROM issues WHERE issue_id = ? AND ({where})", known["issue_id"], *params)
    if not found:
        raise Skip("the ticket does not fit")
    return found[0]


def speaker(s: Scene, project_id: str | None = None, assignable: bool = False) -> dict[str, Any]:
    """The member who said who they are, who may act on ``project_id``'s tickets."""
    known = s.known("me", "nobody said who they are")
    if project_id is not None:
        role = s.value(
            "SELECT role FROM project_members WHERE project_id = ? AND user_id = ?", project_id, known["user_id"]
        )
        if role is None or (assignable and role == "viewer"):
            raise Skip("the member cannot act on that board")
    return dict(known)


def the_board(s: Scene) -> tuple[str, str]:
    """The board the dialogue is about: its key and how the user named it."""
    key = s.known("project", "no board in the dialogue")
    return str(key), str(s.memory.get("board") or key)


def not_the_dialogues(s: Scene, i: dict[str, Any], follow_up: str) -> None:
    """``Skip`` an opener drawn on the ticket the dialogue is already about: ``follow_up`` says that."""
    known = s.memory.get("issue")
    if known and known["issue_id"] == i["issue_id"]:
        raise Skip(f"the same ticket: that is {follow_up}")
