"""What people want of their machine: Maya, the main user, finding, reading, tidying and sharing her files.

The user is maya (Maya Lindqvist) at her shell. She knows her files by where she keeps them ("my notes
folder", "the reports in Documents"), by what they are about (the meeting on a topic, the Q1 summary, a
recipe) and by when she wrote them; she rarely knows exact names. The agent discovers paths with
``list_directory``, ``find_files``, ``locate_paths`` or ``list_recent_files`` and acts on the absolute
paths those results carry. Colleagues are named as people (Sam Okafor), their user names come from
``list_users``; anything only root may do goes through ``switch_user('root')`` and back.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

from hub.kit.intent import Ref, Scene, Skip, day
from servers.filesystem import (  # noqa: F401  (tools before intents)
    tools_archive,
    tools_nav,
    tools_nav_find,
    tools_text,
    tools_write,
    tools_write_paths,
)
from servers.filesystem.core import filesystem

HOME = "/home/maya"
DOCS = f"{HOME}/Documents"
NOTES = f"{DOCS}/notes"
REPORTS = f"{DOCS}/reports"
PIPELINE = f"{HOME}/projects/data-pipeline"
MAYA = "Maya Lindqvist"
FOLDERS = {  # where Maya keeps things, as she says it
    NOTES: ("my notes folder", "my meeting notes", "Documents/notes"),
    REPORTS: ("the reports folder", "my quarterly reports", "Documents/reports"),
    f"{DOCS}/recipes": ("my recipes", "the recipes folder", "Documents/recipes"),
    f"{DOCS}/letters": ("my letters", "the letters folder in Documents", "Documents/letters"),
    f"{HOME}/Downloads": ("my downloads", "the Downloads folder", "Downloads"),
    f"{HOME}/Pictures": ("my pictures", "the photos", "Pictures"),
    f"{HOME}/projects/blog": ("my blog project", "the blog", "projects/blog"),
    f"{HOME}/projects/weather-cli": ("the weather-cli project", "my weather app", "projects/weather-cli"),
    f"{HOME}/projects/inventory-api": (
        "the inventory-api project",
        "the inventory service code",
        "projects/inventory-api",
    ),
    PIPELINE: ("the data-pipeline project", "my ETL project", "projects/data-pipeline"),
    f"{HOME}/projects/scripts": ("my scripts folder", "my little shell scripts", "projects/scripts"),
    f"{HOME}/Music": ("my music folder", "the playlists", "Music"),
    f"{HOME}/backups": ("my backups folder", "the backups", "backups"),
}
TEXTS = "SELECT path, name, parent, size, mtime FROM nodes WHERE type = 'file' AND binary = 0 AND owner = 'maya'"


def start(s: Scene) -> None:
    """The user is maya at her own shell."""
    s.be(MAYA)


def folder(s: Scene, path: str) -> str:
    return s.rng.choice(FOLDERS[path]) if path in FOLDERS else path.replace(HOME, "~", 1)


def under(s: Scene, path: str, glob: str) -> list[dict[str, Any]]:
    return s.rows("SELECT path, name, size, mtime, type FROM nodes WHERE parent = ? AND name GLOB ?", path, glob)


def exists(s: Scene, path: str) -> bool:
    return bool(s.rows("SELECT 1 FROM nodes WHERE path = ?", path))


def listed(result: dict[str, Any], path: str, key: str = "entries") -> str:
    """``path`` as a listing returned it (``Skip`` when it is past the first page)."""
    found = [e["path"] for e in result[key] if e["path"] == path]
    if not found:
        raise Skip(f"{path} is not on the first page")
    return str(found[0])


def opt(s: Scene, *choices: tuple[str, dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    """A preference the user states: its words and the optional arguments they imply (none at level minimal)."""
    words, args = s.rng.choice(choices)
    return ("", {}) if s.minimal else (words, dict(args))


def remember(s: Scene, path: str) -> None:
    """The file this turn was about, for a follow-up ("make it private", "keep a copy of it")."""
    s.memory["path"] = path


def hand_off(s: Scene, path: str) -> bool:
    """Sometimes the opening turn is all this intent says: the next question about ``path`` is left to a
    follow-up intent (how long it is, its checksum, make it private, keep a copy)."""
    remember(s, path)
    return s.rng.random() < 0.35


def slug(text: str) -> str:
    return text.lower().replace(" ", "-")


def note_of(s: Scene, where: str = "1=1", *params: Any) -> tuple[dict[str, Any], str]:
    """A dated meeting note, named by its topic (and its day when the topic came up twice)."""
    n = s.pick(
        f"SELECT path, name, mtime FROM nodes WHERE parent = ? AND name GLOB '20*.md' AND ({where})", NOTES, *params
    )
    when, topic = n["name"][:10], n["name"][11:-3]
    words = topic.replace("-", " ").replace("q3", "Q3").replace("api", "API")
    text = s.refer(
        n["path"],
        Ref(
            "my notes from the {t} meeting",
            "SELECT path FROM nodes WHERE parent = ? AND name GLOB ?",
            NOTES,
            f"20??-??-??-{topic}.md",
        ),
        Ref("my {t} meeting notes from {d}", "SELECT path FROM nodes WHERE parent = ? AND name = ?", NOTES, n["name"]),
        t=words,
        d=day(when, s.now).removeprefix("on "),
    )
    return n, text


# Reading and finding ---------------------------------------------------------------------------


@filesystem.intent(covers=("list_directory", "find_files", "read_file", "grep_files", "count_words"), weight=1.5)
def recall_meeting(s: Scene) -> None:
    """Maya looks up what a meeting decided, then what is left for her to do from it."""
    start(s)
    n, what = note_of(s)
    how, args = opt(
        s, ("", {}), (" with line numbers", {"number_lines": True}), (", only the first 15 lines", {"max_lines": 15})
    )
    s.say(
        "What did we say in {what}? Pull it up for me{how}.",
        "Can you show me {what}{how}?",
        "I need to look over {what}{how} before my next call.",
        minimal=["I need to look over {what}."],
        what=what,
        how=how,
    )
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
        s.say(
            "Anything in it still assigned to me and not done?",
            "Which of the action items there are mine?",
            "Did I get any action items out of it?",
        )
        s.call("grep_files", pattern="Maya:", path=path, fixed_string=True)
    elif branch < 0.5:
        s.say(
            "Does it mention Sam anywhere? Upper or lower case, I don't care.",
            "Find every place Sam comes up in it, whatever the capitalisation.",
        )
        s.call("grep_files", pattern="sam", path=path, ignore_case=True)
    else:
        s.say(
            "Roughly how long is it? I want to paste it into an email.",
            "How big is that note, in words?",
            "Is it a long one? Give me the length.",
        )
        s.call("count_words", path=path)


@filesystem.intent(covers=("locate_paths", "append_file", "grep_files", "tail_file"), weight=1.3)
def add_todo(s: Scene) -> None:
    """Maya adds an item to her to-do list and asks what is still open."""
    start(s)
    item = s.rng.choice(
        (
            "Water the plants",
            "Book flights for the offsite",
            "Renew the car insurance",
            "Email Alex about the Q3 roadmap",
            "Fix the flaky weather-cli test",
            "Buy a birthday gift for Sam",
            "Clean up the backups folder",
            "Order new running shoes",
            "Pay the electricity bill",
            "Sign the lease renewal",
        )
    )
    if s.rows("SELECT 1 FROM nodes WHERE path = ? AND content LIKE ?", f"{DOCS}/todo.md", f"%{item}%"):
        raise Skip("already on the list")
    task = s.given(f"- [ ] {item}", f"'{item}'", "item", "append_file", "content")
    s.say(
        "Put something on my to-do list, please[: {task}].",
        "Can you add[ {task}] to my todo list?",
        "I keep forgetting things: put something on my list of things to do[: {task}].",
        minimal=["Add something to my to-do list[: {task}]."],
        task=task,
    )
    found = s.call("locate_paths", query="todo")
    todo = listed(found, f"{DOCS}/todo.md", "matches")
    s.call("append_file", path=todo, content=f"- [ ] {item}")
    remember(s, todo)
    if s.rng.random() < 0.6:
        s.say(
            "What's still open on it now?",
            "Which things on that list haven't I ticked off yet?",
            "So what do I still have to do?",
        )
        s.call("grep_files", pattern="- [ ]", path=todo, fixed_string=True)
    else:
        s.say("Show me the bottom of the list now.", "What are the last few things on it now?")
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
    s.say(
        "What have I been working on {place} over {span}?{few}",
        "Show me what I changed {place} in {span}.{few}",
        "I lost track. Which things {place} did I edit in {span}?{few}",
        minimal=["What was I working on lately?"],
        place=place,
        span=span,
        few=few,
    )
    got = s.call("list_recent_files", **({} if s.minimal else {"path": where, "days": days, **args}))
    text = [f for f in got["files"] if not s.rows("SELECT 1 FROM nodes WHERE path = ? AND binary = 1", f["path"])]
    if not text:
        raise Skip("nothing recent in text")
    if s.rng.random() < 0.5:
        n = s.rng.choice((5, 10, 20))
        s.say(
            "Show me the first {n} lines of the newest one.", "Give me the top {n} lines of the latest of those.", n=n
        )
        s.call("head_file", **({"path": text[0]["path"]} | ({} if n == 10 else {"lines": n})))
    else:
        s.say("Open the newest one.", "What's in the most recent one?", "Let me see the latest of those in full.")
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
    s.say(
        "How does my {b} summary compare with the {a} one, line by line?{how}",
        "What changed between the {a} and {b} summaries?{how}",
        "Put the {a} and {b} quarterly summaries side by side and show me what's new.{how}",
        minimal=["What changed between two of my quarterly summaries, {a} and {b}?"],
        a=q(a),
        b=q(b),
        how=how,
    )
    listing = s.call("list_directory", path=REPORTS)
    s.call("diff_files", path_a=listed(listing, a["path"]), path_b=listed(listing, b["path"]), **args)
    s.say(
        "And what was revenue in each quarter I have a report for?",
        "Give me the revenue figure from every report.",
        "Pull the revenue lines out of all the reports.",
    )
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
    s.say(
        "What has {name} put in the team's shared folder?",
        "Which of the things in /srv/shared are {name}'s?",
        "Show me everything {name} owns in our shared space.",
        minimal=["What did {name} share with the team?"],
        name=who["full_name"],
    )
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
        s.say("Open the one they touched last.", "Show me the newest of those.", "What's in the most recent one?")
        s.call("read_file", path=newest)
        remember(s, newest)
    else:
        s.say("Just the top few lines of the newest one.", "Peek at the beginning of the latest one, five lines.")
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
    s.say(
        "What kinds of files are in {p}?",
        "Break down {p} by type of file for me.",
        "Which file extensions show up in {p}, and how many of each?",
        minimal=["What's {p} made of?"],
        p=folder(s, proj),
    )
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
    s.say("List the {k} ones.", "Where are the {k} ones?", "Show me just the {k} ones.", k=words.get(ext, f"{ext} "))
    found = s.call("find_files", path=proj, name=f"*{ext}", type="file")
    if s.rng.random() < 0.3 and ext in (".md", ".txt", ".py") and found["matches"]:
        biggest = max(found["matches"], key=lambda m: (m["size"], m["path"]))
        s.say("How long is the biggest of them?", "Count what's in the largest one.")
        s.call("count_words", path=biggest["path"])


def links_in(s: Scene) -> None:
    place, what = s.rng.choice(
        ((HOME, "my home"), ("/etc", "the system config"), ("/etc/nginx", "the nginx config folder"))
    )
    s.say(
        "How many folders, files and links are there in {w}?",
        "Count what's in {w} by kind: folders, files, links.",
        minimal=["What's {w} made of?"],
        w=what,
    )
    kinds = s.call("get_distinct_values", field="type", path=place)["values"]
    if "symlink" not in kinds:
        raise Skip("no links")
    s.say("Where are the links?", "Show me just the shortcuts.", "Which of them are links?")
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
    s.say(
        "Who owns the things in {w}?",
        "Whose stuff is in {w}? Count by owner.",
        "Break {w} down by owner.",
        minimal=["Whose is everything in {w}?"],
        w=what,
    )
    owners = s.call("get_distinct_values", field="owner", path=place)["values"]
    who = s.rng.choice(sorted(o for o in owners if o != "root") or ["root"])
    s.say("What belongs to {o} there?", "Show me {o}'s things in there.", "List what {o} owns in it.", o=who)
    s.call("find_files", path=place, owner=who)


WORDS = (
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
    word, topic = s.rng.choice(WORDS)
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
    s.say(
        "Where did I write about {t} {w}?{how}",
        "Which of the things I wrote {w} mention {t}?{how}",
        "I wrote something[ about {t}] {w}, find it.{how}",
        "I'm looking for something I wrote {w}[, about {t}].{how}",
        minimal=["Where did I write about {t}?"],
        t=subject,
        w=where,
        how=how,
    )
    found = s.call("grep_files", pattern=word, path=place, recursive=True, **args)
    paths = found["files"] if "files" in found else sorted({m["path"] for m in found["matches"]})
    if not paths:
        raise Skip("nothing on the first page")
    first = paths[-1]
    if s.rng.random() < 0.5:
        s.say("Open the last one of those.", "Show me the last of those in full.")
        s.call("read_file", path=first)
    else:
        s.say("Show me the top of the last one.", "Just the first lines of the last one, please.")
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
    s.say(
        "Which{k} in my home are over {big}{age}?",
        "Dig up every one of my{k} bigger than {big}{age}.",
        "I need space. List my{k} over {big}{age}.",
        k=words,
        big=big,
        age=age,
    )
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
        s.say("Tell me more about the biggest one.", "What's the biggest of them, exactly?")
        s.call("get_file_info", path=top["path"])
    else:
        s.say("Move the biggest one into my backups folder.", "Shift the largest of those over to ~/backups.")
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
    s.say(
        "Where's {what} on this machine? Show it to me.",
        "Pull up {what}, wherever it lives.",
        "I need to look at {what}; I forget where it is.",
        minimal=["Show me {what}."],
        what=what,
    )
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
    s.say("How many lines is it in total?", "How long is the whole thing?")
    s.call("count_words", path=files[0])


# Logs and the system -----------------------------------------------------------------------------


@filesystem.intent(covers=("grep_files", "read_file", "tail_file"))
def pipeline_failures(s: Scene) -> None:
    """Maya checks whether the nightly ETL runs failed, then looks at one night's log."""
    start(s)
    if not s.rows("SELECT 1 FROM nodes WHERE parent = ? AND content LIKE '%ERROR%'", f"{PIPELINE}/logs"):
        raise Skip("no failed run")
    s.say(
        "Did any of the nightly ETL runs hit errors?",
        "Has the data pipeline been failing at night? Check its logs.",
        "Look through the pipeline's run logs for errors, please.",
        minimal=["Is my ETL job healthy?"],
    )
    if s.rng.random() < 0.4 and not s.minimal:
        s.turns[-1].phrasing += " Just tell me which nights, not every line."
        files = s.call("grep_files", pattern="ERROR", path=f"{PIPELINE}/logs", recursive=True, files_only=True)["files"]
        last = {"path": max(files)}
    else:
        hits = s.call("grep_files", pattern="ERROR", path=f"{PIPELINE}/logs", recursive=True)["matches"]
        last = max(hits, key=lambda m: m["path"])
    if s.rng.random() < 0.5:
        s.say("Show me the whole log of the latest night that failed.", "Open the most recent failing run's log.")
        s.call("read_file", path=last["path"])
    else:
        s.say("How did the latest failing run end? Last five lines.", "Show me the last 5 lines of the newest bad run.")
        s.call("tail_file", path=last["path"], lines=5)
    remember(s, last["path"])


