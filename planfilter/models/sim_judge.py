"""``sim/judge``: the simulated model's answer to the merge judge's question.

ToolScopeMerger asks a model whether two tools are interchangeable (see
:mod:`planfilter.retrieval.merge`). Offline, ``sim/judge`` answers. Like the simulated agent
it is honest: it reads only the prompt, which holds the two tools' names, descriptions and
JSON Schemas, never their contracts (requires/produces) or any task. Its documented rule:

    yes  when both tools have the same required arguments (by name, at least one) and their
         words overlap: Dice(W_a, W_b) >= 0.2, where W are the words of a tool's name,
         description and argument names, stop words removed, plural "s" dropped;
    no   otherwise.

The reply is ``yes: <why>`` or ``no: <why>``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from .sim import words

JUDGE_NAME = "judge"
MIN_DICE = 0.2
#: The prompt marks each tool's JSON with these lines (see
#: planfilter.retrieval.merge.judge_messages).
_BLOCK = re.compile(r"^Tool ([AB]):\s*\n(.*?)(?=^Tool [AB]:|^Answer|\Z)", re.S | re.M)


def _tools(messages: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    text = "\n".join(str(m.get("content") or "") for m in messages if m.get("role") == "user")
    found = {}
    for label, body in _BLOCK.findall(text):
        try:
            found[label] = json.loads(body.strip())
        except ValueError:
            continue
    return found


def _words(tool: Mapping[str, Any]) -> frozenset[str]:
    params = tool.get("parameters") or {}
    names = " ".join(params.get("properties") or {})
    return words(" ".join([str(tool.get("name", "")).replace("_", " "),
                           str(tool.get("description", "")), names.replace("_", " ")]))


def judge(messages: Sequence[Mapping[str, Any]]) -> str:
    """``yes: ...`` or ``no: ...`` for the two tools of the prompt."""
    tools = _tools(messages)
    if set(tools) != {"A", "B"}:
        return "no: the prompt does not show two tools as JSON"
    a, b = tools["A"], tools["B"]
    req_a = frozenset((a.get("parameters") or {}).get("required") or ())
    req_b = frozenset((b.get("parameters") or {}).get("required") or ())
    if not req_a or req_a != req_b:
        return (f"no: they take different required arguments "
                f"({sorted(req_a)} vs {sorted(req_b)})")
    wa, wb = _words(a), _words(b)
    dice = 2 * len(wa & wb) / (len(wa) + len(wb)) if wa or wb else 0.0
    if dice < MIN_DICE:
        return f"no: same arguments but different purpose (word overlap {dice:.2f})"
    return f"yes: same required arguments {sorted(req_a)} and overlapping purpose " \
           f"(word overlap {dice:.2f})"
