"""The Okahu form of Monocle spans: what Okahu's trace API returns.

A span has ``span_name``, top-level ``trace_id``/``span_id``/``parent_id`` (hex, ``0x`` optional),
ISO ``start_time``/``end_time``, ``status`` ``{"code": "ok", "message": null}`` and attributes whose
Monocle entities are a list: ``"entity": [{"name": ..., "type": ...}, ...]``. The list is flattened back
into the attributes Monocle recorded (``entity.1.name``, ``entity.1.type``, ..., ``entity.count``), so a
span reads the same from Okahu as from the Monocle file. Spans come as an array, or inside an envelope
such as ``{"trace_id": ..., "spans": [...]}``; kind, resource and scope are not part of this form.

The same reader takes the other flat span dicts people save: strands-agents' evals fixtures and
AWS ADOT/CloudWatch session exports (``{"session_id", "span_count", "spans": [...]}``), with
``parent_span_id``, integer nanosecond times, a ``scope`` object and ``span_events`` (``event_name``),
and the lowerCamelCase form (``traceId``, ``spanId``, ``parentSpanId``, ``startTimeUnixNano``).
Ids that are names, not hex (hand-written fixtures: ``"live-trace-1"``), each stand for one id
(`named_id`, said in a warning). A CloudWatch export of ADOT's *log* records writes each as a
zero-length "span" whose span events carry a ``body``: those are not spans, and are left out like the
OTLP logs of other files (a file of nothing else is an error that says so).
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from typing import Any

from .._model.span import EMPTY_MAPPING
from .common import (
    Context,
    event,
    freeze_attributes_json,
    iso_to_ns,
    make_span,
    named_id,
    parent_id,
    whole_span_record,
)
from .sdk import kind_of, status_from_json

__all__ = ["NAME", "convert", "is_record"]

NAME = "okahu"


def is_record(value: Any) -> bool:
    """A span with ``span_name``, or with top-level ``trace_id`` and ``span_id`` (or ``traceId``,
    ``spanId`` and ``name``)."""
    if value.__class__ is not dict:
        return False
    if "span_name" in value:
        return True
    if "spans" in value:
        return False
    return ("trace_id" in value and "span_id" in value) or (
        "traceId" in value and "spanId" in value and "name" in value
    )


def _events(items: Any, keys: dict[str, str]) -> tuple[Any, ...]:
    """``events`` (``name``) or ``span_events`` (``event_name``), ISO or epoch timestamps."""
    if not items:
        return ()
    if items.__class__ is not list:
        raise TypeError("events must be an array")
    out = []
    for ev in items:
        name = ev.get("name")
        if name is None:
            name = ev["event_name"]
        stamp = ev.get("timestamp")
        if stamp is None:
            stamp = ev.get("timeUnixNano")
        out.append(event(name, iso_to_ns(stamp), freeze_attributes_json(ev.get("attributes"), keys)))
    return tuple(out)


def _scope(value: Any) -> tuple[str | None, str | None]:
    if not value:
        return None, None
    if value.__class__ is not dict:
        raise TypeError("scope must be an object")
    name, version = value.get("name"), value.get("version")
    for item in (name, version):
        if item is not None and item.__class__ is not str:
            raise TypeError("scope name and version must be strings")
    return name, version or None


#: what `_is_log_record` records are called in the file's warning or error
ADOT_LOG_RECORDS = "log records (an ADOT/CloudWatch export of event bodies)"


def _is_log_record(value: dict[str, Any]) -> bool:
    """A log record that a CloudWatch export wrote as a span: zero length, an ``event.name``
    attribute, and span events that each carry a ``body`` (the record's content)."""
    events = value.get("span_events")
    if events.__class__ is not list or not events:
        return False
    attrs = value.get("attributes")
    if attrs.__class__ is not dict or "event.name" not in attrs:
        return False
    if value.get("start_time") != value.get("end_time"):
        return False
    return all(ev.__class__ is dict and "body" in ev for ev in events)


def _first(value: dict[str, Any], *keys: str) -> Any:
    for key in keys:
        found = value.get(key)
        if found is not None:
            return found
    return None


def _attributes(value: Any, keys: dict[str, str]) -> Mapping[str, Any]:
    if not value:
        return EMPTY_MAPPING
    if value.__class__ is not dict:
        raise TypeError("attributes must be an object")
    entities = value.get("entity")
    if entities.__class__ is not list or not entities or entities[0].__class__ is not dict:
        return freeze_attributes_json(value, keys)
    flat: dict[str, Any] = {}
    for key, item in value.items():
        if key != "entity":
            flat[key] = item
            continue
        for index, entity in enumerate(entities, start=1):
            if entity.__class__ is not dict:
                raise TypeError("entity list items must be objects")
            for name, field in entity.items():
                flat[f"entity.{index}.{name}"] = field
    flat.setdefault("entity.count", len(entities))
    frozen = freeze_attributes_json(flat, keys)
    return frozen if frozen else types.MappingProxyType({})


def convert(key: str | None, where: str, value: Any, ctx: Context) -> None:
    """Add one span in the Okahu form."""
    if not whole_span_record(value, ctx):
        return
    if _is_log_record(value):
        ctx.other_signals.add(ADOT_LOG_RECORDS)
        return
    keys = ctx.keys
    name = value.get("span_name")
    if name is None:
        name = value["name"]
    context = value.get("context")
    if context.__class__ is dict:
        trace_id, span_id = context["trace_id"], context["span_id"]
    elif "trace_id" in value:
        trace_id, span_id = value["trace_id"], value["span_id"]
    else:
        trace_id, span_id = value["traceId"], value["spanId"]
    parent = _first(value, "parent_id", "parent_span_id", "parentSpanId")
    start = iso_to_ns(_first(value, "start_time", "startTimeUnixNano"))
    scope_name, scope_version = _scope(value.get("scope"))
    events = value.get("events")
    ctx.add(
        make_span(
            named_id(trace_id, 16, ctx),
            named_id(span_id, 8, ctx),
            parent_id(parent, ctx),
            name,
            kind_of(value.get("kind") or value.get("span_kind")),
            start if start is not None else 0,
            iso_to_ns(_first(value, "end_time", "endTimeUnixNano")),
            status_from_json(value.get("status")),
            _attributes(value.get("attributes"), keys),
            _events(events if events is not None else value.get("span_events"), keys),
            EMPTY_MAPPING,
            scope_name,
            scope_version,
            (),
        )
    )
