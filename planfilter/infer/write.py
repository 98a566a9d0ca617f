"""Drafted contracts out as an ordinary registry file (``planfilter validate`` accepts it).

Every drafted field is listed under the tool's ``inferred`` with where it came from; a
field not listed there was written by hand. ``merge_into`` keeps the hand-written fields of
an existing registry and fills the rest from the inference.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from ..core.contracts import Registry, Tool
from ..core.errors import ContractError
from ..core.frozen import thaw
from ..core.loading import read_document, registry_of_document
from .infer import Inference

#: Field order of a written tool: the contract first, the schemas after, the notes last.
FIELD_ORDER = ("name", "description", "domain", "requires", "produces", "needs",
               "establishes", "outputs", "inputs",
               "authored", "sensitive", "untrusted", "action", "risk", "cost", "parameters",
               "returns", "inferred")


def tool_data(tool: Tool) -> dict[str, Any]:
    """A tool as plain, ordered data; empty optional fields left out."""
    dumped = tool.model_dump(mode="json", exclude_none=True)
    out = {k: dumped[k] for k in FIELD_ORDER if k in dumped}
    for key in ("needs", "establishes", "outputs", "inputs", "authored", "sensitive",
                "untrusted", "inferred"):
        if not out.get(key):
            out.pop(key, None)
    if not out.get("description"):
        out.pop("description", None)
    return out


def merge_into(existing: Path, inference: Inference) -> list[dict[str, Any]]:
    """Tools of ``existing`` with their hand-written fields kept, drafted fields filled from
    ``inference``; then the inferred tools ``existing`` does not have."""
    doc = read_document(existing)
    if not isinstance(doc, Mapping) or not isinstance(doc.get("tools"), list):
        raise ContractError(f"{existing}: --merge needs a registry file (a 'tools' list)")
    drafted = {t.name: tool_data(t) for t in inference.registry}
    out, problems = [], []
    for i, raw in enumerate(doc["tools"]):
        if not isinstance(raw, Mapping) or not isinstance(raw.get("name"), str):
            problems.append(f"{existing}: tool #{i + 1}: expected a mapping with a 'name'")
            continue
        name = raw["name"]
        notes = dict(raw.get("inferred") or {})
        hand = {k: v for k, v in raw.items() if k not in notes and k != "inferred"}
        if name not in drafted:
            out.append(dict(raw))
            continue
        new = drafted.pop(name)
        if "produces" in hand:  # pointers were drafted for the drafted produces
            new.pop("outputs", None)
        if "requires" in hand and "authored" in new and "authored" not in hand:
            # a parameter the person requires is not one the model writes
            inputs = {**(new.get("inputs") or {}), **(hand.get("inputs") or {})}
            required = set(hand["requires"] or ())
            new["authored"] = [p for p in new["authored"] if inputs.get(p, p) not in required]
            if not new["authored"]:
                new.pop("authored")
                new.get("inferred", {}).pop("authored", None)
        merged = {**new, **hand}
        kept_notes = {k: v for k, v in (new.get("inferred") or {}).items()
                      if k not in hand and (k != "outputs" or "outputs" in merged)}
        merged["inferred"] = kept_notes
        if not kept_notes:
            merged.pop("inferred")
        out.append({k: merged[k] for k in (*FIELD_ORDER, *merged) if k in merged})
    if problems:
        raise ContractError(problems)
    out.extend(drafted.values())
    return out


#: Top-level sections of a registry that ``--merge`` carries over as written.
KEPT_SECTIONS = ("goals", "environment")


def kept_sections(existing: Path) -> dict[str, Any]:
    """The sections of ``existing`` beside its tools (goals, environment), as written."""
    doc = read_document(existing)
    if not isinstance(doc, Mapping):
        return {}
    return {k: doc[k] for k in KEPT_SECTIONS if doc.get(k) is not None}


def render(tools: Sequence[Mapping[str, Any]], inference: Inference, sources: Sequence[str],
           domain: str | None = None, kept: Mapping[str, Any] | None = None) -> str:
    """The registry file's text: a header naming the sources and vocabulary merges, then
    the tools, then ``kept`` sections (a merged file's goals and environment). Byte-stable
    for the same input."""
    lines = ["# Drafted by `planfilter contracts infer` from: " + ", ".join(sources),
             "# Review every field listed under a tool's `inferred`; delete the entry once",
             "# the field is right, so that `--merge` keeps it as written by hand."]
    if inference.merges:
        lines.append("# Vocabulary (one variable per meaning):")
        lines += [f"#   {m}" for m in inference.merges]
    body: dict[str, Any] = {}
    if domain:
        body["domain"] = domain
    body["tools"] = [thaw(t) for t in tools]
    body.update(kept or {})
    text = yaml.safe_dump(body, sort_keys=False, allow_unicode=True, width=96,
                          default_flow_style=False)
    return "\n".join(lines) + "\n" + text


def check_written(text: str, where: str) -> Registry:
    """Load written text back as a registry (what ``planfilter validate`` will do)."""
    return registry_of_document(yaml.safe_load(text), where)
