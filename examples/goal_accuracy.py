"""Goal accuracy of a resolver alone: each bundled task's request and state, no agent run.

    python examples/goal_accuracy.py llamacpp/qwen2.5-coder-1.5b      # all 102 tasks
    python examples/goal_accuracy.py sim/careful --sample 18
    python examples/goal_accuracy.py retrieval --tasks tasks/steps.yaml
    python examples/goal_accuracy.py sim/careful --only email-summarize-006,files-summarize-001

A resolution is right when its steps are the task's steps, in order (a goal of one step: the
same variables).

Prints one JSON line per task (chosen goal, the task's goal, who answered, the notes), then
the accuracy. `planfilter run --goal resolve` measures the same inside full runs.
"""

from __future__ import annotations

import argparse
import json
import time

from planfilter.bench.sampling import stratified_sample
from planfilter.core.errors import PlanfilterError
from planfilter.core.loading import load_registry, load_suite
from planfilter.core.resources import default_registry, default_suite
from planfilter.live.goals import resolve_goal


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", help="a litellm model name, or 'retrieval'")
    parser.add_argument("--sample", type=int, help="the stratified sample of this size")
    parser.add_argument("--tasks", default=None, help="a suite (default: the bundled one)")
    parser.add_argument("--only", default="", help="these task ids only (comma-separated)")
    args = parser.parse_args()
    try:
        registry = load_registry(default_registry())
        suite = load_suite(args.tasks or default_suite())
    except PlanfilterError as exc:
        parser.error(str(exc))
    tasks = tuple(stratified_sample(suite, args.sample) if args.sample else suite)
    if args.only:
        wanted = {i.strip() for i in args.only.split(",") if i.strip()}
        unknown = wanted - {t.id for t in tasks}
        if unknown:
            where = args.tasks or "the bundled suite"
            parser.error(f"--only: no task {sorted(unknown)[0]!r} in {where}")
        tasks = tuple(t for t in tasks if t.id in wanted)
    retrieval = args.model == "retrieval"
    right = tokens = fell_back = 0
    start = time.monotonic()
    for task in tasks:
        began = time.monotonic()
        resolution = resolve_goal(registry, task.query, seed=1, context=dict(task.state),
                                  resolver="retrieval" if retrieval else "model",
                                  model=None if retrieval else args.model)
        ok = resolution.goal_steps == task.goal_steps
        right += ok
        fell_back += not retrieval and resolution.resolver != "model"
        tokens += resolution.input_tokens + resolution.output_tokens
        print(json.dumps({"task": task.id, "ok": ok, "chose": resolution.name,
                          "gold": [sorted(s) for s in task.goal_steps],
                          "by": resolution.resolver,
                          "tokens": resolution.input_tokens + resolution.output_tokens,
                          "seconds": round(time.monotonic() - began, 1),
                          "notes": list(resolution.notes)}), flush=True)
    count = len(tasks)
    fallback = (f"; {fell_back} answered by retrieval after the model failed (see notes)"
                if fell_back else "")
    print(f"# {args.model}: goal accuracy {right}/{count} = {right / max(count, 1):.2f}; "
          f"{tokens} tokens; {time.monotonic() - start:.0f} s{fallback}")


if __name__ == "__main__":
    main()
