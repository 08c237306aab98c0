"""The house's arrows: imports run one way between the folders, and data/ has no circle.

Read from the code's own imports (every ``import`` and ``from ... import``, inside functions and
``TYPE_CHECKING`` blocks too), so a move that brings a circle back or an arrow that runs up fails here.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("bot", "data", "games", "scheduler")


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


MODULES = _modules()


def _imported(path: Path, name: str) -> Iterator[str]:
    """The modules of ours that ``path`` imports (a name imported from a package counts as its module
    when it is one)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            yield base
            for alias in node.names:
                yield f"{base}.{alias.name}"


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for name, path in MODULES.items():
        graph[name] = {m for m in _imported(path, name) if m in MODULES and m != name}
    return graph


GRAPH = _graph()


def _circles(nodes: set[str]) -> list[list[str]]:
    """Strongly connected groups of more than one module among ``nodes`` (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on.add(node)
        for other in sorted(GRAPH[node] & nodes):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                item = stack.pop()
                on.discard(item)
                group.append(item)
                if item == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(nodes):
        if node not in index:
            visit(node)
    return found


def test_no_module_of_data_imports_one_that_imports_it_back() -> None:
    assert _circles({m for m in GRAPH if m.split(".")[0] == "data"}) == []


def test_data_and_scheduler_import_no_adapter_and_the_rules_no_discord() -> None:
    upward = {
        (m, o)
        for m, others in GRAPH.items()
        for o in others
        if m.split(".")[0] in {"data", "scheduler", "games"} and o.split(".")[0] == "bot"
    }
    assert upward == set()
    for name, path in MODULES.items():
        if name.split(".")[0] == "games":
            said = set(_imported(path, name))
            assert not {"discord", "aiosqlite", "asyncpg"} & {s.split(".")[0] for s in said}, name


def test_only_the_discord_adapter_and_its_launchers_reach_into_it() -> None:
    """The simulator, the web record and the shared router never need Discord's side of the bot."""
    reaching = {
        m
        for m, others in GRAPH.items()
        if not m.startswith("bot.discord") and any(o.startswith("bot.discord") for o in others)
    }
    assert reaching <= {"bot.cli", "bot.__main__", "bot.bench.burst"}


def test_the_layout_is_read_at_all() -> None:
    """A check of the checks: the graph holds known arrows (a broken reader would find no circle anywhere)."""
    assert "data.base" in GRAPH["data.store"]
    assert "bot.router" in GRAPH["bot.discord.app"]
