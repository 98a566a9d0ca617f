"""ToolScope: hybrid sparse + dense retrieval of tools, embedders, and tool merging.

Imports ``planfilter.core`` and ``planfilter.models`` (the merge judge is a model), nothing
above them.
"""
