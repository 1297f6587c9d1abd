"""In-memory span capture: one span processor per SDK tracer provider, routing spans to captures.

A span belongs to the captures active when it started (from any thread or asyncio task), except that a
span whose parent belongs to an earlier capture follows its parent, so work left running by an earlier
test does not leak into the next one. The owners of a span are kept for as long as its SDK span object
lives (a weak map by span id): no number of spans makes a capture forget a parent that can still get
children. The one limit: a *root* span (no parent) started by a thread that an earlier test left
running belongs to the capture active when it starts; nothing ties it to the earlier test.

Without an explicit provider a capture listens on the global SDK ``TracerProvider`` (installed lazily,
at the first capture, when none is set) and on every provider that was global at an earlier capture,
so tracers bound to a replaced provider are still heard. A global provider replaced during a capture
is a ``TraceCaptureError`` at the next check; ``Capture.diagnosis()`` says which providers exist when
nothing was captured. A provider that is not the SDK's is a ``TraceCaptureError``.
"""

from __future__ import annotations

import contextvars
import functools
import gc
import threading
import weakref
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from opentelemetry import trace as otel_trace
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider

from ._errors import TraceCaptureError
from ._model.span import Span
from ._trace import Ledger, Trace

if TYPE_CHECKING:
    from opentelemetry.context import Context
    from opentelemetry.sdk.trace import Span as SdkSpan

__all__ = ["Capture", "capture", "ensure_installed", "scope"]

_SCOPES: contextvars.ContextVar[tuple[tuple[str, Any], ...]] = contextvars.ContextVar(
    "traceassert_scopes", default=()
)


class _Entry:
    __slots__ = ("capture", "converted", "sdk_span")

    def __init__(self, capture: Capture, sdk_span: ReadableSpan) -> None:
        self.capture = capture
        self.sdk_span = sdk_span
        self.converted: Span | None = None


class Capture:
    """The spans started while this capture was active. Use ``ta.capture()`` to make one.

    ``spans`` and ``trace()`` read live: spans that end after a read are seen by the next one. Spans
    still open are included with ``end_ns=None``.
    """

    def __init__(self, *, name: str | None = None) -> None:
        self.name = name
        self._lock = threading.Lock()
        self._entries: list[_Entry] = []
        self._version = 0
        self._cached: tuple[int, Trace] | None = None
        self._open = False
        self._providers: tuple[TracerProvider, ...] = ()
        self._explicit = False
        #: what checks remember across asserters on this capture
        self.ledger = Ledger()

    # -- used by the processor -----------------------------------------------------------------------

    def _add(self, span: ReadableSpan) -> _Entry:
        entry = _Entry(self, span)
        with self._lock:
            self._entries.append(entry)
            self._version += 1
        return entry

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
    def spans(self) -> tuple[Span, ...]:
        """Every span captured so far, in start order (open ones with ``end_ns=None``)."""
        return self.trace().spans

    def trace(self) -> Trace:
        """A Trace of what was captured so far (rebuilt only when something changed)."""
        with self._lock:
            version = self._version
            cached = self._cached
            if cached is not None and cached[0] == version:
                return cached[1]
            entries = list(self._entries)
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
        result = Trace(spans, source=self.name, ledger=self.ledger)
        with self._lock:
            if self._version == version:
                self._cached = (version, result)
        return result

    def clear(self) -> None:
        """Forget every span captured so far (and what checks remembered)."""
        with self._lock:
            self._entries.clear()
            self._version += 1
            self._cached = None
        self.ledger = Ledger()

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        state = "active" if self._open else "closed"
        return f"Capture({len(self._entries)} spans, {state})"

    def start(self, tracer_provider: TracerProvider | None = None) -> Capture:
        """Start capturing: on ``tracer_provider`` only, else on the global SDK provider and on every
        provider that was global at an earlier capture."""
        if tracer_provider is not None:
            processors = [ensure_installed(tracer_provider)]
        else:
            processors = _PROCESSOR_REGISTRY.global_processors()
        self._explicit = tracer_provider is not None
        self._providers = tuple(proc.provider for proc in processors)
        for proc in processors:
            proc.begin(self)
        self._open = True
        return self

    def stop(self) -> None:
        """Stop capturing; the spans captured so far stay readable."""
        if self._open:
            _PROCESSOR_REGISTRY.end(self)
            self._open = False

    def check_provider(self) -> str | None:
        """Why spans may be missing (the global provider was replaced after the capture started), or
        None. A capture on an explicit ``tracer_provider`` never compares it with the global one."""
        if self._explicit or not self._providers:
            return None
        current = _unwrap(otel_trace.get_tracer_provider())
        if not isinstance(current, TracerProvider) or any(current is p for p in self._providers):
            return None
        return (
            "the global tracer provider was replaced after the capture started; spans sent to the new "
            "one are not captured. Set your provider before the first capture (in conftest.py or at "
            f"import), or attach it with ta.capture(tracer_provider=...)\n  the global provider now:"
            f"{_list([current])}\n  traceassert listens on:{_list(self._providers)}"
        )

    def diagnosis(self) -> str | None:
        """Which tracer providers exist and how to attach one, when nothing was captured (else None)."""
        if self._entries or not self._providers:
            return None
        replaced = self.check_provider()
        others = [p for p in _sdk_providers() if not any(p is q for q in self._providers)]
        if replaced is not None or not others:
            return replaced
        attach = (
            "capture that one instead (ta.capture() without tracer_provider= listens on the global one)"
            if self._explicit
            else "attach it with ta.capture(tracer_provider=...), or set it as the global provider before "
            "the first capture (in conftest.py or at import)"
        )
        return (
            "no span was captured, but other OpenTelemetry SDK tracer providers exist (spans sent to them "
            f"are not captured)\n  traceassert listens on:{_list(self._providers)}\n  other providers:"
            f"{_list(others)}\n  if your application uses one of those, {attach}"
        )


