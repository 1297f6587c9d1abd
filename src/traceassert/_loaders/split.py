"""From text to JSON records, streamed: one document, JSON Lines, or values one after another.

The large arrays of a document (``resourceSpans``, ``batches``, ``data``, or the document itself when
it is an array) are parsed one element at a time, so the whole JSON tree of a big file never exists at
once. Three strategies, first match wins:

1. msgspec (optional accelerator) splits a well-formed document into raw elements, decoded lazily;
2. JSON Lines: more than one line and the first line is a whole JSON value; each line is parsed alone,
   and a line that was cut off is completed as far as it is whole;
3. the stdlib walker: a document, or values one after another (``ConsoleSpanExporter`` output), with
   truncation repair and error positions.

``TRACEASSERT_JSON=stdlib`` in the environment turns the accelerator off.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable, Generator, Iterator
from typing import Any, NamedTuple

from .common import Context
from .rawjson import MSGSPEC, decode_raw
from .read import decode_text
from .repair import complete_prefix

__all__ = ["STREAM_KEYS", "Buffer", "Unit", "iter_units"]

#: Object keys whose array is streamed element by element.
STREAM_KEYS = frozenset({"resourceSpans", "resource_spans", "batches", "data"})

_msgspec: Any = MSGSPEC

_WS = re.compile(r"[ \t\n\r]*")
_WIDE_BOMS = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
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


class Buffer:
    """Holds a file's content until the parser takes it, so that the bytes can be freed once they
    have been turned into text (no caller frame keeps a reference)."""

    __slots__ = ("data",)

    def __init__(self, data: bytes | str) -> None:
        self.data: bytes | str | None = data

    def take(self) -> bytes | str:
        data, self.data = self.data, None
        if data is None:
            raise RuntimeError("the buffer was already read")
        return data


def iter_units(buffer: Buffer, ctx: Context) -> Iterator[Unit]:
    """The records of one file's content, in file order."""
    data = buffer.take()
    if isinstance(data, bytes):
        if data.startswith(codecs.BOM_UTF8):
            data = data[3:]
        if not data.startswith(_WIDE_BOMS):
            if _msgspec is not None:
                units = _fast_units(data, ctx)
                if units is not None:
                    yield from units
                    return
            lines = _line_units(data, ctx)
            if lines is not None:
                del data
                yield from lines
                return
        text = decode_text(data, ctx.path, ctx.warnings)
        del data
    else:
        text = data
        del data
        lines = _line_units(text, ctx)
        if lines is not None:
            yield from lines
            return
    yield from _Walker(text, ctx).units()


# ---------------------------------------------------------------------------------------- msgspec


def _fast_units(data: bytes, ctx: Context) -> Iterator[Unit] | None:
    """Split a well-formed document into raw elements (msgspec); None when it is not one."""
    decode = _msgspec.json.decode
    try:
        top = decode(data, type=dict[str, _msgspec.Raw])
    except _msgspec.ValidationError:
        try:
            items = decode(data, type=list[_msgspec.Raw])
        except (_msgspec.MsgspecError, RecursionError):
            return None
        return (Unit("", f"[{i}]", decode_raw(raw, f"[{i}]", ctx)) for i, raw in enumerate(items))
    except (_msgspec.MsgspecError, RecursionError):
        return None
    streams: list[tuple[str, list[Any]]] = []
    head: dict[str, Any] = {}
    for key, raw in top.items():
        if key in STREAM_KEYS:
            try:
                streams.append((key, decode(raw, type=list[_msgspec.Raw])))
                continue
            except (_msgspec.MsgspecError, RecursionError):
                pass
        head[key] = raw
    if not streams:
        return iter([Unit(None, "document", {k: decode_raw(v, k, ctx) for k, v in head.items()})])
    return (
        Unit(key, f"{key}[{i}]", _decode_element(key, raw, f"{key}[{i}]", ctx))
        for key, items in streams
        for i, raw in enumerate(items)
    )