@filesystem.intent(covers=("tail_file", "unique_lines", "grep_files"))
def noisy_services(s: Scene) -> None:
    """Maya looks at the end of the system log, then at which services talk the most."""
    start(s)
    n = s.rng.choice((10, 15, 20, 30))
    s.say(
        "What are the last {n} entries in the system log?",
        "Show me the end of the syslog, {n} entries or so.",
        "What has the machine been logging just now? The last {n} entries of syslog.",
        minimal=["What's the machine been up to in the last little while?"],
        n=n,
    )
    got = s.call("tail_file", path="/var/log/syslog", **({} if s.minimal else {"lines": n}))
    remember(s, got["path"])
    if s.rng.random() < 0.6:
        s.say(
            "Which services write to it the most?",
            "Who's the chattiest process in there?",
            "Tally it up by service, busiest first.",
        )
        s.call("unique_lines", path=got["path"], field=5, count=True, most_common_first=True)
    else:
        s.say(
            "Any firewall blocks in there?",
            "Has the firewall been blocking anything?",
            "Pull out everything the firewall blocked.",
        )
        s.call("grep_files", pattern="UFW BLOCK", path=got["path"], fixed_string=True)


@filesystem.intent(covers=("get_file_info", "switch_user", "grep_files", "tail_file"), weight=1.2)
def failed_logins(s: Scene) -> None:
    """Maya (an admin via wheel) checks the auth log for failed ssh logins, which needs root."""
    start(s)
    who = None if s.level == "minimal" else s.rng.choice(("admin", "oracle", None))
    which = f" for '{who}'" if who else ""
    s.say(
        "Has anyone been trying to get into this box over ssh{which}? Check the auth log.",
        "Look for failed ssh logins{which} in the authentication log.",
        "Were there any failed password attempts{which} on this machine lately?",
        minimal=["Is someone trying to break in over ssh?"],
        which=which,
    )
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
        s.say("OK, go back to my normal account.", "Drop the admin rights again, please.", "Switch me back to myself.")
        s.call("switch_user", username="maya")
    else:
        n = s.rng.choice((10, 20))
        s.say(
            "While you're in there, show me the last {n} entries of that log.", "And the last {n} entries of it?", n=n
        )
        s.call("tail_file", path=info["path"], lines=n)


