"""Routing spans to captures: one span processor per SDK tracer provider hands each span to the captures
that own it (the rules are in the package docstring); ``scope()`` adds an attribute to every span
started in its block."""

from __future__ import annotations

import contextvars
import functools
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider

from .._errors import TraceCaptureError
from .providers import global_sdk_provider

if TYPE_CHECKING:
    from opentelemetry.context import Context
    from opentelemetry.sdk.trace import Span as SdkSpan

    from .recording import Capture, Entry

__all__ = ["ensure_installed", "leave_all", "processors_for", "scope", "span_owners"]

_SCOPES: contextvars.ContextVar[tuple[tuple[str, Any], ...]] = contextvars.ContextVar(
    "traceassert_scopes", default=()
)


class _Processor(SpanProcessor):
    """The one span processor per SDK provider; routes spans to the active captures."""

    def __init__(self, provider: TracerProvider) -> None:
        self.provider = provider
        self._lock = threading.Lock()
        self._active: list[Capture] = []
        #: span id -> (weak ref to the SDK span, its owners); an entry leaves when its span is collected
        self._owner: dict[int, tuple[weakref.ref[SdkSpan], list[Capture]]] = {}
        self._entries: dict[int, list[Entry]] = {}

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

    def owners(self, span_id: int) -> list[Capture] | None:
        """The captures that own the span ``span_id`` (None: this processor does not know it)."""
        with self._lock:
            known = self._owner.get(span_id)
            return list(known[1]) if known is not None else None

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
        provider = global_sdk_provider()

        with self._lock:
            proc = self._processor_locked(provider)
            if not any(p is proc for p in self._globals):
                self._globals.append(proc)
            return [proc, *(p for p in self._globals if p is not proc)]

    def owners(self, span_id: int) -> list[Capture] | None:
        with self._lock:
            procs = list(self._by_provider.values())
        for proc in procs:
            found = proc.owners(span_id)
            if found is not None:
                return found
        return None

    def end(self, cap: Capture) -> None:
        with self._lock:
            procs = list(self._by_provider.values())

        for proc in procs:
            proc.end(cap)


_PROCESSOR_REGISTRY = _Registry()


def ensure_installed(tracer_provider: TracerProvider | None = None) -> _Processor:
    """The processor on ``tracer_provider`` (else the global SDK provider, installed if none is set)."""
    provider = tracer_provider if tracer_provider is not None else global_sdk_provider()
    if not isinstance(provider, TracerProvider):
        raise TraceCaptureError(f"{provider!r} is not an OpenTelemetry SDK TracerProvider")

    return _PROCESSOR_REGISTRY.processor_for(provider)


def processors_for(tracer_provider: TracerProvider | None) -> list[_Processor]:
    """The processors a capture starts on: ``tracer_provider``'s only, else the global SDK provider's
    and those of every provider that was global at an earlier capture."""
    if tracer_provider is not None:
        return [ensure_installed(tracer_provider)]

    return _PROCESSOR_REGISTRY.global_processors()


def leave_all(cap: Capture) -> None:
    """``cap`` leaves every processor: it gets no span from now on."""
    _PROCESSOR_REGISTRY.end(cap)


def span_owners(span_id: int) -> list[Capture] | None:
    """The captures that own the span ``span_id`` (None: no processor knows it)."""
    return _PROCESSOR_REGISTRY.owners(span_id)


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
