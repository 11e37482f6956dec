"""Looking things up: where Maya wrote something, big old files, a config value, and how long a document is
(with one more question about the file the dialogue is on)."""

from __future__ import annotations

import posixpath
from typing import Any

from hub.kit.intent import Ref, Scene, Skip
from servers.filesystem.core import filesystem
from servers.filesystem.intents import (
    DOCS,
    HOME,
    NOTES,
    REPORTS,
    TEXTS,
    WORDS,
    OnIt,
    ask_one,
    folder,
    hand_off,
    listed,
    remember,
    start,
)

SEARCH_WORDS = (
    ("Postgres", "the Postgres upgrade"),
    ("SSO", "the SSO integration"),
    ("billing export", "the billing export"),
    ("retry logic", "the retry logic"),
    ("load balancer", "the load balancer config"),
    ("search index", "the search index"),
    ("CI pipeline", "the CI pipeline"),
    ("staging", "the staging cluster"),
    ("backup schedule", "the backup schedule"),
    ("survey", "the customer survey"),
)


@filesystem.intent(covers=("grep_files", "read_file", "head_file"), weight=1.3)
def where_did_i_write(s: Scene) -> None:
    """Maya looks for where she wrote about something, then opens one of those documents."""
    start(s)
    word, topic = s.rng.choice(SEARCH_WORDS)
    place, where = s.rng.choice(
        ((DOCS, "in my documents"), (NOTES, "in my meeting notes"), (f"{HOME}/projects/blog", "on my blog"))
    )
    if s.minimal:  # no place given: the agent searches her whole home
        place = HOME
    hits = s.rows(
        "SELECT path FROM nodes WHERE type = 'file' AND binary = 0 AND path > ? AND path < ? AND content LIKE ?",
        place + "/",
        place + "0",
        f"%{word}%",
    )
    if not hits:
        raise Skip("never mentioned")
    how, args = s.rng.choice(
        (
            ("", {}),
            (" Case doesn't matter.", {"ignore_case": True}),
            (" Only in the Markdown docs.", {"include": "*.md"}),
            (" Just tell me which documents.", {"files_only": True}),
        )
    )
    if s.minimal:
        how, args = "", {}
    subject = s.given(word, topic, "topic", "grep_files", "pattern")
    s.say(WORDS.where_did_i_write, t=subject, w=where, how=how)
    found = s.call("grep_files", pattern=word, path=place, recursive=True, **args)
    paths = found["files"] if "files" in found else sorted({m["path"] for m in found["matches"]})
    if not paths:
        raise Skip("nothing on the first page")
    first = paths[-1]
    if s.rng.random() < 0.5:
        s.say(WORDS.where_did_i_write_open_last)
        s.call("read_file", path=first)
    else:
        s.say(WORDS.where_did_i_write_head_last)
        s.call("head_file", path=first)
    remember(s, first)


@filesystem.intent(covers=("find_files", "get_file_info", "move_path"), weight=1.2)
def big_old_things(s: Scene) -> None:
    """Maya hunts for large files (optionally old ones), then looks at or moves the biggest."""
    start(s)
    kind, size, words = s.rng.choice(
        (
            (None, s.rng.choice((2, 4, 5)) * 1_000_000, " files"),
            ("*.jpg", s.rng.choice((3, 5, 6)) * 1_000_000, " photos"),
            ("*.png", s.rng.choice((200, 500)) * 1_000, " screenshots"),
            ("*.pdf", s.rng.choice((100, 300)) * 1_000, " PDFs"),
        )
    )
    year, september = f"{s.now.year}-01-01", f"{s.now.year - (s.now.month <= 9)}-09-01"
    older = s.rng.choice((None, year, september))
    big = f"{size // 1_000_000} MB" if size >= 1_000_000 else f"{size // 1_000} KB"
    age = {None: "", year: " from before this year", september: " older than last September"}[older]
    s.say(WORDS.big_old_things, k=words, big=big, age=age)
    args: dict[str, Any] = {"path": HOME, "min_size": size}
    if older and not s.minimal:
        args["modified_before"] = older
    if kind:
        args["name"] = kind
    elif not s.minimal and s.rng.random() < 0.5:
        args["type"] = "file"
    got = s.call("find_files", **args)
    found = got["matches"]
    if not found or got["total"] > got["count"]:
        raise Skip("nothing that big, or more than a page")
    top = max(found, key=lambda m: (m["size"], m["path"]))
    if s.rng.random() < 0.5:
        s.say(WORDS.big_old_things_biggest_info)
        s.call("get_file_info", path=top["path"])
    else:
        s.say(WORDS.big_old_things_move_biggest)
        s.call("move_path", source=top["path"], destination=f"{HOME}/backups")


