"""Text inside files: a regex matcher bounded in CPU time, file size limits, lines, and the entries of an
archive file."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import regex

from hub.kit import ToolError
from servers.filesystem.core import DIR_SIZE, human
from servers.filesystem.formats import ARCHIVE_MAGIC

# CPU seconds per tool call, over every line it searches, as the regex package counts its timeout: a
# process clock, so a loaded machine neither fails an ordinary search nor lets a backtracking one run longer.
REGEX_SECONDS = 0.25
MAX_FILE_BYTES = 1_000_000


class Matcher:
    """A compiled pattern and the time left to the tool call that uses it.

    Patterns like '(a|a)*$' backtrack exponentially; the ``regex`` package stops a search at its
    timeout, so one call cannot stall the hub however the pattern is written."""

    def __init__(self, pattern: str, rx: regex.Pattern[str], seconds: float = REGEX_SECONDS) -> None:
        self.pattern = pattern
        self.rx = rx
        self.seconds = seconds
        self.deadline = time.process_time() + seconds

    def _left(self) -> float:
        left = self.deadline - time.process_time()
        if left <= 0:
            raise self._too_slow()
        return left

    def _too_slow(self) -> ToolError:
        return ToolError(
            f"Pattern {self.pattern!r} took longer than {self.seconds:g} s and was stopped. A pattern "
            "that backtracks (like '(a|a)*') needs simplifying or fixed_string=true; a large search "
            "needs a narrower path or include= glob."
        )

    def search(self, text: str) -> bool:
        try:
            # concurrent: the GIL is released while it matches (the text is an immutable str), so a search in
            # a session's lane leaves the event loop and other sessions running
            return self.rx.search(text, timeout=self._left(), concurrent=True) is not None
        except TimeoutError:
            raise self._too_slow() from None

    def subn(self, replace: Callable[[regex.Match[str]], str], text: str, count: int) -> tuple[str, int]:
        try:
            return self.rx.subn(  # type: ignore[no-any-return]
                replace, text, count=count, timeout=self._left(), concurrent=True
            )
        except TimeoutError:
            raise self._too_slow() from None


def compile_regex(pattern: str, ignore_case: bool = False, fixed: bool = False) -> Matcher:
    flags = regex.V0 | (regex.IGNORECASE if ignore_case else 0)
    try:
        return Matcher(pattern, regex.compile(regex.escape(pattern) if fixed else pattern, flags))
    except (regex.error, OverflowError, RecursionError, ValueError) as exc:
        raise ToolError(
            f"Invalid regular expression {pattern!r}: {exc}. Escape special characters or pass fixed_string=true."
        ) from None


def check_file_size(path: str, size: int) -> None:
    if size > MAX_FILE_BYTES:
        raise ToolError(
            f"File too large: '{path}' would be {human(size)}; a file holds at most {human(MAX_FILE_BYTES)}. "
            "Nothing was changed; split the content over several files."
        )


def lines_of(node: dict[str, Any]) -> list[str]:
    return str(node["content"] or "").splitlines()


# Archives -----------------------------------------------------------------------------------------


def archive_decode(node: dict[str, Any]) -> list[dict[str, Any]]:
    content = node["content"] or ""
    if node["type"] != "file" or not content.startswith(ARCHIVE_MAGIC):
        raise ToolError(f"'{node['path']}' is not an archive this system can read (create one with create_archive).")
    try:
        entries = json.loads(content[len(ARCHIVE_MAGIC) :])
    except ValueError:
        raise ToolError(f"'{node['path']}' is a damaged archive.") from None
    if not isinstance(entries, list) or not all(_valid_entry(e) for e in entries):
        raise ToolError(f"'{node['path']}' is a damaged archive.")
    return entries


def _valid_entry(e: Any) -> bool:
    if not isinstance(e, dict) or not isinstance(e.get("path"), str) or not e["path"].strip("/"):
        return False
    kind = e.get("type")
    try:
        if kind == "file":
            ok = isinstance(e.get("content"), str) and (
                bool(e.get("binary")) or e.get("size") == len(e["content"].encode())
            )
        elif kind == "dir":
            ok = e.get("size") == DIR_SIZE
        elif kind == "symlink":
            ok = isinstance(e.get("target"), str) and bool(e["target"]) and e.get("size") == len(e["target"].encode())
        else:
            return False
        return bool(
            ok
            and "\x00" not in e["path"]
            and isinstance(e.get("size"), int)
            and 0 <= e["size"] <= 10**12
            and isinstance(e.get("mode"), int)
            and 0 <= e["mode"] <= 0o7777
            and isinstance(e.get("mtime"), str)
            and e.get("binary", 0) in (0, 1)
            and (kind == "symlink" or e.get("target") is None)
            and (kind == "file" or e.get("content") is None)
        )
    except (UnicodeEncodeError, TypeError):
        return False
