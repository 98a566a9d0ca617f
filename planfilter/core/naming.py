"""Two-way maps between user names and safe PDDL identifiers.

PDDL names are case-insensitive, must start with a letter, hold no '.' and must not be
keywords, so user names are lowered, '.' becomes '--' and, where needed, a prefix is added.
Two user names that land on one PDDL name are an error naming both, never a silent ``_1``
suffix: a silent rename would make a plan say something other than the contracts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from .errors import CompileError

_SAFE = re.compile(r"^[a-z][a-z0-9_-]*$")
RESERVED = frozenset(
    {
        "and", "or", "not", "imply", "forall", "exists", "when", "either", "define",
        "domain", "problem", "object", "number", "increase", "decrease", "assign",
        "total-cost", "at", "over", "all", "start", "end", "minimize", "maximize",
    }
)


def pddl_identifier(name: str, prefix: str) -> str:
    """A PDDL-safe spelling of ``name``: lowered, ``.`` (as in MCP's ``server.tool``) written
    ``--``, prefixed when it would not be a valid name."""
    lowered = name.lower().replace(".", "--")
    if not _SAFE.fullmatch(lowered) or lowered in RESERVED:
        lowered = f"{prefix}-{lowered}"
    if not _SAFE.fullmatch(lowered):
        raise CompileError(f"name {name!r} cannot be written as a PDDL identifier")
    return lowered


@dataclass(frozen=True)
class NameMap:
    """``to_pddl[user_name] -> pddl_name`` and its inverse ``to_user``."""

    kind: str
    to_pddl: Mapping[str, str]
    to_user: Mapping[str, str]

    @classmethod
    def build(cls, kind: str, names: Iterable[str], prefix: str) -> NameMap:
        forward: dict[str, str] = {}
        backward: dict[str, str] = {}
        for name in names:
            if name in forward:
                continue
            safe = pddl_identifier(name, prefix)
            other = backward.get(safe)
            if other is not None:
                raise CompileError(
                    f"{kind} names {other!r} and {name!r} both map to the PDDL name {safe!r} "
                    "(PDDL names are case-insensitive); rename one of them"
                )
            forward[name] = safe
            backward[safe] = name
        return cls(kind, MappingProxyType(forward), MappingProxyType(backward))

    def user(self, pddl_name: str) -> str:
        try:
            return self.to_user[pddl_name.lower()]
        except KeyError:
            raise CompileError(f"PDDL {self.kind} {pddl_name!r} is not in the name map") from None
