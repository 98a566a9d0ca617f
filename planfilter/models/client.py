"""Calling models through litellm, and only through litellm, with retries.

litellm is imported lazily by :func:`load_litellm` (it takes seconds to import, and commands
such as ``planfilter frontier`` never need it). The offline model cost map is selected when
this module is imported, which every import of ``planfilter.models`` does first, so that no
later import of litellm (``load_litellm``, or the provider modules imported on their own)
fetches anything from the network; a value the user set is kept. litellm's own console
banners are switched off: a library does not print.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..core.errors import PlanfilterError

# Without it, importing litellm fetches its model cost map from GitHub (retrying for seconds
# when offline).
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

_LOCK = threading.RLock()
_LOADED: list[Any] = []


class ModelError(PlanfilterError):
    """A provider kept failing (after retries) or failed in a way retrying cannot fix."""

    def __init__(self, message: str, kinds: tuple[str, ...] = ()):
        super().__init__(message)
        #: The fault kind of every failed try, in order (see :func:`fault_kind`).
        self.kinds = kinds


def load_litellm() -> Any:
    """Import litellm once, offline-safe, with the simulated provider registered."""
    with _LOCK:
        if _LOADED:
            return _LOADED[0]
        import litellm

        litellm.suppress_debug_info = True
        litellm.telemetry = False
        _LOADED.append(litellm)
        from .llamacpp_provider import PROVIDER, LlamaCppLLM
        from .sim_provider import SimLLM

        register_provider("sim", SimLLM())
        register_provider(PROVIDER, LlamaCppLLM())
        return litellm


def register_provider(name: str, handler: Any) -> None:
    """Route ``name/...`` models to ``handler`` (a litellm ``CustomLLM``), replacing any other."""
    litellm = load_litellm()
    with _LOCK:
        others = [p for p in litellm.custom_provider_map if p.get("provider") != name]
        litellm.custom_provider_map = [*others, {"provider": name, "custom_handler": handler}]


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: str


@dataclass(frozen=True)
class ModelReply:
    calls: tuple[ToolCall, ...]
    content: str | None
    input_tokens: int
    output_tokens: int
    latency_ms: float
    attempts: int = 1
    #: The fault kind of each failed try before this reply (retried, then answered).
    retried: tuple[str, ...] = ()


@dataclass(frozen=True)
class CallOptions:
    api_base: str | None = None
    timeout: float = 60.0
    max_tries: int = 3
    #: First retry delay in seconds; doubled before each further try.
    base_delay: float = 0.5
    max_output_tokens: int = 512
    sleep: Callable[[float], None] = field(default=time.sleep, compare=False)


#: litellm exception class names worth another try: rate limits, timeouts, 5xx, lost links.
TRANSIENT = frozenset({
    "RateLimitError", "Timeout", "APIConnectionError", "ServiceUnavailableError",
    "InternalServerError", "BadGatewayError", "APIError",
})


def _transient(exc: Exception) -> bool:
    status = getattr(exc, "status_code", None)
    if isinstance(status, int) and (status == 429 or status >= 500):
        return True
    return any(cls.__name__ in TRANSIENT for cls in type(exc).__mro__
               if cls.__module__.startswith("litellm"))


def fault_kind(exc: BaseException) -> str:
    """A provider error's kind, for counting: timeout, rate limit, server error, ..."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    status = getattr(exc, "status_code", None)
    if "Timeout" in names or "APITimeoutError" in names:
        return "timeout"
    if "RateLimitError" in names or status == 429:
        return "rate limit (429)"
    if isinstance(status, int) and status >= 500:
        return "server error (5xx)"
    if "APIConnectionError" in names:
        return "connection error"
    return "provider error"


def complete(model: str, messages: Sequence[Mapping[str, Any]],
             tools: Sequence[Mapping[str, Any]], *, seed: int | None = None,
             options: CallOptions = CallOptions(), tool_choice: str = "required") -> ModelReply:
    """One model turn that must call a tool; provider errors are retried, then raised.

    With no ``tools`` it is a plain text turn (the merge judge's yes/no question).
    ``tool_choice``: ``required`` (the benchmark's one call per step), ``auto`` (a call or
    an answer in words, as in AgentDojo's loop) or ``none`` (tools shown, words wanted).
    """
    litellm = load_litellm()
    kwargs: dict[str, Any] = {
        "model": model,
        "messages": list(messages),
        "tools": list(tools),
        "tool_choice": tool_choice,
        "temperature": 0,
        "max_tokens": options.max_output_tokens,
        "timeout": options.timeout,
        "drop_params": True,
        "num_retries": 0,
        "max_retries": 0,
    }
    if not tools:
        del kwargs["tools"], kwargs["tool_choice"]
    if seed is not None:
        kwargs["seed"] = seed
    if options.api_base:
        kwargs["api_base"] = options.api_base
    if model.startswith("sim/"):  # free, and litellm's price lookup would cost time per call
        kwargs.update(input_cost_per_token=0.0, output_cost_per_token=0.0)
    delay = options.base_delay
    kinds: list[str] = []
    for attempt in range(1, options.max_tries + 1):
        start = time.perf_counter()
        if model.startswith("sim/"):  # the simulated model draws its faults per try
            kwargs["metadata"] = {"attempt": attempt}
        try:
            response = litellm.completion(**kwargs)
        except Exception as exc:
            if not _is_litellm_error(exc):
                raise
            kinds.append(fault_kind(exc))
            what = f"{type(exc).__name__}: {_first_line(exc)}"
            if not _transient(exc):
                raise ModelError(f"{model}: {what}", tuple(kinds)) from None
            if attempt == options.max_tries:
                raise ModelError(f"{model}: gave up after {attempt} tries: {what}",
                                 tuple(kinds)) from None
            if not model.startswith("sim/"):  # a simulated fault needs no real backoff
                options.sleep(delay)
            delay *= 2
            continue
        latency = (time.perf_counter() - start) * 1000
        reply = replace(_reply(response, latency, attempt), retried=tuple(kinds))
        if not reply.input_tokens:  # a provider that reports no usage: count offline
            counted = litellm.token_counter(model=model, messages=list(messages),
                                            tools=list(tools) or None)
            reply = replace(reply, input_tokens=int(counted))
        return reply
    raise AssertionError("unreachable")  # pragma: no cover


def _is_litellm_error(exc: Exception) -> bool:
    return any(cls.__module__.startswith(("litellm", "openai", "httpx"))
               for cls in type(exc).__mro__)


def _first_line(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:300] if text else ""


def _reply(response: Any, latency_ms: float, attempts: int) -> ModelReply:
    choices = getattr(response, "choices", None) or []
    message = choices[0].message if choices else None
    calls = []
    for call in (getattr(message, "tool_calls", None) or []):
        function = call.function
        arguments = function.arguments
        if not isinstance(arguments, str):  # some providers hand back a parsed object
            arguments = json.dumps(arguments)
        calls.append(ToolCall(str(function.name or ""), arguments))
    usage = getattr(response, "usage", None)
    return ModelReply(
        calls=tuple(calls),
        content=getattr(message, "content", None),
        input_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        output_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        latency_ms=latency_ms,
        attempts=attempts,
    )
