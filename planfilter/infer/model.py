"""Optional ``--model``: a language model proposes produces where the rules leave a tool open.

A tool is *open* when only the effect rule explained it (``<tool>_done``). The model sees the
tool (name, description, parameters) and the variables other tools require, and answers with
the ones the tool's result provides, and which of its required parameters are a known
variable under another name. Only names from those lists are kept, so the model can connect
a chain but cannot invent a variable; what it proposes is noted ``model: ...``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from ..core.frozen import thaw
from ..models import complete
from ..models.client import CallOptions, ModelError
from .infer import Proposal, Proposer
from .spec import ToolSpec

SYSTEM = ("You read tool declarations and say which values a tool's result gives back. "
          "Answer with one JSON object and nothing else.")


def prompt(spec: ToolSpec, produce: Sequence[str], alias: Sequence[str]) -> str:
    tool = {"name": spec.name, "description": spec.description,
            "parameters": thaw(spec.input_schema)}
    return (
        "Tool:\n" + json.dumps(tool, sort_keys=True) + "\n\n"
        "Values other tools need as input:\n" + json.dumps(list(produce)) + "\n\n"
        "All values known by name:\n" + json.dumps(list(alias)) + "\n\n"
        "1. Which of the values other tools need does a successful call of this tool return? "
        "Only list a value if the result clearly contains it.\n"
        "2. Is any required parameter of this tool the same value as one of the known values "
        "under another name? Only when the descriptions say so.\n"
        'Answer as {"produces": [...], "aliases": {"parameter": "known value"}} (empty when '
        "none)."
    )


def _answer(content: str) -> dict[str, Any]:
    match = re.search(r"\{.*\}", content or "", re.DOTALL)
    if not match:
        return {}
    try:
        data = json.loads(match.group(0))
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def parse(content: str, spec: ToolSpec, produce: Sequence[str], alias: Sequence[str]
          ) -> tuple[frozenset[str], dict[str, str]]:
    """The proposed produces that are candidates, and the aliases of required parameters to
    known variables; anything else is dropped."""
    data = _answer(content)
    listed = data.get("produces")
    produces = frozenset(v for v in listed if isinstance(v, str) and v in set(produce)) \
        if isinstance(listed, list) else frozenset()
    named = data.get("aliases")
    aliases = {p: v for p, v in named.items()
               if p in spec.required and isinstance(v, str) and v in set(alias)} \
        if isinstance(named, dict) else {}
    return produces, aliases


def model_proposer(model: str, options: CallOptions | None = None,
                   progress: Callable[[str], None] | None = None) -> Proposer:
    """A proposer asking ``model`` (any litellm name, ``llamacpp/...`` and ``sim/...`` too).

    A model that errors or answers nothing usable leaves the rules' draft; the proposal then
    carries no names and a note saying why. ``progress`` hears of every question asked.
    """
    asked = 0

    def propose(spec: ToolSpec, produce: Sequence[str], alias: Sequence[str]
                ) -> Proposal | None:
        nonlocal asked
        if not produce and not (alias and spec.required):
            return None
        asked += 1
        if progress is not None:
            progress(f"model: asking {model} about open tool {asked}: {spec.name}")
        messages = [{"role": "system", "content": SYSTEM},
                    {"role": "user", "content": prompt(spec, produce, alias)}]
        try:
            reply = complete(model, messages, [], seed=1, options=options or CallOptions())
        except ModelError as exc:
            return Proposal(frozenset(), {}, f"model: {model} failed ({exc}); rule draft kept")
        produces, aliases = parse(reply.content or "", spec, produce, alias)
        if not produces and not aliases:
            return Proposal(frozenset(), {}, f"model: {model} proposed nothing usable")
        said = []
        if produces:
            said.append(f"produces {', '.join(sorted(produces))}")
        if aliases:
            said.append("aliases " + ", ".join(f"{p} -> {v}" for p, v in sorted(aliases.items())))
        return Proposal(produces, aliases, f"model: {model} proposed {'; '.join(said)}")

    return propose