@filesystem.intent(covers=("get_disk_free", "grep_files", "read_file"))
def disk_health(s: Scene) -> None:
    """Maya checks how full the drive is and how that drive is mounted."""
    start(s)
    s.say(
        "How much room is left on the main drive, and how is it set up in fstab?",
        "Is the machine running low on space? Also check what fstab says about that drive.",
        "How full is the disk, and which options is it mounted with?",
        minimal=["Are we OK on space, and how is that drive mounted?"],
    )
    df = s.call("get_disk_free")
    if s.rng.random() < 0.5:
        hits = s.call("grep_files", pattern=df["device"], path="/etc/fstab", fixed_string=True)
    else:
        hits = s.call("grep_files", pattern=df["device"], path="/etc/fstab")
    fstab = hits["matches"][0]["path"]
    if hand_off(s, fstab):
        return
    if s.rng.random() < 0.5:
        s.say("Show me the whole fstab.", "Let me see everything in that fstab.", "Print all of /etc/fstab for me.")
        s.call("read_file", path=fstab)
    else:
        s.say("Show me fstab with line numbers.", "Print /etc/fstab with the lines numbered.")
        s.call("read_file", path=fstab, number_lines=True)


@filesystem.intent(covers=("print_working_directory", "get_current_user", "list_directory", "change_directory"))
def where_am_i(s: Scene) -> None:
    """Maya asks where her shell is, what is around, and moves into one of the folders."""
    start(s)
    s.say(
        "Where is my terminal sitting right now, and what's in that folder?",
        "Which folder am I in at the moment? Show me what's there.",
        "Remind me where my shell is and what's around me.",
        minimal=["Where am I?"],
    )
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
    s.say("Take me into {name}.", "Go into {name}.", "Move over to {name}, please.", name=target["name"])
    s.call("change_directory", path=target["path"])


