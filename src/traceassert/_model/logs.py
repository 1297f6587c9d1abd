"""Log records tied to spans (the OpenTelemetry logs signal), and their join into the spans.

OpenTelemetry moves span events to log records that carry the span's context: GenAI instrumentations
write message content as log events (``gen_ai.client.inference.operation.details``, the older
``gen_ai.user.message`` / ``gen_ai.choice`` ...) and exceptions move to logs too. Every reader of
traceassert reads span events, so a record is joined to its span as one more ``SpanEvent``:

- name: the record's event name (``EventName`` / ``event_name``, else its ``event.name`` attribute);
  a record without one is ``exception`` when it carries ``exception.type``, else ``log``;
- attributes: the record's attributes, then the keys of a body that is an object (the message content
  of the per-message events: ``content``, ``tool_calls``, ``message``, ...; an attribute of the same name
  wins); any other body is the attribute ``body``;
- time: the record's time, else the time it was observed.

A record joins the span with its trace id and span id (only the span id when it carries no trace id). A
record with no span id, or whose span is not in the trace, stays out of the trace and is counted in a
warning: it is never lost silently.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .span import EMPTY_MAPPING, Span, SpanEvent, freeze_attributes

if TYPE_CHECKING:
    from opentelemetry.sdk._logs import ReadableLogRecord, ReadWriteLogRecord

__all__ = ["LogRecord", "join_logs"]

_EVENT_NAME_KEY = "event.name"


@dataclass(frozen=True, slots=True)
class LogRecord:
    """One log record, as every source (live capture, OTLP JSON, the SDK's dumps) is turned into."""

    #: lower-case hex, None when the record carries none (a log outside any span)
    trace_id: str | None = None
    span_id: str | None = None
    event_name: str | None = None
    timestamp_ns: int | None = None
    observed_ns: int | None = None
    attributes: Mapping[str, Any] = field(default_factory=lambda: EMPTY_MAPPING)
    body: Any = None
    severity_text: str | None = None

    @property
    def name(self) -> str:
        """The name of the span event it becomes."""
        if self.event_name:
            return self.event_name
        named = self.attributes.get(_EVENT_NAME_KEY)
        if isinstance(named, str) and named:
            return named
        return "exception" if "exception.type" in self.attributes else "log"

    def to_event(self) -> SpanEvent:
        """The span event this record becomes (see the module docstring)."""
        attributes = {k: v for k, v in self.attributes.items() if k != _EVENT_NAME_KEY}
        body = self.body
        if isinstance(body, Mapping):
            for key, value in body.items():
                attributes.setdefault(str(key), value)
        elif body is not None and body != "":
            attributes.setdefault("body", body)
        time = self.timestamp_ns if self.timestamp_ns else self.observed_ns
        return SpanEvent(self.name, time, freeze_attributes(attributes))

    @classmethod
    def from_readable(cls, record: ReadableLogRecord | ReadWriteLogRecord) -> LogRecord:
        """Convert an OpenTelemetry SDK ``ReadableLogRecord`` (what an exporter is given) or
        ``ReadWriteLogRecord`` (what a log record processor is given)."""
        log = record.log_record
        return cls(
            trace_id=format(log.trace_id, "032x") if log.trace_id else None,
            span_id=format(log.span_id, "016x") if log.span_id else None,
            event_name=log.event_name or None,
            timestamp_ns=log.timestamp,
            observed_ns=log.observed_timestamp,
            attributes=freeze_attributes(dict(log.attributes or {})),
            body=_plain(log.body),
            severity_text=log.severity_text,
        )


def _plain(value: Any) -> Any:
    """A body as plain JSON-like values (mappings become dicts, sequences lists)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def join_logs(spans: Iterable[Span], records: Iterable[LogRecord]) -> tuple[list[Span], list[str]]:
    """``spans`` with each record joined to its span as a ``SpanEvent`` (after the span's own events, in
    time order), and the warnings that count the records that could not be joined."""
    out = list(spans)
    by_key: dict[tuple[str, str], int] = {}
    by_id: dict[str, int] = {}
    for i, span in enumerate(out):
        by_key.setdefault((span.trace_id, span.span_id), i)
        by_id.setdefault(span.span_id, i)
    joined: dict[int, list[LogRecord]] = {}
    no_span = 0
    unknown = 0
    for record in records:
        if not record.span_id:
            no_span += 1
            continue
        at = by_key.get((record.trace_id, record.span_id)) if record.trace_id else by_id.get(record.span_id)
        if at is None:
            unknown += 1
            continue
        joined.setdefault(at, []).append(record)
    for at, found in joined.items():
        found.sort(key=lambda r: r.timestamp_ns or r.observed_ns or 0)
        span = out[at]
        out[at] = dataclasses.replace(span, events=(*span.events, *(r.to_event() for r in found)))
    warnings: list[str] = []
    if no_span:
        warnings.append(
            f"{no_span} log record(s) carry no span id: they are not part of the trace (logs written "
            "outside any span)"
        )
    if unknown:
        warnings.append(
            f"{unknown} log record(s) belong to a span that is not in the trace: they are not part of it"
        )
    return out, warnings
