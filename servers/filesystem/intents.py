"""What people want of their machine: Maya, the main user, finding, reading, tidying and sharing her files.

The user is maya (Maya Lindqvist) at her shell. She knows her files by where she keeps them ("my notes
folder", "the reports in Documents"), by what they are about (the meeting on a topic, the Q1 summary, a
recipe) and by when she wrote them; she rarely knows exact names. The agent discovers paths with
``list_directory``, ``find_files``, ``locate_paths`` or ``list_recent_files`` and acts on the absolute
paths those results carry. Colleagues are named as people (Sam Okafor), their user names come from
``list_users``; anything only root may do goes through ``switch_user('root')`` and back.

This module holds where Maya keeps things and how she names them; the intents live in ``intents_*`` by goal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hub.kit.intent import Ref, Scene, Skip, day
from hub.kit.phrasings import phrasings
from servers.filesystem import tools_archive, tools_nav, tools_nav_find, tools_text, tools_write, tools_write_paths  # noqa: F401  (tools before intents)

WORDS = phrasings(__package__)

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


@dataclass(frozen=True)
class OnIt:
    """One turn about the file the dialogue is on, and one call on it: one of ``phrasings`` (``{n}``: one of
    ``numbers``, passed as ``number``), then ``tool`` with the file as ``key`` and ``args``."""

    tool: str
    phrasings: tuple[str, ...]
    args: dict[str, Any] = field(default_factory=dict)
    numbers: tuple[int, ...] = ()
    number: str = ""
    key: str = "path"

    def ask(self, s: Scene, path: str, **args: Any) -> Any:
        n = s.rng.choice(self.numbers) if self.numbers else None
        s.say(*self.phrasings, n=n)
        extra = {self.number: n} if self.numbers else {}
        return s.call(self.tool, **{self.key: path, **self.args, **extra, **args})


def ask_one(s: Scene, rows: tuple[OnIt, ...], path: str) -> Any:
    """One of ``rows`` asked about ``path``."""
    return s.rng.choice(rows).ask(s, path)
