"""A minimal agent that shows its model only the frontier: the README's "Session" example.

`run_agent(model, request, known, run_tool)` drives any litellm model with
`planfilter.Session` until the goal is reached; `run_tool(name, arguments)` runs a tool for
real and returns its result (JSON text, plain text or a dict). The README prints the
function below word for word, and tests/test_session.py checks that it does and runs it
with a scripted model.
"""

import json

import litellm

from planfilter import Session, load_registry


def run_agent(model, request, known, run_tool, registry=None, max_steps=6):
    """Drive `model` with only the frontier in view until the goal is reached."""
    session = Session(registry or load_registry("domains"), model=model)
    session.start(request, known=known)          # the same model resolves the goal
    while not session.done and len(session.history) < max_steps:
        state = "\n".join(f"- {k}: {json.dumps(v)}" for k, v in session.state.items())
        messages = [{"role": "user", "content": f"Request: {request}\n\nKnown state:\n{state}"}]
        reply = litellm.completion(model=model, messages=messages,
                                   tools=session.tool_schemas(), tool_choice="required")
        call = reply.choices[0].message.tool_calls[0]
        name, arguments = call.function.name, json.loads(call.function.arguments)
        decision = session.check(name, arguments)   # visible now, schema, provenance, risk
        if decision.allowed:
            session.record(name, arguments, run_tool(name, arguments))  # JSON, text or dict
        else:
            session.record(name, arguments, error=decision.reason)
    return session
