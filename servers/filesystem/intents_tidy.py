"""Tidying up and writing: filing downloads, clearing /tmp and space hogs, empty folders and dead links; new
notes, a changed setting and a published post."""

from __future__ import annotations

import posixpath
import re

from hub.kit.intent import Scene, Skip
from servers.filesystem.core import filesystem
from servers.filesystem.intents import (
    DOCS,
    FOLDERS,
    HOME,
    NOTES,
    PIPELINE,
    WORDS,
    exists,
    folder,
    hand_off,
    listed,
    opt,
    remember,
    slug,
    start,
    under,
)


@filesystem.intent(covers=("make_directory", "find_files", "move_path", "list_directory"), weight=1.2)
def file_downloads(s: Scene) -> None:
    """Maya makes a folder in Documents and moves some downloads into it."""
    start(s)
    kind = s.rng.choice(
        (
            ("invoice-*.pdf", "the invoice PDFs", ("invoices", "bills", "paperwork", "invoices-2026")),
            ("boarding-pass-*.pdf", "my boarding pass", ("travel", "trips", "lisbon-trip")),
            ("exchange-rates*.csv", "the exchange rates sheet", ("finance", "money", "rates")),
        )
    )
    if not 1 <= len(under(s, f"{HOME}/Downloads", kind[0])) <= 2:
        raise Skip("no such download, or too many")
    name = s.rng.choice(kind[2])
    if exists(s, f"{DOCS}/{name}"):
        raise Skip("that folder exists")
    new = s.given(f"{DOCS}/{name}", f"'{name}'", "folder name", "make_directory", "path")
    s.say(WORDS.file_downloads, new=new, what=kind[1], What=kind[1][:1].upper() + kind[1][1:])
    made = s.call("make_directory", path=f"{DOCS}/{name}")
    found = s.call("find_files", path=f"{HOME}/Downloads", name=kind[0], type="file")["matches"]
    for m in found:
        moved = s.call("move_path", source=m["path"], destination=made["path"])
        remember(s, moved["destination"])
    if s.rng.random() < 0.5:
        s.say(WORDS.file_downloads_list_folder)
        s.call("list_directory", path=made["path"])
    else:
        s.say(WORDS.file_downloads_long_listing)
        s.call("list_directory", path=made["path"], long=True)


@filesystem.intent(covers=("find_files", "remove_path", "list_directory"))
def clean_tmp(s: Scene) -> None:
    """Maya clears out her own leftovers in /tmp (other people's stay)."""
    start(s)
    mine = s.rows("SELECT path FROM nodes WHERE parent = '/tmp' AND owner = 'maya'")
    if not mine or len(mine) > 3:
        raise Skip("nothing, or too much, of hers in /tmp")
    s.say(WORDS.clean_tmp)
    found = s.call("find_files", path="/tmp", owner="maya")["matches"]
    for m in found[:2]:
        s.call("remove_path", path=m["path"])
    if s.rng.random() < 0.5:
        s.say(WORDS.clean_tmp_anything_left)
        s.call("find_files", path="/tmp", owner="maya")
    else:
        s.say(WORDS.clean_tmp_long_listing)
        s.call("list_directory", path="/tmp", long=True)


@filesystem.intent(covers=("disk_usage", "remove_path"), weight=1.2)
def space_hogs(s: Scene) -> None:
    """Maya asks what takes the most room in her home, drills into the biggest, and deletes screenshots."""
    start(s)
    s.say(WORDS.space_hogs)
    few, args = opt(s, ("", {}), ("", {}), (" Top five is enough.", {"limit": 5}))
    s.turns[-1].phrasing += few
    top = s.call("disk_usage", path=HOME, **args)["entries"][0]
    if top["type"] != "dir":
        raise Skip("the largest entry is a file")
    inner = s.call("disk_usage", path=top["path"])["entries"]
    shots = [e for e in inner if e["path"].endswith("/screenshots")]
    if not shots:
        raise Skip("no screenshots folder")
    s.say(WORDS.space_hogs_delete_screenshots)
    s.call("remove_path", path=shots[0]["path"], recursive=True)
    if s.rng.random() < 0.4:
        s.say(WORDS.space_hogs_size_after)
        s.call("disk_usage", path=top["path"])