@filesystem.intent(covers=("change_directory", "show_tree", "grep_files"), weight=1.2)
def project_tour(s: Scene) -> None:
    """Maya goes into a project, gets its layout and the TODOs left in it."""
    start(s)
    proj = s.rng.choice(
        (f"{HOME}/projects/weather-cli", f"{HOME}/projects/inventory-api", PIPELINE, f"{HOME}/projects/blog")
    )
    depth = s.rng.choice((2, 3))
    s.say(
        "Take my shell into {p} and give me the lay of the land, {d} levels deep.",
        "Go to {p} and sketch out how it's organised ({d} levels).",
        "cd into {p} for me and draw its layout, {d} levels down.",
        minimal=["I'm getting back into {p}. Where do things live in it?"],
        p=folder(s, proj),
        d=depth,
    )
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
        s.say(
            "Any TODOs left in the code there?",
            "Are there TODO comments left in it?",
            "What's still marked TODO in there?",
        )
        s.call("grep_files", pattern="TODO", path=cwd, recursive=True)
    else:
        s.say("Any TODOs left in the {k} files there?", "Which {k} files still have TODO comments?", k=code[1])
        s.call("grep_files", pattern="TODO", path=cwd, recursive=True, include=code[0])


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
        more_on_it(s, known)
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
    s.say(
        "How long is {what}?",
        "How many words is {what}?",
        "Is {what} long? Give me lines and words.",
        minimal=["How long is {what}?"],
        what=what,
    )
    if scope == "folder":
        path = listed(s.call("list_directory", path=f["parent"]), f["path"])
    elif scope == "documents":
        path = listed(s.call("find_files", path=DOCS, name=f["name"]), f["path"], "matches")
    else:
        path = listed(s.call("locate_paths", query=f["name"]), f["path"], "matches")
    s.call("count_words", path=path)
    if hand_off(s, path):
        return
    s.say(
        "And when did I last touch it?", "When was it last changed?", "Who can edit it, and since when is it like this?"
    )
    s.call("get_file_info", path=path)
    remember(s, path)


def more_on_it(s: Scene, path: str) -> None:
    """One more question about the file the dialogue is on."""
    branch = s.rng.randrange(9)
    if branch == 0:
        s.say("How long is it, by the way?", "How many lines and words is that?", "And how big is it now?")
        s.call("count_words", path=path)
    elif branch == 1:
        s.say("When was it last changed, and who owns it?", "Who can edit that one, and when was it last touched?")
        s.call("get_file_info", path=path)
    elif branch == 2:
        n = s.rng.choice((3, 5, 8))
        s.say("What are the last {n} lines of it?", "And how does it end? Last {n} lines.", n=n)
        s.call("tail_file", path=path, lines=n)
    elif branch == 3:
        s.say("Give me its sha256 so I can compare it on my laptop.", "What's its sha256 fingerprint?")
        s.call("compute_checksum", path=path)
    elif branch == 4:
        s.say("What's its MD5? The old backup tool wants that.", "I need its md5 sum.")
        s.call("compute_checksum", path=path, algorithm="md5")
    elif branch == 5:
        s.say("Show it again with line numbers.", "Print it out with the lines numbered.")
        s.call("read_file", path=path, number_lines=True)
    elif branch == 6:
        s.say("Show me its long listing line, like ls -l.", "What does it look like in a detailed listing?")
        s.call("list_directory", path=path, long=True)
    elif branch == 7:
        n = s.rng.choice((5, 10, 20))
        s.say("Show me the part from line {n} on.", "Start at line {n} and show me the rest.", n=n)
        s.call("read_file", path=path, start_line=n)
    else:
        s.say("Does it mention TODO anywhere, any case?", "Is there a todo in it, upper or lower case?")
        s.call("grep_files", pattern="todo", path=path, ignore_case=True)


# Tidying up ------------------------------------------------------------------------------------


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
    s.say(
        "Make a new folder in Documents[ called {new}] and put {what} from my downloads in there.",
        "My downloads are a mess: move {what} into a fresh folder under Documents[ named {new}].",
        "Could you tidy up Downloads? {What} should go into a new Documents folder[, {new}].",
        minimal=["Get {what} out of my downloads into a folder of its own in Documents[, {new}]."],
        new=new,
        what=kind[1],
        What=kind[1][:1].upper() + kind[1][1:],
    )
    made = s.call("make_directory", path=f"{DOCS}/{name}")
    found = s.call("find_files", path=f"{HOME}/Downloads", name=kind[0], type="file")["matches"]
    for m in found:
        moved = s.call("move_path", source=m["path"], destination=made["path"])
        remember(s, moved["destination"])
    if s.rng.random() < 0.5:
        s.say("What's in the new folder now?", "Show me the new folder.", "Did everything land there?")
        s.call("list_directory", path=made["path"])
    else:
        s.say("Show me the new folder with sizes and dates.", "List the new folder in detail, sizes included.")
        s.call("list_directory", path=made["path"], long=True)


@filesystem.intent(covers=("find_files", "remove_path", "list_directory"))
def clean_tmp(s: Scene) -> None:
    """Maya clears out her own leftovers in /tmp (other people's stay)."""
    start(s)
    mine = s.rows("SELECT path FROM nodes WHERE parent = '/tmp' AND owner = 'maya'")
    if not mine or len(mine) > 3:
        raise Skip("nothing, or too much, of hers in /tmp")
    s.say(
        "Clear my own junk out of /tmp, but leave other people's things alone.",
        "Delete whatever I left lying around in /tmp; don't touch anyone else's stuff.",
        "Can you get rid of my leftovers in the temp folder?",
        minimal=["Clean up my mess in /tmp."],
    )
    found = s.call("find_files", path="/tmp", owner="maya")["matches"]
    for m in found[:2]:
        s.call("remove_path", path=m["path"])
    if s.rng.random() < 0.5:
        s.say(
            "Anything of mine left in there now?",
            "Is there still anything of mine in /tmp?",
            "Double-check nothing of mine is left there.",
        )
        s.call("find_files", path="/tmp", owner="maya")
    else:
        s.say("Show me what's left in /tmp, with owners.", "What's in /tmp now? Include who owns each thing.")
        s.call("list_directory", path="/tmp", long=True)


