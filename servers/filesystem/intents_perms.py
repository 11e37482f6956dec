"""Permissions and sharing: private files and folders, sharing with the team, handing files over and shortcuts."""

from __future__ import annotations

import posixpath

from hub.kit.intent import Ref, Scene, Skip
from servers.filesystem.core import filesystem
from servers.filesystem.intents import (
    DOCS,
    HOME,
    NOTES,
    PIPELINE,
    REPORTS,
    TEXTS,
    WORDS,
    OnIt,
    ask_one,
    exists,
    folder,
    remember,
    start,
)


def private_folder(s: Scene) -> None:
    """A whole folder of Maya's, and everything in it, made private."""
    d, what = s.rng.choice(
        (
            (f"{DOCS}/letters", "my letters"),
            (f"{HOME}/.ssh", "my ssh folder"),
            (REPORTS, "my reports"),
            (f"{DOCS}/recipes", "my recipes"),
        )
    )
    s.say(WORDS.private_folder, w=what)
    if s.rows(
        "SELECT 1 FROM nodes WHERE (path = ? OR (path > ? AND path < ?)) AND owner != 'maya'", d, d + "/", d + "0"
    ):
        raise Skip("something in there is not hers")
    info = s.call("get_file_info", path=d)
    s.call("change_mode", path=info["path"], mode="go-rwx", recursive=True)
    s.say(WORDS.private_folder_long_listing)
    s.call("list_directory", path=info["path"], long=True, show_hidden=True)


KEEP_PRIVATE = OnIt("change_mode", WORDS.keep_private)
CHECK_MODE = (
    OnIt("get_file_info", WORDS.check_mode_get_file_info),
    OnIt("list_directory", WORDS.check_mode_list_directory, {"long": True}),
)


@filesystem.intent(covers=("get_file_info", "change_mode", "list_directory"), weight=1.2, follows=True)
def lock_down(s: Scene) -> None:
    """Maya makes a private file readable only by her, or a script runnable (or, after a turn about a
    file, that file private)."""
    start(s)
    known = s.memory.get("path")
    if known and s.turns:
        if not s.rows(
            "SELECT 1 FROM nodes WHERE path = ? AND owner = 'maya' AND type = 'file' AND (mode & 63) != 0", known
        ):
            raise Skip("nothing to lock down")
        KEEP_PRIVATE.ask(s, known, mode=s.rng.choice(("600", "go-rwx")))
        return
    if s.rng.random() < 0.2:
        private_folder(s)
        return
    if s.rng.random() < 0.5:
        f = s.pick(
            "SELECT path, name FROM nodes WHERE owner = 'maya' AND type = 'file' AND (mode & 63) != 0 AND "
            "path IN (?, ?, ?, ?, ?)",
            f"{HOME}/.ssh/config",
            f"{HOME}/.ssh/known_hosts",
            f"{DOCS}/budget-2026.csv",
            f"{DOCS}/contacts.csv",
            f"{DOCS}/letters/cover-letter.md",
        )
        names = {
            "config": "my ssh config",
            "known_hosts": "my ssh known hosts",
            "budget-2026.csv": "my budget spreadsheet",
            "contacts.csv": "my contacts list",
            "cover-letter.md": "my cover letter",
        }
        mode, goal = "600", "only I can open it"
    else:
        f = s.pick(
            "SELECT path, name FROM nodes WHERE owner = 'maya' AND type = 'file' AND (mode & 64) = 0 AND parent = ?",
            f"{HOME}/projects/scripts",
        )
        names = {f["name"]: f"my {f['name']} script"}
        mode, goal = "u+x", "I can run it"
    s.say(WORDS.lock_down, what=names[f["name"]], What=names[f["name"]][:1].upper() + names[f["name"]][1:], goal=goal)
    info = s.call("get_file_info", path=f["path"])
    s.call("change_mode", path=info["path"], mode=mode)
    remember(s, info["path"])
    ask_one(s, CHECK_MODE, info["path"])


