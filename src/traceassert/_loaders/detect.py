"""Which format a file is in, and turning one file's text into spans."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._errors import TraceLoadError
from . import anyagent, jaeger, logs, okahu, otel_js, otlp, phoenix, sdk
from .common import CONVERSION_ERRORS, TRUNCATED, Context
from .split import Buffer, Unit, iter_units

__all__ = ["ALIASES", "FORMATS", "canonical_format", "classify", "convert_text"]

Converter = Callable[[str | None, str, Any, Context], None]

#: Format names, in the order auto-detection tries them.
FORMATS: tuple[str, ...] = (
    otlp.NAME,
    jaeger.NAME,
    phoenix.NAME,
    sdk.NAME,
    okahu.NAME,
    anyagent.NAME,
    otel_js.NAME,
)

#: Other names accepted by ``format=``.
ALIASES = {
    "otlp-json": "otlp",
    "otlp-jsonl": "otlp",
    "otlp_json": "otlp",
    "jsonl": "otlp",
    "collector": "otlp",
    "tempo": "otlp",
    "monocle": "sdk",
    "console": "sdk",
    "sdk-json": "sdk",
    "to_json": "sdk",
    "arize-phoenix": "phoenix",
    "anyagent": "any-agent",
    "agenttrace": "any-agent",
    "js": "otel-js",
    "otel_js": "otel-js",
    "opentelemetry-js": "otel-js",
}

_MODULES = {m.NAME: m for m in (otlp, jaeger, phoenix, sdk, okahu, anyagent, otel_js)}
#: Envelope keys that hold a list of records (Okahu API responses, Okahu's ingest body, Jaeger).
_ENVELOPE_KEYS = ("spans", "batch", "data", "results", "trace_spans")


def canonical_format(name: str | None) -> str | None:
    if name is None:
        return None
    key = name.strip().lower()
    key = ALIASES.get(key, key)
    if key not in _MODULES:
        known = ", ".join(FORMATS + tuple(sorted(ALIASES)))
        raise TraceLoadError(f"unknown format {name!r} (known: {known})")
    return key


#: ``(name, is_record)`` of each format, in the order of ``FORMATS``
_TESTS = tuple((name, _MODULES[name].is_record) for name in FORMATS)


def classify(value: Any) -> str | None:
    """The format whose record ``value`` is, or None."""
    for name, is_record in _TESTS:
        if is_record(value):
            return name
    return None


Record = tuple[str | None, str, Any, str | None]


def _records(unit: Unit, forced: str | None) -> list[Record]:
    """``(key, where, record, format)``: the unit itself, or the records of an envelope it is (a list,
    not a generator: one record a unit is the common case; ``is_record`` and ``classify`` read and
    never raise, so classifying an envelope's records before converting them changes nothing)."""
    key, where, value = unit
    if key in otlp.RESOURCE_SPANS_KEYS:
        return [(key, where, value, otlp.NAME)]
    if forced is not None and _MODULES[forced].is_record(value):
        return [(key, where, value, forced)]
    fmt = classify(value)
    if fmt is not None or value.__class__ is not dict:
        return [(key, where, value, fmt)]
    for env_key in _ENVELOPE_KEYS:
        items = value.get(env_key)
        if items.__class__ is list:
            return [
                (
                    env_key,
                    f"{where}: {env_key}[{i}]",
                    item,
                    forced if forced is not None and _MODULES[forced].is_record(item) else classify(item),
                )
                for i, item in enumerate(items)
            ]
    return [(key, where, value, None)]


def convert_text(buffer: Buffer, ctx: Context, forced: str | None) -> str | None:
    """Add the spans of a file's content to ``ctx``; return the format found (None: no records)."""
    fmt = forced
    for unit in iter_units(buffer, ctx):
        for key, where, record, found in _records(unit, forced):
            # a record the end of the file cut through carries the repair's mark (so do its parents)
            cut = record.__class__ is dict and TRUNCATED in record
            if logs.is_sdk_log(record):
                ctx.logs.append((where, "sdk", record))  # the SDK's log dump: joined to its span later
                continue
            if found is None and record.__class__ is dict and ctx.note_other_signals(record):
                continue  # OTLP logs (kept) or metrics (said in a warning) next to the traces
            if fmt is None:
                if found is None:
                    if cut:
                        continue
                    raise _unknown(ctx, where, record)
                fmt = found
            elif found != fmt and key not in otlp.RESOURCE_SPANS_KEYS and not cut:
                if forced is not None:
                    raise ctx.error(f"not a {forced} record: {_describe(record)}", where)
                if found is not None:
                    raise ctx.error(f"a {found} record in a {fmt} file", where)
            convert: Converter = _MODULES[fmt].convert
            try:
                convert(key, where, record, ctx)
            except TraceLoadError:
                if not cut:
                    raise
            except CONVERSION_ERRORS as exc:
                # the spans completed before the cut are kept; the part cut through is dropped
                if not cut:
                    raise ctx.bad_record(where, exc) from None
    bad = [k for k in ctx.keys if k.__class__ is not str]
    if bad:
        raise ctx.error(f"invalid record: attribute key {bad[0]!r} is not a string")
    return fmt


def _describe(record: Any) -> str:
    if record.__class__ is dict:
        keys = ", ".join(repr(k) for k in list(record)[:8]) or "none"
        return f"an object with keys {keys}"
    if record.__class__ is list:
        return "an array" if record else "an empty array"
    return f"a {type(record).__name__} value"


def _unknown(ctx: Context, where: str, record: Any) -> TraceLoadError:
    return ctx.error(f"not a trace format this library reads: found {_describe(record)}", where)
