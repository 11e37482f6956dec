"""Every ground-truth value grounded: the provenance record, its rules, and the check that drops what has none."""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import Any

import pytest

from hub.config import REFERENCE_NOW
from hub.kit.intent import CallRecord
from hub.kit.provenance import Evidence, origin, origins
from hub.synth import grounding
from hub.synth.config import Stats, SynthConfig
from hub.synth.gate import Gate
from hub.synth.steer import Steering
from hub.tasks import ArgSource, GTStep, Task, Turn
from servers import REGISTRY
from tests.conftest import LIBRARY

NOW = datetime(2026, 6, 1, 9, 0)  # a Monday
IOT = next(s for s in REGISTRY if s.name == "iot_devices")


def ev(*texts: str, results: tuple[Any, ...] = (), docs: str = "") -> Evidence:
    return Evidence(list(texts), list(results), NOW, docs)


def role(key: str, value: Any, *texts: str, kind: str = "write", required: bool = True, **kw: Any) -> Any:
    found = origin(key, value, kw.pop("prop", {}), required, kind, ev(*texts, **kw))
    return None if found is None else (found.role, found.rule)


def test_stated_returned_and_default() -> None:
    assert role("amount", 1250.5, "send $1,250.50 to Ana") == ("stated", None)
    assert role("quantity", 2, "two of them, please") == ("stated", None)
    assert role("title", "Offsite planning", "call it offsite planning") == ("stated", None)
    assert role("emoji", "thumbsup", "give it a thumbs-up") == ("stated", None)
    assert role("account_id", "ACC-0107", "my checking", results=({"accounts": [{"account_id": "ACC-0107"}]},)) == (
        "returned",
        None,
    )
    entity = {"x-entity": "room"}
    assert role("room_id", "RM-0206", "the hallway lights", prop=entity) is None  # no result and no turn holds it
    assert role("limit", 20, "my invoices", kind="read", prop={"default": 20}) == ("default", None)
    assert role("limit", 5, "my invoices", kind="read", required=False) == ("incidental", None)
    assert role("status", "open", "my invoices", kind="read", required=False, prop={"enum": ["open", "paid"]}) == (
        "incidental",
        None,
    )
    assert role("side", "sell", "get rid of it", prop={"enum": ["buy", "sell"]}) == ("default", None)  # implied
    assert role("note", "low stock", "we are nearly out", required=False) is None  # nobody said it


def test_small_values_are_returned_only_under_their_own_field() -> None:
    result = ({"count": 5, "devices": [{"device_id": "DEV-1", "brightness": 40}]},)
    assert role("limit", 5, "show me", kind="read", results=result) == ("incidental", None)
    assert role("brightness", 40, "as it is now", results=result) == ("returned", None)
    assert role("level", 40, "as it is now", results=result) is None


@pytest.mark.parametrize(
    ("value", "text", "rule"),
    [
        ("2026-06-02", "tomorrow works", "date+1d"),
        ("2026-05-31", "what did I spend yesterday", "date-1d"),
        ("2026-06-05", "this Friday at 2 pm", "date+4d"),
        ("2026-05-29", "since last Friday", "date-3d"),
        ("2026-05-27", "over the past five days", "date-5d"),
        ("2026-06-26", "my flight on June 26", "date+25d"),
        ("2026-06-01", "so far this month", "date+0d"),
        ("2026-06-05T14:00", "this Friday at 2 pm", "date+4d"),
        ("2026-06-05T14:30", "Friday at 2 pm, 30 minutes", "date+4d+span"),
        ("2026-06-18", "flying in June 16, for 2 nights", "date+17d"),
    ],
)
def test_dates_resolve_from_the_reference_date(value: str, text: str, rule: str) -> None:
    assert role("date", value, text) == ("derived", rule)


def test_dates_that_do_not_follow_are_ungrounded() -> None:
    assert role("date", "2026-06-03", "tomorrow works") is None
    assert role("start", "2026-06-05T15:00", "this Friday at 2 pm") is None
    other = Evidence(["tomorrow works"], [], datetime(2026, 9, 6, 9, 0))  # another world's date
    assert origin("date", "2026-09-07", {}, True, "write", other) is not None
    assert origin("date", "2026-06-02", {}, True, "write", other) is None


