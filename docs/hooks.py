"""MkDocs hook: Sphinx roles in docstrings (:class:`x`, :meth:`x`, ...) shown as plain code.

The API reference renders the package's docstrings with mkdocstrings, which leaves reST roles
as written (":meth:<code>start</code>"). The role's name is dropped and a leading ``~`` (the
short form) is reduced to the last dotted part, so the page reads ``start`` and ``ToolGuard``.
"""

from __future__ import annotations

import re
from typing import Any

ROLE = re.compile(r":(?:py:)?(?:attr|class|data|exc|func|meth|mod|obj):<code>~?([^<]*)</code>")


def _short(match: re.Match[str]) -> str:
    target = match.group(1)
    if match.group(0).split("<code>", 1)[1].startswith("~"):
        target = target.rsplit(".", 1)[-1]
    return f"<code>{target}</code>"


def on_page_content(html: str, **kwargs: Any) -> str:
    return ROLE.sub(_short, html)
