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


def default_registry() -> tuple[Path, ...]:
    """The bundled registry: the data files directly in ``domains/``. Subfolders hold the
    contracts of outside suites (``domains/agentdojo/banking.yaml``), which are registries of
    their own and never part of the bundled one."""
    from .loading import SUFFIXES

    folder = data_dir("domains")
    return tuple(sorted(p for p in folder.iterdir() if p.suffix in SUFFIXES and p.is_file()))


def domains_file(*parts: str) -> Path:
    """A file under the bundled ``domains/`` folder (``domains_file("agentdojo", "x.yaml")``)."""
    return data_dir("domains").joinpath(*parts)


def default_suite() -> Path:
    return data_dir("tasks") / "benchmark"
