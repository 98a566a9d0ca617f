"""A minimal agent that shows its model only the frontier: the README's "Session" example.

`run_agent(model, request, known, run_tool)` drives any litellm model with
`planfilter.Session` until the goal is reached; `run_tool(name, arguments)` runs a tool for
real and returns its result (JSON text, plain text or a dict). When the user declines a
high-risk call (`ask_user` returns False), that action ends: the tool is not shown or asked
about again, and once nothing else moves the task forward the loop stops, with
`session.visible().info` saying why. The README prints the function below word for word,
and tests/test_session.py checks that it does and runs it with a scripted model.
"""

import json

import litellm

from planfilter import Session, load_registry


def run_agent(model, request, known, run_tool, registry=None, max_steps=6, ask_user=None):
    """Drive `model` with only the frontier in view until the goal is reached. `ask_user`
    approves a high-risk call (True or False); without it such a call runs unless a
    sensitive value in it was read from outside content."""
    session = Session(registry or load_registry("domains"), model=model,
                      policy="ask" if ask_user else "untainted", approver=ask_user)
    session.start(request, known=known)          # the same model resolves the goal
    refused = []
    for _ in range(max_steps):
        tools = session.tool_schemas()
        if session.done or not tools:            # reached, or the user declined: see below
            break
        state = "\n".join(f"- {k}: {json.dumps(v)}" for k, v in session.state.items())
        notes = "".join(f"\nRefused: {reason}" for reason in refused)
        messages = [{"role": "user",
                     "content": f"Request: {request}\n\nKnown state:\n{state}{notes}"}]
        reply = litellm.completion(model=model, messages=messages, tools=tools,
                                   tool_choice="required")
        calls = reply.choices[0].message.tool_calls or []
        if not calls:                            # an answer in words: nothing to run
            break
        name, arguments = calls[0].function.name, json.loads(calls[0].function.arguments)
        decision = session.check(name, arguments)   # visible now, schema, provenance, risk
        if decision.allowed:
            session.record(name, arguments, run_tool(name, arguments))  # JSON, text or dict
        else:                                    # it never ran; the model is told why
            refused.append(decision.reason)
    return session                               # not done: session.visible().info says why
