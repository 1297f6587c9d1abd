"""The stdlib walker: top-level JSON values one after another (a document, or ``ConsoleSpanExporter``
output), with the large arrays streamed element by element, a cut-off end repaired, and positions
(line and column) in every error."""

from __future__ import annotations

import json
import re
from collections.abc import Generator, Iterator
from typing import Any, NamedTuple

from .._errors import TraceLoadError
from .common import Context
from .repair import complete_prefix

__all__ = ["STREAM_KEYS", "Unit", "Walker"]

#: Object keys whose array is streamed element by element.
STREAM_KEYS = frozenset({"resourceSpans", "resource_spans", "batches", "data"})

_WS = re.compile(r"[ \t\n\r]*")
_decoder = json.JSONDecoder()
_raw_decode = _decoder.raw_decode


class Unit(NamedTuple):
    """One JSON record to convert: the array key it came from (``""`` for a top-level array, None for
    a whole top-level value), where it is (for messages), and the value."""

    key: str | None
    where: str
    value: Any


class _Cut(Exception):
    """Internal: the text ended inside a value."""


class Walker:
    """Walks top-level values with the stdlib decoder, streaming large arrays, repairing a cut end."""

    def __init__(self, text: str, ctx: Context, first_line: int = 1, *, skip_foreign: bool = False) -> None:
        self.text = text
        self.n = len(text)
        self.ctx = ctx
        self.first_line = first_line
        #: where the text was found cut off, if it was
        self.cut_at: int | None = None
        #: skip a line between top-level values that is not JSON (a program's own output printed
        #: between the ConsoleSpanExporter's spans), counting it in ``ctx.foreign``
        self.skip_foreign = skip_foreign
        #: where the last syntax error was found
        self.error_at: int | None = None
        #: units yielded so far
        self.yielded = 0

    def position(self, pos: int) -> str:
        text = self.text
        pos = max(0, min(pos, self.n))
        line = text.count("\n", 0, pos) + self.first_line
        column = pos - (text.rfind("\n", 0, pos) + 1) + 1
        return f"line {line}, column {column}"

    def ws(self, pos: int) -> int:
        return _WS.match(self.text, pos).end()  # type: ignore[union-attr]

    def units(self) -> Iterator[Unit]:
        text = self.text
        pos = self.ws(0)
        try:
            while pos < self.n:
                where = self.position(pos).split(",")[0]
                start, before = pos, self.yielded
                self.error_at = None
                try:
                    char = text[pos]
                    if char == "{":
                        pos = yield from self.object(pos, where)
                    elif char == "[":
                        pos = yield from self.array(pos, "", where)
                    else:
                        value, pos = self.value(pos)
                        self.yielded += 1
                        yield Unit(None, where, value)
                except TraceLoadError as exc:
                    pos = self.skip_line(start, before, exc)
                pos = self.ws(pos)
        except _Cut:
            pass
        if self.cut_at is not None:
            self.ctx.cuts.append(self.position(self.cut_at))

    def skip_line(self, start: int, before: int, exc: TraceLoadError) -> int:
        """Skip the line at ``start`` when it is not JSON: the syntax error is on that line and nothing
        was read from it. Otherwise re-raise ``exc``. Returns where to go on."""
        at = self.error_at
        if (
            not self.skip_foreign
            or at is None
            or self.yielded != before
            or self.text.find("\n", start, at) >= 0
        ):
            raise exc
        if self.text.startswith(("{", "["), start) and at > self.ws(start + 1):
            # JSON up to past its first token (``{"resourceSpans": [...`` cut or corrupted), not a
            # program's own ``[INFO] ...`` or ``{...}`` text: a record whose spans are lost
            self.ctx.broken.append(self.position(start).split(",")[0])
        else:
            self.ctx.foreign += 1
        if self.ctx.foreign_error is None:
            self.ctx.foreign_error = exc
        end = self.text.find("\n", at)
        return self.n if end < 0 else end + 1

    def syntax_error(self, message: str, pos: int) -> TraceLoadError:
        self.error_at = pos
        return self.ctx.error(message, self.position(pos))

    def cut(self, pos: int) -> _Cut:
        """Record that the text ends inside a value and stop walking."""
        if self.cut_at is None:
            self.cut_at = pos
        return _Cut()

    def value(self, pos: int) -> tuple[Any, int]:
        """Decode one value; a value cut by the end of the text is completed and the walk stops after it."""
        try:
            return _raw_decode(self.text, pos)
        except RecursionError:
            raise self.ctx.error("JSON nested too deeply", self.position(pos)) from None
        except json.JSONDecodeError as exc:
            fixed = complete_prefix(self.text, pos)
            if fixed is None:
                raise self.syntax_error(f"invalid JSON: {exc.msg}", exc.pos) from None
            repaired, kept = fixed
            if self.cut_at is None:
                self.cut_at = kept
            if not repaired:
                raise _Cut() from None
            try:
                value = json.loads(repaired)
            except RecursionError:
                raise self.ctx.error("JSON nested too deeply", self.position(pos)) from None
            return value, self.n

    def expect(self, pos: int, chars: str) -> str:
        if pos >= self.n:
            raise self.cut(pos)
        char = self.text[pos]
        if char not in chars:
            wanted = " or ".join(repr(c) for c in chars)
            raise self.syntax_error(f"invalid JSON: expected {wanted}", pos)
        return char

    def array(self, pos: int, key: str, where: str) -> Generator[Unit, None, int]:
        """Yield the elements of the array at ``pos`` one by one; return the position after it."""
        prefix = f"{where}: {key}" if key else f"{where}: "
        pos = self.ws(pos + 1)
        if self.expect(pos, ']{["-0123456789tfnNI') == "]":
            return pos + 1
        index = 0
        while True:
            value, pos = self.value(pos)
            self.yielded += 1
            yield Unit(key, f"{prefix}[{index}]", value)
            if self.cut_at is not None:
                raise _Cut()
            index += 1
            pos = self.ws(pos)
            if self.expect(pos, ",]") == "]":
                return pos + 1
            pos = self.ws(pos + 1)

    def object(self, start: int, where: str) -> Generator[Unit, None, int]:
        """A top-level object: its streamed arrays element by element, or the whole object."""
        text = self.text
        head: dict[str, Any] = {}
        streamed = False
        pos = self.ws(start + 1)
        try:
            if self.expect(pos, '}"') == "}":
                self.yielded += 1
                yield Unit(None, where, head)
                return pos + 1
            while True:
                key, pos = self.value(pos)
                if key.__class__ is not str:
                    raise self.syntax_error("invalid JSON: expected a string key", pos)
                pos = self.ws(pos)
                self.expect(pos, ":")
                pos = self.ws(pos + 1)
                if key in STREAM_KEYS and text.startswith("[", pos):
                    streamed = True
                    pos = yield from self.array(pos, key, where)
                else:
                    head[key] = None
                    head[key], pos = self.value(pos)
                pos = self.ws(pos)
                if self.expect(pos, ",}") == "}":
                    break
                pos = self.ws(pos + 1)
                self.expect(pos, '"')
        except _Cut:
            if streamed:
                raise
            # cut before any streamed array: complete the whole object and convert what it holds
            fixed = complete_prefix(text, start)
            if fixed is None or not fixed[0]:
                raise
            self.yielded += 1
            yield Unit(None, where, json.loads(fixed[0]))
            raise
        if streamed:
            self.ctx.note_other_signals(head)
        else:
            self.yielded += 1
            yield Unit(None, where, head)
        return pos + 1
