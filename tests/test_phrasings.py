"""The phrasing catalogs (``servers/<name>/phrasings.toml``, read by ``hub.kit.phrasings``): every server's
catalog reads, every section is said by its code and every section its code names exists; and the format
itself: what a malformed catalog says, that lines come back as written, how ``say`` takes a section."""

from __future__ import annotations

import pickle
import random
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hub.kit.intent import IntentError, chosen
from hub.kit.phrasings import CatalogError, Phrasings, parse, phrasings, spoken
from servers import REGISTRY

WITH_INTENTS = [s for s in REGISTRY if s.intents]
NAMED = re.compile(r"\bWORDS\.(?!family\()(\w+)")
FAMILY = re.compile(r"\bWORDS\.family\(\"(\w+)\"\)")


def package_dir(server_name: str) -> Path:
    return Path(__file__).resolve().parents[1] / "servers" / server_name


def named_in_code(server_name: str, pattern: re.Pattern[str] = NAMED) -> set[str]:
    return {m for f in package_dir(server_name).glob("*.py") for m in pattern.findall(f.read_text())}


@pytest.mark.parametrize("server", WITH_INTENTS, ids=lambda s: s.name)
def test_every_section_is_said_and_every_named_section_exists(server) -> None:
    catalog = phrasings(f"servers.{server.name}")
    named = named_in_code(server.name)
    assert named - set(catalog.sections) == set()
    # a follow-up row without phrasings of its own says the section named as the row
    said = named | {intent.name for intent in server.intents}
    assert set(catalog.sections) - said == set()
    assert set(catalog.families) == named_in_code(server.name, FAMILY)


@pytest.mark.parametrize("server", WITH_INTENTS, ids=lambda s: s.name)
def test_every_phrasing_draws(server) -> None:
    rng = random.Random(0)
    catalog = phrasings(f"servers.{server.name}")
    families = [(f"{name}.{k}", v) for name, family in catalog.families.items() for k, v in family.items()]
    for name, section in [*catalog.sections.items(), *families]:
        assert section or section.minimal, name
        for line in (*section, *section.minimal):
            chosen(line, rng)


def test_an_open_choice_fails_when_drawn() -> None:
    section = parse("[x]\nsay = '''\n{Show me|Pull up the order\n'''\n", "t.toml").x
    with pytest.raises(IntentError, match="not closed"):
        chosen(section[0], random.Random(0))


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[x\nsay = 1", "t.toml: "),
        ("[x]\nsay = ['a', 'b']\n", r"t.toml \[x\]: write phrasings as a '''...''' block"),
        ("[x]\nask = '''\na\n'''\n", r"t.toml \[x\]: a section holds say and/or minimal"),
        ("[x]\n", r"t.toml \[x\]: a section holds say and/or minimal"),
        ("[x]\nsay = '''\na\n\nb\n'''\n", r"t.toml \[x\]: an empty line"),
        ("[x]\nsay = '''\na \n'''\n", r"t.toml \[x\]: an empty line, or spaces at the end of one"),
        ("x = 'a'\n", r"t.toml \[x\]: a section holds"),
        ("[x]\nsay = 'a'\n[x.y]\nsay = 'b'\n", r"t.toml \[x\]: a section and a family of sections cannot"),
    ],
)
def test_a_malformed_catalog_says_where(text: str, says: str) -> None:
    with pytest.raises(CatalogError, match=says):
        parse(text, "t.toml")


def test_an_unknown_section_names_the_file() -> None:
    with pytest.raises(AttributeError, match=r"servers/shopping/phrasings.toml has no \[no_such\] section"):
        _ = phrasings("servers.shopping").no_such


LINE = st.text(st.characters(blacklist_categories=["Cc", "Cs", "Zl", "Zp"]), min_size=1, max_size=40).filter(
    lambda t: t == t.strip() and "'''" not in t
)


@given(st.lists(LINE, min_size=1, max_size=6), st.lists(LINE, max_size=3))
def test_lines_come_back_as_written(say: list[str], minimal: list[str]) -> None:
    text = "[x]\nsay = '''\n" + "\n".join(say) + "\n'''\n"
    if minimal:
        text += "minimal = '''\n" + "\n".join(minimal) + "\n'''\n"
    section = parse(text, "t.toml").x
    assert list(section) == say
    assert list(section.minimal) == minimal


def test_say_takes_a_section_with_its_minimal_lines() -> None:
    section = Phrasings(["Show me {x}.", "What is {x}?"], ["{x}?"])
    assert spoken([section]) == (["Show me {x}.", "What is {x}?"], ["{x}?"])
    assert spoken([section], ["Just {x}."]) == (["Show me {x}.", "What is {x}?"], ["Just {x}."])
    assert spoken(["a", section]) == (["a", "Show me {x}.", "What is {x}?"], ["{x}?"])
    assert spoken(["a", "b"]) == (["a", "b"], [])


def test_a_family_is_a_dict_by_the_part_after_the_dot() -> None:
    text = "[why.late]\nsay = '''\nIt came late.\n'''\n" + "[why.\"the wrong size\"]\nsay = '''\nToo big.\n'''\n"
    catalog = parse(text, "t.toml")
    assert catalog.family("why") == {"late": ("It came late.",), "the wrong size": ("Too big.",)}
    assert catalog.sections == {}
    with pytest.raises(AttributeError, match=r"t.toml has no \[what\.\*\] sections"):
        catalog.family("what")


def test_a_section_survives_pickling_with_its_minimal_lines() -> None:
    section = Phrasings(["Show me {x}."], ["{x}?"])
    again = pickle.loads(pickle.dumps(section))
    assert (again, again.minimal) == (section, section.minimal)
