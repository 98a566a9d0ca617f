"""The mocked environment of the bundled suites; it lives in planfilter.suites.mocked, beside
the other suite kinds, and is named here too for the code that imports it from the bench."""

from __future__ import annotations

from ..core.schemas import argument_errors
from ..suites.mocked import StepOutcome, execute

__all__ = ["StepOutcome", "argument_errors", "execute"]