@filesystem.intent(covers=("list_directory", "remove_directory"))
def drop_empty_folder(s: Scene) -> None:
    """Maya checks that a folder she never used is empty and removes it."""
    start(s)
    d = s.pick(
        "SELECT n.path, n.name, n.parent FROM nodes n WHERE n.type = 'dir' AND n.owner = 'maya' AND n.path > ? "
        "AND n.path < ? AND NOT EXISTS (SELECT 1 FROM nodes c WHERE c.parent = n.path)",
        HOME + "/",
        HOME + "0",
    )
    where = folder(s, d["parent"]) if d["parent"] in FOLDERS else d["parent"].replace(HOME, "~", 1)
    s.say(
        "Is the {n} folder in {w} empty?",
        "Is there anything left in {w}/{n}?" if "/" in where else "Does {n} under {w} still hold anything?",
        "Check whether {n} in {w} has anything in it.",
        minimal=["I think {n} in {w} is empty; is it?"],
        n=d["name"],
        w=where,
    )
    if s.rng.random() < 0.5 and not s.minimal:
        s.turns[-1].phrasing += " Hidden things count too."
        got = s.call("list_directory", path=d["path"], show_hidden=True)
    else:
        got = s.call("list_directory", path=d["path"])
    s.say(WORDS.drop_empty_folder)
    s.call("remove_directory", path=got["path"])


@filesystem.intent(covers=("get_file_info", "remove_path", "list_directory", "read_file"))
def check_shortcut(s: Scene) -> None:
    """Maya asks where a link in her home leads; a dead one goes, a live one gets opened."""
    start(s)
    link = s.pick("SELECT path, name, target FROM nodes WHERE parent = ? AND type = 'symlink'", HOME)
    s.say(WORDS.check_shortcut, n=link["name"])
    info = s.call("get_file_info", path=link["path"], follow_symlinks=False)
    dest = s.rows("SELECT type FROM nodes WHERE path = ?", posixpath.normpath(posixpath.join(HOME, info["target"])))
    if not dest:
        s.say(WORDS.check_shortcut_delete_dead)
        s.call("remove_path", path=info["path"])
    elif dest[0]["type"] == "dir":
        s.say(WORDS.check_shortcut_list_dir)
        s.call("list_directory", path=info["path"])
    else:
        s.say(WORDS.check_shortcut_open_file)
        s.call("read_file", path=info["path"])
        remember(s, info["path"])


@filesystem.intent(covers=("touch_file", "write_file", "append_file"), weight=1.2)
def new_meeting_note(s: Scene) -> None:
    """Maya starts an empty note for today's meeting, then writes its heading and agenda."""
    start(s)
    topic = s.rng.choice(WORDS.meeting_topics)
    name = f"{s.now.strftime('%Y-%m-%d')}-{slug(topic).replace(':', '')}.md"
    if exists(s, f"{NOTES}/{name}"):
        raise Skip("the note exists")
    new = s.given(f"{NOTES}/{name}", f"'{name}'", "name", "touch_file", "path")
    s.say(WORDS.new_meeting_note, t=topic, new=new)
    made = s.call("touch_file", path=f"{NOTES}/{name}")
    heading, line = f"# {topic} - {s.now.strftime('%Y-%m-%d')}", s.rng.choice(WORDS.note_text)
    body = f"{heading}\n\n{line}\n"
    said = s.rng.choice(
        ("the heading '{}' with '{}' under it", "'{}' as the title, then '{}'", "a '{}' heading, then the line '{}'")
    )
    text = s.given(body, said.format(heading, line), "text", "write_file", "content")
    s.say(WORDS.new_meeting_note_write, text=text)
    s.call("write_file", path=made["path"], content=body)
    remember(s, made["path"])
    if s.rng.random() < 0.5:
        extra = s.rng.choice(("Follow up with Alex on the numbers", "Send the slides around", "Book the next session"))
        s.say(WORDS.new_meeting_note_append, x=extra)
        s.call("append_file", path=made["path"], content=f"- {extra}")


