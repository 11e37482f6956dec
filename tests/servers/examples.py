"""The calls a tool's docstring shows as examples, e.g. ``get_event('EVT-00089')``, as (tool, arguments) pairs.

A server's tests can run each example on a fresh seed: the example ids in the docstrings then provably exist
and the example calls succeed as written, which is what the model reading them will try first.
"""

from __future__ import annotations

import ast
from typing import Any

from hub.kit import Server


def _calls(text: str, name: str) -> list[str]:
    """The argument texts of every ``name(...)`` in ``text`` (parentheses balanced, strings respected)."""
    out, start = [], 0
    while (i := text.find(name + "(", start)) >= 0:
        start = i + len(name) + 1
        if i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_"):
            continue
        depth, quote, j = 1, "", start
        while j < len(text) and depth:
            ch = text[j]
            if quote:
                quote = "" if ch == quote else quote
            elif ch in "'\"":
                quote = ch
            elif ch in "([":
                depth += 1
            elif ch in ")]":
                depth -= 1
            j += 1
        if depth == 0:
            out.append(text[start : j - 1])
    return out


JSON_WORDS = {"true": True, "false": False, "null": None}


def _literal(node: ast.expr) -> Any:
    """A Python literal, or JSON's true/false/null as a model reading the docstring would take them."""
    if isinstance(node, ast.Name) and node.id in JSON_WORDS:
        return JSON_WORDS[node.id]
    return ast.literal_eval(node)


def docstring_examples(server: Server) -> list[tuple[str, dict[str, Any]]]:
    """(tool name, keyword arguments) for each example call of a tool in its own docstring."""
    examples = []
    for tool in server.tools.values():
        names = list(tool.params)
        for inner in _calls(tool.description, tool.name):
            call = ast.parse(f"f({inner})", mode="eval").body
            assert isinstance(call, ast.Call)
            args = {names[k]: _literal(a) for k, a in enumerate(call.args)}
            args.update({kw.arg: _literal(kw.value) for kw in call.keywords if kw.arg})
            examples.append((tool.name, args))
    return examples
