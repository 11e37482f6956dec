"""What a server's users say, kept as data beside its code: ``servers/<name>/phrasings.toml``.

An intent is a program (what the user wants, which calls answer it); its words are prose, and prose
lives in the server's catalog, one section per thing said, named after the intent that says it::

    [put_in_basket]
    say = '''
    {me}. I'd like {many} of {what}, please put {them} in my basket.
    {me} - {could you|can you} drop {many} of {what} into my basket?
    '''
    minimal = '''
    {me}. I want {what}.
    '''

One phrasing a line, written as ``Scene.say`` reads it (``{slot}``, ``[optional part]``, ``{a|b}``
choices); ``minimal`` holds the phrasings of a minimal opening turn. The code names a section::

    WORDS = phrasings(__package__)
    s.say(WORDS.put_in_basket, what=product, many="two", them="them")

Sections ``[why.damaged]``, ``[why.late]`` make a family, ``WORDS.family("why")``: a dict by the part after
the dot, for phrasings chosen by a value (a return reason, a status). A section is a ``Phrasings``: a
tuple of its ``say`` lines that also carries its ``minimal`` ones, so it goes wherever a tuple of
phrasings goes (``s.then``, ``FollowUp(phrasings=...)``) and ``say`` takes both.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from importlib import resources
from types import MappingProxyType

FILE = "phrasings.toml"
FIELDS = ("say", "minimal")


class CatalogError(ValueError):
    """A phrasings file that does not read as a catalog (which file, which section, what is wrong)."""


class Phrasings(tuple[str, ...]):
    """The ``say`` lines of one catalog section, with its ``minimal`` lines as ``.minimal``."""

    minimal: tuple[str, ...]

    def __new__(cls, say: Iterable[str], minimal: Iterable[str] = ()) -> Phrasings:
        made = super().__new__(cls, say)
        made.minimal = tuple(minimal)
        return made


Said = str | Phrasings


def spoken(said: Sequence[Said], minimal: Sequence[str] = ()) -> tuple[list[str], list[str]]:
    """Phrasings and minimal phrasings from what a ``say`` got: strings, catalog sections or both; a
    section's own ``minimal`` lines count unless ``minimal`` is given."""
    lines: list[str] = []
    own: list[str] = []
    for item in said:
        if isinstance(item, Phrasings):
            lines.extend(item)
            own.extend(item.minimal)
        else:
            lines.append(item)
    return lines, list(minimal) if minimal else own


class Catalog:
    """A server's phrasings by section name: ``WORDS.put_in_basket``; a family of sections by its name
    (``[why.damaged]``, ``[why.late]``): ``WORDS.family("why")``, a dict by the part after the dot."""

    def __init__(self, where: str, sections: dict[str, Phrasings], families: dict[str, dict[str, Phrasings]]) -> None:
        self.where = where
        self.sections = sections
        self.families = families

    def family(self, name: str) -> Mapping[str, Phrasings]:
        try:
            return MappingProxyType(self.families[name])
        except KeyError:
            raise AttributeError(f"{self.where} has no [{name}.*] sections") from None

    def __getattr__(self, name: str) -> Phrasings:
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            return self.sections[name]
        except KeyError:
            raise AttributeError(f"{self.where} has no [{name}] section") from None


def parse(text: str, where: str) -> Catalog:
    """A catalog from its TOML text (``where``: the file, for errors)."""
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise CatalogError(f"{where}: {e}") from e
    sections = {name: body for name, body in table.items() if not _is_family(body)}
    families = {name: body for name, body in table.items() if _is_family(body)}
    return Catalog(
        where,
        {name: _section(where, name, body) for name, body in sections.items()},
        {name: {k: _section(where, f"{name}.{k}", v) for k, v in body.items()} for name, body in families.items()},
    )


def _is_family(body: object) -> bool:
    return isinstance(body, dict) and bool(body) and all(isinstance(v, dict) for v in body.values())


def _section(where: str, name: str, body: object) -> Phrasings:
    if isinstance(body, dict) and any(isinstance(v, dict) for v in body.values()):
        raise CatalogError(f"{where} [{name}]: a section and a family of sections cannot share a name")
    if not isinstance(body, dict) or not body or set(body) - set(FIELDS):
        raise CatalogError(f"{where} [{name}]: a section holds {' and/or '.join(FIELDS)}, one phrasing a line")
    return Phrasings(_lines(where, name, body.get("say", "")), _lines(where, name, body.get("minimal", "")))


def _lines(where: str, name: str, value: object) -> tuple[str, ...]:
    if not isinstance(value, str):
        raise CatalogError(f"{where} [{name}]: write phrasings as a '''...''' block, one a line")
    lines = tuple(value.splitlines())
    if any(not line.strip() or line != line.strip() for line in lines):
        raise CatalogError(f"{where} [{name}]: an empty line, or spaces at the end of one")
    return lines


@cache
def phrasings(package: str) -> Catalog:
    """The catalog of the server package ``package`` (an intents module passes ``__package__``)."""
    where = f"{package.replace('.', '/')}/{FILE}"
    return parse(resources.files(package).joinpath(FILE).read_text(encoding="utf-8"), where)
