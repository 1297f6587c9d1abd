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
import contextlib
import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from .common import Context
from .rawjson import MSGSPEC, decode_raw
from .read import decode_text
from .walker import STREAM_KEYS, Unit, Walker

__all__ = ["STREAM_KEYS", "Buffer", "Unit", "iter_units"]

_msgspec: Any = MSGSPEC

_WIDE_BOMS = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


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
        text = data[1:] if data.startswith("\ufeff") else data
        del data
        lines = _line_units(text, ctx)
        if lines is not None:
            yield from lines
            return
    yield from Walker(text, ctx, skip_foreign=True).units()


# ---------------------------------------------------------------------------------------- msgspec


#: a request holding nothing but ``resourceSpans`` (the usual file), split in one pass instead of two
_REQUEST: Any = (
    _msgspec.defstruct("Request", [("resourceSpans", list[_msgspec.Raw])], forbid_unknown_fields=True)
    if _msgspec is not None
    else None
)


def _resource_spans_only(data: Any) -> list[Any] | None:
    """The raw ResourceSpans of ``{"resourceSpans": [...]}``; None for anything else."""
    try:
        return _msgspec.json.decode(data, type=_REQUEST).resourceSpans  # type: ignore[no-any-return]
    except (_msgspec.MsgspecError, UnicodeDecodeError, RecursionError):
        return None


def _fast_units(data: bytes, ctx: Context) -> Iterator[Unit] | None:
    """Split a well-formed document into raw elements (msgspec); None when it is not one."""
    decode = _msgspec.json.decode
    only = _resource_spans_only(data)
    if only is not None:
        return (Unit("resourceSpans", f"resourceSpans[{i}]", raw) for i, raw in enumerate(only))
    try:
        top = decode(data, type=dict[str, _msgspec.Raw])
    except _msgspec.ValidationError:
        try:
            items = decode(data, type=list[_msgspec.Raw])
        except (_msgspec.MsgspecError, UnicodeDecodeError, RecursionError):
            return None
        return _array_units(items, ctx)
    except (_msgspec.MsgspecError, UnicodeDecodeError, RecursionError):
        return None
    streams: list[tuple[str, list[Any]]] = []
    head: dict[str, Any] = {}
    for key, raw in top.items():
        if key in STREAM_KEYS:
            try:
                streams.append((key, decode(raw, type=list[_msgspec.Raw])))
                continue
            except (_msgspec.MsgspecError, UnicodeDecodeError, RecursionError):
                pass
        head[key] = raw
    if not streams:
        return iter([Unit(None, "document", {k: decode_raw(v, k, ctx) for k, v in head.items()})])
    ctx.note_other_signals(head)
    return (
        Unit(key, f"{key}[{i}]", _decode_element(key, raw, f"{key}[{i}]", ctx))
        for key, items in streams
        for i, raw in enumerate(items)
    )


def _array_units(items: list[Any], ctx: Context) -> Iterator[Unit]:
    for i, raw in enumerate(items):
        where = f"[{i}]"
        yield Unit("", where, decode_raw(raw, where, ctx))


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
            except (_msgspec.MsgspecError, UnicodeDecodeError):
                return json.loads(line)

        return loads
    return json.loads


# whitespace as ``strip()`` sees it; searched, not stripped, so that no copy of the data is made
_SPACE: dict[type, Any] = {bytes: re.compile(rb"\s*"), str: re.compile(r"\s*")}
_NOT_SPACE: dict[type, Any] = {bytes: re.compile(rb"\S"), str: re.compile(r"\S")}


def _line_units(data: bytes | str, ctx: Context) -> Iterator[Unit] | None:
    """JSON Lines, when there are two or more lines and the first is a whole JSON value by itself (or
    when ``ctx.lines`` says so)."""
    newline: Any = b"\n" if isinstance(data, bytes) else "\n"
    start = _SPACE[type(data)].match(data).end()
    first_end = data.find(newline, start)
    loads = _loads()
    if ctx.lines:
        return _lines(data, ctx, loads, newline)
    if first_end < 0 or _NOT_SPACE[type(data)].search(data, first_end) is None:
        return None
    if not _is_json(data[start:first_end]):
        try:
            loads(data[start:first_end])
        except (ValueError, RecursionError):
            return None
    return _lines(data, ctx, loads, newline)


