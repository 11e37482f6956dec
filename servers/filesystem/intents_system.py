"""Logs and the system: pipeline failures, noisy services, failed logins, disk health, where the shell is and
a project tour."""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Scene, Skip
from servers.filesystem.core import filesystem
from servers.filesystem.intents import HOME, PIPELINE, WORDS, folder, hand_off, remember, start


@filesystem.intent(covers=("grep_files", "read_file", "tail_file"))
def pipeline_failures(s: Scene) -> None:
    """Maya checks whether the nightly ETL runs failed, then looks at one night's log."""
    start(s)
    if not s.rows("SELECT 1 FROM nodes WHERE parent = ? AND content LIKE '%ERROR%'", f"{PIPELINE}/logs"):
        raise Skip("no failed run")
    s.say(WORDS.pipeline_failures)
    if s.rng.random() < 0.4 and not s.minimal:
        s.turns[-1].phrasing += " Just tell me which nights, not every line."
        files = s.call("grep_files", pattern="ERROR", path=f"{PIPELINE}/logs", recursive=True, files_only=True)["files"]
        last = {"path": max(files)}
    else:
        hits = s.call("grep_files", pattern="ERROR", path=f"{PIPELINE}/logs", recursive=True)["matches"]
        last = max(hits, key=lambda m: m["path"])
    if s.rng.random() < 0.5:
        s.say(WORDS.pipeline_failures_full_log)
        s.call("read_file", path=last["path"])
    else:
        s.say(WORDS.pipeline_failures_tail_log)
        s.call("tail_file", path=last["path"], lines=5)
    remember(s, last["path"])


@filesystem.intent(covers=("tail_file", "unique_lines", "grep_files"))
def noisy_services(s: Scene) -> None:
    """Maya looks at the end of the system log, then at which services talk the most."""
    start(s)
    n = s.rng.choice((10, 15, 20, 30))
    s.say(WORDS.noisy_services, n=n)
    got = s.call("tail_file", path="/var/log/syslog", **({} if s.minimal else {"lines": n}))
    remember(s, got["path"])
    if s.rng.random() < 0.6:
        s.say(WORDS.noisy_services_by_service)
        s.call("unique_lines", path=got["path"], field=5, count=True, most_common_first=True)
    else:
        s.say(WORDS.noisy_services_firewall)
        s.call("grep_files", pattern="UFW BLOCK", path=got["path"], fixed_string=True)


@filesystem.intent(covers=("get_file_info", "switch_user", "grep_files", "tail_file"), weight=1.2)
def failed_logins(s: Scene) -> None:
    """Maya (an admin via wheel) checks the auth log for failed ssh logins, which needs root."""
    start(s)
    who = None if s.level == "minimal" else s.rng.choice(("admin", "oracle", None))
    which = f" for '{who}'" if who else ""
    s.say(WORDS.failed_logins, which=which)
    info = s.call("get_file_info", path="/var/log/auth.log")
    if info["readable"]:
        raise Skip("maya can read it already")
    s.call("switch_user", username=info["owner"])
    pattern = f"Failed password for invalid user {who}" if who else "Failed password"
    if s.rng.random() < 0.5:
        s.call("grep_files", pattern=pattern, path=info["path"], fixed_string=True)
    else:
        s.call("grep_files", pattern=pattern.lower(), path=info["path"], ignore_case=True)
    if s.rng.random() < 0.5:
        s.say(WORDS.failed_logins_switch_back)
        s.call("switch_user", username="maya")
    else:
        n = s.rng.choice((10, 20))
        s.say(WORDS.failed_logins_tail_log, n=n)
        s.call("tail_file", path=info["path"], lines=n)


@filesystem.intent(covers=("get_disk_free", "grep_files", "read_file"))
def disk_health(s: Scene) -> None:
    """Maya checks how full the drive is and how that drive is mounted."""
    start(s)
    s.say(WORDS.disk_health)
    df = s.call("get_disk_free")
    if s.rng.random() < 0.5:
        hits = s.call("grep_files", pattern=df["device"], path="/etc/fstab", fixed_string=True)
    else:
        hits = s.call("grep_files", pattern=df["device"], path="/etc/fstab")
    fstab = hits["matches"][0]["path"]
    if hand_off(s, fstab):
        return
    if s.rng.random() < 0.5:
        s.say(WORDS.disk_health_read_fstab)
        s.call("read_file", path=fstab)
    else:
        s.say(WORDS.disk_health_fstab_numbered)
        s.call("read_file", path=fstab, number_lines=True)


@filesystem.intent(covers=("print_working_directory", "get_current_user", "list_directory", "change_directory"))
def where_am_i(s: Scene) -> None:
    """Maya asks where her shell is, what is around, and moves into one of the folders."""
    start(s)
    s.say(WORDS.where_am_i)
    how, args = s.rng.choice(
        (
            ("", {}),
            (" Hidden things too.", {"show_hidden": True}),
            (" With sizes and dates, please.", {"long": True}),
            (" Newest first.", {"sort_by": "modified", "reverse": True}),
            (" Biggest first.", {"sort_by": "size"}),
        )
    )
    if s.minimal:
        how, args = "", {}
    s.turns[-1].phrasing += how
    if not s.minimal and s.rng.random() < 0.35:
        s.turns[-1].phrasing = "Which account is this shell on, and which folder? Show me what's in it." + how
        cwd = s.call("get_current_user")["cwd"]
    else:
        cwd = s.call("print_working_directory")["cwd"]
    around = s.call("list_directory", path=cwd, **args)
    dirs = [e for e in around["entries"] if e["type"] == "dir"]
    if not dirs:
        raise Skip("no folder to go into")
    target = s.rng.choice(dirs)
    s.say(WORDS.where_am_i_go_into, name=target["name"])
    s.call("change_directory", path=target["path"])


@filesystem.intent(covers=("change_directory", "show_tree", "grep_files"), weight=1.2)
def project_tour(s: Scene) -> None:
    """Maya goes into a project, gets its layout and the TODOs left in it."""
    start(s)
    proj = s.rng.choice(
        (f"{HOME}/projects/weather-cli", f"{HOME}/projects/inventory-api", PIPELINE, f"{HOME}/projects/blog")
    )
    depth = s.rng.choice((2, 3))
    s.say(WORDS.project_tour, p=folder(s, proj), d=depth)
    cwd = s.call("change_directory", path=proj)["cwd"]
    args: dict[str, Any] = {"path": cwd} if s.minimal else {"path": cwd, "max_depth": depth}
    if not s.minimal and s.rng.random() < 0.3:
        s.turns[-1].phrasing += " Only the folders."
        args["directories_only"] = True
    s.call("show_tree", **args)
    code = {
        f"{HOME}/projects/weather-cli": ("*.py", "Python"),
        f"{HOME}/projects/inventory-api": ("*.js", "JavaScript"),
        PIPELINE: ("*.py", "Python"),
        f"{HOME}/projects/blog": ("*.md", "Markdown"),
    }[proj]
    if s.rng.random() < 0.5:
        s.say(WORDS.project_tour_todos)
        s.call("grep_files", pattern="TODO", path=cwd, recursive=True)
    else:
        s.say(WORDS.project_tour_todos_in_kind, k=code[1])
        s.call("grep_files", pattern="TODO", path=cwd, recursive=True, include=code[0])
