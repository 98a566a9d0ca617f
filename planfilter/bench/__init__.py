"""The benchmark: the mocked environment, the agent loop, the runner, traces, metrics and
reports, task sampling, synthetic registries and planner timing.

Imports every layer below it (core, models, retrieval, filters); only the CLI imports it.
"""
