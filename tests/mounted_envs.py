"""Plain stateful Python classes, written the way existing tool-use environments are, for mount tests."""

from __future__ import annotations

from typing import Any


class TinyFS:
    """A tiny in-memory file system with a current directory."""

    def __init__(self) -> None:
        self.files: dict[str, str] = {"/home/notes.txt": "buy milk\n"}
        self.dirs: list[str] = ["/", "/home"]
        self.cwd = "/home"

    def _load_scenario(self, config: dict[str, Any]) -> None:
        self.files = dict(config.get("files", {}))
        self.dirs = sorted({"/", *config.get("dirs", [])})
        self.cwd = config.get("cwd", "/")

    def _abs(self, path: str) -> str:
        return path if path.startswith("/") else (self.cwd.rstrip("/") + "/" + path)

    def pwd(self) -> str:
        """Print the current directory."""
        return self.cwd

    def ls(self, path: str = ".") -> list[str]:
        """List the names in a directory, e.g. ls('/home')."""
        base = self._abs(path).rstrip("/") if path != "." else self.cwd.rstrip("/")
        names = [p[len(base) + 1:] for p in [*self.files, *self.dirs] if p.startswith(base + "/") and p != base]
        return sorted(n for n in names if "/" not in n)

    def cd(self, path: str) -> str:
        """Change the current directory, e.g. cd('/home')."""
        target = self._abs(path)
        if target not in self.dirs:
            raise FileNotFoundError(f"no such directory: {path}")
        self.cwd = target
        return f"cwd is now {target}"

    def mkdir(self, name: str, /) -> str:
        """Make a directory in the current directory, e.g. mkdir('projects')."""
        target = self._abs(name)
        if target in self.dirs:
            raise FileExistsError(f"{name} already exists")
        self.dirs.append(target)
        return f"created {target}"

    def write_file(self, path: str, content: str, append: bool = False) -> dict[str, Any]:
        """Write (or append) text to a file, e.g. write_file('todo.txt', 'call Bob')."""
        target = self._abs(path)
        parent = target.rsplit("/", 1)[0] or "/"
        if parent not in self.dirs:
            raise FileNotFoundError(f"no such directory: {parent}")
        self.files[target] = (self.files.get(target, "") if append else "") + content
        return {"path": target, "size": len(self.files[target])}

    def cat(self, path: str) -> str:
        """Read a file, e.g. cat('notes.txt')."""
        target = self._abs(path)
        if target not in self.files:
            raise FileNotFoundError(f"no such file: {path}")
        return self.files[target]

    def rm(self, path: str) -> str:
        """Remove a file, e.g. rm('notes.txt'). Half-applied removal of a missing file must not stick."""
        target = self._abs(path)
        self.cwd = "/"
        del self.files[target]
        return f"removed {target}"


class Bank:
    """A bank with accounts, loaded from a scenario."""

    __hub_read__ = ("balance",)

    def __init__(self) -> None:
        self.accounts: dict[str, float] = {}
        self.log: list[dict[str, Any]] = []

    def load_scenario(self, config: dict[str, Any]) -> None:
        self.accounts = {k: float(v) for k, v in config["accounts"].items()}

    def balance(self, account: str) -> float:
        """The balance of an account, e.g. balance('alice')."""
        return self.accounts[account]

    def transfer(self, source: str, target: str, amount: float) -> dict[str, float]:
        """Move money between accounts, e.g. transfer('alice', 'bob', 10.0)."""
        if amount <= 0:
            raise ValueError("amount must be positive")
        self.accounts[source] -= amount
        if self.accounts[source] < 0:
            raise ValueError(f"insufficient funds in {source}")
        self.accounts[target] = self.accounts.get(target, 0.0) + amount
        self.log.append({"from": source, "to": target, "amount": amount})
        return {"source": self.accounts[source], "target": self.accounts[target]}


# Classes shaped like the environments of public tool-use benchmarks -----------------------------

import json
import random
from dataclasses import dataclass
from decimal import Decimal
from enum import Enum

from pydantic import BaseModel

from hub.mount import tool


class Directory:
    """A directory node that points back to its parent: the object graph has cycles."""

    def __init__(self, name: str, parent: Directory | None = None) -> None:
        self.name = name
        self.parent = parent
        self.contents: dict[str, Directory | str] = {}


