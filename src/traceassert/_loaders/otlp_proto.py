"""OTLP protobuf: the bodies of OTLP/HTTP (``application/x-protobuf``) and OTLP/gRPC requests, decoded with
the messages of ``opentelemetry-proto`` (an optional extra: ``pip install 'traceassert[receiver]'``).

It gives the spans and log records the OTLP JSON converter gives for the same request written as JSON
(tested): hex ids, kind and status names, AnyValues as ``otlp_values`` maps them (``bytesValue`` the
``bytes``, arrays tuples, kvlists read-only mappings, an empty AnyValue None), a zero end time or event
time as not recorded. What is wrong is a ``TraceLoadError`` naming its place, as the JSON converter
words it: bytes that are not a message (``invalid OTLP protobuf``), and per span (`check_span`) an id
of the wrong length or all zeros, an unknown kind or status code.

A request is split in two steps so that a receiver can take spans quickly and build them later:
`grouped` checks each span and groups the good ones by trace id (with the resource and scope they came
under), and `build_spans` makes the ``Span`` objects.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from .._errors import TraceLoadError
from .._model.logs import LogRecord
from .._model.span import EMPTY_MAPPING, Span, SpanEvent, SpanLink
from .common import MAX_VALUE_DEPTH, Context, make_span, status_of

__all__ = [
    "Origin",
    "available",
    "build_spans",
    "check_span",
    "grouped",
    "log_records",
    "parent_is_remote",
    "parse_logs",
    "parse_traces",
    "spans_of",
]

_KINDS = ("INTERNAL", "INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER")
_CODES = ("UNSET", "OK", "ERROR")
#: ``Span.flags``: the parent's ``is_remote`` is known (bit 8) and true (bit 9)
_HAS_IS_REMOTE, _IS_REMOTE = 0x100, 0x200
_ZERO16, _ZERO8 = bytes(16), bytes(8)
_MISSING = (
    "opentelemetry-proto is not installed: OTLP protobuf needs it (pip install 'traceassert[receiver]')"
)


def available() -> bool:
    """Whether ``opentelemetry-proto`` (and protobuf) can be imported."""
    try:
        _messages()
    except TraceLoadError:
        return False
    return True


def _messages() -> tuple[Any, Any]:
    if _CLASSES:
        return _CLASSES[0]
    try:
        from opentelemetry.proto.collector.logs.v1 import logs_service_pb2
        from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
    except ImportError:
        raise TraceLoadError(_MISSING) from None
    found = (trace_service_pb2.ExportTraceServiceRequest, logs_service_pb2.ExportLogsServiceRequest)
    _CLASSES.append(found)  # an import statement on each request cost more than parsing a small one
    return found


_CLASSES: list[tuple[Any, Any]] = []


def _parse(data: bytes, message: Any, where: str) -> Any:
    request = message()
    try:
        request.ParseFromString(data)
    except Exception as exc:  # DecodeError, and RecursionError past the parser's nesting limit
        reason = str(exc) or type(exc).__name__
        raise TraceLoadError(f"invalid OTLP protobuf: {reason}", path=where) from None
    return request


def parse_traces(data: bytes, where: str = "<request>") -> Any:
    """An ``ExportTraceServiceRequest`` (TracesData has the same fields) read from ``data``."""
    return _parse(data, _messages()[0], where)


def parse_logs(data: bytes, where: str = "<request>") -> Any:
    """An ``ExportLogsServiceRequest`` (LogsData has the same fields) read from ``data``."""
    return _parse(data, _messages()[1], where)


@dataclass(frozen=True, slots=True, eq=False)
class Origin:
    """What the spans of one ScopeSpans share: the resource (made into attributes on first use) and
    the scope."""

    resource: Any
    scope_name: str | None
    scope_version: str | None
    _made: list[Mapping[str, Any]]

    def attributes(self, keys: dict[str, str]) -> Mapping[str, Any]:
        if not self._made:
            items = self.resource.attributes
            self._made.append(_attributes(items, keys, 0) if items else EMPTY_MAPPING)
        return self._made[0]


def check_span(sp: Any) -> str | None:
    """What makes one protobuf span unusable (the loaders' words), or None."""
    trace_id, span_id, parent = sp.trace_id, sp.span_id, sp.parent_span_id
    if len(trace_id) != 16 or trace_id == _ZERO16:
        return _bad_id("trace", trace_id, 16)
    if len(span_id) != 8 or span_id == _ZERO8:
        return _bad_id("span", span_id, 8)
    if parent and len(parent) != 8:
        return _bad_id("parent span", parent, 8)
    if not 0 <= sp.kind <= 5:
        return f"unknown span kind {sp.kind!r}"
    if not 0 <= sp.status.code <= 2:
        return f"unknown status code {sp.status.code!r}"
    return None


def _bad_id(what: str, value: bytes, size: int) -> str:
    if len(value) == size:
        return f"{what} id is all zeros"
    return f"{what} id of {len(value)} bytes (expected {size})"


def parent_is_remote(sp: Any) -> bool | None:
    """Whether the span's parent lives in another process, as its flags say (None: they do not say)."""
    flags = sp.flags
    if not flags & _HAS_IS_REMOTE:
        return None
    return bool(flags & _IS_REMOTE)


def grouped(
    request: Any, where: str
) -> tuple[dict[bytes, list[tuple[Origin, Any]]], int, TraceLoadError | None]:
    """The good spans of a request by trace id (raw bytes), each with its origin; how many spans were
    refused, and the error of the first of them."""
    groups: dict[bytes, list[tuple[Origin, Any]]] = {}
    refused = 0
    first: TraceLoadError | None = None
    for i, rs in enumerate(request.resource_spans):
        resource = rs.resource
        for j, ss in enumerate(rs.scope_spans):
            scope = ss.scope
            origin = Origin(resource, scope.name or None, scope.version or None, [])
            for k, sp in enumerate(ss.spans):
                problem = check_span(sp)
                if problem is not None:
                    refused += 1
                    if first is None:
                        position = f"resourceSpans[{i}].scopeSpans[{j}].spans[{k}]"
                        first = TraceLoadError(f"invalid record: {problem}", path=where, position=position)
                    continue
                found = groups.get(sp.trace_id)
                if found is None:
                    groups[sp.trace_id] = [(origin, sp)]
                else:
                    found.append((origin, sp))
    return groups, refused, first


def build_spans(items: Iterable[tuple[Origin, Any]], keys: dict[str, str]) -> list[Span]:
    """The spans of checked protobuf spans (`grouped`); ``keys`` shares attribute keys between calls."""
    out: list[Span] = []
    trace_ids: dict[bytes, str] = {}
    for origin, sp in items:
        raw = sp.trace_id
        trace_id = trace_ids.get(raw)
        if trace_id is None:
            trace_id = trace_ids[raw] = raw.hex()
        parent = sp.parent_span_id
        status = sp.status
        end = sp.end_time_unix_nano
        out.append(
            make_span(
                trace_id,
                sp.span_id.hex(),
                parent.hex() if parent and parent != _ZERO8 else None,
                sp.name,
                _KINDS[sp.kind],
                sp.start_time_unix_nano,
                end or None,
                status_of(_CODES[status.code], status.message or None),
                _attributes(sp.attributes, keys, 0) if sp.attributes else EMPTY_MAPPING,
                tuple([_event(e, keys) for e in sp.events]) if sp.events else (),
                origin.attributes(keys),
                origin.scope_name,
                origin.scope_version,
                tuple([_link(lk, keys) for lk in sp.links]) if sp.links else (),
            )
        )
    return out


def spans_of(request: Any, ctx: Context) -> None:
    """Add every span of a request to ``ctx`` (a bad span is a ``TraceLoadError``, as in a file)."""
    groups, _refused, first = grouped(request, ctx.path)
    if first is not None:
        raise first
    for items in groups.values():
        for span in build_spans(items, ctx.keys):
            ctx.add(span)


def _event(ev: Any, keys: dict[str, str]) -> SpanEvent:
    attrs = ev.attributes
    return SpanEvent(
        ev.name, ev.time_unix_nano or None, _attributes(attrs, keys, 0) if attrs else EMPTY_MAPPING
    )


def _link(lk: Any, keys: dict[str, str]) -> SpanLink:
    attrs = lk.attributes
    return SpanLink(
        lk.trace_id.hex(), lk.span_id.hex(), _attributes(attrs, keys, 0) if attrs else EMPTY_MAPPING
    )


def _attributes(items: Any, keys: dict[str, str], depth: int) -> Mapping[str, Any]:
    out: dict[str, Any] = {}
    for kv in items:
        key = kv.key
        name = keys.get(key)
        if name is None:
            name = keys[key] = key
        out[name] = _value(kv.value, keys, depth)
    return MappingProxyType(out)


def _value(value: Any, keys: dict[str, str], depth: int) -> Any:
    which = value.WhichOneof("value")
    if which == "string_value":
        return value.string_value
    if which is None:
        return None
    if which == "int_value":
        return value.int_value
    if which == "bool_value":
        return value.bool_value
    if which == "double_value":
        return value.double_value
    if which == "bytes_value":
        return bytes(value.bytes_value)
    if depth >= MAX_VALUE_DEPTH:
        raise ValueError(f"attribute value nested deeper than {MAX_VALUE_DEPTH} levels")
    if which == "array_value":
        return tuple([_value(v, keys, depth + 1) for v in value.array_value.values])
    return _attributes(value.kvlist_value.values, keys, depth + 1)


def log_records(request: Any, where: str) -> tuple[list[LogRecord], int, TraceLoadError | None]:
    """The log records of an ``ExportLogsServiceRequest``; how many were refused (an id of the wrong
    length), and the error of the first of them."""
    out: list[LogRecord] = []
    keys: dict[str, str] = {}
    refused = 0
    first: TraceLoadError | None = None
    for i, rl in enumerate(request.resource_logs):
        for j, sl in enumerate(rl.scope_logs):
            for k, lr in enumerate(sl.log_records):
                trace_id, span_id = lr.trace_id, lr.span_id
                problem = None
                if trace_id and len(trace_id) != 16:
                    problem = _bad_id("trace", trace_id, 16)
                elif span_id and len(span_id) != 8:
                    problem = _bad_id("span", span_id, 8)
                if problem is not None:
                    refused += 1
                    if first is None:
                        position = f"resourceLogs[{i}].scopeLogs[{j}].logRecords[{k}]"
                        first = TraceLoadError(f"invalid record: {problem}", path=where, position=position)
                    continue
                body = _value(lr.body, keys, 0) if lr.HasField("body") else None
                out.append(
                    LogRecord(
                        trace_id=trace_id.hex() if trace_id and trace_id != _ZERO16 else None,
                        span_id=span_id.hex() if span_id and span_id != _ZERO8 else None,
                        event_name=lr.event_name or None,
                        timestamp_ns=lr.time_unix_nano or None,
                        observed_ns=lr.observed_time_unix_nano or None,
                        attributes=_attributes(lr.attributes, keys, 0) if lr.attributes else EMPTY_MAPPING,
                        body=body,
                        severity_text=lr.severity_text or None,
                    )
                )
    return out, refused, first
