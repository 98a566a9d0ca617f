"""The layout stays true: imports flow one way between subpackages, click stays in cli/.

Every module is read with ``ast`` (function-level imports included) and each planfilter import
is resolved to the subpackage it lands in. A subpackage may import itself and the layers
listed for it, nothing else. A new subpackage must be added here, with its place in the order.
"""

from __future__ import annotations

import ast
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


def imported_modules(source: str, module: str, is_package: bool) -> list[tuple[int, str]]:
    """(line, absolute module) of every import in ``source``, relative ones resolved."""
    package = module if is_package else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            # `from . import x` may name a submodule: count both the package and x.
            found.append((node.lineno, target))
            found += [(node.lineno, f"{target}.{a.name}") for a in node.names]
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
