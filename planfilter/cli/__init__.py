"""The command line: one module per command group, thin over the library.

The only layer that imports click. Library errors become a message and exit code 1 in
``app``; everything a command does is a function of the library below it.
"""

from __future__ import annotations

from .app import cli, main
from .bench import bench, local_models
from .contracts import contracts
from .merge import merge
from .plan import export, frontier, planners, validate
from .run import report, run
from .serve import serve

for _command in (frontier, export, validate, planners, bench, local_models, run, report, merge,
                 contracts, serve):
    cli.add_command(_command)

__all__ = ["cli", "main"]