class TreeFS:
    """A file system whose directories link to their parents, loaded from a scenario with options."""

    def __init__(self) -> None:
        self.root = Directory("/")
        self.cwd = self.root
        self.long_context = False

    def _load_scenario(self, scenario: dict[str, Any], long_context: bool = False, banner: str = "") -> None:
        self.long_context = long_context
        self.root = Directory(scenario.get("root", "/"))
        self.cwd = self.root
        for path, content in scenario.get("files", {}).items():
            node = self.root
            *dirs, leaf = path.strip("/").split("/")
            for d in dirs:
                child = node.contents.setdefault(d, Directory(d, node))
                assert isinstance(child, Directory)
                node = child
            node.contents[leaf] = (banner + content) if long_context else content

    def pwd(self) -> str:
        """The current directory's path, e.g. pwd() -> '/docs'."""
        parts, node = [], self.cwd
        while node.parent is not None:
            parts.append(node.name)
            node = node.parent
        return "/" + "/".join(reversed(parts))

    def ls(self) -> list[str]:
        """Names in the current directory, e.g. ls() -> ['a.txt', 'docs']."""
        return sorted(self.cwd.contents)

    def cd(self, folder: str) -> dict[str, str]:
        """Enter a sub-directory ('..' goes up), e.g. cd('docs')."""
        if folder == "..":
            if self.cwd.parent is None:
                raise ValueError("already at the root")
            self.cwd = self.cwd.parent
        else:
            target = self.cwd.contents.get(folder)
            if not isinstance(target, Directory):
                raise ValueError(f"no directory {folder!r} here")
            self.cwd = target
        return {"current_working_directory": self.pwd()}

    def mkdir(self, dir_name: str) -> None:
        """Make a directory here, e.g. mkdir('docs')."""
        if dir_name in self.cwd.contents:
            raise ValueError(f"{dir_name} exists")
        self.cwd.contents[dir_name] = Directory(dir_name, self.cwd)

    def cat(self, file_name: str) -> dict[str, str]:
        """A file's content, e.g. cat('a.txt')."""
        content = self.cwd.contents.get(file_name)
        if not isinstance(content, str):
            raise ValueError(f"no file {file_name!r}")
        return {"file_content": content}

    def echo(self, content: str, file_name: str | None = None) -> dict[str, str] | None:
        """Write content to a file (or just print it), e.g. echo('hi', 'a.txt').

        Args:
            content (str): The text to write.
            file_name (str): [Optional] The file to write it to;
                none prints it.
        """
        if file_name is None:
            return {"terminal_output": content}
        self.cwd.contents[file_name] = content
        return None


class Money(BaseModel):
    amount: Decimal
    currency: str


class Status(Enum):
    OPEN = "open"
    CLOSED = "closed"


@dataclass
class Entry:
    memo: str
    amount: Decimal
    status: Status


class Report:
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines

    def to_json(self) -> str:
        return json.dumps({"lines": len(self.lines), "first": self.lines[0] if self.lines else ""})


class Receipt:
    def __init__(self, number: int) -> None:
        self.number = number

    def __json__(self) -> dict[str, Any]:
        return {"receipt": self.number}


class Ledger:
    """Arbitrary-precision amounts: results hold Decimal, pydantic models, enums, dataclasses."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []

    def add(self, memo: str, amount: str) -> dict[str, Any]:
        """Add an entry with an exact amount, e.g. add('coffee', '3.10')."""
        entry = Entry(memo, Decimal(amount), Status.OPEN)
        self.entries.append(entry)
        return {"total": sum((e.amount for e in self.entries), Decimal(0)), "entry": entry, "count": len(self.entries)}

    def total(self) -> Money:
        """The balance as a money object, e.g. total()."""
        return Money(amount=sum((e.amount for e in self.entries), Decimal(0)), currency="EUR")

    def report(self) -> Report:
        """A report object with its own to_json, e.g. report()."""
        return Report([e.memo for e in self.entries])

    def receipt(self) -> list[Receipt]:
        """Receipts with a __json__ method, e.g. receipt()."""
        return [Receipt(i) for i, _ in enumerate(self.entries, 1)]


class ToolType(str, Enum):
    READ = "read"
    WRITE = "write"
    GENERIC = "generic"


def is_tool(tool_type: ToolType = ToolType.READ) -> Any:
    """The marker of tau2-bench style toolkits."""

    def decorate(fn: Any) -> Any:
        fn.__tool__ = True
        fn.__tool_type__ = tool_type
        return fn

    return decorate


class AirlineTools:
    """Customer service over a database; public helpers must not become tools."""

    def __init__(self) -> None:
        self.db: dict[str, dict[str, Any]] = {"users": {"raj_1": {"name": "Raj", "balance": 100}}}

    @is_tool(ToolType.READ)
    def get_user_details(self, user_id: str) -> dict[str, Any]:
        """A user's record, e.g. get_user_details('raj_1')."""
        return self.db["users"][user_id]

    @is_tool(ToolType.WRITE)
    def update_balance(self, user_id: str, amount: float) -> dict[str, Any]:
        """Add to a user's balance, e.g. update_balance('raj_1', 25)."""
        self.db["users"][user_id]["balance"] += amount
        return self.db["users"][user_id]

    def overwrite_database(self, db: dict[str, Any]) -> None:
        """A helper for the benchmark's harness: replaces everything."""
        self.db = db

    def assert_balance(self, user_id: str, amount: float) -> bool:
        """A checker helper."""
        return bool(self.db["users"][user_id]["balance"] == amount)