SETTINGS = (  # file, the folder searched, what Maya calls it (the key and the folder), the key, its line, new values
    (
        f"{HOME}/projects/weather-cli/src/weather_cli/api.py",
        f"{HOME}/projects/weather-cli",
        "the TIMEOUT in my weather-cli project",
        "TIMEOUT",
        "TIMEOUT = {v}",
        (20, 30, 45),
    ),
    (
        f"{HOME}/projects/weather-cli/src/weather_cli/cache.py",
        f"{HOME}/projects/weather-cli",
        "the TTL_SECONDS cache setting in my weather-cli project",
        "TTL_SECONDS",
        "TTL_SECONDS = {v}",
        (1200, 1800, 3600),
    ),
    (
        f"{PIPELINE}/config.yaml",
        PIPELINE,
        "the retention_days setting in the data-pipeline config",
        "retention_days",
        "retention_days: {v}",
        (14, 120, 180, 365),
    ),
    (
        f"{HOME}/.config/app/settings.json",
        f"{HOME}/.config",
        "the font_size setting of my app under ~/.config",
        "font_size",
        '"font_size": {v}',
        (15, 16, 18),
    ),
)


@filesystem.intent(covers=("grep_files", "replace_in_file", "read_file"), weight=1.3)
def tweak_setting(s: Scene) -> None:
    """Maya changes one setting in a config or source file, found by searching for its key in the project; she
    says the new line as it should read."""
    start(s)
    path, where, what, key, line, values = s.rng.choice(SETTINGS)
    value = s.rng.choice(values)
    current = s.rows("SELECT content FROM nodes WHERE path = ?", path)[0]["content"]
    pattern = re.escape(line).replace(re.escape("{v}"), r"\d+")
    old = re.search(pattern, current)
    if old is None or old.group(0) == line.format(v=value):
        raise Skip("already set")
    new = s.given(line.format(v=value), line.format(v=value), "replacement line", "replace_in_file", "replacement")
    s.say(WORDS.tweak_setting, what=what, What=what[:1].upper() + what[1:], new=new)
    hits = s.call("grep_files", pattern=key, path=where, recursive=True)["matches"]
    hit = [h for h in hits if h["path"] == path and re.search(pattern, h["line"])]
    if len(hit) != 1:
        raise Skip("the setting is not found once")
    found = re.search(pattern, hit[0]["line"])  # only the setting itself: the line's comma or comment stays
    if found is None:
        raise Skip("the setting is not on its line")
    s.call("replace_in_file", path=hit[0]["path"], pattern=found.group(0), replacement=line.format(v=value))
    if hand_off(s, hit[0]["path"]):
        return
    if s.rng.random() < 0.5:
        s.say(WORDS.tweak_setting_show_file)
        s.call("read_file", path=hit[0]["path"])
    else:
        s.say(WORDS.tweak_setting_numbered)
        s.call("read_file", path=hit[0]["path"], number_lines=True)
    remember(s, hit[0]["path"])


@filesystem.intent(covers=("list_directory", "move_path", "replace_in_file"))
def publish_post(s: Scene) -> None:
    """Maya publishes her draft blog post: it moves to posts, dated today."""
    start(s)
    drafts = f"{HOME}/projects/blog/drafts"
    post = s.pick("SELECT path, name, content FROM nodes WHERE parent = ? AND name GLOB '20*.md'", drafts)
    title = post["content"].split('title: "', 1)[1].split('"', 1)[0]
    s.say(WORDS.publish_post, t=title)
    listing = s.call("list_directory", path=drafts)
    src = listing["entries"][0]["path"] if s.minimal else listed(listing, post["path"])
    if src != post["path"]:
        raise Skip("more than one draft")
    today = s.now.strftime("%Y-%m-%d")
    dest = f"{HOME}/projects/blog/posts/{today}-{post['name'][11:]}"
    moved = s.call("move_path", source=src, destination=dest)
    if hand_off(s, moved["destination"]):
        return
    s.say(WORDS.publish_post_set_date)
    s.call(
        "replace_in_file", path=moved["destination"], pattern=f"date: {post['name'][:10]}", replacement=f"date: {today}"
    )
    remember(s, moved["destination"])
