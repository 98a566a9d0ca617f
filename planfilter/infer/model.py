"""Optional ``--model``: a language model proposes produces where the rules leave a tool open.

A tool is *open* when only the effect rule explained it (``<tool>_done``). The model sees the
tool (name, description, parameters) and the variables other tools require, and answers with
the ones the tool's result provides. Only names from that list are kept, so the model can
connect a chain but cannot invent a variable; what it proposes is noted ``model: ...``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from ..core.frozen import thaw
from ..models import complete
from ..models.client import CallOptions, ModelError
from .infer import Proposer
from .sources import ToolSpec

SYSTEM = ("You read tool declarations and say which values a tool's result gives back. "
          "Answer with one JSON object and nothing else.")


def prompt(spec: ToolSpec, candidates: Sequence[str]) -> str:
    tool = {"name": spec.name, "description": spec.description,
            "parameters": thaw(spec.input_schema)}
    return (
        "Tool:\n" + json.dumps(tool, sort_keys=True) + "\n\n"
        "Values other tools need as input:\n" + json.dumps(list(candidates)) + "\n\n"
        "Which of these values does a successful call of the tool return? Only list a value if "
        "the tool's result clearly contains it. Answer as {\"produces\": [...]} (an empty list "
        "when none)."
    )


def parse(content: str, candidates: Sequence[str]) -> frozenset[str]:
    """The proposed names that are candidates; anything else is dropped."""
    match = re.search(r"\{.*\}", content or "", re.DOTALL)
    if not match:
        return frozenset()
    try:
        data = json.loads(match.group(0))
    except ValueError:
        return frozenset()
    listed = data.get("produces") if isinstance(data, dict) else None
    if not isinstance(listed, list):
        return frozenset()
    return frozenset(v for v in listed if isinstance(v, str) and v in set(candidates))


def model_proposer(model: str, options: CallOptions | None = None) -> Proposer:
    """A proposer asking ``model`` (any litellm name, ``llamacpp/...`` and ``sim/...`` too)."""

    def propose(spec: ToolSpec, candidates: Sequence[str]) -> tuple[frozenset[str], str] | None:
        if not candidates:
            return None
        messages = [{"role": "system", "content": SYSTEM},
                    {"role": "user", "content": prompt(spec, candidates)}]
        try:
            reply = complete(model, messages, [], seed=1, options=options or CallOptions())
        except ModelError:
            return None  # the rules' draft stands; the note says no model answered
        chosen = parse(reply.content or "", candidates)
        if not chosen:
            return None
        return chosen, f"model: {model} proposed {', '.join(sorted(chosen))} (from the " \
                       "variables other tools require)"

    return propose
