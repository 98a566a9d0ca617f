"""Seeded fault injection for the simulated model: what real providers and models do wrong.

``sim/faulty`` is ``sim/careful`` with faults at rate 0.3; any profile takes a rate as an
option, ``sim/confusable?faults=0.2`` (and a seed after ``@``: ``sim/faulty@7``). At each try
a fault happens with probability ``rate``; its kind is drawn uniformly from :data:`KINDS`.
Both draws come from a hash of (messages, tools, seed, try number), so a run is reproducible
and a retried call can succeed. Provider faults are raised as litellm's own exceptions
(``Timeout``, ``RateLimitError`` 429, ``InternalServerError`` 500), which the client retries;
the others are answers a model really gives, which the agent loop records and refuses.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from ..core.errors import PlanfilterError
from .sim import messages_digest

#: Transient provider faults (raised, retried by the client).
PROVIDER_KINDS = ("timeout", "rate_limit", "server_error")
#: Faulty answers (returned, recorded per step by the agent loop).
ANSWER_KINDS = ("empty", "text", "malformed_json", "several_calls", "unknown_tool")
KINDS = PROVIDER_KINDS + ANSWER_KINDS
#: Profiles that are other profiles with faults: name -> (base profile, rate).
FAULTY_PROFILES: dict[str, tuple[str, float]] = {"faulty": ("careful", 0.3)}
#: The tool a faulty model invents; no registry has it.
UNKNOWN_TOOL = "delete_all_records_now"


def split_options(name: str) -> tuple[str, float]:
    """``careful?faults=0.3`` -> ("careful", 0.3); ``faulty`` -> ("careful", 0.3)."""
    base, sep, query = name.partition("?")
    rate = 0.0
    if base in FAULTY_PROFILES:
        base, rate = FAULTY_PROFILES[base]
    if sep:
        for part in query.split("&"):
            key, _, value = part.partition("=")
            if key != "faults":
                raise PlanfilterError(f"sim/{name}: unknown option {key!r} (known: faults)")
            try:
                rate = float(value)
            except ValueError:
                raise PlanfilterError(f"sim/{name}: faults must be a number, not {value!r}"
                                      ) from None
            if not 0.0 <= rate <= 1.0:
                raise PlanfilterError(f"sim/{name}: faults must be in [0, 1], not {rate}")
    return base, rate


def _uniform(key: bytes) -> float:
    return int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "big") / 2**64


def draw_fault(messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]],
               seed: int, attempt: int, rate: float) -> str | None:
    """The fault of this try, or None; a pure function of its arguments."""
    if rate <= 0.0:
        return None
    names = ",".join(str(t.get("function", t).get("name", "")) for t in tools)
    key = messages_digest(messages) + f"|{names}|{seed}|{attempt}|fault".encode()
    if _uniform(key) >= rate:
        return None
    return KINDS[int(_uniform(key + b"|kind") * len(KINDS))]


def raise_provider_fault(kind: str, model: str) -> None:
    """Raise the litellm exception a real provider would raise for ``kind``."""
    import litellm

    if kind == "timeout":
        raise litellm.Timeout(message="simulated timeout", model=model, llm_provider="sim")
    if kind == "rate_limit":
        raise litellm.RateLimitError(message="simulated 429: rate limit reached",
                                     llm_provider="sim", model=model)
    if kind == "server_error":
        raise litellm.InternalServerError(message="simulated 500: internal server error",
                                          llm_provider="sim", model=model)
    raise AssertionError(f"not a provider fault: {kind}")


def parse_sim_name(name: str) -> tuple[str, float, int | None]:
    """``faulty@7`` -> ("careful", 0.3, 7): profile, fault rate and seed (None: not given).

    Raises for an unknown profile, option or seed, naming it.
    """
    from .sim import get_profile

    base, sep, seed_text = name.rpartition("@")
    if not sep:
        base, seed_text = name, ""
    seed = None
    if sep:
        try:
            seed = int(seed_text)
        except ValueError:
            raise PlanfilterError(f"sim/{name}: the seed after '@' must be an integer") from None
    profile, rate = split_options(base)
    get_profile(profile)
    return profile, rate, seed
