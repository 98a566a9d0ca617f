"""The pipeline: tool specs -> vocabulary -> drafted contracts (a Registry) with notes."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from ..core.contracts import Registry, Tool
from ..core.errors import ContractError
from ..core.frozen import freeze
from .risk import risk_of
from .rules import Context, Drafted, consumers_of, produces_of, requires_of
from .sources import ToolSpec
from .vocabulary import Encoder, Merge, Vocabulary, build_vocabulary

#: (tool spec, candidate variables) -> (proposed variables, note) or None; see ``model.py``.
Proposer = Callable[[ToolSpec, Sequence[str]], tuple[frozenset[str], str] | None]


@dataclass(frozen=True)
class InferOptions:
    embedder: Encoder | None = None
    #: Asked for the produces of tools the rules leave open (``effect`` only).
    proposer: Proposer | None = None
    cost: float = 1.0
    domain: str | None = None


@dataclass(frozen=True)
class Inference:
    registry: Registry
    vocabulary: Vocabulary
    #: tool -> name of the rule that drafted its produces ("output-schema", "lookup-id", ...,
    #: "effect", "model")
    produce_rules: Mapping[str, str] = field(default_factory=dict)

    @property
    def merges(self) -> tuple[Merge, ...]:
        return self.vocabulary.merges

    @property
    def open_tools(self) -> tuple[str, ...]:
        return tuple(n for n, r in self.produce_rules.items() if r == "effect")


def _alias_note(tool: str, props: Sequence[str], side: str, vocab: Vocabulary) -> str:
    renamed = [f"{p} -> {vocab.variable(tool, p, side)}" for p in props
               if vocab.variable(tool, p, side) != p]
    return f"; alias: {', '.join(renamed)}" if renamed else ""


def infer_contracts(specs: Sequence[ToolSpec], options: InferOptions = InferOptions()
                    ) -> Inference:
    """Draft a contract for every tool of ``specs``; every drafted field notes its source."""
    vocab = build_vocabulary(specs, options.embedder)
    ctx = Context(vocab, consumers_of(specs, vocab))
    tools, rules, problems = [], {}, []
    for spec in specs:
        req = requires_of(spec, vocab)
        drafted, rule = produces_of(spec, ctx)
        if rule == "effect" and options.proposer is not None:
            candidates = sorted(ctx.consumed_by_others(spec.name) - req.variables)
            proposed = options.proposer(spec, candidates)
            if proposed is not None:
                drafted, rule = Drafted(proposed[0], proposed[1]), "model"
        risk = risk_of(spec)
        inferred = {
            "requires": req.note + _alias_note(spec.name, spec.required, "in", vocab),
            "produces": drafted.note + (_alias_note(spec.name, list(spec.output_properties),
                                                    "out", vocab)
                                        if rule == "output-schema" else ""),
            "risk": risk.note,
            "action": risk.action_note,
            "cost": "rule: 1 unless told" if options.cost == 1.0 else "rule: --cost",
        }
        if drafted.outputs:
            inferred["outputs"] = "schema: output keys named differently from the variables"
        data = {
            "name": spec.name, "description": spec.description[:10_000],
            "requires": req.variables, "produces": drafted.variables,
            "risk": risk.risk, "action": risk.action, "cost": options.cost,
            "parameters": spec.input_schema, "returns": spec.output_schema,
            "outputs": drafted.outputs, "domain": options.domain,
            "inferred": freeze(inferred),
        }
        try:
            tools.append(Tool.model_validate(data))
        except ValueError as exc:
            problems.append(f"{spec.origin}: tool '{spec.name}': cannot draft a contract: "
                            f"{exc}")
            continue
        rules[spec.name] = rule
    if problems:
        raise ContractError(problems)
    registry = Registry(tools=tuple(tools), source="<inferred>")
    return Inference(registry, vocab, rules)