def _is_json(line: Any) -> bool:
    """True when msgspec finds ``line`` one whole JSON value, checked without building it; False
    leaves the answer to ``loads``."""
    if _msgspec is None or not _utf8(line):
        return False
    try:
        _msgspec.json.decode(line, type=_msgspec.Raw)
    except (_msgspec.MsgspecError, UnicodeDecodeError, RecursionError):
        return False
    return True


def _utf8(line: Any) -> bool:
    """False for bytes that are not UTF-8 (msgspec leaves the strings it skips unchecked)."""
    if line.__class__ is not bytes or line.isascii():
        return True
    try:
        line.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _lines(data: Any, ctx: Context, loads: Callable[[Any], Any], newline: Any) -> Iterator[Unit]:
    pos = 0
    number = 0
    n = len(data)
    raw_lines = _msgspec is not None
    while pos < n:
        end = data.find(newline, pos)
        if end < 0:
            end = n
        line = data[pos:end]
        number += 1
        pos = end + 1
        if not line or (line[:1].isspace() and not line.strip()):
            continue
        if raw_lines:
            units = _otlp_line(line, f"line {number}", ctx)
            if units is not None:
                yield from units
                continue
        try:
            value = loads(line)
        except RecursionError:
            raise ctx.error("JSON nested too deeply", f"line {number}") from None
        except ValueError:
            # cut off (a writer stopped mid-line), invalid UTF-8, or invalid JSON: the walker tells which
            if isinstance(line, bytes):
                line = decode_text(line, f"{ctx.path}: line {number}", ctx.warnings)
            yield from Walker(line, ctx, first_line=number).units()
            continue
        yield from _units_of(value, f"line {number}", ctx)


_REQUEST_KEY: dict[type, Any] = {bytes: b'"resourceSpans"', str: '"resourceSpans"'}


def _otlp_line(line: Any, where: str, ctx: Context) -> Iterator[Unit] | None:
    """A line holding an OTLP request, split as ``_fast_units`` splits a document: its ResourceSpans
    stay raw, for the OTLP converter's typed decoding. None for any other line (not an object, no
    streamed array, not UTF-8, JSON that msgspec refuses): ``loads`` reads it as before."""
    if _REQUEST_KEY[type(line)] not in line or not _utf8(line):
        return None
    only = _resource_spans_only(line)
    if only is not None:
        return _raw_units({}, [("resourceSpans", only)], where, ctx)
    decode = _msgspec.json.decode
    try:
        top = decode(line, type=dict[str, _msgspec.Raw])
    except (_msgspec.MsgspecError, UnicodeDecodeError, RecursionError):
        return None
    streams: list[tuple[str, list[Any]]] = []
    for key, raw in top.items():
        if key in STREAM_KEYS:
            # not an array: not streamed (as in ``_units_of``)
            with contextlib.suppress(_msgspec.MsgspecError, UnicodeDecodeError, RecursionError):
                streams.append((key, decode(raw, type=list[_msgspec.Raw])))
    if not streams:
        return None
    return _raw_units(top, streams, where, ctx)


def _raw_units(
    top: dict[str, Any], streams: list[tuple[str, list[Any]]], where: str, ctx: Context
) -> Iterator[Unit]:
    for key, items in streams:
        for i, raw in enumerate(items):
            here = f"{where}: {key}[{i}]"
            yield Unit(key, here, _decode_element(key, raw, here, ctx))
    ctx.note_other_signals(top)


def _units_of(value: Any, where: str, ctx: Context) -> Iterator[Unit]:
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
            ctx.note_other_signals(value)
            return
    yield Unit(None, where, value)