@filesystem.intent(covers=("disk_usage", "remove_path"), weight=1.2)
def space_hogs(s: Scene) -> None:
    """Maya asks what takes the most room in her home, drills into the biggest, and deletes screenshots."""
    start(s)
    s.say(
        "What's taking up the most room in my home folder?",
        "Where has all my space gone? Break down my home by size.",
        "Which of my folders are the biggest?",
        minimal=["My home folder is huge. Why?"],
    )
    few, args = opt(s, ("", {}), ("", {}), (" Top five is enough.", {"limit": 5}))
    s.turns[-1].phrasing += few
    top = s.call("disk_usage", path=HOME, **args)["entries"][0]
    if top["type"] != "dir":
        raise Skip("the largest entry is a file")
    inner = s.call("disk_usage", path=top["path"])["entries"]
    shots = [e for e in inner if e["path"].endswith("/screenshots")]
    if not shots:
        raise Skip("no screenshots folder")
    s.say(
        "I don't need the old screenshots in there. Delete that whole folder.",
        "Get rid of the screenshots folder, all of it.",
        "Bin the screenshots, I never look at them.",
    )
    s.call("remove_path", path=shots[0]["path"], recursive=True)
    if s.rng.random() < 0.4:
        s.say("How big is that folder now?", "What does it weigh now?")
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
    s.say("Then delete it.", "Good, remove that empty folder.", "OK, get rid of it then.")
    s.call("remove_directory", path=got["path"])


@filesystem.intent(covers=("get_file_info", "remove_path", "list_directory", "read_file"))
def check_shortcut(s: Scene) -> None:
    """Maya asks where a link in her home leads; a dead one goes, a live one gets opened."""
    start(s)
    link = s.pick("SELECT path, name, target FROM nodes WHERE parent = ? AND type = 'symlink'", HOME)
    s.say(
        "What does {n} in my home point to? Does it still work?",
        "Is the {n} shortcut in my home still good?",
        "Where does ~/{n} lead, and is the thing it points at still there?",
        minimal=["Something in my home looks off: {n}. What is it?"],
        n=link["name"],
    )
    info = s.call("get_file_info", path=link["path"], follow_symlinks=False)
    dest = s.rows("SELECT type FROM nodes WHERE path = ?", posixpath.normpath(posixpath.join(HOME, info["target"])))
    if not dest:
        s.say(
            "It's dead then; delete the shortcut (only the shortcut).",
            "Remove that broken link.",
            "Get rid of it, it's pointing at nothing.",
        )
        s.call("remove_path", path=info["path"])
    elif dest[0]["type"] == "dir":
        s.say("Good. What's in there?", "Fine, show me what's behind it.", "Then list what it leads to.")
        s.call("list_directory", path=info["path"])
    else:
        s.say("Good. Show me what it leads to.", "Then open whatever it points at.", "Fine, let me see it.")
        s.call("read_file", path=info["path"])
        remember(s, info["path"])


# Writing ---------------------------------------------------------------------------------------

NOTE_TEXT = (
    "Attendees: Maya, Sam, Alex",
    "Agenda: status, risks, next steps",
    "Decision: ship on Thursday, Sam owns the rollout",
    "Open question: who owns the budget?",
)


