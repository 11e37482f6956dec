"""Reading and finding: meeting notes, todos, what changed lately, quarter reports side by side, what a
colleague shared, and what a project or folder is made of."""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Scene, Skip
from servers.filesystem.core import filesystem
from servers.filesystem.intents import (
    DOCS,
    HOME,
    NOTES,
    PIPELINE,
    REPORTS,
    WORDS,
    folder,
    hand_off,
    listed,
    note_of,
    opt,
    remember,
    start,
)


@filesystem.intent(covers=("list_directory", "find_files", "read_file", "grep_files", "count_words"), weight=1.5)
def recall_meeting(s: Scene) -> None:
    """Maya looks up what a meeting decided, then what is left for her to do from it."""
    start(s)
    n, what = note_of(s)
    how, args = opt(
        s, ("", {}), (" with line numbers", {"number_lines": True}), (", only the first 15 lines", {"max_lines": 15})
    )
    s.say(WORDS.recall_meeting, what=what, how=how)
    if s.rng.random() < 0.6:
        path = listed(s.call("list_directory", path=NOTES), n["path"])
    else:
        found = s.call("find_files", path=DOCS, name=f"*{n['name'][10:]}")
        path = listed(found, n["path"], "matches")
    s.call("read_file", path=path, **args)
    if hand_off(s, path):
        return
    branch = s.rng.random()
    if branch < 0.3:
        s.say(WORDS.recall_meeting_my_actions)
        s.call("grep_files", pattern="Maya:", path=path, fixed_string=True)
    elif branch < 0.5:
        s.say(WORDS.recall_meeting_mentions_sam)
        s.call("grep_files", pattern="sam", path=path, ignore_case=True)
    else:
        s.say(WORDS.recall_meeting_length)
        s.call("count_words", path=path)


@filesystem.intent(covers=("locate_paths", "append_file", "grep_files", "tail_file"), weight=1.3)
def add_todo(s: Scene) -> None:
    """Maya adds an item to her to-do list and asks what is still open."""
    start(s)
    item = s.rng.choice(WORDS.todo_items)
    if s.rows("SELECT 1 FROM nodes WHERE path = ? AND content LIKE ?", f"{DOCS}/todo.md", f"%{item}%"):
        raise Skip("already on the list")
    task = s.given(f"- [ ] {item}", f"'{item}'", "item", "append_file", "content")
    s.say(WORDS.add_todo, task=task)
    found = s.call("locate_paths", query="todo")
    todo = listed(found, f"{DOCS}/todo.md", "matches")
    s.call("append_file", path=todo, content=f"- [ ] {item}")
    remember(s, todo)
    if s.rng.random() < 0.6:
        s.say(WORDS.add_todo_still_open)
        s.call("grep_files", pattern="- [ ]", path=todo, fixed_string=True)
    else:
        s.say(WORDS.add_todo_tail)
        s.call("tail_file", path=todo, lines=5)


@filesystem.intent(covers=("list_recent_files", "head_file", "read_file"))
def catch_up(s: Scene) -> None:
    """After a few days away, Maya asks what she touched lately and opens the latest text."""
    start(s)
    days = s.rng.choice((2, 3, 5, 7, 10))
    where = s.rng.choice((HOME, HOME, DOCS, f"{HOME}/projects"))
    span = {
        2: "the last couple of days",
        3: "the last three days",
        5: "the past five days",
        7: "this past week",
        10: "the last ten days",
    }[days]
    place = {HOME: "anywhere in my home", DOCS: "in Documents", f"{HOME}/projects": "in my projects"}[where]
    few, args = opt(
        s, ("", {}), ("", {}), (" Just the latest five.", {"limit": 5}), (" No more than ten, please.", {"limit": 10})
    )
    s.say(WORDS.catch_up, place=place, span=span, few=few)
    got = s.call("list_recent_files", **({} if s.minimal else {"path": where, "days": days, **args}))
    text = [f for f in got["files"] if not s.rows("SELECT 1 FROM nodes WHERE path = ? AND binary = 1", f["path"])]
    if not text:
        raise Skip("nothing recent in text")
    if s.rng.random() < 0.5:
        n = s.rng.choice((5, 10, 20))
        s.say(WORDS.catch_up_head_newest, n=n)
        s.call("head_file", **({"path": text[0]["path"]} | ({} if n == 10 else {"lines": n})))
    else:
        s.say(WORDS.catch_up_open_newest)
        s.call("read_file", path=text[0]["path"])
    remember(s, text[0]["path"])


