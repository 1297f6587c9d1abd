"""Writing spans as OTLP JSON (TracesData) that ``load_trace`` reads back unchanged.

Spec-compliant OTLP/JSON: lowerCamelCase fields, hex ids, integer enums, int64 as strings, typed
AnyValues. Spans are grouped by resource, then by instrumentation scope, in the order they first
appear. Python values map to AnyValue as: bool, int, float (NaN and infinities as the strings protobuf
uses), str, bytes (base64), tuple/list (arrayValue), mapping (kvlistValue), None (an empty AnyValue);
anything else is written as its ``str()``.
"""

from __future__ import annotations

import base64
import gzip
import json
import math
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .._common.files import check_output, write_atomic
from .._model.span import Span, SpanEvent, SpanLink, spans_from

__all__ = ["any_json", "attributes_json", "dump_trace", "json_bytes", "to_otlp_json", "write_file"]

_KIND = {"INTERNAL": 1, "SERVER": 2, "CLIENT": 3, "PRODUCER": 4, "CONSUMER": 5}
_STATUS = {"UNSET": 0, "OK": 1, "ERROR": 2}


def _any(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        return {"stringValue": value}
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        if math.isfinite(value):
            return {"doubleValue": value}
        return {"doubleValue": "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")}
    if isinstance(value, bytes | bytearray):
        return {"bytesValue": base64.b64encode(value).decode("ascii")}
    if isinstance(value, tuple | list):
        return {"arrayValue": {"values": [_any(v) for v in value]}}
    if isinstance(value, Mapping):
        return {"kvlistValue": {"values": _attributes(value)}}
    if value is None:
        return {}
    return {"stringValue": str(value)}


def _attributes(attrs: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [{"key": str(k), "value": _any(v)} for k, v in attrs.items()]


#: one value as an OTLP/JSON AnyValue, and a mapping as a KeyValue list (the log writer uses them too)
any_json, attributes_json = _any, _attributes


def _event(ev: SpanEvent) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if ev.timestamp_ns is not None:
        out["timeUnixNano"] = str(ev.timestamp_ns)
    out["name"] = ev.name
    if ev.attributes:
        out["attributes"] = _attributes(ev.attributes)
    return out


def _link(link: SpanLink) -> dict[str, Any]:
    out: dict[str, Any] = {"traceId": link.trace_id, "spanId": link.span_id}
    if link.attributes:
        out["attributes"] = _attributes(link.attributes)
    return out


def _span(span: Span) -> dict[str, Any]:
    out: dict[str, Any] = {"traceId": span.trace_id, "spanId": span.span_id}
    if span.parent_id is not None:
        out["parentSpanId"] = span.parent_id
    out["name"] = span.name
    out["kind"] = _KIND.get(span.kind, 0)
    out["startTimeUnixNano"] = str(span.start_ns)
    if span.end_ns is not None:
        out["endTimeUnixNano"] = str(span.end_ns)
    if span.attributes:
        out["attributes"] = _attributes(span.attributes)
    if span.events:
        out["events"] = [_event(e) for e in span.events]
    if span.links:
        out["links"] = [_link(lk) for lk in span.links]
    status: dict[str, Any] = {}
    if span.status.code != "UNSET":
        status["code"] = _STATUS.get(span.status.code, 0)
    if span.status.description is not None:
        status["message"] = span.status.description
    out["status"] = status
    return out


def to_otlp_json(spans: Iterable[Any]) -> dict[str, Any]:
    """A TracesData document (plain dict) for ``spans`` (traceassert Spans or SDK ReadableSpans)."""
    resources: dict[str, dict[str, Any]] = {}
    resource_keys: dict[int, str] = {}
    for span in spans_from(spans):
        res_key = resource_keys.get(id(span.resource))
        if res_key is None:
            encoded = _attributes(span.resource)
            res_key = json.dumps(encoded, sort_keys=True, default=str)
            resource_keys[id(span.resource)] = res_key
            if res_key not in resources:
                resources[res_key] = {"resource": {"attributes": encoded}, "scopes": {}}
        scopes: dict[tuple[str | None, str | None], list[dict[str, Any]]] = resources[res_key]["scopes"]
        scopes.setdefault((span.scope_name, span.scope_version), []).append(_span(span))
    resource_spans = []
    for group in resources.values():
        scope_spans = []
        for (name, version), items in group["scopes"].items():
            scope: dict[str, Any] = {}
            if name is not None:
                scope["name"] = name
            if version is not None:
                scope["version"] = version
            scope_spans.append({"scope": scope, "spans": items})
        resource_spans.append({"resource": group["resource"], "scopeSpans": scope_spans})
    return {"resourceSpans": resource_spans}


def dump_trace(
    trace_or_spans: Any, path: str | os.PathLike[str], *, redact: bool | Iterable[str] = True
) -> None:
    """Write a Trace (or a Capture, or spans) to ``path`` as OTLP JSON; gzip when the name ends in ``.gz``.

    Secrets are redacted by default (``"[REDACTED]"``: values under secret-looking keys such as
    authorization, api keys, tokens, passwords, secrets, cookies, and secret-looking values anywhere;
    see ``traceassert._common.redact``); ``redact=False`` writes every value as it is, and an iterable
    of regular expressions redacts the keys they match as well. Only a regular file or a new path is
    written, under a temporary name then renamed, so readers never see half of it: a symbolic link,
    directory, FIFO or device node at ``path`` is a ``TraceWriteError``. ``OSError`` propagates.
    """
    from .._common.redact import redact_spans

    target = Path(path)
    check_output(target, what="a trace")  # before the work: a bad target is refused at once
    spans = getattr(trace_or_spans, "spans", trace_or_spans)
    items = spans_from(spans)
    if redact is not False:
        items = redact_spans(items, () if redact is True else redact)
    write_file(target, json_bytes(to_otlp_json(items)))


def json_bytes(doc: Any, *, indent: int | None = None) -> bytes:
    """``doc`` as UTF-8 JSON text with a final newline (compact unless ``indent``); lone surrogates are
    written as escapes, which JSON can carry."""
    separators = (",", ":") if indent is None else (",", ": ")
    try:
        return (json.dumps(doc, ensure_ascii=False, indent=indent, separators=separators) + "\n").encode()
    except UnicodeEncodeError:
        return (json.dumps(doc, ensure_ascii=True, indent=indent, separators=separators) + "\n").encode()


def write_file(target: Path, data: bytes, *, what: str = "a trace") -> None:
    """Write ``data`` to ``target`` (gzip when the name ends in ``.gz``) with
    `traceassert._common.write_atomic`: whole or not at all, only over a regular file or a new path
    (else ``TraceWriteError``; ``what`` names the file in its message)."""
    if target.name.lower().endswith(".gz"):
        data = gzip.compress(data, mtime=0)
    write_atomic(target, data, what=what)
