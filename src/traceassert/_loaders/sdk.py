"""OpenTelemetry SDK span dumps: ``ReadableSpan.to_json()`` objects, and Monocle's files.

Where they come from: a JSON array of them (Monocle's file exporter writes ``[`` span ``,`` span ... ``]``),
JSON Lines of them, and ``ConsoleSpanExporter`` output (pretty objects one after another). Ids with or
without ``0x``; times as ISO 8601 strings (microseconds: the SDK rounds nanoseconds away); ``kind``
``"SpanKind.CLIENT"`` (or a name, or the SDK enum's number); status ``status_code``/``description``
(Monocle also writes ``code``/``message``); ``resource`` ``{"attributes": ..., "schema_url": ...}``.
The SDK's JSON has no instrumentation scope, so ``scope_name`` is None unless the file carries one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .._model.span import EMPTY_MAPPING, Status
from .common import (
    Context,
    event,
    freeze_attributes_json,
    freeze_shared,
    hex_id,
    iso_to_ns,
    link,
    make_span,
    status_of,
    whole_span_record,
)

__all__ = [
    "NAME",
    "convert",
    "events_from_json",
    "is_record",
    "kind_of",
    "links_from_json",
    "resource_from_json",
    "scope_from_json",
    "status_from_json",
]

NAME = "sdk"

# the SDK's SpanKind enum numbers (not OTLP's): INTERNAL=0 ... CONSUMER=4
_KINDS = ("INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER")
_KIND_NAMES = {**{k: k for k in _KINDS}, **{str(i): k for i, k in enumerate(_KINDS)}}
_CODES = {"UNSET": "UNSET", "OK": "OK", "ERROR": "ERROR", "0": "UNSET", "1": "OK", "2": "ERROR"}
_SCOPE_KEYS = ("instrumentation_scope", "instrumentationScope", "scope", "instrumentation_info")


def is_record(value: Any) -> bool:
    """A ``to_json()`` span object: ``name`` and a ``context`` with ids (strings: integer ids are
    any-agent's dumps)."""
    if value.__class__ is not dict or "name" not in value:
        return False
    context = value.get("context")
    return context.__class__ is dict and context.get("span_id").__class__ is not int


def kind_of(value: Any) -> str:
    """``"SpanKind.CLIENT"``, ``"CLIENT"``, ``"client"``, ``"2"`` (the SDK enum) or None (internal)."""
    if value.__class__ is str:
        known = _KNOWN_KINDS.get(value)
        if known is not None:
            return known
    return _kind_of(value)


def _kind_of(value: Any) -> str:
    if value is None:
        return "INTERNAL"
    if value.__class__ is int:
        value = str(value)
    if value.__class__ is not str:
        raise TypeError(f"span kind must be a string, got {type(value).__name__}")
    name = value.rpartition(".")[2].upper()
    if name.startswith("SPAN_KIND_"):
        name = name[10:]
    try:
        return _KIND_NAMES[name]
    except KeyError:
        raise ValueError(f"unknown span kind {value!r}") from None


#: the kinds as the SDK writes them (``"SpanKind.CLIENT"``), read once by the general path
_KNOWN_KINDS = {f"SpanKind.{k}": _kind_of(f"SpanKind.{k}") for k in _KINDS}


def status_from_json(value: Any) -> Status:
    """``{"status_code": "OK", "description": ...}``, ``{"code": "ok", "message": ...}`` or ``"OK"``."""
    if value.__class__ is dict and len(value) == 1:
        # {"status_code": "OK"}: the SDK's status without a description, read once (_KNOWN_STATUS)
        code = value.get("status_code")
        if code.__class__ is str:
            known = _KNOWN_STATUS.get(code)
            if known is not None:
                return known
    return _status_from_json(value)


def _status_from_json(value: Any) -> Status:
    if not value:
        return status_of("UNSET", None)
    code: Any
    description: Any
    if value.__class__ is str:
        code, description = value, None
    elif value.__class__ is dict:
        code = value.get("status_code")
        if code is None:
            code = value.get("code")
        description = value.get("description")
        if description is None:
            description = value.get("message")
    else:
        raise TypeError(f"status must be an object or a string, got {type(value).__name__}")
    if code is None:
        name = "UNSET"
    else:
        if code.__class__ is int:
            code = str(code)
        if code.__class__ is not str:
            raise TypeError("status code must be a string")
        name = code.rpartition(".")[2].upper()
        if name.startswith("STATUS_CODE_"):
            name = name[12:]
        if name not in _CODES:
            raise ValueError(f"unknown status code {code!r}")
        name = _CODES[name]
    return status_of(name, description)


_KNOWN_STATUS = {
    code: _status_from_json({"status_code": code})
    for name in ("UNSET", "OK", "ERROR")
    for code in (name, f"StatusCode.{name}")
}


def resource_from_json(
    value: Any, keys: dict[str, str], made: dict[Any, tuple[Mapping[str, Any], Any]] | None = None
) -> Mapping[str, Any]:
    """A ``resource`` object of ``to_json()`` form: its ``attributes`` (with ``made``, the file's
    context's ``resources``: one mapping for equal ones, ``freeze_shared``)."""
    if not value:
        return EMPTY_MAPPING
    if value.__class__ is not dict:
        raise TypeError("resource must be an object")
    attrs = value.get("attributes")
    if not attrs:
        return EMPTY_MAPPING
    return freeze_attributes_json(attrs, keys) if made is None else freeze_shared(attrs, keys, made)


def scope_from_json(
    value: dict[str, Any], scope_keys: tuple[str, ...] = _SCOPE_KEYS
) -> tuple[str | None, str | None]:
    """The instrumentation scope's name and version, from the first of ``scope_keys`` the span has."""
    if value.keys().isdisjoint(scope_keys):  # the SDK writes none (the loop below would find none)
        return None, None
    for key in scope_keys:
        scope = value.get(key)
        if scope:
            if scope.__class__ is not dict:
                raise TypeError(f"{key} must be an object")
            name, version = scope.get("name"), scope.get("version")
            for item in (name, version):
                if item is not None and item.__class__ is not str:
                    raise TypeError("scope name and version must be strings")
            return name, version
    return None, None


def events_from_json(items: Any, keys: dict[str, str]) -> tuple[Any, ...]:
    if not items:
        return ()
    if items.__class__ is not list:
        raise TypeError("events must be an array")
    return tuple(
        [
            event(
                ev["name"], iso_to_ns(ev.get("timestamp")), freeze_attributes_json(ev.get("attributes"), keys)
            )
            for ev in items
        ]
    )


def _hex_ids(context: Any) -> tuple[str, str]:
    return hex_id(context["trace_id"], 16), hex_id(context["span_id"], 8)


def links_from_json(
    items: Any, keys: dict[str, str], ids: Callable[[Any], tuple[str, str]] = _hex_ids
) -> tuple[Any, ...]:
    """A ``links`` array of ``to_json()`` form; ``ids`` reads a link's context (hex ids by default)."""
    if not items:
        return ()
    if items.__class__ is not list:
        raise TypeError("links must be an array")
    out = []
    for lk in items:
        trace_id, span_id = ids(lk["context"])
        out.append(link(trace_id, span_id, freeze_attributes_json(lk.get("attributes"), keys)))
    return tuple(out)


def convert(key: str | None, where: str, value: Any, ctx: Context) -> None:
    """Add one ``to_json()`` span."""
    if not whole_span_record(value, ctx):
        return
    keys = ctx.keys
    ids = ctx.made_ids  # named_id and parent_id, each id made once
    context = value["context"]
    scope_name, scope_version = scope_from_json(value)
    start = iso_to_ns(value.get("start_time"))
    ctx.add(
        make_span(
            ids.trace(context["trace_id"]),
            ids.span(context["span_id"]),
            ids.parent(value.get("parent_id")),
            value["name"],
            kind_of(value.get("kind")),
            start if start is not None else 0,
            iso_to_ns(value.get("end_time")),
            status_from_json(value.get("status")),
            freeze_attributes_json(value.get("attributes"), keys),
            events_from_json(value.get("events"), keys),
            resource_from_json(value.get("resource"), keys, ctx.resources),
            scope_name,
            scope_version,
            links_from_json(value.get("links"), keys),
        )
    )