@filesystem.intent(covers=("list_directory", "diff_files", "grep_files"))
def compare_quarters(s: Scene) -> None:
    """Maya compares two quarterly summaries and then the revenue line across all of them."""
    start(s)
    a, b = s.sample("SELECT path, name FROM nodes WHERE parent = ? AND name GLOB 'q?-20??-summary.md'", 2, REPORTS)
    a, b = sorted((a, b), key=lambda r: (r["name"][3:7], r["name"][:2]))

    def q(r: dict[str, Any]) -> str:
        return f"{r['name'][:2].upper()} {r['name'][3:7]}"

    how, args = opt(
        s,
        ("", {}),
        (" Only the changed lines, no context around them.", {"context": 0}),
        (" Ignore differences in capitalisation.", {"ignore_case": True}),
        (" With plenty of context, say ten lines.", {"context": 10}),
    )
    s.say(WORDS.compare_quarters, a=q(a), b=q(b), how=how)
    listing = s.call("list_directory", path=REPORTS)
    s.call("diff_files", path_a=listed(listing, a["path"]), path_b=listed(listing, b["path"]), **args)
    s.say(WORDS.compare_quarters_revenue)
    if s.rng.random() < 0.5:
        s.call("grep_files", pattern="Revenue:", path=listing["path"], recursive=True, fixed_string=True)
    else:
        s.call("grep_files", pattern="revenue", path=listing["path"], recursive=True, ignore_case=True)


@filesystem.intent(covers=("list_users", "find_files", "read_file", "head_file"))
def colleague_shared(s: Scene) -> None:
    """Maya looks at what a colleague put in the team's shared folder."""
    start(s)
    who = s.pick(
        "SELECT u.username, u.full_name FROM users u WHERE u.username IN ('sam', 'alex') AND EXISTS "
        "(SELECT 1 FROM nodes n WHERE n.owner = u.username AND n.type = 'file' AND n.path > '/srv/shared/' "
        "AND n.path < '/srv/shared0')"
    )
    s.say(WORDS.colleague_shared, name=who["full_name"])
    users = s.call("list_users")
    login = next(u["username"] for u in users["users"] if u["full_name"] == who["full_name"])
    found = s.call("find_files", path="/srv/shared", owner=login, type="file")
    readable = [
        m["path"]
        for m in found["matches"]
        if s.rows("SELECT 1 FROM nodes WHERE path = ? AND binary = 0 AND (mode & 4) = 4", m["path"])
    ]
    if not readable:
        raise Skip("nothing readable")
    newest = max(readable, key=lambda p: (s.value("SELECT mtime FROM nodes WHERE path = ?", p), p))
    if s.rng.random() < 0.6:
        s.say(WORDS.colleague_shared_open_newest)
        s.call("read_file", path=newest)
        remember(s, newest)
    else:
        s.say(WORDS.colleague_shared_head_newest)
        s.call("head_file", path=newest, lines=5)
        remember(s, newest)


@filesystem.intent(covers=("get_distinct_values", "find_files", "count_words"))
def project_languages(s: Scene) -> None:
    """Maya asks what kinds of files make up a project, then lists one kind (or who owns a shared place)."""
    start(s)
    if s.rng.random() < 0.35:
        whose(s)
        return
    if s.rng.random() < 0.25:
        links_in(s)
        return
    proj = s.rng.choice(
        (
            f"{HOME}/projects/weather-cli",
            f"{HOME}/projects/inventory-api",
            PIPELINE,
            f"{HOME}/projects/blog",
            DOCS,
            f"{HOME}/Pictures",
        )
    )
    s.say(WORDS.project_languages, p=folder(s, proj))
    kinds = s.call("get_distinct_values", field="extension", path=proj)["values"]
    ext = s.rng.choice(sorted(e for e in kinds if e != "(none)"))
    words = {
        ".py": "Python",
        ".js": "JavaScript",
        ".md": "Markdown",
        ".csv": "CSV",
        ".log": "log",
        ".jpg": "JPEG",
        ".png": "PNG",
        ".json": "JSON",
        ".yaml": "YAML",
        ".yml": "YAML",
        ".txt": "text",
        ".toml": "TOML",
    }
    s.say(WORDS.project_languages_one_kind, k=words.get(ext, f"{ext} "))
    found = s.call("find_files", path=proj, name=f"*{ext}", type="file")
    if s.rng.random() < 0.3 and ext in (".md", ".txt", ".py") and found["matches"]:
        biggest = max(found["matches"], key=lambda m: (m["size"], m["path"]))
        s.say(WORDS.project_languages_count_biggest)
        s.call("count_words", path=biggest["path"])


def links_in(s: Scene) -> None:
    place, what = s.rng.choice(
        ((HOME, "my home"), ("/etc", "the system config"), ("/etc/nginx", "the nginx config folder"))
    )
    s.say(WORDS.links_in, w=what)
    kinds = s.call("get_distinct_values", field="type", path=place)["values"]
    if "symlink" not in kinds:
        raise Skip("no links")
    s.say(WORDS.links_in_list_links)
    s.call("find_files", path=place, type="symlink")


def whose(s: Scene) -> None:
    place, what = s.rng.choice(
        (
            ("/srv/shared", "the team's shared folder"),
            ("/tmp", "the temp folder"),
            ("/var/log", "the system logs"),
            ("/etc", "the system config"),
        )
    )
    s.say(WORDS.whose, w=what)
    owners = s.call("get_distinct_values", field="owner", path=place)["values"]
    who = s.rng.choice(sorted(o for o in owners if o != "root") or ["root"])
    s.say(WORDS.whose_one_owner, o=who)
    s.call("find_files", path=place, owner=who)
