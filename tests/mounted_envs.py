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
