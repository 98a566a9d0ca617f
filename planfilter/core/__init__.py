"""The core: contracts and tasks (the data), Jinja -> PDDL, planners, the frontier, validation.

The bottom layer. It imports nothing else of planfilter; every other subpackage builds on it.
"""
