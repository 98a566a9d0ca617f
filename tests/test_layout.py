"""The layout stays true: imports flow one way between subpackages, click stays in cli/, and no
modules import one another in a circle, inside a subpackage either.

Every module is read with ``ast`` (function-level imports included) and each planfilter import
is resolved to the subpackage it lands in. A subpackage may import itself and the layers
listed for it, nothing else. A new subpackage must be added here, with its place in the order.
Within a subpackage the modules form a one-way graph too: what two modules both need lives in a
third they both import, not in one that imports the other back from inside a function.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "planfilter"

#: subpackage -> the subpackages it may import (besides itself).
LAYERS: dict[str, frozenset[str]] = {
    "core": frozenset(),
    "models": frozenset({"core"}),
    "retrieval": frozenset({"core", "models"}),
    "filters": frozenset({"core", "retrieval"}),
    "live": frozenset({"core", "models", "retrieval", "filters"}),
    "suites": frozenset({"core", "models"}),
    "bench": frozenset({"core", "models", "retrieval", "filters", "live", "suites"}),
    "infer": frozenset({"core", "models", "retrieval"}),
    "gateway": frozenset({"core", "models", "retrieval", "filters", "live"}),
    "cli": frozenset({"core", "models", "retrieval", "filters", "live", "bench", "infer",
                      "gateway", "suites"}),
}
#: Filter methods never import the table that registers them (nor what sits above it).
METHOD_MODULES = ("base", "relevance", "causal", "recovery", "toolscope", "preselect")
ABOVE_METHODS = frozenset({"registry", "guard", "risk"})


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(source: str, module: str, is_package: bool) -> list[tuple[int, str, list[str]]]:
    """(line, absolute module, names taken from it) of every import in ``source``, relative
    ones resolved; a plain ``import x`` takes no names."""
    package = module if is_package else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append((node.lineno, target, [a.name for a in node.names]))
    return found


def imported_modules(source: str, module: str, is_package: bool) -> list[tuple[int, str]]:
    """(line, absolute module) of every import in ``source``, relative ones resolved."""
    found = []
    for line, target, names in imports(source, module, is_package):
        # `from . import x` may name a submodule: count both the package and x.
        found.append((line, target))
        found += [(line, f"{target}.{name}") for name in names]
    return found


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "planfilter" and len(parts) > 1 else None


def violations(source: str, module: str, is_package: bool = False) -> list[str]:
    """Every import of ``source`` (the text of ``module``) against the layout."""
    mine = layer_of(module)
    problems = []
    for line, target in imported_modules(source, module, is_package):
        if target.split(".")[0] == "click" and mine != "cli":
            problems.append(f"{module}:{line} imports click outside planfilter.cli")
        theirs = layer_of(target)
        if mine is None or theirs is None or theirs == mine or theirs not in LAYERS:
            continue
        if theirs not in LAYERS[mine]:
            problems.append(f"{module}:{line} imports {target}: {mine} may import only "
                            f"{sorted(LAYERS[mine]) or 'nothing else of planfilter'}")
    if mine == "filters" and module.rpartition(".")[2] in METHOD_MODULES:
        for line, target in imported_modules(source, module, is_package):
            parts = target.split(".")
            if parts[:2] == ["planfilter", "filters"] and len(parts) > 2 and \
                    parts[2] in ABOVE_METHODS:
                problems.append(f"{module}:{line} imports {target}: filter methods never "
                                "import the method table or what sits above it")
    return problems


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def import_graph(sources: Mapping[str, tuple[str, bool]]) -> dict[str, dict[str, int]]:
    """module -> {planfilter module it imports: line}, from ``{module: (source, is_package)}``.

    ``from pkg import x`` imports the submodule ``pkg.x`` when there is one, and takes a name
    from ``pkg`` itself otherwise. Packages an import does not take names from are not counted:
    Python initialises them before the module, so they cannot close a circle through it.
    """
    graph: dict[str, dict[str, int]] = {}
    for module, (source, is_package) in sources.items():
        edges: dict[str, int] = {}
        for line, target, names in imports(source, module, is_package):
            submodules = [f"{target}.{name}" for name in names if f"{target}.{name}" in sources]
            from_itself = not names or len(submodules) < len(names)
            for imported in submodules + ([target] if from_itself else []):
                if imported in sources and imported != module:
                    edges.setdefault(imported, line)
        graph[module] = edges
    return graph


def circles(graph: Mapping[str, Mapping[str, int]]) -> list[str]:
    """Every import circle of ``graph`` (its strongly connected components of two modules or
    more), each as ``a:line -> b:line -> a``, in a stable order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan; the graph is a few hundred modules deep at most
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, {})):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return [_walk(graph, component) for component in sorted(found)]


