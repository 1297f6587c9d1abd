"""The logs signal in tests: a stack recorded with its log records, and those records written by the real
writers (the OTLP exporter's encoder, the SDK's ``to_json()`` and ``ConsoleLogRecordExporter``).

``record_with_logs(stack_record)`` runs a stack's ``record_spans`` on a private SDK tracer provider while a
private SDK ``LoggerProvider`` (in-memory exporter) is the one the instrumentation logs to; it returns the
finished spans and log records. The writers:

- ``otlp_logs_document``: protobuf's JSON of ``encode_logs`` (an ExportLogsServiceRequest, base64 ids);
- ``collector_logs_lines``: the Collector file exporter's JSON Lines (hex ids), ``per_line`` records a line;
- ``sdk_log_lines`` / ``console_logs``: ``to_json(indent=None)`` per line, and the real console exporter's
  output (indented objects one after another).
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Sequence
from typing import Any

from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs
from opentelemetry.sdk._logs import LoggerProvider, ReadableLogRecord
from opentelemetry.sdk._logs.export import (
    ConsoleLogRecordExporter,
    InMemoryLogRecordExporter,
    SimpleLogRecordProcessor,
)
from opentelemetry.sdk.trace import ReadableSpan

from tests.unit import _formats

__all__ = [
    "collector_logs_lines",
    "console_logs",
    "otlp_logs_document",
    "private_logger_provider",
    "sdk_log_lines",
]


def private_logger_provider() -> tuple[LoggerProvider, InMemoryLogRecordExporter]:
    """An SDK logger provider that keeps its records in memory."""
    exporter = InMemoryLogRecordExporter()
    provider = LoggerProvider()
    provider.add_log_record_processor(SimpleLogRecordProcessor(exporter))
    return provider, exporter


def record_with_logs(
    record: Callable[[LoggerProvider], list[ReadableSpan]],
) -> tuple[list[ReadableSpan], list[ReadableLogRecord]]:
    """``record(logger_provider)`` (a run that logs to that provider); its spans and log records."""
    provider, exporter = private_logger_provider()
    spans = record(provider)
    provider.shutdown()
    return spans, list(exporter.get_finished_logs())


def otlp_logs_document(records: Sequence[ReadableLogRecord]) -> dict[str, Any]:
    """The real OTLP encoder's logs request, through protobuf's JSON writer (base64 ids)."""
    return MessageToDict(encode_logs(records))


def _hex_ids(value: Any, key: str = "") -> Any:
    if isinstance(value, dict):
        return {k: _hex_ids(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_hex_ids(v, key) for v in value]
    if key in ("traceId", "spanId") and isinstance(value, str):
        import base64

        return base64.b64decode(value).hex()
    return value


def collector_logs_lines(records: Sequence[ReadableLogRecord], per_line: int = 2) -> str:
    """Collector file-exporter style JSON Lines: one ExportLogsServiceRequest per batch of records."""
    lines = []
    for i in range(0, len(records), per_line):
        request = _hex_ids(otlp_logs_document(records[i : i + per_line]))
        lines.append(json.dumps(request, separators=(",", ":"), ensure_ascii=False))
    return "\n".join(lines) + "\n"


def sdk_log_lines(records: Sequence[ReadableLogRecord]) -> str:
    return "".join(r.to_json(indent=None) + "\n" for r in records)


def console_logs(records: Sequence[ReadableLogRecord]) -> str:
    """What the real ``ConsoleLogRecordExporter`` prints for the records."""
    out = io.StringIO()
    ConsoleLogRecordExporter(out=out).export(records)
    return out.getvalue()


def collector_trace_lines(spans: Sequence[ReadableSpan]) -> str:
    """The spans as the Collector's file exporter writes them (see ``tests.unit._formats``)."""
    return _formats.collector_lines(spans, per_line=3)
