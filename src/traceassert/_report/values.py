"""How the HTML report shows a value: redacted as dumps are, cut as messages cut it, the full text kept.

A shown value is a list: ``[cut]`` when the cut text is the whole value, ``[cut, n]`` when it was cut,
where ``n`` is the full text's position in the section's string table (``Values.strings``: each text is
kept once, however many spans repeat it, as model calls repeat tool definitions and schemas). A cut
text longer than `SHARED_FROM` characters is a position in that table too.
The page shows the cut text and a "show full" button. The full text is capped at `FULL_LIMIT`
characters: a value longer than that is kept to that length and says so (the whole value is in the
trace dump).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from .._common.redact import redact_spans, redact_value
from .._common.text import short
from .._model.span import Span

__all__ = ["FULL_LIMIT", "Values", "patterns_of"]

#: the longest full value kept in the page (characters); longer ones are cut there and say so
FULL_LIMIT = 20_000
#: cut texts at least this long are kept in the string table (once) and given by position
SHARED_FROM = 32


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
        #: the full texts of cut values, each once
        self.strings: list[str] = []
        self._positions: dict[str, int] = {}

    def keep(self, text: str) -> int:
        """The position of ``text`` in `strings` (added when new)."""
        at = self._positions.get(text)
        if at is None:
            at = self._positions[text] = len(self.strings)
            self.strings.append(text)
        return at

    def redacted(self, value: Any) -> Any:
        return redact_value(value, self.patterns) if self.on else value

    def spans(self, spans: Iterable[Span]) -> list[Span]:
        """``spans`` with their attributes, events, names and status text redacted (as dumps are)."""
        return redact_spans(spans, self.patterns) if self.on else list(spans)

    def cut(self, value: Any, *, redacted: bool = False) -> str:
        """``value`` (redacted first unless ``redacted``) on one line, cut as messages cut it."""
        return short(_plain(value if redacted else self.redacted(value)), self.limit)

    def line(self, text: str, *, redacted: bool = False) -> str:
        """Free text (redacted first unless ``redacted``) on one line, cut to twice the limit."""
        one_line = str(text if redacted else self.redacted(text)).replace("\n", "\\n")
        limit = self.limit * 2
        return one_line if len(one_line) <= limit else one_line[: limit - 1] + "…"

    def shown(self, value: Any, *, redacted: bool = False) -> list[Any]:
        """``[cut]`` or ``[cut, position of the full text]`` for ``value`` (redacted first unless
        ``redacted``)."""
        if not redacted:
            value = self.redacted(value)
        value = _plain(value)
        cut = short(value, self.limit)
        shown: str | int = self.keep(cut) if len(cut) >= SHARED_FROM else cut
        if cut == short(value, 1 << 62):
            return [shown]
        return [shown, self.keep(full_text(value))]

    def text(self, text: str, *, redacted: bool = False) -> list[Any]:
        """Free text (an error, a status description) on one line: ``[cut]`` or ``[cut, position]``."""
        if not redacted:
            text = str(self.redacted(text))
        one_line = text.replace("\n", "\\n")
        limit = self.limit * 2
        if len(one_line) <= limit:
            return [one_line]
        return [self.keep(one_line[: limit - 1] + "…"), self.keep(full_text(text))]


def full_text(value: Any) -> str:
    """The whole of ``value`` as text (JSON for structures; the page indents JSON when it shows it),
    capped at `FULL_LIMIT`."""
    if isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(_plain(value), ensure_ascii=False, default=str)
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