@filesystem.intent(covers=("touch_file", "write_file", "append_file"), weight=1.2)
def new_meeting_note(s: Scene) -> None:
    """Maya starts an empty note for today's meeting, then writes its heading and agenda."""
    start(s)
    topic = s.rng.choice(
        (
            "Offsite planning",
            "Vendor call",
            "Roadmap review",
            "1:1 with Sam",
            "Budget sync",
            "Launch retro",
            "Hiring debrief",
            "Security review",
        )
    )
    name = f"{s.now.strftime('%Y-%m-%d')}-{slug(topic).replace(':', '')}.md"
    if exists(s, f"{NOTES}/{name}"):
        raise Skip("the note exists")
    new = s.given(f"{NOTES}/{name}", f"'{name}'", "name", "touch_file", "path")
    s.say(
        "Start a blank note for today's {t} meeting in my notes folder[ ({new})].",
        "I'm about to go into the {t} meeting. Make me an empty note for it among my meeting notes[, {new}].",
        "Set up an empty notes doc for today's {t}[, named {new}], next to my other meeting notes.",
        minimal=["I need somewhere to take notes in today's {t} meeting[: {new}]."],
        t=topic,
        new=new,
    )
    made = s.call("touch_file", path=f"{NOTES}/{name}")
    heading, line = f"# {topic} - {s.now.strftime('%Y-%m-%d')}", s.rng.choice(NOTE_TEXT)
    body = f"{heading}\n\n{line}\n"
    text = s.given(body, f"the heading '{heading}' with '{line}' under it", "text", "write_file", "content")
    s.say("Put {text} in it.", "Fill it with {text}.", "Start it off with {text}.", text=text)
    s.call("write_file", path=made["path"], content=body)
    remember(s, made["path"])
    if s.rng.random() < 0.5:
        extra = s.rng.choice(("Follow up with Alex on the numbers", "Send the slides around", "Book the next session"))
        s.say("Oh, and add '{x}' at the bottom.", "Also tack '{x}' onto the end.", x=extra)
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
        "TTL_SECONDS, how long my weather-cli app caches answers",
        "TTL_SECONDS",
        "TTL_SECONDS = {v}",
        (1200, 1800, 3600),
    ),
    (
        f"{PIPELINE}/config.yaml",
        PIPELINE,
        "retention_days in the data-pipeline config",
        "retention_days",
        "retention_days: {v}",
        (14, 120, 180, 365),
    ),
    (
        f"{HOME}/.config/app/settings.json",
        f"{HOME}/.config",
        "the font_size of my app settings under ~/.config",
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
    new = s.given(line.format(v=value), line.format(v=value), "new value", "replace_in_file", "replacement")
    s.say(
        "Change {what}[ so it reads {new}].",
        "Set {what}[ to {new}], please.",
        "{What} is wrong[; make the line {new}].",
        "{Could you|Please} {update|fix} {what}[: I want {new}].",
        minimal=["{What} needs bumping[ to {new}]."],
        what=what,
        What=what[:1].upper() + what[1:],
        new=new,
    )
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
        s.say(
            "Show me the file now so I can check it.",
            "Let me see the whole thing after your edit.",
            "Open it up so I can double-check.",
        )
        s.call("read_file", path=hit[0]["path"])
    else:
        s.say("Show it to me with line numbers so I can check the edit.", "Let me see it now, lines numbered.")
        s.call("read_file", path=hit[0]["path"], number_lines=True)
    remember(s, hit[0]["path"])


@filesystem.intent(covers=("list_directory", "move_path", "replace_in_file"))
def publish_post(s: Scene) -> None:
    """Maya publishes her draft blog post: it moves to posts, dated today."""
    start(s)
    drafts = f"{HOME}/projects/blog/drafts"
    post = s.pick("SELECT path, name, content FROM nodes WHERE parent = ? AND name GLOB '20*.md'", drafts)
    title = post["content"].split('title: "', 1)[1].split('"', 1)[0]
    s.say(
        "My draft post '{t}' is done. Publish it: it goes from drafts into posts.",
        "Move the blog draft '{t}' over to the published posts.",
        "'{t}' is ready to go live on the blog.",
        minimal=["My blog draft is finished; publish it."],
        t=title,
    )
    listing = s.call("list_directory", path=drafts)
    src = listing["entries"][0]["path"] if s.minimal else listed(listing, post["path"])
    if src != post["path"]:
        raise Skip("more than one draft")
    today = s.now.strftime("%Y-%m-%d")
    dest = f"{HOME}/projects/blog/posts/{today}-{post['name'][11:]}"
    moved = s.call("move_path", source=src, destination=dest)
    if hand_off(s, moved["destination"]):
        return
    s.say(
        "And set the date in its header to today.",
        "Update the date at the top to today's.",
        "Its front matter still has the old date; make it today.",
    )
    s.call(
        "replace_in_file", path=moved["destination"], pattern=f"date: {post['name'][:10]}", replacement=f"date: {today}"
    )
    remember(s, moved["destination"])


@filesystem.intent(covers=("find_files", "concatenate_files", "count_words"))
def combine_sales(s: Scene) -> None:
    """Maya joins quarterly sales CSVs (a year, or half of one) into one file and asks how many rows it has."""
    start(s)
    year, glob, stem = s.rng.choice(
        (
            ("2025", "sales_2025_q?.csv", "2025"),
            ("the first half of 2025", "sales_2025_q[12].csv", "2025-h1"),
            ("the second half of 2025", "sales_2025_q[34].csv", "2025-h2"),
        )
    )
    if len(under(s, f"{PIPELINE}/data", glob)) < 2:
        raise Skip("fewer than two quarters")
    out = s.rng.choice((f"sales-{stem}.csv", f"sales_{stem}_all.csv", f"{stem}-sales.csv"))
    dest = f"{PIPELINE}/data/{out}"
    if exists(s, dest):
        raise Skip("exists")
    new = s.given(dest, f"'{out}'", "output name", "concatenate_files", "destination")
    s.say(
        "Stitch the quarterly sales exports for {y} in the pipeline's data folder into one[, {new}].",
        "I want the sales quarters of {y} as a single CSV[ called {new}] next to the others.",
        "Merge every sales quarter of {y} into one spreadsheet[: {new}].",
        minimal=["I need the sales of {y} in one CSV[, {new}]."],
        y=year,
        new=new,
    )
    found = s.call("find_files", path=f"{PIPELINE}/data", name=glob)["matches"]
    made = s.call("concatenate_files", sources=[m["path"] for m in found], destination=dest)
    if hand_off(s, made["path"]):
        return
    s.say("How many rows does it have?", "How long did it come out?", "Give me its size in rows and bytes.")
    s.call("count_words", path=made["path"])
    remember(s, made["path"])


# Copies, backups and archives -------------------------------------------------------------------


@filesystem.intent(covers=("locate_paths", "find_files", "copy_path", "compute_checksum"), weight=1.2, follows=True)
def safe_copy(s: Scene) -> None:
    """Maya finds a document by a word of its name, copies it into her backups, and checks the copy (or,
    after a turn about a file, keeps a copy of that one)."""
    start(s)
    known = s.memory.get("path")
    if known and s.turns:
        if exists(s, f"{HOME}/backups/{posixpath.basename(known)}") or not s.rows(
            "SELECT 1 FROM nodes WHERE path = ? AND type = 'file' AND (mode & 4) = 4", known
        ):
            raise Skip("nothing to copy")
        s.say(
            "Keep a copy of that in my backups too.",
            "Stash a spare of it in ~/backups, would you?",
            "Put a copy of it with my backups, just in case.",
            "Back that one up too, into ~/backups.",
            "I'd feel better with a copy of it in my backups folder.",
            "Drop a duplicate of it into ~/backups as well.",
        )
        s.call("copy_path", source=known, destination=f"{HOME}/backups")
        return
    doc = s.rng.choice(
        (
            ("lease", f"{HOME}/Downloads/lease-agreement.pdf", "my lease agreement"),
            ("boarding", f"{HOME}/Downloads/boarding-pass-LIS.pdf", "my Lisbon boarding pass"),
            ("cover-letter", f"{DOCS}/letters/cover-letter.md", "my cover letter"),
            ("budget-2026", f"{DOCS}/budget-2026.csv", "my 2026 budget spreadsheet"),
            ("contacts.csv", f"{DOCS}/contacts.csv", "my contacts list"),
            ("photos-index", f"{HOME}/Pictures/photos-index.csv", "the photo index"),
        )
    )
    word, path, what = doc
    if exists(s, f"{HOME}/backups/{posixpath.basename(path)}"):
        raise Skip("already backed up")
    s.say(
        "Put a copy of {what} into my backups folder.",
        "Back up {what} into ~/backups.",
        "I'm nervous about losing {what}. Copy it to my backups.",
        minimal=["Keep a spare of {what} in my backups."],
        what=what,
    )
    if s.rng.random() < 0.6:
        src = listed(s.call("locate_paths", query=word), path, "matches")
    else:  # the name as she remembers it, searched for under her home
        got = s.call("find_files", path=HOME, name=f"*{word}*", ignore_case=True)
        src = listed(got, path, "matches")
    copied = s.call("copy_path", source=src, destination=f"{HOME}/backups")
    s.say(
        "Now prove the copy is identical to the original.",
        "Do the two match exactly?",
        "Check the copy against the original, byte for byte.",
    )
    algo = s.rng.choice(({}, {}, {"algorithm": "md5"}, {"algorithm": "sha1"}))
    if algo:
        s.turns[-1].phrasing += (
            f" An {algo['algorithm'].upper()} comparison is fine."
            if algo["algorithm"] == "md5"
            else f" A {algo['algorithm'].upper()} comparison is fine."
        )
    s.call("compute_checksum", path=copied["source"], **algo)
    s.call("compute_checksum", path=copied["destination"], **algo)
    remember(s, copied["destination"])


BACKUPS = (
    (f"{DOCS}/recipes", "my recipes", "recipes"),
    (REPORTS, "the quarterly reports", "reports"),
    (f"{DOCS}/letters", "my letters", "letters"),
    (f"{HOME}/projects/blog", "the blog", "blog"),
    (f"{HOME}/projects/scripts", "my scripts", "scripts"),
    (f"{HOME}/Music/playlists", "my playlists", "playlists"),
    (f"{HOME}/.ssh", "my ssh setup", "ssh"),
)


@filesystem.intent(covers=("create_archive", "list_archive", "get_file_info", "compute_checksum"), weight=1.3)
def pack_backup(s: Scene) -> None:
    """Maya packs a folder into a compressed backup in ~/backups and checks what went in."""
    start(s)
    src, what, stem = s.rng.choice(BACKUPS)
    ext = s.rng.choice((".tar.gz", ".tar.gz", ".tgz", ".zip"))
    name = f"{stem}-{s.now.strftime('%Y-%m')}{ext}"
    if exists(s, f"{HOME}/backups/{name}"):
        raise Skip("exists")
    arch = s.given(f"{HOME}/backups/{name}", f"'{name}'", "backup name", "create_archive", "archive_path")
    s.say(
        "Pack up {what} into a backup in my backups folder[ called {arch}].",
        "Zip up {what} for safekeeping[ as {arch}] in ~/backups.",
        "Make a compressed copy of {what}[, {arch},] and keep it with my other backups.",
        minimal=["I want {what} backed up[ as {arch}]."],
        what=what,
        arch=arch,
    )
    made = s.call("create_archive", archive_path=f"{HOME}/backups/{name}", sources=[src])
    branch = s.rng.random()
    if branch < 0.4:
        s.say(
            "What ended up in it?", "Show me what's inside so I know nothing's missing.", "Which things went into it?"
        )
        s.call("list_archive", archive_path=made["archive"])
    elif branch < 0.55:
        s.say("How big did it come out?", "What size is the backup?")
        s.call("get_file_info", path=made["archive"])
    elif branch < 0.7:
        s.say("Give me its checksum for my records.", "What's its sha256? I keep a list.")
        s.call("compute_checksum", path=made["archive"])
    else:
        s.say("Show me the first ten things in it.", "List just the first 10 entries inside it.")
        s.call("list_archive", archive_path=made["archive"], limit=10)
    s.memory["archive"] = made["archive"]


@filesystem.intent(covers=("make_directory", "extract_archive", "list_directory", "diff_files"), weight=1.3)
def restore_backup(s: Scene) -> None:
    """Maya unpacks one of her backups into a new folder to compare an old file with today's."""
    start(s)
    choice = s.rng.choice(
        (
            (f"{HOME}/backups/dotfiles.tar", "my dotfiles backup", ".vimrc", f"{HOME}/.vimrc", "vim settings"),
            (f"{HOME}/backups/dotfiles.tar", "my dotfiles backup", ".bashrc", f"{HOME}/.bashrc", "bashrc"),
            (
                f"{HOME}/backups/notes-2026-04.tar.gz",
                "the April notes backup",
                "notes/reading-list.md",
                f"{NOTES}/reading-list.md",
                "reading list",
            ),
            (
                f"{HOME}/backups/notes-2026-04.tar.gz",
                "the April notes backup",
                "notes/project-ideas.md",
                f"{NOTES}/project-ideas.md",
                "project ideas list",
            ),
        )
    )
    arch, what, inner, live, thing = choice
    name = s.rng.choice(("restore", "restored", "from-backup", "old-copy"))
    dest = f"{HOME}/{name}"
    if exists(s, dest):
        raise Skip("exists")
    new = s.given(dest, f"'~/{name}'", "folder", "make_directory", "path")
    s.say(
        "Unpack {what} into a new folder[, {new}], so I can look at the old {thing}.",
        "I want to see the old {thing}: restore {what} into a fresh folder[ ({new})].",
        "Pull {what} out into a new place[ at {new}]; don't overwrite anything I have now.",
        minimal=["Get {what} back out somewhere safe[, {new}]."],
        what=what,
        thing=thing,
        new=new,
    )
    made = s.call("make_directory", path=dest)
    s.call("extract_archive", archive_path=arch, destination=made["path"])
    s.say(
        "Is the old {thing} any different from the one I use now?",
        "What's changed in my {thing} since that backup?",
        "Compare the restored {thing} with my current one.",
        thing=thing,
    )
    out = s.call("list_directory", path=made["path"], recursive=True, show_hidden=True)
    old = listed(out, f"{dest}/{inner}")
    how = s.rng.choice(({}, {}, {"context": 0}, {"ignore_case": True}))
    if how:
        s.turns[-1].phrasing += " Just the changed lines." if "context" in how else " Case doesn't matter."
    s.call("diff_files", path_a=old, path_b=live, **how)
    remember(s, live)


# Data files ------------------------------------------------------------------------------------

SALES = {4: "region", 5: "product"}
CSVS = (  # path, how Maya names it, {column: (field number, how she names the column)}
    (f"{DOCS}/budget-2026.csv", "my 2026 budget spreadsheet", {2: "category", 3: "payee"}),
    (f"{DOCS}/contacts.csv", "my contacts list", {4: "city", 5: "company"}),
    (f"{HOME}/Pictures/photos-index.csv", "the photo index in my Pictures", {2: "album", 4: "camera"}),
    ("/srv/shared/team-contacts.csv", "the team contact sheet in the shared folder", {4: "city", 5: "role"}),
)


@filesystem.intent(covers=("head_file", "unique_lines", "cut_columns"), weight=1.2)
def spreadsheet_tally(s: Scene) -> None:
    """Maya peeks at a CSV's columns, then tallies one column, most common first."""
    start(s)
    path, what, cols = s.rng.choice(
        CSVS
        + tuple(
            (p, f"the {p[-11:-4].replace('_', ' ').upper()} sales export in the data-pipeline data folder", SALES)
            for p in [r["path"] for r in under(s, f"{PIPELINE}/data", "sales_*")]
        )
    )
    field, col = s.rng.choice(sorted(cols.items()))
    s.say(
        "What columns does {what} have? Show me the first few rows.",
        "Give me a peek at the top of {what}.",
        "What does {what} look like? Just the first rows.",
        minimal=["What's in {what}?"],
        what=what,
    )
    top = s.call("head_file", path=path)
    if hand_off(s, top["path"]):
        return
    branch = s.rng.random()
    if branch < 0.5:
        s.say(
            "Now count the rows per {c}, most common first.",
            "Which {c} comes up most? Give me counts.",
            "Tally it by {c} for me, biggest first.",
            c=col,
        )
        s.call("unique_lines", path=top["path"], field=field, delimiter=",", count=True, most_common_first=True)
    elif branch < 0.75:
        s.say(
            "Which {c} values are in there, with how often each comes up, in alphabetical order?",
            "Count the rows per {c}, sorted by name.",
            c=col,
        )
        s.call("unique_lines", path=top["path"], field=field, delimiter=",", count=True)
    elif branch < 0.9:
        s.say("Just list the different {c} values, no counts.", "Which {c} values appear at all?", c=col)
        s.call("unique_lines", path=top["path"], field=field, delimiter=",")
    else:
        s.say(
            "Show me only columns {f}: the first one and the {c}.",
            "Give me just fields {f} of every row, so the {c} next to the first column.",
            "{Cut|Strip} it down to columns {f}, the first column and the {c}.",
            c=col,
            f=f"1,{field}",
        )
        s.call("cut_columns", path=top["path"], fields=f"1,{field}")


@filesystem.intent(covers=("head_file", "sort_lines", "cut_columns"), weight=1.2)
def biggest_rows(s: Scene) -> None:
    """Maya ranks a CSV by an amount column, then keeps just the columns she cares about."""
    start(s)
    sales = [r["path"] for r in under(s, f"{PIPELINE}/data", "sales_*.csv")]
    options = [(f"{DOCS}/budget-2026.csv", "my 2026 budget", 4, "expenses", "1,3,4", "the date, payee and amount")]
    options += [
        (
            p,
            f"the {p[-11:-4].replace('_', ' ').upper()} sales export in the data-pipeline data folder",
            7,
            "orders",
            "1,4,7",
            "the order number, product and total",
        )
        for p in sales
    ]
    path, what, field, rows_word, keep, keep_words = s.rng.choice(options)
    n = s.rng.choice((5, 10, 15))
    s.say(
        "What are the {n} biggest {r} in {what}?",
        "Rank {what} by amount and show me the top {n} {r}.",
        "Which {r} in {what} were the largest? Top {n}.",
        minimal=["What were the biggest {r} in {what}?"],
        n=n,
        r=rows_word,
        what=what,
    )
    top = s.call("head_file", path=path)
    s.call(
        "sort_lines",
        path=top["path"],
        field=field,
        delimiter=",",
        numeric=True,
        reverse=True,
        skip_header=True,
        **({} if s.minimal else {"max_lines": n + 1}),
    )
    if hand_off(s, top["path"]):
        return
    s.say(
        "Strip it down to columns {f}, {k}, for every row.",
        "I only need {k}. Give me columns {f}.",
        "Just columns {f}, please: {k}, for the whole sheet.",
        "{Cut|Trim} it to fields {f} ({k}).",
        k=keep_words,
        f=keep,
    )
    if s.rng.random() < 0.5:
        s.call("cut_columns", path=top["path"], fields=keep)
    else:
        s.turns[-1].phrasing += " The first 30 rows will do."
        s.call("cut_columns", path=top["path"], fields=keep, max_lines=30)


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
    s.say(
        "Nobody but me should see anything in {w}. Lock down the folder and everything inside.",
        "Make {w} private, all of it, every single thing in there.",
        minimal=["Make {w} private."],
        w=what,
    )
    if s.rows(
        "SELECT 1 FROM nodes WHERE (path = ? OR (path > ? AND path < ?)) AND owner != 'maya'", d, d + "/", d + "0"
    ):
        raise Skip("something in there is not hers")
    info = s.call("get_file_info", path=d)
    s.call("change_mode", path=info["path"], mode="go-rwx", recursive=True)
    s.say("Show me what it looks like now, permissions and all.", "List the folder in detail now.")
    s.call("list_directory", path=info["path"], long=True, show_hidden=True)


# Permissions and sharing -----------------------------------------------------------------------


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
        s.say(
            "And make that one private: only me.",
            "Lock it down so only I can open it.",
            "Also, nobody but me should be able to see that one.",
            "Make that file readable by me alone.",
            "Nobody else should be able to open that one, please.",
        )
        s.call("change_mode", path=known, mode=s.rng.choice(("600", "go-rwx")))
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
    s.say(
        "Who can get at {what} right now? Set it so {goal}.",
        "Check the permissions on {what} and fix them so {goal}.",
        "{What}: make sure {goal}.",
        what=names[f["name"]],
        What=names[f["name"]][:1].upper() + names[f["name"]][1:],
        goal=goal,
    )
    info = s.call("get_file_info", path=f["path"])
    s.call("change_mode", path=info["path"], mode=mode)
    remember(s, info["path"])
    if s.rng.random() < 0.5:
        s.say("Show me the result.", "What are its permissions now?", "Double-check it for me.")
        s.call("get_file_info", path=info["path"])
    else:
        s.say("Show me its long listing now.", "List it in detail so I can see the new permissions.")
        s.call("list_directory", path=info["path"], long=True)


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
    s.say(
        "I'm in the team group, right? If so, let the team edit {what}.",
        "Check I'm a member of team, then give that group write access to {what}.",
        "Can my team co-edit {what}? I believe I belong to the team group.",
        minimal=["My team should be able to edit {what}."],
        what=what,
    )
    me = s.call("get_current_user")
    if "team" not in me["groups"]:
        raise Skip("not in team")
    s.call("change_owner", path=f["path"], group="team")
    remember(s, f["path"])
    s.call("change_mode", path=f["path"], mode="g+w")
    if s.rng.random() < 0.5:
        s.say("What do its permissions look like now?", "Show me who can do what with it now.", "Confirm it worked.")
        s.call("get_file_info", path=f["path"])
    else:
        s.say("Show me its long listing, owner, group and all.", "List it in detail so I can see the new group.")
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
    s.say(
        "{p} is taking over {what}. Make it theirs.",
        "Hand {what} over to {p}: they should own it from now on.",
        "Give {p} ownership of {what}; you'll need admin rights for that.",
        minimal=["{what} belongs to {p} now."],
        p=person["full_name"],
        what=what,
    )
    users = s.call("list_users")
    login = next(u["username"] for u in users["users"] if u["full_name"] == person["full_name"])
    admin = next(u["username"] for u in users["users"] if u["uid"] == 0)
    s.call("switch_user", username=admin)
    if f["path"].startswith("/srv/") or s.rng.random() < 0.5:
        s.call("change_owner", path=f["path"], owner=login)
    else:
        s.turns[-1].phrasing += " Their own group should have it too."
        s.call("change_owner", path=f["path"], owner=login, group=login)
    s.say("Now put me back on my own account.", "Leave the admin shell and go back to me.", "Back to my normal login.")
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
    s.say(
        "I'm always digging for {what}. Put a shortcut to them in my home folder[ called {new}].",
        "Give me a quick way into {what} from my home[, named {new}].",
        "Make a link in my home[ ({new})] that takes me straight to {what}.",
        minimal=["I want to get to {what} from my home in one step[: {new}]."],
        what=what,
        new=new,
    )
    made = s.call("create_symlink", target=target, link_path=f"{HOME}/{name}")
    if s.rng.random() < 0.35:
        s.say("Does it work? Show me what's behind it.", "Try it: what's in there?", "Check it by looking inside.")
        s.call("list_directory", path=made["link"])
    elif s.rng.random() < 0.5:
        s.say("Check it by drawing what's behind it, one level deep.", "Sketch out what it leads to, one level.")
        s.call("show_tree", path=made["link"], max_depth=1)
    else:
        s.say("Try it: list what's behind it, newest first.", "Does it work? Show me the latest things in there first.")
        s.call("list_directory", path=made["link"], sort_by="modified", reverse=True)
