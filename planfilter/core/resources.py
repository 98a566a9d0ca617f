"""Where the bundled templates, registry and task suites live, installed or in a checkout."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from .errors import PlanfilterError

#: The planfilter package folder (this module lives in planfilter/core/).
_PACKAGE = Path(__file__).resolve().parent.parent


@cache
def data_dir(name: str) -> Path:
    """``templates``, ``domains`` or ``tasks``: the wheel's copy, else the source checkout's."""
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise PlanfilterError(
        f"bundled folder '{name}' not found next to the planfilter package ({_PACKAGE}); "
        "reinstall planfilter"
    )


def default_registry() -> list[Path]:
    """The bundled registry: the top-level files of ``domains/``. Subfolders hold registries
    of other suites (``domains/agentdojo/``), loaded only when named."""
    folder = data_dir("domains")
    return sorted(p for p in folder.iterdir()
                  if p.is_file() and p.suffix in (".yaml", ".yml", ".json"))


def default_suite() -> Path:
    return data_dir("tasks") / "benchmark"
