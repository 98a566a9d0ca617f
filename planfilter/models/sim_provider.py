"""The simulated model as a litellm custom provider: ``sim/careful``, ``sim/confusable``.

Imported only by :func:`planfilter.models.client.load_litellm` (it imports litellm). The
decision itself is :func:`planfilter.models.sim.decide`; this module wraps it in a proper
``ModelResponse`` with one tool call and offline token usage: prompt tokens are counted by
``litellm.token_counter`` over the same messages and tool schemas the model received,
completion tokens over the tool call it returns.

Asked for words with tools in view (``tool_choice="none"``, AgentDojo's tool filter), it
answers with the names of the ``LISTED`` tools it scores highest.

The seed comes from the ``seed`` request parameter, or from the model name
(``sim/careful@7``), which wins when both are given; without either it is 0.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import litellm
from litellm import CustomLLM
from litellm.types.utils import (
    ChatCompletionMessageToolCall,
    Choices,
    Function,
    Message,
    ModelResponse,
    Usage,
)

from .faults import PROVIDER_KINDS, UNKNOWN_TOOL, draw_fault, parse_sim_name, raise_provider_fault
from .sim import decide, get_profile
from .sim_goal import GOAL_TOOL, is_goal_call
from .sim_goal import resolve as resolve_goal
from .sim_judge import JUDGE_NAME, judge

#: Tools named when the simulated model is asked to list tools in words (tool_choice none).
LISTED = 3


def split_name(model: str) -> tuple[str, int | None]:
    """``careful@7`` -> ("careful", 7); ``careful`` -> ("careful", None)."""
    name, _, seed = parse_sim_name(model)
    return name, seed


def count_prompt_tokens(model: str, messages: list[Any], tools: list[Any]) -> int:
    """``litellm.token_counter(model, messages, tools)``, with the tools' share memoised.

    litellm counts a prompt as its messages plus a term for the tool definitions that
    depends only on the tools and on whether a system message is present; the same tool
    sets come back at every step, so that term is computed once per set.
    """
    count = int(litellm.token_counter(model=model, messages=messages))
    if tools:
        system = any(m.get("role") == "system" for m in messages)
        count += _tool_tokens(model, json.dumps(tools, sort_keys=True), system)
    return count


@lru_cache(maxsize=4096)
def _tool_tokens(model: str, tools_json: str, system: bool) -> int:
    probe = [{"role": "system", "content": ""}] if system else [{"role": "user", "content": ""}]
    tools = json.loads(tools_json)
    return int(litellm.token_counter(model=model, messages=probe, tools=tools)
               - litellm.token_counter(model=model, messages=probe))


class ProviderLLM(CustomLLM):
    """A litellm custom provider that reads the model's name, the messages, the request's
    parameters (``tools``, ``tool_choice``, ``seed`` ...) and litellm's own settings
    (``litellm_params``); each provider writes :meth:`answer`, the rest of litellm's
    ``completion`` arguments are not read."""

    def completion(self, model: str, messages: list, api_base: str = "",  # type: ignore[override]
                   custom_prompt_dict: dict | None = None, model_response: Any = None,
                   print_verbose: Any = None, encoding: Any = None, api_key: Any = None,
                   logging_obj: Any = None, optional_params: dict | None = None,
                   *args: Any, **kwargs: Any) -> ModelResponse:
        return self.answer(model, messages, optional_params or {},
                           kwargs.get("litellm_params") or {})

    def answer(self, model: str, messages: list, params: dict[str, Any],
               settings: dict[str, Any]) -> ModelResponse:
        """The response to ``messages`` from ``model``."""
        raise NotImplementedError(f"{type(self).__name__} answers no completion")


class SimLLM(ProviderLLM):
    def answer(self, model: str, messages: list, params: dict[str, Any],
               settings: dict[str, Any]) -> ModelResponse:
        if model.removeprefix("sim/") == JUDGE_NAME:  # the merge judge answers in words
            return _judge_reply(messages)
        name, rate, name_seed = parse_sim_name(model.removeprefix("sim/"))
        profile = get_profile(name)
        seed = name_seed if name_seed is not None else int(params.get("seed") or 0)
        tools = list(params.get("tools") or [])
        full_name = f"sim/{model.removeprefix('sim/')}"
        metadata = settings.get("metadata") or {}
        fault = draw_fault(messages, tools, seed, int(metadata.get("attempt") or 1), rate)
        if fault in PROVIDER_KINDS:
            raise_provider_fault(fault, full_name)
        prompt_tokens = count_prompt_tokens(full_name, messages, tools)
        if is_goal_call(tools) and fault is None:
            arguments = json.dumps(resolve_goal(messages, tools[0], profile, seed), sort_keys=True)
            return build_response(full_name, calls=[(GOAL_TOOL, arguments)],
                                  prompt_tokens=prompt_tokens,
                                  completion_tokens=litellm.token_counter(model=full_name,
                                                                          text=arguments))
        decision = decide(messages, tools, profile, seed)
        if params.get("tool_choice") == "none" and decision is not None and fault is None:
            # Asked to answer in words with tools in view (AgentDojo's tool filter): it
            # names the tools it scores highest, best first.
            ranked = sorted(decision.scores, key=lambda item: -item[1])[:LISTED]
            text = ", ".join(name for name, _ in ranked)
            return build_response(full_name, text=text, prompt_tokens=prompt_tokens,
                                  completion_tokens=litellm.token_counter(model=full_name,
                                                                          text=text))
        if decision is None or fault in ("empty", "text"):
            text = {"empty": "", "text": "You should look up the event first, then update it."
                    }.get(fault or "", "I have no tool to call.")
            completion_tokens = litellm.token_counter(model=full_name, text=text or " ")
            return build_response(full_name, text=text, prompt_tokens=prompt_tokens,
                                  completion_tokens=completion_tokens)
        arguments = json.dumps(decision.arguments, sort_keys=True)
        called = [(decision.tool, arguments)]
        if fault == "malformed_json":
            called = [(decision.tool, arguments[:-1] + ',"')]
        elif fault == "several_calls":
            called = [(str(t.get("function", t).get("name")), arguments) for t in tools[:2]]
            called = called if len(called) > 1 else called * 2
        elif fault == "unknown_tool":
            called = [(UNKNOWN_TOOL, "{}")]
        completion_tokens = litellm.token_counter(
            model=full_name, text=json.dumps({"name": decision.tool, "arguments": arguments})
        )
        return build_response(full_name, calls=called, prompt_tokens=prompt_tokens,
                              completion_tokens=completion_tokens)


def build_response(model: str, *, calls: Sequence[tuple[str, str]] = (), text: str | None = None,
                   prompt_tokens: int = 0, completion_tokens: int = 0) -> ModelResponse:
    """A litellm response with ``calls`` (tool name, JSON arguments) or, without calls, ``text``.

    Shared by the simulated providers and by tests that script a provider's answers.
    """
    if calls:
        message = Message(role="assistant", content=None, tool_calls=[
            ChatCompletionMessageToolCall(id=f"call_{uuid.uuid4().hex[:12]}", type="function",
                                          function=Function(name=name, arguments=arguments))
            for name, arguments in calls])
    else:
        message = Message(role="assistant", content=text)
    return ModelResponse(
        model=model,
        choices=[Choices(index=0, finish_reason="tool_calls" if calls else "stop",
                         message=message)],
        usage=Usage(prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
                    total_tokens=prompt_tokens + completion_tokens),
    )


def _judge_reply(messages: list) -> ModelResponse:
    text = judge(messages)
    full_name = f"sim/{JUDGE_NAME}"
    return build_response(
        full_name, text=text,
        prompt_tokens=int(litellm.token_counter(model=full_name, messages=messages)),
        completion_tokens=int(litellm.token_counter(model=full_name, text=text)),
    )