def _decode_element(key: str, raw: Any, where: str, ctx: Context) -> Any:
    # ResourceSpans stay raw: the OTLP converter decodes them (typed when it can)
    return raw if key == "resourceSpans" else decode_raw(raw, where, ctx)


# ---------------------------------------------------------------------------------------- JSON Lines


def _loads() -> Callable[[Any], Any]:
    if _msgspec is not None:
        decode = _msgspec.json.decode

        def loads(line: Any) -> Any:
            try:
                return decode(line)
            except _msgspec.MsgspecError:
                return json.loads(line)

        return loads
    return json.loads


def _line_units(data: bytes | str, ctx: Context) -> Iterator[Unit] | None:
    """JSON Lines, when there are two or more lines and the first is a whole JSON value by itself."""
    newline: Any = b"\n" if isinstance(data, bytes) else "\n"
    start = len(data) - len(data.lstrip())
    first_end = data.find(newline, start)
    if first_end < 0 or not data[first_end:].strip():
        return None
    loads = _loads()
    try:
        loads(data[start:first_end])
    except (ValueError, RecursionError):
        return None
    return _lines(data, ctx, loads, newline)


def _lines(data: Any, ctx: Context, loads: Callable[[Any], Any], newline: Any) -> Iterator[Unit]:
    pos = 0
    number = 0
    n = len(data)
    while pos < n:
        end = data.find(newline, pos)
        if end < 0:
            end = n
        line = data[pos:end]
        number += 1
        pos = end + 1
        if not line.strip():
            continue
        try:
            value = loads(line)
        except RecursionError:
            raise ctx.error("JSON nested too deeply", f"line {number}") from None
        except ValueError:
            # cut off (a writer stopped mid-line), invalid UTF-8, or invalid JSON: the walker tells which
            if isinstance(line, bytes):
                line = decode_text(line, f"{ctx.path}: line {number}", ctx.warnings)
            yield from _Walker(line, ctx, first_line=number).units()
            continue
        yield from _units_of(value, f"line {number}")


def _units_of(value: Any, where: str) -> Iterator[Unit]:
    """A whole top-level value as units: its streamed arrays element by element, else itself."""
    if value.__class__ is list:
        for i, item in enumerate(value):
            yield Unit("", f"{where}: [{i}]", item)
        return
    if value.__class__ is dict:
        streamed = False
        for key, items in value.items():
            if key in STREAM_KEYS and items.__class__ is list:
                streamed = True
                for i, item in enumerate(items):
                    yield Unit(key, f"{where}: {key}[{i}]", item)
        if streamed:
            return
    yield Unit(None, where, value)


# ---------------------------------------------------------------------------------------- walker


class _Walker:
    """Walks top-level values with the stdlib decoder, streaming large arrays, repairing a cut end."""

    def __init__(self, text: str, ctx: Context, first_line: int = 1) -> None:
        self.text = text
        self.n = len(text)
        self.ctx = ctx
        self.first_line = first_line
        #: where the text was found cut off, if it was
        self.cut_at: int | None = None

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
                char = text[pos]
                if char == "{":
                    pos = yield from self.object(pos, where)
                elif char == "[":
                    pos = yield from self.array(pos, "", where)
                else:
                    value, pos = self.value(pos)
                    yield Unit(None, where, value)
                pos = self.ws(pos)
        except _Cut:
            pass
        if self.cut_at is not None:
            self.ctx.cuts.append(self.position(self.cut_at))

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
                raise self.ctx.error(f"invalid JSON: {exc.msg}", self.position(exc.pos)) from None
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
            raise self.ctx.error(f"invalid JSON: expected {wanted}", self.position(pos))
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
                yield Unit(None, where, head)
                return pos + 1
            while True:
                key, pos = self.value(pos)
                if key.__class__ is not str:
                    raise self.ctx.error("invalid JSON: expected a string key", self.position(pos))
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
            yield Unit(None, where, json.loads(fixed[0]))
            raise
        if not streamed:
            yield Unit(None, where, head)
        return pos + 1