class MarkedCounter:
    """Tools chosen with the hub's own decorator."""

    def __init__(self) -> None:
        self.n = 0

    @tool("write")
    def bump(self, by: int = 1) -> int:
        """Add to the counter, e.g. bump(2)."""
        self.n += by
        return self.n

    @tool(kind="read")
    def peek(self) -> int:
        """The counter, e.g. peek()."""
        return self.n

    def reset(self) -> None:
        """A public helper that is not a tool."""
        self.n = 0


class HookedCounter:
    """A class that copies itself: forks use __hub_fork__, hashes use __hub_state__."""

    forks = 0

    def __init__(self) -> None:
        self.values: list[int] = []

    def __hub_fork__(self) -> HookedCounter:
        HookedCounter.forks += 1
        twin = HookedCounter()
        twin.values = list(self.values)
        return twin

    def __hub_state__(self) -> dict[str, Any]:
        return {"values": self.values, "sum": sum(self.values)}

    def push(self, value: int) -> int:
        """Append a value, e.g. push(3)."""
        self.values.append(value)
        return len(self.values)


class Shop:
    """A large state: users, products and orders of a synthetic shop (``size`` users, ~1 KB each)."""

    def __init__(self, size: int = 200) -> None:
        rng = random.Random(7)
        self.products = {f"p{i}": {"name": f"product {i}", "price": round(rng.uniform(1, 500), 2),
                                   "tags": [f"t{rng.randrange(50)}" for _ in range(3)], "stock": rng.randrange(100)}
                         for i in range(size // 2)}
        self.users = {f"u{i}": {"name": f"user {i}", "email": f"user{i}@example.com", "address": {
            "street": f"{rng.randrange(999)} Main St", "city": rng.choice(["Paris", "Oslo", "Lima"]),
            "zip": f"{rng.randrange(99999):05d}"}, "payment_methods": [{"id": f"pm{i}-{k}", "kind": "card",
                                                                         "last4": f"{rng.randrange(9999):04d}"}
                                                                        for k in range(2)],
            "orders": [f"o{i}-{k}" for k in range(3)]} for i in range(size)}
        self.orders = {f"o{i}-{k}": {"user": f"u{i}", "status": "delivered",
                                     "items": [{"product": f"p{rng.randrange(max(1, size // 2))}",
                                                "qty": rng.randrange(1, 4)} for _ in range(3)],
                                     "total": round(rng.uniform(5, 900), 2)}
                       for i in range(size) for k in range(3)}

    def get_order(self, order_id: str) -> dict[str, Any]:
        """An order, e.g. get_order('o1-0')."""
        return self.orders[order_id]

    def cancel_order(self, order_id: str) -> dict[str, Any]:
        """Cancel a delivered order, e.g. cancel_order('o1-0')."""
        order = self.orders[order_id]
        if order["status"] == "cancelled":
            raise ValueError(f"order {order_id} is already cancelled")
        order["status"] = "cancelled"
        return order


class Cached:
    """A state holding a local function, which pickle refuses: forks fall back to deepcopy."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self.normalize = lambda s: s.strip().lower()

    def add_item(self, item: str) -> int:
        """Add an item, e.g. add_item('Milk')."""
        if not item.strip():
            self.items.append("half-done")
            raise ValueError("empty item")
        self.items.append(self.normalize(item))
        return len(self.items)

    def list_items(self) -> list[str]:
        """The items, e.g. list_items()."""
        return self.items


def make_shop() -> Shop:
    """A factory: the instance a mount serves need not come from a bare constructor."""
    return Shop(20)


class Sneaky:
    """A read-named method that writes: served as a read unless declared otherwise."""

    def __init__(self) -> None:
        self.visits = 0

    def get_visits(self) -> int:
        """The visit count (and, wrongly, one more visit), e.g. get_visits()."""
        self.visits += 1
        return self.visits

    def catalog_update(self) -> None:
        """Not a read although it starts like 'cat', e.g. catalog_update()."""


class Keeper:
    """Keeps what it is given: the state must not alias the request's arguments."""

    def __init__(self) -> None:
        self.kept: list[list[str]] = []

    def keep(self, items: list[str]) -> int:
        """Keep a list, e.g. keep(['a'])."""
        self.kept.append(items)
        for kept in self.kept:
            kept.append("+")
        return len(self.kept)


class Shapes:
    """Results of the shapes plain Python code returns."""

    def __init__(self) -> None:
        self.scores = {"a": 1, "b": 2}

    def list_names(self) -> Any:
        """Names as a dict view, e.g. list_names()."""
        return self.scores.keys()

    def get_doubled(self) -> Any:
        """Doubled scores as a generator, e.g. get_doubled()."""
        return (v * 2 for v in self.scores.values())

    def get_vector(self) -> Any:
        """A numpy-like object with tolist(), e.g. get_vector()."""

        class Vector:
            def tolist(self) -> list[float]:
                return [1.5, 2.5]

        return Vector()


class AsyncTools:
    """An environment with an async method."""

    async def fetch(self, url: str) -> str:
        """Fetch a URL, e.g. fetch('x')."""
        return url

    def ping(self) -> str:
        """Ping, e.g. ping()."""
        return "pong"