def _describe(provider: object) -> str:
    if not isinstance(provider, TracerProvider):
        return repr(provider)
    service = provider.resource.attributes.get("service.name")
    return f"TracerProvider(service.name={service!r}) at {id(provider):#x}"


def _list(providers: Iterable[object], limit: int = 5) -> str:
    items = list(providers)
    more = [f"... and {len(items) - limit} more"] if len(items) > limit else []
    return "".join(f"\n  - {text}" for text in [*(_describe(p) for p in items[:limit]), *more])


def _sdk_providers() -> list[TracerProvider]:
    """Every SDK tracer provider alive in the process (only asked when a check saw no span)."""
    current = _unwrap(otel_trace.get_tracer_provider())
    found = [current] if isinstance(current, TracerProvider) else []
    found += [o for o in gc.get_objects() if isinstance(o, TracerProvider) and o is not current]
    return found


class _Processor(SpanProcessor):
    """The one span processor per SDK provider; routes spans to the active captures."""

    def __init__(self, provider: TracerProvider) -> None:
        self.provider = provider
        self._lock = threading.Lock()
        self._active: list[Capture] = []
        #: span id -> (weak ref to the SDK span, its owners); an entry leaves when its span is collected
        self._owner: dict[int, tuple[weakref.ref[SdkSpan], list[Capture]]] = {}
        self._entries: dict[int, list[_Entry]] = {}

    def begin(self, cap: Capture) -> None:
        with self._lock:
            if cap not in self._active:
                self._active.append(cap)

    def end(self, cap: Capture) -> None:
        with self._lock:
            if cap in self._active:
                self._active.remove(cap)

    def _forget(self, span_id: int, ref: weakref.ref[SdkSpan]) -> None:
        # called by the garbage collector, possibly while this thread holds the lock: no locking here
        known = self._owner.get(span_id)
        if known is not None and known[0] is ref:
            self._owner.pop(span_id, None)

    def on_start(self, span: SdkSpan, parent_context: Context | None = None) -> None:
        scopes = _SCOPES.get()
        if scopes:
            for name, value in scopes:
                span.set_attribute(f"scope.{name}", value)
        ctx = span.context
        parent = span.parent
        parent_id = parent.span_id if parent is not None else 0  # an all-zero parent id: a root
        with self._lock:
            owners = list(self._active)
            if parent_id:
                known = self._owner.get(parent_id)
                if known is not None:
                    still_open = [c for c in known[1] if c._open]
                    if not still_open:
                        return  # the parent's captures have all ended: a straggler from earlier work
                    owners.extend(c for c in still_open if c not in owners)
            if not owners:
                return
            if ctx is not None:
                ref = weakref.ref(span, functools.partial(self._forget, ctx.span_id))
                self._owner[ctx.span_id] = (ref, owners)
        entries = [cap._add(span) for cap in owners]
        if ctx is not None:
            with self._lock:
                self._entries[ctx.span_id] = entries

    def on_end(self, span: ReadableSpan) -> None:
        ctx = span.context
        if ctx is None:
            return
        with self._lock:
            entries = self._entries.pop(ctx.span_id, None)
        if not entries:
            return
        for entry in entries:
            # converted when the capture is next read; the SDK span object itself is let go
            entry.sdk_span = span
            entry.converted = None
            entry.capture._ended()

    def shutdown(self) -> None:
        with self._lock:
            self._active.clear()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