CONFIGS = (
    ("nginx", "the nginx config", "nginx.conf"),
    ("sshd_config", "the ssh server settings", "sshd_config"),
    ("inventory-api.conf", "the nginx site for the inventory app", "inventory-api.conf"),
    ("crontab", "the system crontab", "crontab"),
    ("hosts", "the hosts table", "hosts"),
    ("gitconfig", "my git settings", ".gitconfig"),
    ("settings.json", "my editor settings", "settings.json"),
)


@filesystem.intent(covers=("locate_paths", "read_file", "head_file", "count_words"), weight=1.2)
def look_up_config(s: Scene) -> None:
    """Maya wants to see a config whose location she does not remember."""
    start(s)
    query, what, name = s.rng.choice(CONFIGS)
    s.say(WORDS.look_up_config, what=what)
    found = s.call("locate_paths", query=query)["matches"]
    files = [m["path"] for m in found if m["type"] == "file" and posixpath.basename(m["path"]) == name]
    if len(files) != 1:
        raise Skip("not one file by that name")
    if s.rng.random() < 0.6:
        s.call("read_file", path=files[0])
    else:
        s.turns[-1].phrasing += " The first 15 lines are enough."
        s.call("head_file", path=files[0], lines=15)
    if hand_off(s, files[0]):
        return
    s.say(WORDS.look_up_config_line_count)
    s.call("count_words", path=files[0])


@filesystem.intent(
    covers=(
        "list_directory",
        "find_files",
        "locate_paths",
        "count_words",
        "get_file_info",
        "tail_file",
        "compute_checksum",
        "read_file",
        "grep_files",
    ),
    follows=True,
)
def size_up(s: Scene) -> None:
    """Maya asks how long a document is and when she last changed it (or, later, how long that file is now)."""
    start(s)
    known = s.memory.get("path")
    if known and s.turns:
        if not s.rows("SELECT 1 FROM nodes WHERE path = ? AND type = 'file' AND binary = 0 AND (mode & 4) = 4", known):
            raise Skip("not a text")
        ask_one(s, MORE_ON_IT, known)
        return
    f = s.pick(TEXTS + " AND parent IN (?, ?, ?)", f"{DOCS}/letters", f"{DOCS}/recipes", REPORTS)
    title = f["name"][:-3].replace("-", " ")
    scope = s.rng.choice(("folder", "folder", "documents", "machine"))
    sql = {
        "folder": ("the {t} doc in {w}", "SELECT path FROM nodes WHERE parent = ? AND name = ?", f["parent"]),
        "documents": (
            "the {t} doc, somewhere in my Documents",
            "SELECT path FROM nodes WHERE path > ? AND path < ? AND name = ?",
            DOCS + "/",
            DOCS + "0",
        ),
        "machine": ("my {t} doc, wherever it is", "SELECT path FROM nodes WHERE name = ?"),
    }[scope]
    what = s.refer(f["path"], Ref(sql[0], sql[1], *sql[2:], f["name"]), t=title, w=folder(s, f["parent"]))
    s.say(WORDS.size_up, what=what)
    if scope == "folder":
        path = listed(s.call("list_directory", path=f["parent"]), f["path"])
    elif scope == "documents":
        path = listed(s.call("find_files", path=DOCS, name=f["name"]), f["path"], "matches")
    else:
        path = listed(s.call("locate_paths", query=f["name"]), f["path"], "matches")
    s.call("count_words", path=path)
    if hand_off(s, path):
        return
    ask_one(s, MORE_ON_IT[1:2], path)
    remember(s, path)


MORE_ON_IT = (  # one more question about the file the dialogue is on
    OnIt("count_words", WORDS.more_on_it_count_words),
    OnIt("get_file_info", WORDS.more_on_it_get_file_info),
    OnIt("tail_file", WORDS.more_on_it_tail_file, numbers=(3, 5, 8), number="lines"),
    OnIt("compute_checksum", WORDS.more_on_it_sha256),
    OnIt("compute_checksum", WORDS.more_on_it_md5, {"algorithm": "md5"}),
    OnIt("read_file", WORDS.more_on_it_numbered, {"number_lines": True}),
    OnIt("list_directory", WORDS.more_on_it_list_directory, {"long": True}),
    OnIt("read_file", WORDS.more_on_it_from_line, numbers=(5, 10, 20), number="start_line"),
    OnIt("grep_files", WORDS.more_on_it_grep_files, {"pattern": "todo", "ignore_case": True}),
)
