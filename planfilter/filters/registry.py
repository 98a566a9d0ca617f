"""The one table of filter methods: ``FILTERS[name] -> FilterFn``.

Each method lives in a module of its own and knows nothing of this table; only this module
and the layers above it (the guard, the live session, the benchmark, the CLI) import it, so
no filter imports it back.
"""

from __future__ import annotations

from ..core.errors import lookup
from .base import FilterFn
from .causal import causal_path, cmtf
from .preselect import tool_filter
from .recovery import DEFAULT_FALLBACK, recover_filter
from .relevance import all_tools, keyword_filter, state_aware
from .toolscope import toolscope_filter

#: The methods of the paper's Table 3, in its order (reports list them in this order too).
FILTERS: dict[str, FilterFn] = {
    "all": all_tools,
    "keyword-5": keyword_filter(5),
    "keyword-10": keyword_filter(10),
    "state-aware": state_aware,
    "causal-path": causal_path,
    "cmtf": cmtf,
}
#: The paper's six methods: what `planfilter run` compares by default.
PAPER_METHODS: tuple[str, ...] = tuple(FILTERS)

FILTERS["toolscope-5"] = toolscope_filter(5)
FILTERS["toolscope-10"] = toolscope_filter(10)
FILTERS["cmtf-recover"] = recover_filter(DEFAULT_FALLBACK)
FILTERS["tool_filter"] = tool_filter

#: Methods whose visible set is the next step of a plan to the goal: a session that weighs
#: several candidate goals shows the union of their next steps (planfilter.live.recognition);
#: the other methods read one goal, the leading candidate's, if any.
GOAL_DIRECTED_METHODS: frozenset[str] = frozenset({"causal-path", "cmtf", "cmtf-recover"})
#: Methods whose runs go on after an environment error (see planfilter.bench.agent).
RECOVERING_METHODS: frozenset[str] = frozenset({"cmtf-recover"})
#: Methods that ask the run's model which tools to keep before the run (see
#: planfilter.filters.preselect).
PRESELECTING_METHODS: frozenset[str] = frozenset({"tool_filter"})


def get_filter(name: str) -> FilterFn:
    return lookup(FILTERS, name, "filter method")
