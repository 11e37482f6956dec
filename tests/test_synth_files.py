"""Writes that keep files valid: a ground truth that leaves a structured file unparsable is caught."""

from __future__ import annotations

from hub.synth.files import invalid_files, written_files
from hub.tasks import GTStep, Task, Turn
from tests.conftest import LIBRARY

SETTINGS = "/home/maya/.config/app/settings.json"


def task(*steps: GTStep) -> Task:
    return Task(id="files", servers=["filesystem"], turns=[Turn(user="edit my settings", calls=list(steps))])


def step(i: int, tool: str, **arguments: object) -> GTStep:
    return GTStep(server="filesystem", tool=tool, arguments=arguments, id=f"g{i}")


def test_a_replacement_that_drops_a_comma_leaves_the_json_invalid() -> None:
    seed = LIBRARY.mount("filesystem").seed_db(0).db  # type: ignore[attr-defined]
    content = seed.execute("SELECT content FROM nodes WHERE path = ?", (SETTINGS,)).fetchone()[0]
    line = next(x.strip() for x in content.splitlines() if '"font_size"' in x)  # '"font_size": 14,'
    broken = task(step(1, "replace_in_file", path=SETTINGS, pattern=line, replacement='"font_size": 99'))
    kept = task(step(1, "replace_in_file", path=SETTINGS, pattern=line.rstrip(","), replacement='"font_size": 99'))
    assert written_files(broken, LIBRARY) == [("filesystem", SETTINGS)]
    assert invalid_files(kept, LIBRARY) == []
    found = invalid_files(broken, LIBRARY)
    assert len(found) == 1 and found[0].startswith(SETTINGS)


def test_every_structured_format_is_parsed() -> None:
    cases = {
        "/home/maya/a.json": ('{"a": 1', '{"a": 1}'),
        "/home/maya/a.yaml": ("a: [1, 2", "a: [1, 2]"),
        "/home/maya/a.toml": ("a = ", "a = 1"),
        "/home/maya/a.csv": ("x,y\n1,2,3\n", "x,y\n1,2\n"),
    }
    for path, (bad, good) in cases.items():
        assert invalid_files(task(step(1, "write_file", path=path, content=bad)), LIBRARY), path
        assert invalid_files(task(step(1, "write_file", path=path, content=good)), LIBRARY) == [], path
    plain = task(step(1, "write_file", path="/home/maya/a.md", content="{"))
    assert written_files(plain, LIBRARY) == [] and invalid_files(plain, LIBRARY) == []
