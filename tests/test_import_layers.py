"""The import layers: no module imports a layer above its own, and no import cycle anywhere.

In the spirit of import-linter, read from the source: every ``import`` and ``from ... import`` in
every module of the application, those inside functions too (a deferred import is still a
dependency, only a hidden one), except those under ``if TYPE_CHECKING:`` (never run). An import
counts as an edge to the most specific module it names (``from memory.services import memories``
is an edge to ``memory.services.memories``; ``from memory.models import Memory`` to
``memory.models``), as grimp builds its graph.

Only real Python imports count. A string that names a model ("memory.Task" in a foreign key or a
migration's ``dependencies``), a dotted path in settings or ``import_string`` is data Django
resolves at run time: migrations legitimately depend on other apps' migrations, and accounts'
migrations 0004/0005 reference memory's models that way without importing them. Migrations are
scanned all the same, so a real import in one counts like any other.

import-linter itself would check the layers, but not this module graph's cycles (its
``acyclic_siblings`` contract compares packages, not modules), so one AST walk does both.

``KNOWN_VIOLATIONS`` lists what the tree breaks today, each with its reason. The test fails on a
violation not in it and on an entry that no longer occurs, so the list only shrinks.
"""

from __future__ import annotations

import ast
import itertools
from collections import deque
from collections.abc import Container
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Bottom to top: a module may import its own layer and those below. A layer is a package or a
# module; the longest match wins, so config's leaf helper sits at the bottom while config's
# settings, URLs and ASGI/WSGI sit on top. The leaf helper is the Celery app every tasks.py
# registers with; it imports nothing of the application: being the bottom layer, an import of
# anything above it is a violation like any other, which keeps it a leaf. Its broker transport
# (core/broker.py, kombu's filesystem transport writing whole messages) is a leaf beside it.
# core is the models-free platform package (errors, tenancy, the registry and the tool door, MCP, the
# embedded server, serve): it imports no app; apps plug into it (accounts installs the door's gate).
LAYERS: tuple[tuple[str, ...], ...] = (
    ("config.celery", "core.broker"),
    ("core",),
    ("accounts",),
    ("events",),
    ("memory",),
    ("partners",),
    ("console",),
    ("config",),
)
# Outside the layers: they may import anything, and nothing in a layer may import them.
OUTSIDE = ("tests", "bench")

# What the tree breaks today: each key is a violation as the tests below name it, each value why. A cycle
# is keyed "cycle: <its modules, sorted>"; the tree has none today (issue 17 broke memory's
# selectors/search -> services/memories -> tasks -> selectors/search).
KNOWN_VIOLATIONS: dict[str, str] = {}


