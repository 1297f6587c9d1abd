"""The fast path for OTLP JSON when msgspec is installed: one ResourceSpans decoded straight into
typed structs, then converted, which is about twice as fast as going through dicts.

The structs know every field of the OTLP/JSON (lowerCamelCase) messages and refuse anything else, so
snake_case, older field names or a field added by a newer OTLP make ``decode`` return None, and the
element takes the general path in ``otlp``. Both paths give the same spans (tested).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

import msgspec

from .._model.span import EMPTY_MAPPING, SpanEvent, SpanLink
from .common import CONVERSION_ERRORS, Context, hex_id, make_span, parent_id, parent_is_remote, status_of
from .otlp_values import KINDS, STATUS, UNSET, any_value, enum_value, new_key, optional_str

__all__ = ["ResourceSpans", "convert", "convert_raw", "decode"]

_U: Any = msgspec.UNSET
_ANY_FIELDS = (
    "stringValue",
    "boolValue",
    "intValue",
    "doubleValue",
    "arrayValue",
    "kvlistValue",
    "bytesValue",
)


class _Strict(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    pass


class AnyValue(_Strict):
    stringValue: Any = _U
    boolValue: Any = _U
    intValue: Any = _U
    doubleValue: Any = _U
    arrayValue: Any = _U
    kvlistValue: Any = _U
    bytesValue: Any = _U


class KeyValue(_Strict):
    key: Any = _U
    value: AnyValue | None = None


class Status(_Strict):
    code: Any = None
    message: Any = None


class Event(_Strict):
    timeUnixNano: Any = None
    name: Any = ""
    attributes: list[KeyValue] | None = None
    droppedAttributesCount: Any = None


class Link(_Strict):
    traceId: Any = None
    spanId: Any = None
    traceState: Any = None
    attributes: list[KeyValue] | None = None
    droppedAttributesCount: Any = None
    flags: Any = None


class Span(_Strict):
    traceId: Any = None
    spanId: Any = None
    traceState: Any = None
    parentSpanId: Any = None
    flags: Any = None
    name: Any = None
    kind: Any = None
    startTimeUnixNano: Any = None
    endTimeUnixNano: Any = None
    attributes: list[KeyValue] | None = None
    droppedAttributesCount: Any = None
    events: list[Event] | None = None
    droppedEventsCount: Any = None
    links: list[Link] | None = None
    droppedLinksCount: Any = None
    status: Status | None = None


class Scope(_Strict):
    name: Any = None
    version: Any = None
    attributes: list[KeyValue] | None = None
    droppedAttributesCount: Any = None


class ScopeSpans(_Strict):
    scope: Scope | None = None
    spans: list[Span] | None = None
    schemaUrl: Any = None


class Resource(_Strict):
    attributes: list[KeyValue] | None = None
    droppedAttributesCount: Any = None
    entityRefs: Any = None


class ResourceSpans(_Strict):
    resource: Resource | None = None
    scopeSpans: list[ScopeSpans] | None = None
    schemaUrl: Any = None


class _ScopeSpansOfRaw(_Strict):
    scope: Scope | None = None
    spans: list[msgspec.Raw] | None = None
    schemaUrl: Any = None


class _ResourceSpansOfRaw(_Strict):
    resource: Resource | None = None
    scopeSpans: list[_ScopeSpansOfRaw] | None = None
    schemaUrl: Any = None


_decoder = msgspec.json.Decoder(ResourceSpans)
_outer_decoder = msgspec.json.Decoder(_ResourceSpansOfRaw)
_span_decoder = msgspec.json.Decoder(Span)
_ERRORS = (msgspec.MsgspecError, UnicodeDecodeError, RecursionError)

#: a ResourceSpans element larger than this is decoded a span at a time (see `convert_raw`)
CHUNK_BYTES = 1 << 20


def convert_raw(raw: Any, where: str, ctx: Context) -> bool:
    """Add the spans of one raw ResourceSpans element; False (nothing added) when it is not plain
    lowerCamelCase OTLP/JSON and needs the general path.

    A large element (one document's ``resourceSpans`` often holds every span of the file) is decoded a
    span at a time, each converted before the next is decoded: its typed structs never exist all at
    once, and the peak memory of a big document is what JSON Lines of the same spans take."""
    if len(raw) > CHUNK_BYTES:
        return _convert_in_chunks(raw, where, ctx)
    rs = decode(raw)
    if rs is None:
        return False
    convert(rs, where, ctx)
    return True


def _convert_in_chunks(raw: Any, where: str, ctx: Context) -> bool:
    try:
        outer = _outer_decoder.decode(raw)
    except _ERRORS:
        return False
    kept, order_issues = len(ctx.spans), ctx.order_issues
    res = _resource(outer.resource, where, ctx)
    parents: dict[str, str | None] = {}
    for j, ss in enumerate(outer.scopeSpans or ()):
        batch: list[Span] = []
        first = 0
        for k, span_raw in enumerate(ss.spans or ()):
            try:
                batch.append(_span_decoder.decode(span_raw))
            except _ERRORS:
                del ctx.spans[kept:]  # not plain OTLP/JSON after all: the general path reads all of it
                ctx.order_issues = order_issues
                return False
            if len(batch) == _BATCH:
                _scope_spans(ss.scope, batch, j, first, res, parents, where, ctx)
                batch, first = [], k + 1
        _scope_spans(ss.scope, batch, j, first, res, parents, where, ctx)
    return True


#: spans decoded before they are converted, in a large element
_BATCH = 256


def decode(raw: Any) -> ResourceSpans | None:
    """One ResourceSpans element, or None when it is not plain lowerCamelCase OTLP/JSON."""
    try:
        return _decoder.decode(raw)
    except (msgspec.MsgspecError, UnicodeDecodeError, RecursionError):
        return None


def _attributes(items: list[KeyValue], keys: dict[str, str]) -> Mapping[str, Any]:
    out: dict[str, Any] = {}
    known = keys.get
    for kv in items:
        key = kv.key
        name = known(key)
        if name is None:
            if key is _U:
                raise KeyError("key")  # as the general path says it
            name = new_key(key, keys)
        value = kv.value
        if value is None:
            out[name] = None
            continue
        text = value.stringValue
        if text.__class__ is str:
            out[name] = text
            continue
        number = value.intValue  # the next most common: an int64 written as a string
        if number.__class__ is str and text is _U and value.boolValue is _U:
            out[name] = int(number)
        else:
            out[name] = _value(value, keys)
    return MappingProxyType(out)


def _value(value: AnyValue, keys: dict[str, str]) -> Any:
    """An AnyValue other than a string: the scalars read here, as ``any_value`` reads them (the first
    field set, in ``_ANY_FIELDS`` order, wins); the rest by ``any_value``."""
    if value.stringValue is _U:
        flag = value.boolValue
        if flag.__class__ is bool:
            return flag
        if flag is _U:
            number = value.intValue
            if number.__class__ is str or number.__class__ is int:
                return int(number)
            if number is _U:
                real = value.doubleValue
                if real.__class__ is float or real.__class__ is int:
                    return float(real)
                if real is _U and value.arrayValue is not _U:
                    return _array(value.arrayValue, keys)
    fields = {f: v for f in _ANY_FIELDS if (v := getattr(value, f)) is not _U}
    return any_value(fields, 0, keys)


def _array(array: Any, keys: dict[str, str]) -> Any:
    """An arrayValue (a dict): an array of strings read here, any other by ``any_value``."""
    if array.__class__ is dict and len(array) == 1:
        values = array.get("values")
        if values.__class__ is list:
            out = []
            for item in values:
                if item.__class__ is dict and len(item) == 1:
                    text = item.get("stringValue")
                    if text.__class__ is str:
                        out.append(text)
                        continue
                break
            else:
                return tuple(out)
    return any_value({"arrayValue": array}, 0, keys)


def convert(rs: ResourceSpans, where: str, ctx: Context) -> None:
    """Add the spans of one decoded ResourceSpans."""
    res = _resource(rs.resource, where, ctx)
    parents: dict[str, str | None] = {}  # raw parent id -> as hex: siblings name the same parent
    for j, ss in enumerate(rs.scopeSpans or ()):
        _scope_spans(ss.scope, ss.spans or (), j, 0, res, parents, where, ctx)


def _resource(resource: Resource | None, where: str, ctx: Context) -> Mapping[str, Any]:
    try:
        return (
            _attributes(resource.attributes, ctx.keys)
            if resource is not None and resource.attributes
            else EMPTY_MAPPING
        )
    except CONVERSION_ERRORS as exc:
        raise ctx.bad_record(f"{where}.resource", exc) from None


def _scope_spans(
    scope: Scope | None,
    spans: Iterable[Span],
    j: int,
    first: int,
    res: Mapping[str, Any],
    parents: dict[str, str | None],
    where: str,
    ctx: Context,
) -> None:
    """Add ``spans`` of scope ``j`` (the first of them is span ``first`` of that scope)."""
    try:
        scope_name = optional_str(scope.name) if scope is not None else None
        scope_version = optional_str(scope.version) if scope is not None else None
    except CONVERSION_ERRORS as exc:
        raise ctx.bad_record(f"{where}.scopeSpans[{j}].scope", exc) from None
    keys = ctx.keys
    for k, sp in enumerate(spans, first):
        try:
            _span(sp, res, scope_name, scope_version, ctx, keys, parents)
        except CONVERSION_ERRORS as exc:
            raise ctx.bad_record(f"{where}.scopeSpans[{j}].spans[{k}]", exc) from None


def _span(
    sp: Span,
    res: Mapping[str, Any],
    scope_name: str | None,
    scope_version: str | None,
    ctx: Context,
    keys: dict[str, str],
    parents: dict[str, str | None],
) -> None:
    start = sp.startTimeUnixNano
    end = sp.endTimeUnixNano
    start_ns = int(start) if start else 0
    end_ns = int(end) if end else None
    if end_ns is not None and end_ns < start_ns:
        ctx.order_issues += 1
    raw_trace = sp.traceId
    if raw_trace is None:
        raise KeyError("traceId")
    if sp.spanId is None:
        raise KeyError("spanId")
    trace_ids = ctx.trace_ids
    trace_id = trace_ids.get(raw_trace)
    if trace_id is None:
        trace_id = trace_ids[raw_trace] = hex_id(raw_trace, 16)
    kind = sp.kind
    status = sp.status
    attrs = sp.attributes
    events = sp.events
    links = sp.links
    parent = sp.parentSpanId
    if sp.name is None:
        raise KeyError("name")
    span_id = hex_id(sp.spanId, 8)
    if sp.flags and parent and parent_is_remote(sp.flags):
        ctx.remote_parents.add((trace_id, span_id))
    if not parent:
        pid = None
    elif parent.__class__ is str:
        pid = parents.get(parent, _U)
        if pid is _U:
            pid = parents[parent] = parent_id(parent)
    else:
        pid = parent_id(parent)  # not a string: the error it gives
    ctx.spans.append(
        make_span(
            trace_id,
            span_id,
            pid,
            sp.name,
            KINDS[kind] if kind.__class__ is int and 0 < kind < 6 else enum_value(KINDS, kind, "span kind"),
            start_ns,
            end_ns,
            UNSET
            if status is None or (status.code is None and status.message is None)
            else status_of(enum_value(STATUS, status.code, "status code"), status.message),
            _attributes(attrs, keys) if attrs else EMPTY_MAPPING,
            tuple([_event(e, keys) for e in events]) if events else (),
            res,
            scope_name,
            scope_version,
            tuple([_link(lk, keys) for lk in links]) if links else (),
        )
    )


def _event(ev: Event, keys: dict[str, str]) -> SpanEvent:
    name = ev.name
    if name.__class__ is not str:
        raise TypeError("event name must be a string")
    ts = ev.timeUnixNano
    return SpanEvent(
        name,
        int(ts) if ts is not None else None,
        _attributes(ev.attributes, keys) if ev.attributes else EMPTY_MAPPING,
    )


def _link(lk: Link, keys: dict[str, str]) -> SpanLink:
    return SpanLink(
        hex_id(lk.traceId, 16),
        hex_id(lk.spanId, 8),
        _attributes(lk.attributes, keys) if lk.attributes else EMPTY_MAPPING,
    )
