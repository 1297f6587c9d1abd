"""Jaeger JSON: what Jaeger's query API and its UI's "Download JSON" give.

``{"data": [{"traceID", "spans": [...], "processes": {...}}]}``. A span has ``traceID``, ``spanID``,
``operationName``, ``references`` (the parent is the first ``CHILD_OF`` reference; the other references
become links), ``startTime`` and ``duration`` in microseconds, ``tags`` and ``logs`` (``[{"timestamp",
"fields"}]``, which become events named by their ``event`` field) and ``processID`` (its process's
``serviceName`` and tags become the resource). The tags OpenTelemetry adds when it translates to Jaeger
are mapped back and removed: ``span.kind``, ``otel.status_code``/``otel.status_description`` (or
``error``), ``otel.scope.name``/``otel.scope.version`` (``otel.library.*`` before them).
"""

from __future__ import annotations

import base64
import types
from collections.abc import Mapping
from typing import Any

from .._model.span import EMPTY_MAPPING
from .common import TRUNCATED, Context, event, freeze_json, link, make_span, named_id, status_of

__all__ = ["NAME", "convert", "is_record"]

NAME = "jaeger"

_KINDS = {
    "internal": "INTERNAL",
    "server": "SERVER",
    "client": "CLIENT",
    "producer": "PRODUCER",
    "consumer": "CONSUMER",
}
_MAPPED = frozenset(
    {
        "span.kind",
        "otel.status_code",
        "otel.status_description",
        "otel.scope.name",
        "otel.scope.version",
        "otel.library.name",
        "otel.library.version",
        "internal.span.format",
    }
)


def is_record(value: Any) -> bool:
    """A Jaeger trace: ``spans`` whose items have ``spanID``, with ``traceID`` or ``processes``."""
    if value.__class__ is not dict:
        return False
    spans = value.get("spans")
    if spans.__class__ is not list or not ("traceID" in value or "processes" in value):
        return False
    return not spans or (spans[0].__class__ is dict and "spanID" in spans[0])


def _tags(items: Any, keys: dict[str, str]) -> dict[str, Any]:
    if not items:
        return {}
    if items.__class__ is not list:
        raise TypeError("tags must be an array")
    out: dict[str, Any] = {}
    for tag in items:
        key = tag["key"]
        if key.__class__ is not str:
            raise TypeError("tag key must be a string")
        value = tag.get("value")
        kind = tag.get("type")
        if kind.__class__ is str:
            kind = kind.lower()
            if kind == "int64" and value.__class__ is str:
                value = int(value)
            elif kind == "float64" and value.__class__ is not float:
                value = float(value)
            elif kind == "binary" and value.__class__ is str:
                value = base64.b64decode(value)
        if value.__class__ is list or value.__class__ is dict:
            value = freeze_json(value, 1)
        out[keys.setdefault(key, key)] = value
    return out


def _processes(value: Any, keys: dict[str, str]) -> dict[str, Mapping[str, Any]]:
    if not value:
        return {}
    if value.__class__ is not dict:
        raise TypeError("processes must be an object")
    out: dict[str, Mapping[str, Any]] = {}
    for pid, process in value.items():
        if (process.__class__ is dict and TRUNCATED in process) or pid == TRUNCATED:
            continue  # cut off by the end of the file
        attrs = {"service.name": process["serviceName"]} if process.get("serviceName") is not None else {}
        attrs.update(_tags(process.get("tags"), keys))
        out[pid] = types.MappingProxyType(attrs)
    return out


def convert(key: str | None, where: str, value: Any, ctx: Context) -> None:
    """Add the spans of one Jaeger trace."""
    if value.__class__ is not dict:
        raise TypeError(f"expected a Jaeger trace object, got {type(value).__name__}")
    keys = ctx.keys
    processes = _processes(value.get("processes"), keys)
    spans = value.get("spans") or []
    if spans.__class__ is not list:
        raise TypeError("spans must be an array")
    for index, span in enumerate(spans):
        try:
            _span(span, processes, ctx)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ctx.bad_record(f"{where}.spans[{index}]", exc) from None


def _span(span: Any, processes: dict[str, Mapping[str, Any]], ctx: Context) -> None:
    if TRUNCATED in span:
        ctx.dropped += 1
        return
    keys = ctx.keys
    trace_id = named_id(span["traceID"], 16, ctx, pad=True)
    parent: str | None = None
    links = []
    for ref in span.get("references") or ():
        ref_trace = named_id(ref.get("traceID", span["traceID"]), 16, ctx, pad=True)
        ref_span = named_id(ref["spanID"], 8, ctx, pad=True)
        if parent is None and ref.get("refType", "CHILD_OF") == "CHILD_OF" and ref_trace == trace_id:
            parent = ref_span
        else:
            links.append(link(ref_trace, ref_span, EMPTY_MAPPING))
    if parent is None and span.get("parentSpanID"):
        parent = named_id(span["parentSpanID"], 8, ctx, pad=True)
    tags = _tags(span.get("tags"), keys)
    kind = _KINDS.get(str(tags.get("span.kind", "internal")).lower(), "INTERNAL")
    code = str(tags.get("otel.status_code", "")).upper()
    description = tags.get("otel.status_description")
    flagged = tags.get("error") in (True, "true")
    if code not in ("OK", "ERROR"):
        code = "ERROR" if flagged else "UNSET"
    if code == "ERROR" and flagged:
        del tags["error"]  # the translation's own marker, not an attribute of the span
    scope_name = tags.get("otel.scope.name", tags.get("otel.library.name"))
    scope_version = tags.get("otel.scope.version", tags.get("otel.library.version"))
    attributes = {k: v for k, v in tags.items() if k not in _MAPPED}
    start_us = int(span.get("startTime") or 0)
    duration = span.get("duration")
    events = []
    for log in span.get("logs") or ():
        fields = _tags(log.get("fields"), keys)
        name = fields.pop("event", "log")
        ts = log.get("timestamp")
        events.append(
            event(str(name), int(ts) * 1000 if ts is not None else None, types.MappingProxyType(fields))
        )
    ctx.add(
        make_span(
            trace_id,
            named_id(span["spanID"], 8, ctx, pad=True),
            None if parent == "0000000000000000" else parent,
            span["operationName"],
            kind,
            start_us * 1000,
            (start_us + int(duration)) * 1000 if duration is not None else None,
            status_of(
                code, description if description is None or description.__class__ is str else str(description)
            ),
            types.MappingProxyType(attributes) if attributes else EMPTY_MAPPING,
            tuple(events),
            processes.get(span.get("processID"), EMPTY_MAPPING) if span.get("processID") else EMPTY_MAPPING,
            scope_name if scope_name is None or scope_name.__class__ is str else str(scope_name),
            scope_version if scope_version is None or scope_version.__class__ is str else str(scope_version),
            tuple(links),
        )
    )
