"""The litellm custom provider ``llamacpp/...`` over :mod:`planfilter.models.llamacpp`.

Imported only by :func:`planfilter.models.client.load_litellm` (it imports litellm). Errors
that retrying cannot fix (a prompt longer than the context, a model without a chat template,
a missing file) are raised as litellm's 400-class errors, so the client does not retry them.
"""

from __future__ import annotations

from typing import Any

import litellm
from litellm.types.utils import ModelResponse

from ..core.errors import PlanfilterError
from .llamacpp import PROVIDER, ContextTooLong, get_model, tool_name
from .sim_provider import ProviderLLM, build_response


class LlamaCppLLM(ProviderLLM):
    def answer(self, model: str, messages: list, params: dict[str, Any],
               settings: dict[str, Any]) -> ModelResponse:
        tools = list(params.get("tools") or [])
        choice = params.get("tool_choice")
        required = choice == "required" or isinstance(choice, dict)
        if isinstance(choice, dict):  # one named function: only it may be called
            wanted = tool_name(choice)
            tools = [t for t in tools if tool_name(t) == wanted] or tools
        name = f"{PROVIDER}/{model.removeprefix(PROVIDER + '/')}"
        try:
            reply = get_model(model).complete(
                list(messages), tools, required=required,
                max_tokens=int(params.get("max_tokens") or 512), seed=params.get("seed"),
                calls=choice != "none")
        except ContextTooLong as exc:
            raise litellm.ContextWindowExceededError(str(exc), model=name,
                                                     llm_provider=PROVIDER) from None
        except PlanfilterError as exc:
            raise litellm.BadRequestError(str(exc), model=name, llm_provider=PROVIDER) from None
        return build_response(name, calls=[(c.name, c.arguments) for c in reply.calls],
                              text=reply.text, prompt_tokens=reply.prompt_tokens,
                              completion_tokens=reply.completion_tokens)
