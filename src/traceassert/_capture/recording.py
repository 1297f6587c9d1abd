"""The ``Capture`` object and the ``capture()`` block: the spans routed to a capture while it was active,
read as a `Trace`."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider

from .._model.span import Span
from .._trace import Ledger, Trace
from .diagnosis import other_providers, provider_replaced
from .logs import global_logger_provider, log_processor_for, log_processors_leave
from .routing import leave_all, processors_for

if TYPE_CHECKING:
    from .._model.logs import LogRecord

__all__ = ["Capture", "Entry", "capture"]


class Entry:
    """One span as a capture holds it: the SDK span, and its conversion once it has ended and been read."""

    __slots__ = ("capture", "converted", "sdk_span")

    def __init__(self, capture: Capture, sdk_span: ReadableSpan) -> None:
        self.capture = capture
        self.sdk_span = sdk_span
        self.converted: Span | None = None


class Capture:
    """The spans started while this capture was active, with the log records tied to them. Use
    ``ta.capture()`` to make one.

    ``spans`` and ``trace()`` read live: spans that end after a read are seen by the next one. Spans
    still open are included with ``end_ns=None``.
    """

    def __init__(self, *, name: str | None = None) -> None:
        self.name = name
        self._lock = threading.Lock()
        self._entries: list[Entry] = []
        self._version = 0
        self._cached: tuple[int, Trace] | None = None
        self._open = False
        self._providers: tuple[TracerProvider, ...] = ()
        self._logs: list[LogRecord] = []
        self._logger_provider: LoggerProvider | None = None
        self._explicit = False
        #: what checks remember across asserters on this capture
        self.ledger = Ledger()

    # -- used by the processor -----------------------------------------------------------------------

    def _add(self, span: ReadableSpan) -> Entry:
        entry = Entry(self, span)
        with self._lock:
            self._entries.append(entry)
            self._version += 1
        return entry

    def _add_log(self, record: LogRecord) -> None:
        with self._lock:
            self._logs.append(record)
            self._version += 1

    def _ended(self) -> None:
        with self._lock:
            self._version += 1

    # -- public --------------------------------------------------------------------------------------

    @property
    def active(self) -> bool:
        return self._open

    @property
    def provider(self) -> TracerProvider | None:
        """The SDK tracer provider this capture listens on (the global one, unless one was given)."""
        return self._providers[0] if self._providers else None

    @property
    def providers(self) -> tuple[TracerProvider, ...]:
        """Every SDK tracer provider this capture listens on (the global one first)."""
        return self._providers

    @property
    def logger_provider(self) -> LoggerProvider | None:
        """The SDK logger provider this capture listens on (None: the global one is not the SDK's)."""
        return self._logger_provider

    @property
    def logs(self) -> tuple[LogRecord, ...]:
        """Every log record captured so far, in emit order (each also joins its span as an event)."""
        with self._lock:
            return tuple(self._logs)

    @property
    def spans(self) -> tuple[Span, ...]:
        """Every span captured so far, in start order (open ones with ``end_ns=None``)."""
        return self.trace().spans

    def trace(self) -> Trace:
        """A Trace of what was captured so far (rebuilt only when something changed); each log record
        joins its span as a ``SpanEvent`` (see ``_model.logs``)."""
        with self._lock:
            version = self._version
            cached = self._cached
            if cached is not None and cached[0] == version:
                return cached[1]
            entries = list(self._entries)
            logs = list(self._logs)

        spans: list[Span] = []
        for entry in entries:
            if entry.converted is not None:
                spans.append(entry.converted)
                continue
            sdk = entry.sdk_span
            converted = Span.from_readable(sdk)
            if converted.end_ns is not None:
                entry.converted = converted
            spans.append(converted)

        notes: list[str] = []
        if logs:
            from .._model.logs import join_logs  # read for the captures that hold log records

            spans, notes = join_logs(spans, logs)
        result = Trace(spans, warnings=notes, source=self.name, ledger=self.ledger)
        with self._lock:
            if self._version == version:
                self._cached = (version, result)
        return result

    def clear(self) -> None:
        """Forget every span captured so far (and what checks remembered)."""
        with self._lock:
            self._entries.clear()
            self._logs.clear()
            self._version += 1
            self._cached = None
        self.ledger = Ledger()

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        state = "active" if self._open else "closed"
        return f"Capture({len(self._entries)} spans, {state})"

    def start(
        self, tracer_provider: TracerProvider | None = None, logger_provider: LoggerProvider | None = None
    ) -> Capture:
        """Start capturing: on ``tracer_provider`` only, else on the global SDK provider and on every
        provider that was global at an earlier capture; log records from ``logger_provider``, else from
        the global SDK logger provider (installed when none is set; an app's provider is never replaced)."""
        processors = processors_for(tracer_provider)
        self._explicit = tracer_provider is not None
        self._providers = tuple(proc.provider for proc in processors)
        self._logger_provider = logger_provider if logger_provider is not None else global_logger_provider()
        log_processor = log_processor_for(self._logger_provider) if self._logger_provider else None

        for proc in processors:
            proc.begin(self)
        if log_processor is not None:
            log_processor.begin(self)
        self._open = True
        return self

    def stop(self) -> None:
        """Stop capturing; the spans captured so far stay readable."""
        if self._open:
            leave_all(self)
            log_processors_leave(self)
            self._open = False

    def check_provider(self) -> str | None:
        """Why spans may be missing (the global provider was replaced after the capture started), or
        None. A capture on an explicit ``tracer_provider`` never compares it with the global one."""
        if self._explicit or not self._providers:
            return None
        return provider_replaced(self._providers)

    def diagnosis(self) -> str | None:
        """Which tracer providers exist and how to attach one, when nothing was captured (else None)."""
        if self._entries or not self._providers:
            return None

        replaced = self.check_provider()
        if replaced is not None:
            return replaced
        return other_providers(self._providers, explicit=self._explicit)


@contextmanager
def capture(
    *,
    tracer_provider: TracerProvider | None = None,
    name: str | None = None,
    logger_provider: LoggerProvider | None = None,
) -> Iterator[Capture]:
    """Capture the spans started inside the block, and the log records of ``logger_provider`` (else
    the global SDK logger provider's)::

    with ta.capture() as cap:
        run_my_agent()
    ta.assert_trace(cap).called_tool("search")
    """
    cap = Capture(name=name)
    cap.start(tracer_provider, logger_provider)
    try:
        yield cap
    finally:
        cap.stop()
