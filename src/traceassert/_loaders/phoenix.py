"""Arize Phoenix's span JSON: its REST API (``GET /v1/projects/{project}/spans`` gives
``{"data": [...], "next_cursor": ...}``) and ``get_spans_dataframe()`` saved with ``to_json``.

A span has ``name``, ``span_kind`` (the OpenInference kind: ``LLM``, ``TOOL``, ``AGENT``, ...),
``status_code`` (``OK``/``ERROR``/``UNSET``) and ``status_message`` at the top level, ``parent_id``,
ISO ``start_time``/``end_time`` (or epoch numbers, as pandas writes them), ``events`` and the ids in
``context`` (``{"trace_id", "span_id"}``). The dataframe form flattens columns instead:
``context.trace_id``, ``context.span_id`` and one ``attributes.<key>`` column per attribute.

Attributes come flat (dotted keys) or nested, as Phoenix stores them (``{"llm": {"model_name": ...}}``,
lists of message objects); both are flattened back into the dotted keys the instrumentation recorded
(``llm.input_messages.0.message.role``). ``span_kind`` is written back as ``openinference.span.kind``
(the REST API moves it out of the attributes; ``UNKNOWN`` means none), except on a span that says its
GenAI operation (``gen_ai.operation.name``): Phoenix fills in OpenInference attributes derived from a
span's ``gen_ai.*`` ones when it stores it, its kind among them, and the REST API cannot tell a kind it
inferred from one the producer wrote, so such a span is read by its GenAI attributes, as the producer
sent it (the derived ``llm.*``, ``input.*``, ``output.*`` attributes stay, for the reader to see).
Phoenix keeps no OpenTelemetry span kind, resource or instrumentation scope: spans read as ``INTERNAL``
without scope.
"""

from __future__ import annotations

import json
import types
from collections.abc import Mapping
from typing import Any

from .._model.span import EMPTY_MAPPING
from .common import (
    MAX_VALUE_DEPTH,
    Context,
    freeze_json,
    iso_to_ns,
    make_span,
    named_id,
    parent_id,
    whole_span_record,
)
from .sdk import events_from_json, status_from_json

__all__ = ["NAME", "convert", "is_record"]

NAME = "phoenix"

_KIND_KEY = "openinference.span.kind"
_GENAI_OPERATION = "gen_ai.operation.name"
_ATTRIBUTES = "attributes."
#: attributes OpenInference records as JSON text, which Phoenix parses into objects when it stores them
_JSON_TEXT_KEYS = ("metadata", "tool.parameters", "llm.prompt_template.variables", "document.metadata")


def is_record(value: Any) -> bool:
    """A Phoenix span: ``span_kind`` or ``status_code`` at the top level, and its ids in ``context``
    (an object, or the dataframe's ``context.span_id`` column)."""
    if value.__class__ is not dict or "span_name" in value:
        return False
    if "span_kind" not in value and "status_code" not in value:
        return False
    return value.get("context").__class__ is dict or "context.span_id" in value


def _flatten(value: Mapping[str, Any], out: dict[str, Any], keys: dict[str, str]) -> None:
    """Nested attribute objects (and lists of objects) as dotted keys, iteratively."""
    stack: list[tuple[str, Any, int]] = [(k, v, 1) for k, v in reversed(list(value.items()))]
    while stack:
        key, item, depth = stack.pop()
        if key.__class__ is not str:
            raise TypeError("attribute keys must be strings")
        if item is None:
            continue
        cls = item.__class__
        if depth > MAX_VALUE_DEPTH and (cls is dict or cls is list):
            raise ValueError(f"attributes nested deeper than {MAX_VALUE_DEPTH} levels")
        if cls is dict:
            if key.endswith(_JSON_TEXT_KEYS):
                out[keys.setdefault(key, key)] = json.dumps(item, ensure_ascii=False)
                continue
            stack.extend((f"{key}.{k}", v, depth + 1) for k, v in reversed(item.items()))
        elif cls is list and any(v.__class__ is dict for v in item):
            members = [(f"{key}.{i}", v, depth + 1) for i, v in enumerate(item) if v.__class__ is dict]
            stack.extend(reversed(members))
        else:
            out[keys.setdefault(key, key)] = freeze_json(item, 1) if cls is list else item


def _attributes(value: dict[str, Any], keys: dict[str, str]) -> Mapping[str, Any]:
    out: dict[str, Any] = {}
    attrs = value.get("attributes")
    if attrs:
        if attrs.__class__ is not dict:
            raise TypeError("attributes must be an object")
        _flatten(attrs, out, keys)
    columns = {k[len(_ATTRIBUTES) :]: v for k, v in value.items() if k.startswith(_ATTRIBUTES)}
    if columns:
        _flatten(columns, out, keys)
    kind = value.get("span_kind")
    if _GENAI_OPERATION in out:  # a kind Phoenix inferred from the span's GenAI attributes (see above)
        kind = None
    if kind is not None and kind != "UNKNOWN" and _KIND_KEY not in out:  # UNKNOWN: Phoenix's "none"
        if kind.__class__ is not str:
            raise TypeError("span_kind must be a string")
        out[keys.setdefault(_KIND_KEY, _KIND_KEY)] = kind
    return types.MappingProxyType(out) if out else EMPTY_MAPPING


def convert(key: str | None, where: str, value: Any, ctx: Context) -> None:
    """Add one Phoenix span."""
    if not whole_span_record(value, ctx):
        return
    context = value.get("context")
    if context.__class__ is dict:
        trace_id, span_id = context["trace_id"], context["span_id"]
    else:
        trace_id, span_id = value["context.trace_id"], value["context.span_id"]
    status = {"status_code": value.get("status_code"), "description": value.get("status_message")}
    start = iso_to_ns(value.get("start_time"))
    ctx.add(
        make_span(
            named_id(trace_id, 16, ctx),
            named_id(span_id, 8, ctx),
            parent_id(value.get("parent_id"), ctx),
            value["name"],
            "INTERNAL",
            start if start is not None else 0,
            iso_to_ns(value.get("end_time")),
            status_from_json(status),
            _attributes(value, ctx.keys),
            events_from_json(value.get("events"), ctx.keys),
            EMPTY_MAPPING,
            None,
            None,
            (),
        )
    )