@dataclass
class Graph:
    """The application's modules, their files, and each import edge with the lines it is made on."""

    files: dict[str, Path]
    edges: dict[str, dict[str, list[int]]] = field(default_factory=dict)

    def where(self, source: str, target: str) -> str:
        path = self.files[source].relative_to(ROOT)
        return f"{path}:{','.join(str(line) for line in sorted(set(self.edges[source][target])))}"


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports_in(source: str, *, module: str, is_package: bool) -> list[tuple[str, int]]:
    """Every dotted name ``source`` imports, with its line: ``import a.b`` gives ``a.b``;
    ``from a import b`` gives ``a.b`` (a module or a name in ``a``: the caller resolves it)."""
    found: list[tuple[str, int]] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for statement in node.orelse:
                visit(statement)
            return
        if isinstance(node, ast.Import):
            found.extend((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                package = module.split(".") if is_package else module.split(".")[:-1]
                package = package[: len(package) - (node.level - 1)]
                base = ".".join([*package, node.module] if node.module else package)
            else:
                base = node.module or ""
            found.extend((f"{base}.{alias.name}", node.lineno) for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(source))
    return found


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def top_level_packages() -> list[str]:
    return sorted(path.parent.name for path in ROOT.glob("*/__init__.py"))


def build_graph() -> Graph:
    layered = {name.split(".")[0] for layer in LAYERS for name in layer}
    files: dict[str, Path] = {}
    for package in top_level_packages():
        for path in sorted((ROOT / package).rglob("*.py")):
            files[_module_name(path)] = path
    graph = Graph(files=files)
    for module, path in files.items():
        if module.split(".")[0] not in layered:
            continue  # tests and bench are targets only
        targets = graph.edges.setdefault(module, {})
        for name, line in imports_in(path.read_text(), module=module, is_package=path.name == "__init__.py"):
            target = _resolve(name, files)
            if target is not None and target != module:
                targets.setdefault(target, []).append(line)
    return graph


def _resolve(name: str, modules: Container[str]) -> str | None:
    """The most specific module ``name`` names: itself, else the module it is a name in."""
    parts = name.split(".")
    while parts:
        if ".".join(parts) in modules:
            return ".".join(parts)
        parts.pop()
    return None


def layer_of(module: str) -> int | None:
    """The index of the module's layer in LAYERS (the longest match), len(LAYERS) outside them."""
    best: tuple[int, int] | None = None
    for rank, layer in enumerate(LAYERS):
        for name in layer:
            if (module == name or module.startswith(name + ".")) and (best is None or len(name) > best[0]):
                best = (len(name), rank)
    if best is not None:
        return best[1]
    if module.split(".")[0] in OUTSIDE:
        return len(LAYERS)
    return None


def layer_violations(graph: Graph) -> dict[str, str]:
    found: dict[str, str] = {}
    for source, targets in graph.edges.items():
        own = layer_of(source)
        assert own is not None
        for target, _lines in targets.items():
            above = layer_of(target)
            if above is not None and above > own:
                found[f"{source} -> {target}"] = graph.where(source, target)
    return found


def strongly_connected(edges: dict[str, dict[str, list[int]]]) -> list[list[str]]:
    """Tarjan's components of more than one module, iteratively (the graph is a few hundred deep)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, {}))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(edges.get(successor, {})))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        components.append(sorted(component))
    return sorted(components)


def shortest_cycle(graph: Graph, start: str, members: set[str]) -> list[str]:
    """The shortest way from ``start`` back to itself inside its component."""
    came_from: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for successor in sorted(graph.edges.get(node, {})):
            if successor not in members:
                continue
            if successor == start:
                path = [node]
                while path[-1] != start:
                    path.append(came_from[path[-1]])
                return [*reversed(path), start]
            if successor not in came_from:
                came_from[successor] = node
                queue.append(successor)
    raise AssertionError(f"{start} is in no cycle")


def _rotated(cycle: list[str]) -> tuple[str, ...]:
    """The same cycle started from its first module in sort order, so that rotations compare equal."""
    ring = cycle[:-1]
    first = ring.index(min(ring))
    return (*ring[first:], *ring[:first], ring[first])


def cycles(graph: Graph) -> dict[str, str]:
    """One entry per component; its report names each member's shortest cycle, hop by hop, once."""
    found: dict[str, str] = {}
    for component in strongly_connected(graph.edges):
        members = set(component)
        paths = {_rotated(shortest_cycle(graph, member, members)) for member in component}
        report = []
        for path in sorted(paths, key=len):
            hops = [f"{a} -> {b} ({graph.where(a, b)})" for a, b in itertools.pairwise(path)]
            report.append("\n    ".join(hops))
        found[f"cycle: {', '.join(component)}"] = "\n  ".join(report)
    return found


def _check(found: dict[str, str], kind: str) -> None:
    known = {key for key in KNOWN_VIOLATIONS if key.startswith("cycle: ") == (kind == "cycle")}
    new = {key: where for key, where in found.items() if key not in known}
    gone = known - found.keys()
    lines = [f"new {kind}: {key}\n  {where}" for key, where in sorted(new.items())]
    lines += [f"no longer occurs, remove it from KNOWN_VIOLATIONS: {key}" for key in sorted(gone)]
    assert not lines, "\n".join(lines)


@pytest.fixture(scope="module")
def graph() -> Graph:
    return build_graph()


def test_every_package_has_a_layer():
    unplaced = [name for name in top_level_packages() if layer_of(name) is None]
    assert unplaced == [], f"give these packages a place in LAYERS or OUTSIDE: {unplaced}"


def test_no_module_imports_a_layer_above_its_own(graph: Graph):
    _check(layer_violations(graph), "layer violation")


def test_no_import_cycle(graph: Graph):
    _check(cycles(graph), "cycle")


def test_the_scan_sees_deferred_imports_and_skips_type_checking_ones():
    source = """
from typing import TYPE_CHECKING
import memory.tasks
from . import sibling
from ..models import Memory

if TYPE_CHECKING:
    from partners.models import PartnerLink
else:
    from console import forms

def later():
    from accounts.services import keys
"""
    assert imports_in(source, module="memory.services.memories", is_package=False) == [
        ("typing.TYPE_CHECKING", 2),
        ("memory.tasks", 3),
        ("memory.services.sibling", 4),
        ("memory.models.Memory", 5),
        ("console.forms", 10),
        ("accounts.services.keys", 13),
    ]


def test_a_cycle_is_reported_with_each_hop_and_a_layer_above_is_a_violation():
    files = {name: ROOT / f"{name.replace('.', '/')}.py" for name in ("memory.a", "memory.b", "accounts.c")}
    graph = Graph(
        files=files,
        edges={
            "memory.a": {"memory.b": [3]},
            "memory.b": {"memory.a": [7]},
            "accounts.c": {"memory.a": [1, 9]},
        },
    )
    assert cycles(graph) == {
        "cycle: memory.a, memory.b": (
            "memory.a -> memory.b (memory/a.py:3)\n    memory.b -> memory.a (memory/b.py:7)"
        )
    }
    assert layer_violations(graph) == {"accounts.c -> memory.a": "accounts/c.py:1,9"}
    assert [
        layer_of(name)
        for name in ("config.celery", "core.env", "accounts.tools", "config.urls", "tests.conftest")
    ] == [0, 1, 2, 7, 8]
