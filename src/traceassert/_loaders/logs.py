"""Log records in files: OTLP ``resourceLogs`` (JSON and JSON Lines, the Collector's file exporter) and
the SDK's log dumps (``ReadableLogRecord.to_json()`` objects, as ``ConsoleLogExporter`` prints them).

The splitter and the converters hand on what they find (``Context.logs``: OTLP ``resourceLogs`` arrays
as ``note_other_signals`` meets them, SDK log objects as ``convert_text`` meets them); `log_records`
turns them into ``LogRecord``s once the file is read. They join their spans after every file is read
(``_model.logs.join_logs``), so spans and logs may come in different files, in any order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._model.logs import LogRecord
from .._model.span import EMPTY_MAPPING
from .common import CONVERSION_ERRORS, Context, freeze_attributes_json, freeze_json, hex_id, iso_to_ns
from .otlp_values import any_value, attributes
from .rawjson import decode_raw, is_raw

__all__ = ["RESOURCE_LOGS_KEYS", "is_sdk_log", "log_records"]

RESOURCE_LOGS_KEYS = ("resourceLogs", "resource_logs")


def is_sdk_log(value: Any) -> bool:
    """An SDK log record dump (``ReadableLogRecord.to_json()``): the keys every such object has, and a
    span's never has all of."""
    return (
        value.__class__ is dict
        and "observed_timestamp" in value
        and "severity_number" in value
        and "body" in value
        and "span_id" in value
        and "trace_id" in value
        and "context" not in value
    )


def log_records(ctx: Context) -> list[LogRecord]:
    """The log records of what ``ctx.logs`` holds; a record of the wrong shape is a ``TraceLoadError``
    naming its place."""
    out: list[LogRecord] = []
    for where, kind, value in ctx.logs:
        try:
            if kind == "sdk":
                out.append(_sdk_record(value, ctx))
            else:
                if is_raw(value):
                    value = decode_raw(value, where, ctx)
                _resource_logs(value, out, ctx)
        except CONVERSION_ERRORS as exc:
            raise ctx.bad_record(where, exc) from None
    return out


# -- OTLP --------------------------------------------------------------------------------------------


def _resource_logs(value: Any, out: list[LogRecord], ctx: Context) -> None:
    if value.__class__ is not list:
        raise TypeError(f"resourceLogs must be an array, got {type(value).__name__}")
    for rl in value:
        scopes = rl.get("scopeLogs", rl.get("scope_logs", rl.get("instrumentationLibraryLogs"))) or ()
        for sl in scopes:
            for lr in sl.get("logRecords", sl.get("log_records")) or ():
                out.append(_otlp_record(lr, ctx))


def _get(record: Mapping[str, Any], camel: str, snake: str) -> Any:
    value = record.get(camel)
    return record.get(snake) if value is None else value


def _otlp_record(lr: Any, ctx: Context) -> LogRecord:
    trace_id = _get(lr, "traceId", "trace_id")
    span_id = _get(lr, "spanId", "span_id")
    time = _get(lr, "timeUnixNano", "time_unix_nano")
    observed = _get(lr, "observedTimeUnixNano", "observed_time_unix_nano")
    attrs = lr.get("attributes")
    body = lr.get("body")
    name = _get(lr, "eventName", "event_name")
    return LogRecord(
        trace_id=_id(trace_id, 16),
        span_id=_id(span_id, 8),
        event_name=name if name.__class__ is str and name else None,
        timestamp_ns=_nanos(time),
        observed_ns=_nanos(observed),
        attributes=attributes(attrs, ctx.keys) if attrs else EMPTY_MAPPING,
        body=any_value(body, 0, ctx.keys) if body else None,
        severity_text=_get(lr, "severityText", "severity_text") or None,
    )


def _nanos(value: Any) -> int | None:
    """A ``*UnixNano`` field (a string or a number); None for absent or zero (unset)."""
    if value is None:
        return None
    return int(value) or None


def _id(value: Any, nbytes: int) -> str | None:
    """An id, None for an absent, empty or all-zero one (a record outside any span)."""
    if value is None or value == "":
        return None
    found = hex_id(value, nbytes)
    return None if not found.strip("0") else found


# -- the SDK's dumps ---------------------------------------------------------------------------------


def _sdk_record(value: dict[str, Any], ctx: Context) -> LogRecord:
    name = value.get("event_name")
    body = value.get("body")
    return LogRecord(
        trace_id=_id(value.get("trace_id"), 16),
        span_id=_id(value.get("span_id"), 8),
        event_name=name if name.__class__ is str and name else None,
        timestamp_ns=iso_to_ns(value.get("timestamp")),
        observed_ns=iso_to_ns(value.get("observed_timestamp")),
        attributes=freeze_attributes_json(value.get("attributes"), ctx.keys),
        body=freeze_json(body, 1) if body.__class__ is list or body.__class__ is dict else body,
        severity_text=value.get("severity_text") or None,
    )
