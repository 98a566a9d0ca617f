"""``python -m planfilter.cli``: the command line without the console script on PATH."""

from . import main

main()
