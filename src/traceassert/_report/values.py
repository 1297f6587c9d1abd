"""How the HTML report shows a value: redacted as dumps are, cut as messages cut it, the full text kept.

A shown value is a list: ``[cut]`` when the cut text is the whole value, ``[cut, full]`` when it was cut
(the page shows the cut text and a "show full" button). The full text is capped at `FULL_LIMIT`
characters: a value longer than that is kept to that length and says so (the whole value is in the
trace dump).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from .._loaders.redact import redact_spans, redact_value
from .._model.span import Span
from .._render import short

__all__ = ["FULL_LIMIT", "Values", "patterns_of"]

#: the longest full value kept in the page (characters); longer ones are cut there and say so
FULL_LIMIT = 20_000


def patterns_of(redact: bool | Iterable[str]) -> tuple[bool, list[str]]:
    """``(redacting, extra patterns)`` from the plugin's and the CLI's redaction choice."""
    if redact is True or redact is False:
        return bool(redact), []
    return True, [str(p) for p in redact]


class Values:
    """Redacts and cuts the values one report section shows (one pattern list, compiled once)."""

    def __init__(self, redact: bool | Iterable[str] = True, limit: int = 120) -> None:
        self.on, extra = patterns_of(redact)
        self.patterns = [re.compile(p, re.IGNORECASE) for p in extra]
        self.limit = limit

    def redacted(self, value: Any) -> Any:
        return redact_value(value, self.patterns) if self.on else value

    def spans(self, spans: Iterable[Span]) -> list[Span]:
        """``spans`` with their attributes, events, names and status text redacted (as dumps are)."""
        return redact_spans(spans, self.patterns) if self.on else list(spans)

    def shown(self, value: Any, *, redacted: bool = False) -> list[str]:
        """``[cut]`` or ``[cut, full]`` for ``value`` (redacted first unless ``redacted``)."""
        if not redacted:
            value = self.redacted(value)
        value = _plain(value)
        cut = short(value, self.limit)
        if cut == short(value, 1 << 62):
            return [cut]
        return [cut, full_text(value)]

    def text(self, text: str, *, redacted: bool = False) -> list[str]:
        """Free text (an error, a status description) on one line: ``[cut]`` or ``[cut, full]``."""
        if not redacted:
            text = str(self.redacted(text))
        one_line = text.replace("\n", "\\n")
        limit = self.limit * 2
        if len(one_line) <= limit:
            return [one_line]
        return [one_line[: limit - 1] + "…", full_text(text)]


def full_text(value: Any) -> str:
    """The whole of ``value`` as text (JSON, indented, for structures), capped at `FULL_LIMIT`."""
    if isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(_plain(value), ensure_ascii=False, indent=2, default=str)
        except (TypeError, ValueError):
            text = repr(value)
    if len(text) > FULL_LIMIT:
        more = len(text) - FULL_LIMIT
        text = text[:FULL_LIMIT] + f"\n… ({more} more characters; the whole value is in the trace dump)"
    return text


def _plain(value: Any) -> Any:
    """Read-only mappings and tuples (span attributes) as dicts and lists, for JSON."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value
