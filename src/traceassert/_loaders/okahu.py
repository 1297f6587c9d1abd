"""The Okahu form of Monocle spans: what Okahu's trace API returns.

A span has ``span_name``, top-level ``trace_id``/``span_id``/``parent_id`` (hex, ``0x`` optional),
ISO ``start_time``/``end_time``, ``status`` ``{"code": "ok", "message": null}`` and attributes whose
Monocle entities are a list: ``"entity": [{"name": ..., "type": ...}, ...]``. The list is flattened back
into the attributes Monocle recorded (``entity.1.name``, ``entity.1.type``, ..., ``entity.count``), so a
span reads the same from Okahu as from the Monocle file. Spans come as an array, or inside an envelope
such as ``{"trace_id": ..., "spans": [...]}``; kind, resource and scope are not part of this form.
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from typing import Any

from .._model.span import EMPTY_MAPPING
from .common import TRUNCATED, Context, freeze_attributes_json, hex_id, iso_to_ns, make_span, parent_id
from .sdk import events_from_json, kind_of, status_from_json

__all__ = ["NAME", "convert", "is_record"]

NAME = "okahu"


def is_record(value: Any) -> bool:
    """A span with ``span_name``, or with top-level ``trace_id`` and ``span_id``."""
    if value.__class__ is not dict:
        return False
    return "span_name" in value or ("trace_id" in value and "span_id" in value and "spans" not in value)


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
    if value.__class__ is not dict:
        raise TypeError(f"expected a span object, got {type(value).__name__}")
    if TRUNCATED in value:
        ctx.dropped += 1
        return
    keys = ctx.keys
    name = value.get("span_name")
    if name is None:
        name = value["name"]
    context = value.get("context")
    if context.__class__ is dict:
        trace_id, span_id = context["trace_id"], context["span_id"]
    else:
        trace_id, span_id = value["trace_id"], value["span_id"]
    parent = value.get("parent_id")
    if parent is None:
        parent = value.get("parent_span_id")
    start = iso_to_ns(value.get("start_time"))
    ctx.add(
        make_span(
            hex_id(trace_id, 16),
            hex_id(span_id, 8),
            parent_id(parent),
            name,
            kind_of(value.get("kind") or value.get("span_kind")),
            start if start is not None else 0,
            iso_to_ns(value.get("end_time")),
            status_from_json(value.get("status")),
            _attributes(value.get("attributes"), keys),
            events_from_json(value.get("events"), keys),
            EMPTY_MAPPING,
            None,
            None,
            (),
        )
    )
