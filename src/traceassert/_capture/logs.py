"""Routing log records to captures: one log record processor per SDK ``LoggerProvider``, with the rule
tracer providers follow: the app's provider is never replaced.

Without an explicit ``logger_provider`` a capture listens on the global SDK ``LoggerProvider``; one is
installed when none is set (instrumentations that log through the global API then reach it). A global
provider that is not the SDK's (an app's own) is left alone: the capture then holds spans only.

A record tied to a span goes to the captures that own that span (as the span processor routed it); a
record of a span no capture knows, or with no span, goes to the captures active when it was emitted.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from opentelemetry import _logs as otel_logs
from opentelemetry._logs._internal import ProxyLoggerProvider
from opentelemetry.sdk._logs import LoggerProvider, LogRecordProcessor

from .._errors import TraceCaptureError
from .routing import span_owners

if TYPE_CHECKING:
    from opentelemetry.sdk._logs import ReadWriteLogRecord

    from .recording import Capture

__all__ = ["global_logger_provider", "log_processor_for", "log_processors_leave"]


class _LogProcessor(LogRecordProcessor):
    """The one log record processor per SDK logger provider; routes records to captures."""

    def __init__(self, provider: LoggerProvider) -> None:
        self.provider = provider
        self._lock = threading.Lock()
        self._active: list[Capture] = []

    def begin(self, cap: Capture) -> None:
        with self._lock:
            if cap not in self._active:
                self._active.append(cap)

    def end(self, cap: Capture) -> None:
        with self._lock:
            if cap in self._active:
                self._active.remove(cap)

    def on_emit(self, log_record: ReadWriteLogRecord) -> None:
        with self._lock:
            active = list(self._active)
        span_id = log_record.log_record.span_id
        owners = span_owners(span_id) if span_id else None
        # a capture holds the records of the provider it listens on, never another provider's (even for
        # its own spans): of the span's owners, those listening here; with no owner, those active here
        targets = [c for c in owners if c._open and c in active] if owners else active
        if not targets:
            return
        from .._model.logs import LogRecord  # imported at the first record: most captures hold none

        record = LogRecord.from_readable(log_record)
        for cap in targets:
            cap._add_log(record)

    def shutdown(self) -> None:
        with self._lock:
            self._active.clear()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


_LOCK = threading.Lock()
_BY_PROVIDER: dict[int, _LogProcessor] = {}


def global_logger_provider() -> LoggerProvider | None:
    """The global SDK logger provider; one is installed when none is set. None when the global provider
    is set and is not the SDK's (it is never replaced)."""
    current = otel_logs.get_logger_provider()
    if isinstance(current, LoggerProvider):
        return current
    if isinstance(current, ProxyLoggerProvider):
        otel_logs.set_logger_provider(LoggerProvider())
        current = otel_logs.get_logger_provider()
        if isinstance(current, LoggerProvider):
            return current
    return None


def log_processor_for(provider: object) -> _LogProcessor:
    """The processor on ``provider`` (attached at the first call)."""
    if not isinstance(provider, LoggerProvider):
        raise TraceCaptureError(f"{provider!r} is not an OpenTelemetry SDK LoggerProvider")
    with _LOCK:
        proc = _BY_PROVIDER.get(id(provider))
        if proc is None or proc.provider is not provider:
            proc = _LogProcessor(provider)
            provider.add_log_record_processor(proc)
            _BY_PROVIDER[id(provider)] = proc
        return proc


def log_processors_leave(cap: Capture) -> None:
    """``cap`` leaves every log processor: it gets no record from now on."""
    with _LOCK:
        procs = list(_BY_PROVIDER.values())
    for proc in procs:
        proc.end(cap)