@filesystem.intent(
    covers=("get_current_user", "change_owner", "change_mode", "get_file_info", "list_directory"), weight=1.2
)
def share_with_team(s: Scene) -> None:
    """Maya lets the team group edit one of her documents (she is in that group; no root needed)."""
    start(s)
    f = s.pick(
        TEXTS + " AND group_name != 'team' AND (parent = ? OR parent = ? OR parent = ?)",
        REPORTS,
        f"{DOCS}/recipes",
        NOTES,
    )
    what = s.refer(
        f["path"],
        Ref("{n} in {w}", "SELECT path FROM nodes WHERE parent = ? AND name = ?", f["parent"], f["name"]),
        n=f["name"],
        w=folder(s, f["parent"]),
    )
    s.say(WORDS.share_with_team, what=what)
    me = s.call("get_current_user")
    if "team" not in me["groups"]:
        raise Skip("not in team")
    s.call("change_owner", path=f["path"], group="team")
    remember(s, f["path"])
    s.call("change_mode", path=f["path"], mode="g+w")
    if s.rng.random() < 0.5:
        s.say(WORDS.share_with_team_file_info)
        s.call("get_file_info", path=f["path"])
    else:
        s.say(WORDS.share_with_team_long_listing)
        s.call("list_directory", path=f["path"], long=True)


@filesystem.intent(covers=("list_users", "switch_user", "change_owner"), weight=1.2)
def hand_over(s: Scene) -> None:
    """Maya hands one of her files over to a colleague; giving a file away takes root."""
    start(s)
    person = s.pick("SELECT username, full_name FROM users WHERE username IN ('sam', 'alex')")
    f = s.pick(
        "SELECT path, name, parent FROM nodes WHERE owner = 'maya' AND type = 'file' AND "
        "(path = '/srv/shared/onboarding.md' OR parent = ?)",
        REPORTS,
    )
    what = (
        "the onboarding checklist in the shared folder"
        if f["path"].startswith("/srv/")
        else s.refer(
            f["path"],
            Ref("{n} in my reports", "SELECT path FROM nodes WHERE parent = ? AND name = ?", f["parent"], f["name"]),
            n=f["name"],
        )
    )
    s.say(WORDS.hand_over, p=person["full_name"], what=what)
    users = s.call("list_users")
    login = next(u["username"] for u in users["users"] if u["full_name"] == person["full_name"])
    admin = next(u["username"] for u in users["users"] if u["uid"] == 0)
    s.call("switch_user", username=admin)
    if f["path"].startswith("/srv/") or s.rng.random() < 0.5:
        s.call("change_owner", path=f["path"], owner=login)
    else:
        s.turns[-1].phrasing += " Their own group should have it too."
        s.call("change_owner", path=f["path"], owner=login, group=login)
    s.say(WORDS.hand_over_back_to_me)
    s.call("switch_user", username="maya")


@filesystem.intent(covers=("create_symlink", "list_directory", "show_tree"))
def shortcut(s: Scene) -> None:
    """Maya wants a shortcut in her home to a place she visits often."""
    start(s)
    target, what = s.rng.choice(
        (
            ("/var/log/nginx", "the nginx logs"),
            ("/srv/shared/releases", "the team's release notes"),
            (f"{PIPELINE}/logs", "the ETL run logs"),
            ("/etc/nginx/sites-available", "the nginx site configs"),
            (NOTES, "my meeting notes"),
            (f"{HOME}/projects/blog/posts", "my blog posts"),
        )
    )
    name = s.rng.choice(("nginx-logs", "logs", "quick", "go-" + posixpath.basename(target)))
    if exists(s, f"{HOME}/{name}"):
        raise Skip("name taken")
    new = s.given(f"{HOME}/{name}", f"'{name}'", "name", "create_symlink", "link_path")
    s.say(WORDS.shortcut, what=what, new=new)
    made = s.call("create_symlink", target=target, link_path=f"{HOME}/{name}")
    if s.rng.random() < 0.35:
        s.say(WORDS.shortcut_list_target)
        s.call("list_directory", path=made["link"])
    elif s.rng.random() < 0.5:
        s.say(WORDS.shortcut_tree_target)
        s.call("show_tree", path=made["link"], max_depth=1)
    else:
        s.say(WORDS.shortcut_newest_first)
        s.call("list_directory", path=made["link"], sort_by="modified", reverse=True)
