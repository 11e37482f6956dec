"""The tool dependency graph of one server, derived from the tool schemas and cached by schema hash.

- explicit edge A -> B: a type A ``returns`` is the Entity type of a *required* parameter of B
  (A's output can feed B's input);
- implicit edge A -> B: B declares ``requires=("A", ...)`` (A must run first to create state).

The graph is a pure function of the tools' specs, so it is cached as JSON under
``<cache_dir>/graph-<server>-<schema hash>.json`` and rebuilt only when a schema changes.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from hub.kit import Tool

EdgeKind = Literal["explicit", "implicit"]


@dataclass(frozen=True)
class Edge:
    src: str
    dst: str
    kind: EdgeKind
    via: tuple[str, ...] = ()  # entity types carried (explicit edges)


@dataclass
class ToolNode:
    name: str
    kind: str  # read / write
    required_entities: dict[str, str]  # required parameter -> entity type
    optional_entities: dict[str, str]
    returns: tuple[str, ...]
    requires: tuple[str, ...]


@dataclass
class ToolGraph:
    server: str
    schema_hash: str
    nodes: dict[str, ToolNode]
    edges: list[Edge]
    _succ: dict[str, list[Edge]] = field(default_factory=dict, repr=False)
    _pred: dict[str, list[Edge]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._succ = {n: [] for n in self.nodes}
        self._pred = {n: [] for n in self.nodes}
        for e in self.edges:
            self._succ[e.src].append(e)
            self._pred[e.dst].append(e)

    def successors(self, tool: str) -> list[Edge]:
        return self._succ.get(tool, [])

    def predecessors(self, tool: str) -> list[Edge]:
        return self._pred.get(tool, [])

    def to_json(self) -> dict[str, Any]:
        return {
            "server": self.server,
            "schema_hash": self.schema_hash,
            "nodes": [asdict(n) for n in self.nodes.values()],
            "edges": [{"src": e.src, "dst": e.dst, "kind": e.kind, "via": list(e.via)} for e in self.edges],
            "counts": {
                "nodes": len(self.nodes),
                "explicit": sum(e.kind == "explicit" for e in self.edges),
                "implicit": sum(e.kind == "implicit" for e in self.edges),
            },
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ToolGraph:
        nodes = {
            n["name"]: ToolNode(
                n["name"],
                n["kind"],
                dict(n["required_entities"]),
                dict(n["optional_entities"]),
                tuple(n["returns"]),
                tuple(n["requires"]),
            )
            for n in data["nodes"]
        }
        edges = [Edge(e["src"], e["dst"], e["kind"], tuple(e["via"])) for e in data["edges"]]
        return cls(data["server"], data["schema_hash"], nodes, edges)

    def to_dot(self) -> str:
        lines = [f'digraph "{self.server}" {{', "  rankdir=LR;", "  node [shape=box, fontname=Helvetica];"]
        for n in self.nodes.values():
            style = ', style=filled, fillcolor="#fde2c8"' if n.kind == "write" else ""
            lines.append(f'  "{n.name}" [label="{n.name}\\n({n.kind})"{style}];')
        for e in self.edges:
            if e.kind == "explicit":
                lines.append(f'  "{e.src}" -> "{e.dst}" [label="{",".join(e.via)}"];')
            else:
                lines.append(f'  "{e.src}" -> "{e.dst}" [style=dashed, color=red, label="requires"];')
        lines.append("}")
        return "\n".join(lines) + "\n"


def schema_hash(server: str, tools: dict[str, Tool]) -> str:
    specs = [tools[name].spec() for name in sorted(tools)]
    text = json.dumps([server, specs], sort_keys=True, default=str)
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def node_of(tool: Tool) -> ToolNode:
    required = set(tool.required)
    req = {p: e for p, e in tool.params.items() if e and p in required}
    opt = {p: e for p, e in tool.params.items() if e and p not in required}
    return ToolNode(tool.name, tool.kind, req, opt, tuple(tool.returns), tuple(tool.requires))


def build_graph(server: str, tools: dict[str, Tool]) -> ToolGraph:
    """The graph of one server's tools (no cache)."""
    nodes = {name: node_of(t) for name, t in tools.items()}
    edges: list[Edge] = []
    for a in nodes.values():
        for b in nodes.values():
            if a.name == b.name:
                continue
            via = tuple(sorted(set(a.returns) & set(b.required_entities.values())))
            if via:
                edges.append(Edge(a.name, b.name, "explicit", via))
            if a.name in b.requires:
                edges.append(Edge(a.name, b.name, "implicit"))
    return ToolGraph(server, schema_hash(server, tools), nodes, edges)


def default_cache_dir() -> Path:
    return Path.home() / ".cache" / "prove-hub" / "graphs"


def load_graph(server: str, tools: dict[str, Tool], cache_dir: Path | None = None) -> ToolGraph:
    """The graph of one server, from the JSON cache when the schema hash matches, else built and cached."""
    cache_dir = cache_dir or default_cache_dir()
    digest = schema_hash(server, tools)
    path = cache_dir / f"graph-{server}-{digest}.json"
    if path.exists():
        try:
            return ToolGraph.from_json(json.loads(path.read_text()))
        except (ValueError, KeyError, TypeError):
            pass  # a corrupt cache entry is rebuilt
    graph = build_graph(server, tools)
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(graph.to_json(), indent=1))
        tmp.replace(path)
    except OSError:
        pass  # a read-only cache is not an error: the graph is cheap to rebuild
    return graph
