"""The documentation's pages stay true to the code, without building the site.

The module map (docs/reference/layout.md) names every module of the package; the README's
Quick start keeps its two commands, and `.ci/run` runs the second one word for word.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_module_map_names_every_module():
    layout = (ROOT / "docs" / "reference" / "layout.md").read_text(encoding="utf-8")
    sections = dict(re.findall(r"## `planfilter/(\w+)/`\n(.*?)(?=\n## |\Z)", layout, re.S))
    package = ROOT / "planfilter"
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package)
        if len(relative.parts) == 1 or (path.name == "__init__.py" and len(relative.parts) == 2):
            continue  # planfilter/__init__.py and each subpackage's own __init__
        listed = Path(*relative.parts[1:]).as_posix()
        assert relative.parts[0] in sections, f"layout.md has no section for {relative.parts[0]}/"
        assert f"| `{listed}` |" in sections[relative.parts[0]], (
            f"docs/reference/layout.md does not list planfilter/{relative.as_posix()}")


def test_the_quick_start_holds_the_two_commands_ci_runs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick = readme.split("## Quick start", 1)[1]
    block = re.search(r"```\w*\n(.*?)```", quick, re.S).group(1).strip().splitlines()
    assert len(block) == 2 and block[0].endswith("pip install . && planfilter run")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert block[1] in ci, ".ci/run does not run the Quick start's test command"


def test_everything_the_api_page_shows_is_importable_from_planfilter():
    import importlib

    import planfilter

    page = (ROOT / "docs" / "reference" / "api.md").read_text(encoding="utf-8")
    for dotted in re.findall(r"^::: (planfilter[\w.]*)$", page, re.M):
        module, _, name = dotted.rpartition(".")
        target = getattr(importlib.import_module(module), name)
        if not hasattr(target, "__path__") and not isinstance(target, type(planfilter)):
            assert getattr(planfilter, name, None) is target, f"planfilter.{name} is missing"