class _Registry:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_provider: dict[int, _Processor] = {}
        #: the processors of every provider that was global when a capture started, oldest first
        self._globals: list[_Processor] = []

    def _processor_locked(self, provider: TracerProvider) -> _Processor:
        proc = self._by_provider.get(id(provider))
        if proc is None or proc.provider is not provider:
            proc = _Processor(provider)
            provider.add_span_processor(proc)
            self._by_provider[id(provider)] = proc
        return proc

    def processor_for(self, provider: TracerProvider) -> _Processor:
        with self._lock:
            return self._processor_locked(provider)

    def global_processors(self) -> list[_Processor]:
        """The current global provider's processor first, then those of earlier global providers."""
        provider = _global_sdk_provider()
        with self._lock:
            proc = self._processor_locked(provider)
            if not any(p is proc for p in self._globals):
                self._globals.append(proc)
            return [proc, *(p for p in self._globals if p is not proc)]

    def end(self, cap: Capture) -> None:
        with self._lock:
            procs = list(self._by_provider.values())
        for proc in procs:
            proc.end(cap)


_PROCESSOR_REGISTRY = _Registry()


def _unwrap(provider: object) -> object:
    """The SDK provider behind a wrapper that delegates to one (Logfire's global proxy, for example)."""
    for _ in range(3):
        if isinstance(provider, TracerProvider):
            return provider
        inner = getattr(provider, "provider", None)
        if inner is None or inner is provider:
            return provider
        provider = inner
    return provider


def _global_sdk_provider() -> TracerProvider:
    current = _unwrap(otel_trace.get_tracer_provider())
    if isinstance(current, TracerProvider):
        return current
    if isinstance(current, otel_trace.ProxyTracerProvider | otel_trace.NoOpTracerProvider):
        # nothing is set yet: install an SDK provider (an app that sets its own later is told so)
        otel_trace.set_tracer_provider(TracerProvider())
        current = _unwrap(otel_trace.get_tracer_provider())
        if isinstance(current, TracerProvider):
            return current
    raise TraceCaptureError(
        f"the global tracer provider is {current!r}, not an OpenTelemetry SDK TracerProvider; traceassert "
        "can only capture from an SDK provider. Pass one with capture(tracer_provider=...)"
    )


def ensure_installed(tracer_provider: TracerProvider | None = None) -> _Processor:
    """The processor on ``tracer_provider`` (else the global SDK provider, installed if none is set)."""
    provider = tracer_provider if tracer_provider is not None else _global_sdk_provider()
    if not isinstance(provider, TracerProvider):
        raise TraceCaptureError(f"{provider!r} is not an OpenTelemetry SDK TracerProvider")
    return _PROCESSOR_REGISTRY.processor_for(provider)


@contextmanager
def capture(*, tracer_provider: TracerProvider | None = None, name: str | None = None) -> Iterator[Capture]:
    """Capture the spans started inside the block::

    with ta.capture() as cap:
        run_my_agent()
    ta.assert_trace(cap).called_tool("search")
    """
    cap = Capture(name=name)
    cap.start(tracer_provider)
    try:
        yield cap
    finally:
        cap.stop()


@contextmanager
def scope(name: str, value: Any) -> Iterator[None]:
    """Every span started inside the block gets the attribute ``scope.<name>`` = ``value``."""
    if not name:
        raise ValueError("a scope needs a name")
    ensure_installed()
    token = _SCOPES.set((*_SCOPES.get(), (name, value)))
    try:
        yield
    finally:
        _SCOPES.reset(token)