def test_computed_values_are_exact_to_the_cent() -> None:
    listing = ({"listing_id": "LST-1", "price": 28.0},)
    assert role("amount", 22.4, "offer 80% of the asking price", results=listing) == ("derived", "share")
    assert role("amount", 23.0, "offer 80% of the asking price", results=listing) is None
    assert role("amount", 7109.58, "half of the uninvested cash", results=({"cash": 14219.16},)) == (
        "derived",
        "share",
    )
    assert role("limit", 1250.0, "raise it by $250", results=({"daily_limit": 1000.0},)) == ("derived", "sum")
    assert role("duration_minutes", 90, "an hour and a half") == ("derived", "unit:minute")
    assert role("position", 0, "all the way down") == ("derived", "scale")
    assert role("quantity", 0, "drop the rolls from my basket") == ("stated", None)
    assert role("position", 75, "mostly open") == ("derived", "scale")


def test_paths_and_documented_values() -> None:
    docs = "copy_path('/home/maya/notes.txt', '/home/maya/backups') ... mode like 'u+x'"
    assert role("destination", "/home/maya/backups", "a copy in my backups", docs=docs, prop={"x-entity": "dir"}) == (
        "derived",
        "documented",
    )
    assert role("mode", "u+x", "make sure I can run it", docs=docs) == ("derived", "documented")
    assert role("path", "/home/maya/Documents/notes/q3-roadmap.md", "q3-roadmap.md in Documents/notes", docs=docs)
    assert role("path", "/home/maya/projects/data/sales_q3.csv", "the Q3 sales export", docs=docs) is None


def test_a_task_with_an_unreachable_id_is_rejected() -> None:
    devices = {"devices": [{"device_id": "DEV-0094", "name": "hallway spotlight"}], "count": 1}
    calls = [
        CallRecord("list_homes", {"query": "Mei Adams"}, {"homes": [{"home_id": "HOM-0005"}]}, "read", 0),
        CallRecord("list_devices", {"home_id": "HOM-0005", "room_id": "RM-0035"}, devices, "read", 0),
    ]
    texts = ["I'm Mei Adams. Save the hallway lighting as a scene"]
    records, bad = grounding.ground(calls, [0, 0], texts, IOT, REFERENCE_NOW)
    assert bad == ["g2.room_id"]  # no read found the room, no turn names it
    assert records[0]["query"].role == "stated" and records[1]["home_id"] == ArgSource(role="returned", step="g1")
    task = Task(
        id="unreachable",
        servers=["iot_devices"],
        turns=[
            Turn(
                user=texts[0],
                calls=[
                    GTStep(server="iot_devices", tool=c.tool, arguments=c.arguments, id=f"g{i + 1}")
                    for i, c in enumerate(calls)
                ],
            )
        ],  # fmt: skip
        meta={"synth": {"ungrounded": bad, "source": "intent"}},
    )
    stats = Stats()
    assert Gate(LIBRARY, SynthConfig(), Steering(10), stats).admit(task) is None
    assert stats.dropped == Counter({"ungrounded_value": 1})


def test_the_check_reads_a_task_file_s_records() -> None:
    step = GTStep(
        server="banking",
        tool="get_account",
        arguments={"account_id": "ACC-0107"},
        id="g1",
        sources={"account_id": ArgSource(role="stated", turn=0)},
    )
    said = Task(id="ok", servers=["banking"], turns=[Turn(user="How much is in ACC-0107?", calls=[step])])
    assert grounding.check(said, LIBRARY) == []
    unsaid = said.model_copy(update={"turns": [Turn(user="How much is in my checking?", calls=[step])]})
    assert grounding.check(unsaid, LIBRARY) == ["g1.account_id: not said in the user turns so far"]
    bare = step.model_copy(update={"sources": {}})
    assert grounding.check(said.model_copy(update={"turns": [Turn(user="x", calls=[bare])]}), LIBRARY) == [
        "g1.account_id: no record"
    ]


def test_origins_cover_every_argument() -> None:
    found = origins({"a": 1, "b": "x"}, {"properties": {"a": {}, "b": {}}, "required": ["a"]}, "read", ev("1"))
    assert set(found) == {"a", "b"}
