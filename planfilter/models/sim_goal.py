"""The simulated models' answer to goal resolution (a call offering only ``set_goal``).

Honest like the agent rule (planfilter.models.sim): it reads only the prompt and the
``set_goal`` schema, never a task or the contracts. Its documented rule:

    For each option listed in the ``goal`` parameter's description (``- name: text``)::

        score = 2 * |W_option & W_request| + |W_option & W_state - W_request| + noise * N(0, 1)

    where W are words (stop words removed, plural "s" dropped, ``_`` read as a space) of the
    option's name and text, of the request, and of the known state's names. The best score
    wins (ties: the first listed); the noise is the profile's, seeded per option as the
    agent's is. It answers one goal (a list of one item when ``goal`` is an array: several
    steps come from a registry goal of several). It reads no values out of the request:
    ``known`` is left empty.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from .sim import Profile, _gauss, messages_digest, parse_prompt, words

GOAL_TOOL = "set_goal"
_OPTION = re.compile(r"^- ([A-Za-z0-9_][A-Za-z0-9_.-]*): (.*)$", re.M)


def is_goal_call(tools: Sequence[Mapping[str, Any]]) -> bool:
    return len(tools) == 1 and tools[0].get("function", tools[0]).get("name") == GOAL_TOOL


def resolve(messages: Sequence[Mapping[str, Any]], tool: Mapping[str, Any], profile: Profile,
            seed: int = 0) -> dict[str, Any]:
    """The ``set_goal`` arguments the simulated model gives."""
    function = tool.get("function", tool)
    goal = ((function.get("parameters") or {}).get("properties") or {}).get("goal") or {}
    allowed = list(goal.get("enum") or (goal.get("items") or {}).get("enum") or ())
    described = dict(_OPTION.findall(str(goal.get("description") or "")))
    prompt = parse_prompt(messages)
    request = words(prompt.request)
    state = words(" ".join(k.replace("_", " ") for k in prompt.state))
    base = messages_digest(messages) + f"|{seed}|".encode()
    best_name, best_score = "", float("-inf")
    for name in allowed:
        option = words(f"{name.replace('_', ' ')} {described.get(name, '')}".replace("_", " "))
        score: float = 2 * len(option & request) + len(option & state - request)
        score += profile.noise * _gauss(base + name.encode())
        if score > best_score:
            best_name, best_score = name, score
    return {"goal": [best_name] if goal.get("type") == "array" else best_name, "known": {}}
