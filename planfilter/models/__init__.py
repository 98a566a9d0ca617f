"""Models, called through litellm only; ``sim/...`` is the offline simulated model.

``llamacpp/...`` runs a local GGUF model in this process (planfilter.models.llamacpp).
Imports only ``planfilter.core`` (its errors). Nothing here imports litellm at import time:
:func:`load_litellm` does, on first use.
"""

from __future__ import annotations

from .client import (
    CallOptions,
    ModelError,
    ModelReply,
    ToolCall,
    complete,
    fault_kind,
    load_litellm,
    register_provider,
)
from .faults import parse_sim_name
from .llamacpp import PROVIDER as LLAMACPP
from .llamacpp import check_spec
from .sim import PROFILES, Profile, decide, get_profile

DEFAULT_MODELS = ("sim/careful", "sim/confusable")
#: Not a model: the model-free replay of each task's ground truth (planfilter.bench.replay).
#: It makes no litellm call.
ORACLE = "oracle"
#: Not a model either: the same replay, which also carries out the injection task's ground
#: truth, as far as the guard lets it, once a tool result has shown it the injected text (a
#: model that obeys every injection: the worst case of an attack).
OBEDIENT = "obedient"
#: The model-free replays.
REPLAYS = frozenset({ORACLE, OBEDIENT})

__all__ = [
    "DEFAULT_MODELS", "OBEDIENT", "ORACLE", "PROFILES", "REPLAYS", "CallOptions", "ModelError",
    "ModelReply", "Profile", "ToolCall", "check_model", "complete", "decide", "fault_kind",
    "get_profile", "in_process", "load_litellm", "register_provider",
]


def check_model(model: str) -> None:
    """Raise for a model name that cannot work, before any run spends time on it."""
    if model in REPLAYS:
        return
    if "/" not in model:
        raise ModelError(
            f"model {model!r}: name it as litellm does, provider/model "
            f"(sim/careful, openai/gpt-4o-mini, ...), or {ORACLE!r} for the model-free replay "
            f"({OBEDIENT!r}: the replay that obeys every injection)"
        )
    provider, _, name = model.partition("/")
    if provider == "sim":
        parse_sim_name(name)
    elif provider == LLAMACPP:
        check_spec(name)
    else:
        check_provider(model, provider)


def check_provider(model: str, provider: str) -> None:
    """Raise for a provider litellm does not know (``nosuch/xyz``), naming the closest one,
    before a run's every call fails on it."""
    import difflib

    litellm = load_litellm()
    known = {str(getattr(p, "value", p)) for p in litellm.provider_list}
    known |= {str(p.get("provider")) for p in litellm.custom_provider_map}
    if provider not in known:
        near = difflib.get_close_matches(provider, sorted(known), n=1, cutoff=0.6)
        hint = f"; did you mean {near[0]!r}?" if near else ""
        raise ModelError(f"model {model!r}: litellm knows no provider {provider!r}{hint} "
                         "(sim/... and llamacpp/... run offline)")


def in_process(model: str) -> bool:
    """True for a model that runs in this process (``llamacpp/...``) rather than behind an API."""
    return model.startswith(f"{LLAMACPP}/")
