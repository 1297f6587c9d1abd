"""OTLP JSON: ExportTraceServiceRequest / TracesData, as the OTLP/JSON spec, protobuf's generic JSON
writer, the Collector's file exporter, Tempo and older SDKs write it.

Accepted: lowerCamelCase and snake_case field names; ids in hex and in base64; enums as integers,
integer strings or names (``SPAN_KIND_CLIENT``, ``STATUS_CODE_ERROR``); int64 as strings or numbers;
doubles as numbers or ``"NaN"``/``"Infinity"``; the ``{"batches": [...]}`` envelope (Tempo) and
``instrumentationLibrarySpans``/``instrumentationLibrary`` (before OTLP 0.15).

AnyValue mapping: string, bool, int, double as themselves; ``arrayValue`` a tuple; ``kvlistValue`` a
read-only mapping; ``bytesValue`` the decoded ``bytes``; an empty AnyValue None.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._model.span import EMPTY_MAPPING, SpanEvent, SpanLink, Status
from .common import (
    CONVERSION_ERRORS,
    TRUNCATED,
    Context,
    hex_id,
    make_span,
    parent_id,
    parent_is_remote,
    status_of,
)
from .otlp_values import KINDS, STATUS, UNSET, attributes, enum_value, optional_str
from .rawjson import decode_raw, is_raw

__all__ = ["NAME", "RESOURCE_SPANS_KEYS", "convert", "is_record"]

NAME = "otlp"

#: Where a request keeps its ResourceSpans.
RESOURCE_SPANS_KEYS = ("resourceSpans", "resource_spans", "batches")
_SCOPE_SPANS_KEYS = (
    "scopeSpans",
    "scope_spans",
    "instrumentationLibrarySpans",
    "instrumentation_library_spans",
)
_SCOPE_KEYS = ("scope", "instrumentationLibrary", "instrumentation_library")
#: a request or a ResourceSpans has one of these
_RECORD_KEYS = frozenset(RESOURCE_SPANS_KEYS + _SCOPE_SPANS_KEYS)

# snake_case span fields to the lowerCamelCase ones the converter reads
_SNAKE = {
    "trace_id": "traceId",
    "span_id": "spanId",
    "parent_span_id": "parentSpanId",
    "start_time_unix_nano": "startTimeUnixNano",
    "end_time_unix_nano": "endTimeUnixNano",
    "time_unix_nano": "timeUnixNano",
}


def is_record(value: Any) -> bool:
    """A request (TracesData) or a single ResourceSpans."""
    if value.__class__ is not dict:
        return False
    return not value.keys().isdisjoint(_RECORD_KEYS)


def convert(key: str | None, where: str, value: Any, ctx: Context) -> None:
    """Add the spans of a request, or of one ResourceSpans when ``key`` names the array it came from."""
    if key in RESOURCE_SPANS_KEYS:
        if value.__class__ is not dict and is_raw(value):
            # a raw element (msgspec): typed decoding when it is plain OTLP/JSON, else the general path
            from . import otlp_typed

            if otlp_typed.convert_raw(value, where, ctx):
                return
            value = decode_raw(value, where, ctx)
        _resource_spans(value, where, ctx)
        return
    if value.__class__ is not dict:
        raise ctx.bad_record(where, TypeError("expected an OTLP request object"))
    found = False
    for rs_key in RESOURCE_SPANS_KEYS:
        items = value.get(rs_key)
        if items is None:
            continue
        found = True
        if items.__class__ is not list:
            raise ctx.bad_record(f"{where}: {rs_key}", TypeError("expected an array"))
        for i, rs in enumerate(items):
            _resource_spans(rs, f"{where}: {rs_key}[{i}]", ctx)
    if not found and any(k in value for k in _SCOPE_SPANS_KEYS):
        _resource_spans(value, where, ctx)


def _resource_spans(rs: Any, where: str, ctx: Context) -> None:
    try:
        resource = rs.get("resource")
        resource_attrs = attributes(resource.get("attributes"), ctx.keys) if resource else EMPTY_MAPPING
    except CONVERSION_ERRORS as exc:
        raise ctx.bad_record(f"{where}.resource", exc) from None
    for ss_key in _SCOPE_SPANS_KEYS:
        scope_spans = rs.get(ss_key)
        if scope_spans is None:
            continue
        if scope_spans.__class__ is not list:
            raise ctx.bad_record(f"{where}.{ss_key}", TypeError("expected an array"))
        for j, ss in enumerate(scope_spans):
            here = f"{where}.{ss_key}[{j}]"
            try:
                scope = None
                for scope_key in _SCOPE_KEYS:
                    scope = ss.get(scope_key)
                    if scope is not None:
                        break
                scope_name = scope_version = None
                if scope:
                    scope_name = optional_str(scope.get("name"))
                    scope_version = optional_str(scope.get("version"))
                spans = ss.get("spans") or ()
                if spans.__class__ is not list and spans != ():
                    raise TypeError("spans must be an array")
            except CONVERSION_ERRORS as exc:
                raise ctx.bad_record(here, exc) from None
            for k, span in enumerate(spans):
                try:
                    _span(span, resource_attrs, scope_name, scope_version, ctx)
                except CONVERSION_ERRORS as exc:
                    raise ctx.bad_record(f"{here}.spans[{k}]", exc) from None


def _span(
    sp: Any,
    resource: Mapping[str, Any],
    scope_name: str | None,
    scope_version: str | None,
    ctx: Context,
) -> None:
    if TRUNCATED in sp:
        ctx.dropped += 1
        return
    if "traceId" not in sp and "trace_id" in sp:
        sp = {_SNAKE.get(k, k): v for k, v in sp.items()}
    get = sp.get
    keys = ctx.keys
    attrs = get("attributes")
    events = get("events")
    links = get("links")
    status = get("status")
    kind = get("kind")
    start = get("startTimeUnixNano")
    end = get("endTimeUnixNano")
    start_ns = int(start) if start else 0
    end_ns = int(end) if end else None
    if end_ns is not None and end_ns < start_ns:
        ctx.order_issues += 1
    raw_trace = sp["traceId"]
    trace_ids = ctx.trace_ids  # the same trace id comes on every span of a trace: convert it once
    trace_id = trace_ids.get(raw_trace)
    if trace_id is None:
        trace_id = trace_ids[raw_trace] = hex_id(raw_trace, 16)
    parent = get("parentSpanId")
    span_id = hex_id(sp["spanId"], 8)
    flags = get("flags")
    if flags and parent and parent_is_remote(flags):
        ctx.remote_parents.add((trace_id, span_id))
    ctx.spans.append(
        make_span(
            trace_id,
            span_id,
            parent_id(parent) if parent else None,
            sp["name"],
            KINDS[kind] if kind.__class__ is int and 0 < kind < 6 else enum_value(KINDS, kind, "span kind"),
            start_ns,
            end_ns,
            _status(status) if status else UNSET,
            attributes(attrs, keys) if attrs else EMPTY_MAPPING,
            tuple([_event(e, keys) for e in events]) if events else (),
            resource,
            scope_name,
            scope_version,
            tuple([_link(lk, keys) for lk in links]) if links else (),
        )
    )


def _status(status: Any) -> Status:
    code = status.get("code")
    return status_of(enum_value(STATUS, code, "status code"), status.get("message"))


def _event(ev: Any, keys: dict[str, str]) -> SpanEvent:
    ts = ev.get("timeUnixNano")
    if ts is None:
        ts = ev.get("time_unix_nano")
    name = ev.get("name", "")
    if name.__class__ is not str:
        raise TypeError("event name must be a string")
    attrs = ev.get("attributes")
    return SpanEvent(
        name, int(ts) if ts is not None else None, attributes(attrs, keys) if attrs else EMPTY_MAPPING
    )


def _link(lk: Any, keys: dict[str, str]) -> SpanLink:
    trace_id = lk.get("traceId")
    if trace_id is None:
        trace_id = lk.get("trace_id")
    span_id = lk.get("spanId")
    if span_id is None:
        span_id = lk.get("span_id")
    attrs = lk.get("attributes")
    return SpanLink(
        hex_id(trace_id, 16), hex_id(span_id, 8), attributes(attrs, keys) if attrs else EMPTY_MAPPING
    )
