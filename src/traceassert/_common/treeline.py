"""A line of a rendered tree whose text is made only when it is shown.

A failure message shows 60 lines of a tree that may have 100,000: the renderer (``_render``) hands the
lines out as `TreeLine`s, and only the lines the message shows have their text made.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .text import safe_line

__all__ = ["Text", "TreeLine"]

#: makes the text of a line from its record
Text = Callable[[Any], str]


class TreeLine:
    """A line of the tree whose text is made when first shown (`render_lines`): ``prefix`` is the tree
    drawing (3 characters a level), ``kind`` and ``name`` the record's ("" for other lines; a model
    call's name is "operation model"), ``brief`` the text after the prefix once made, before that
    ``"<kind> <name>("``. The text is one safe line: control characters, newlines and lone surrogates
    from the record are shown escaped (``_common.text.safe_line``)."""

    __slots__ = ("_make", "_record", "brief", "kind", "made", "name", "prefix")

    def __init__(self, prefix: str, kind: str, name: str, text: str | Text, record: Any = None) -> None:
        self.prefix, self.kind, self.name, self._make, self._record = prefix, kind, name, text, record
        self.made = isinstance(text, str)
        self.brief = safe_line(text) if isinstance(text, str) else f"{kind} {name}("

    def __str__(self) -> str:
        if not self.made:
            self.brief, self.made = safe_line(self._make(self._record)), True  # type: ignore[operator]
        return self.prefix + self.brief
