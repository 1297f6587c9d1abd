"""OpenTelemetry JS SDK spans serialised as they are held in memory: ``JSON.stringify`` of a
``ReadableSpan`` (what a test harness writes from ``InMemorySpanExporter.getFinishedSpans()``).

A span is ``{"name", "kind", "spanContext": {"traceId", "spanId"}, "parentSpanContext": {...}}`` (SDK
2.x) or ``"parentSpanId": "..."`` (1.x); the private field names of the span class (``_spanContext``)
are read too. Times are ``HrTime`` pairs ``[seconds, nanoseconds]`` (or milliseconds as a number);
``kind`` is the JS ``SpanKind`` number (INTERNAL 0, SERVER 1, CLIENT 2, PRODUCER 3, CONSUMER 4, the
same numbers as the Python SDK's); ``status`` is ``{"code": 0|1|2, "message"}`` (UNSET, OK, ERROR).
Events carry ``time``; links ``context``; the resource its ``attributes`` (or ``_rawAttributes``);
the scope ``instrumentationScope`` (2.x) or ``instrumentationLibrary`` (1.x).
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from .common import (
    Context,
    event,
    freeze_attributes_json,
    make_span,
    named_id,
    whole_span_record,
)
from .sdk import kind_of, links_from_json, resource_from_json, scope_from_json, status_from_json

__all__ = ["NAME", "convert", "is_record"]

NAME = "otel-js"

_CONTEXT_KEYS = ("spanContext", "_spanContext")
_PARENT_KEYS = ("parentSpanContext", "_parentSpanContext")
_SCOPE_KEYS = ("instrumentationScope", "instrumentationLibrary")
_NS_PER_S = 1_000_000_000


def _context(value: dict[str, Any]) -> Any:
    for key in _CONTEXT_KEYS:
        context = value.get(key)
        if context is not None:
            return context
    return None


def is_record(value: Any) -> bool:
    """A span object with ``name`` and a ``spanContext`` holding a string ``spanId``."""
    if value.__class__ is not dict or "name" not in value:
        return False
    context = _context(value)
    return context.__class__ is dict and context.get("spanId").__class__ is str


def hr_time_ns(value: Any) -> int | None:
    """An ``HrTime`` ``[seconds, nanoseconds]``, or epoch milliseconds as a number, in nanoseconds."""
    if value is None:
        return None
    if value.__class__ is list:
        if len(value) != 2 or any(part.__class__ is not int or part < 0 for part in value):
            raise ValueError(f"not an HrTime [seconds, nanoseconds]: {value!r}")
        seconds: int = value[0]
        nanos: int = value[1]
        if nanos >= _NS_PER_S:
            raise ValueError(f"not an HrTime: {nanos} nanoseconds is a second or more")
        return seconds * _NS_PER_S + nanos
    if value.__class__ is int and value >= 0:
        millis: int = value
        return millis * 1_000_000
    if value.__class__ is float and 0 <= value < float("inf"):
        return int(Decimal(repr(value)) * 1_000_000)  # exact: the milliseconds as written
    raise ValueError(f"not a time: {value!r}")


def _parent(value: dict[str, Any], ctx: Context) -> str | None:
    for key in _PARENT_KEYS:
        parent = value.get(key)
        if parent is not None:
            if parent.__class__ is not dict:
                raise TypeError(f"{key} must be an object")
            span_id = parent.get("spanId")
            return None if not span_id else named_id(span_id, 8, ctx)
    span_id = value.get("parentSpanId")
    return None if not span_id else named_id(span_id, 8, ctx)


def _resource(value: Any, keys: dict[str, str]) -> Any:
    if value.__class__ is dict and "attributes" not in value and "_rawAttributes" in value:
        raw = value["_rawAttributes"]
        # 1.x keeps [key, value] pairs (values may be promises, written as {}): the plain ones are kept
        if raw.__class__ is list:
            value = {"attributes": {k: v for k, v in raw if v.__class__ is not dict}}
        else:
            value = {"attributes": raw}
    return resource_from_json(value, keys)


def _events(items: Any, keys: dict[str, str]) -> tuple[Any, ...]:
    if not items:
        return ()
    if items.__class__ is not list:
        raise TypeError("events must be an array")
    return tuple(
        event(
            ev["name"],
            hr_time_ns(ev.get("time")),
            freeze_attributes_json(ev.get("attributes"), keys),
        )
        for ev in items
    )


def _js_ids(ctx: Context) -> Callable[[Any], tuple[str, str]]:
    """Reads a link's ``context`` (``traceId``, ``spanId``)."""
    return lambda context: (named_id(context["traceId"], 16, ctx), named_id(context["spanId"], 8, ctx))


def convert(key: str | None, where: str, value: Any, ctx: Context) -> None:
    """Add one serialised JS ``ReadableSpan``."""
    if not whole_span_record(value, ctx):
        return
    keys = ctx.keys
    context = _context(value)
    scope_name, scope_version = scope_from_json(value, _SCOPE_KEYS)
    start = hr_time_ns(value.get("startTime"))
    ctx.add(
        make_span(
            named_id(context["traceId"], 16, ctx),
            named_id(context["spanId"], 8, ctx),
            _parent(value, ctx),
            value["name"],
            kind_of(value.get("kind")),
            start if start is not None else 0,
            hr_time_ns(value.get("endTime")),
            status_from_json(value.get("status")),
            freeze_attributes_json(value.get("attributes"), keys),
            _events(value.get("events"), keys),
            _resource(value.get("resource"), keys),
            scope_name,
            scope_version,
            links_from_json(value.get("links"), keys, _js_ids(ctx)),
        )
    )