def _walk(graph: Mapping[str, Mapping[str, int]], component: list[str]) -> str:
    """One circle through ``component``, from its first module back to it, with the line of
    each import, for the message."""
    members = set(component)
    start = component[0]
    path = [start]
    seen = {start}
    node = start
    while True:
        ahead = sorted(t for t in graph[node] if t in members)
        if start in ahead and len(path) > 1:
            nxt = start
        else:
            nxt = next((t for t in ahead if t not in seen), start)
        path[-1] = f"{node}:{graph[node][nxt]}"
        if nxt == start:
            return " -> ".join(path + [start])
        path.append(nxt)
        seen.add(nxt)
        node = nxt


def test_every_subpackage_has_a_place_in_the_order():
    subpackages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert subpackages == set(LAYERS), "add the new subpackage to LAYERS, with what it imports"


def test_no_module_sits_outside_a_subpackage():
    loose = [p.name for p in PACKAGE.glob("*.py") if p.name != "__init__.py"]
    assert loose == []


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_each_subpackage_says_what_it_holds_and_may_import(layer):
    doc = ast.get_docstring(ast.parse((PACKAGE / layer / "__init__.py").read_text()))
    assert doc and "import" in doc.lower()


def test_no_modules_import_one_another_in_a_circle():
    sources = {module_name(p): (p.read_text(encoding="utf-8"), p.name == "__init__.py")
               for p in modules()}
    assert circles(import_graph(sources)) == []


@pytest.mark.parametrize(("sources", "expected"), [
    # inside a subpackage, the closing import in a function, where a circle usually hides
    ({"planfilter.infer.sources": ("from .names import split\n\n"
                                   "def read():\n    from .python_tools import read_python\n"),
      "planfilter.infer.python_tools": "from .sources import ToolSpec\n",
      "planfilter.infer.names": "import re\n"},
     ["planfilter.infer.python_tools:1 -> planfilter.infer.sources:4 -> "
      "planfilter.infer.python_tools"]),
    # a package whose module takes a name back from it (`from . import kinds` alone would not)
    ({"planfilter.suites": "from .base import load\n",
      "planfilter.suites.base": "from . import kinds\n",
      "planfilter.suites.kinds": "from ..suites import Case\n"},
     ["planfilter.suites:1 -> planfilter.suites.base:1 -> planfilter.suites.kinds:1 -> "
      "planfilter.suites"]),
    # what both need moved to a third module: one way, no circle
    ({"planfilter.infer.sources": ("from .spec import ToolSpec\n"
                                   "from .python_tools import read_python\n"),
      "planfilter.infer.python_tools": "from .spec import ToolSpec\n",
      "planfilter.infer.spec": "from ..core.errors import ContractError\n"},
     []),
])
def test_an_import_circle_is_caught(sources, expected):
    # a module that others sit below is a package (its source is its __init__.py)
    graph = import_graph({module: (source, any(m.startswith(module + ".") for m in sources))
                          for module, source in sources.items()})
    assert circles(graph) == expected


def test_imports_follow_the_layout():
    problems = []
    for path in modules():
        problems += violations(path.read_text(encoding="utf-8"), module_name(path),
                               path.name == "__init__.py")
    assert problems == []


@pytest.mark.parametrize(("module", "source", "expected"), [
    ("planfilter.core.frontier", "from ..filters import FILTERS\n", "core may import only"),
    ("planfilter.core.compile", "def f():\n    from planfilter.bench import agent\n",
     "core may import only"),
    ("planfilter.filters.causal", "from ..bench.agent import run_task\n",
     "filters may import only"),
    ("planfilter.filters.recovery", "from .registry import get_filter\n",
     "never import the method table"),
    ("planfilter.filters.base", "from . import registry\n", "never import the method table"),
    ("planfilter.retrieval.toolscope", "from ..filters import Visible\n",
     "retrieval may import only"),
    ("planfilter.bench.report", "import click\n", "imports click outside"),
])
def test_a_back_import_is_caught(module, source, expected):
    found = violations(source, module)
    assert found and expected in found[0]


def test_allowed_imports_pass():
    assert violations("from ..core.contracts import Registry\nimport json\n",
                      "planfilter.filters.causal") == []
    assert violations("import click\nfrom ..bench.runner import run_benchmark\n",
                      "planfilter.cli.run") == []
