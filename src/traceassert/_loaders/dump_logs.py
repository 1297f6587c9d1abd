"""Writing log records as OTLP JSON (LogsData: ``resourceLogs``) that the loaders read back to the same
records: the log lines of the files ``traceassert receive`` writes, and what a receiver hands to a test in
another process."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .._model.logs import LogRecord
from .dump import any_json, attributes_json

__all__ = ["to_otlp_logs"]


def _record(record: LogRecord) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if record.timestamp_ns:
        out["timeUnixNano"] = str(record.timestamp_ns)
    if record.observed_ns:
        out["observedTimeUnixNano"] = str(record.observed_ns)
    if record.severity_text:
        out["severityText"] = record.severity_text
    if record.body is not None:
        out["body"] = any_json(record.body)
    if record.attributes:
        out["attributes"] = attributes_json(record.attributes)
    if record.trace_id:
        out["traceId"] = record.trace_id
    if record.span_id:
        out["spanId"] = record.span_id
    if record.event_name:
        out["eventName"] = record.event_name
    return out


def to_otlp_logs(records: Iterable[LogRecord]) -> dict[str, Any]:
    """A LogsData document (plain dict) for ``records``: one resource and scope (a record keeps neither)."""
    items = [_record(r) for r in records]
    return {"resourceLogs": [{"resource": {}, "scopeLogs": [{"scope": {}, "logRecords": items}]}]}
