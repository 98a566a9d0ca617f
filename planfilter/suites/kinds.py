"""Kinds of suite, a dict: :data:`SUITE_KINDS` (kind -> loader), chosen by the prefix of a suite
name (``agentdojo:banking``).

Each kind's module imports its outside package (``agentdojo``) only when a suite of that kind is
loaded, so a missing optional dependency is reported only when that kind is asked for.
"""

from __future__ import annotations

from collections.abc import Callable

from ..core.errors import PlanfilterError
from .agentdojo import load_agentdojo_suite
from .base import BenchSuite, SuiteOptions
from .bundled import load_yaml_suite
from .database import load_shop_suite, load_tools_suite

SuiteLoader = Callable[[str, SuiteOptions], BenchSuite]


def _load_agentdojo(argument: str, options: SuiteOptions) -> BenchSuite:
    # its methods take the AgentDojo environment they themselves hand out (a narrower
    # parameter than the Protocol's Environment), so the check is waived here alone
    return load_agentdojo_suite(argument, options)  # type: ignore[return-value]


#: Options a suite is loaded with when none are given (frozen: one instance serves every call).
DEFAULT_OPTIONS = SuiteOptions()
#: Kind -> loader of ``kind:argument``.
SUITE_KINDS: dict[str, SuiteLoader] = {"yaml": load_yaml_suite, "agentdojo": _load_agentdojo,
                                       "shop": load_shop_suite, "tools": load_tools_suite}


def load_bench_suite(name: str | None, options: SuiteOptions = DEFAULT_OPTIONS) -> BenchSuite:
    """``None`` or ``yaml``: the bundled suite (or ``options.tasks``); ``kind:argument``: a
    suite of that kind (``agentdojo:banking``)."""
    kind, _, argument = (name or "yaml").partition(":")
    try:
        loader = SUITE_KINDS[kind]
    except KeyError:
        raise PlanfilterError(f"suite {name!r}: unknown kind {kind!r}; choose from "
                              + ", ".join(f"{k}:..." for k in SUITE_KINDS)) from None
    return loader(argument, options)
