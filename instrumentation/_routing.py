"""Tracers that decide where spans go when each span starts, not when the tracer is made.

Frameworks take their tracer from the global provider once (at import, or when their tracer object is
first built). The stacks hand them these instead, so spans reach the provider a test chose, or, with no
provider given, whatever provider is global when the span starts (the traceassert pytest plugin
installs its provider lazily, at the first capture).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from opentelemetry import trace
from opentelemetry.util.types import Attributes

__all__ = ["RoutingTracer", "RoutingTracerProvider"]


class RoutingTracer(trace.Tracer):
    """A tracer for ``provider``, or for the global provider (looked up per span) when it is None."""

    def __init__(
        self,
        provider: trace.TracerProvider | None,
        name: str,
        version: str | None = None,
        schema_url: str | None = None,
        attributes: Attributes = None,
    ) -> None:
        self._provider = provider
        self._args = (name, version, schema_url, attributes)
        self._cached: tuple[trace.TracerProvider, trace.Tracer] | None = None

    def _tracer(self) -> trace.Tracer:
        provider = self._provider if self._provider is not None else trace.get_tracer_provider()
        if self._cached is None or self._cached[0] is not provider:
            self._cached = (provider, provider.get_tracer(*self._args))
        return self._cached[1]

    def start_span(self, *args: Any, **kwargs: Any) -> trace.Span:
        return self._tracer().start_span(*args, **kwargs)

    def start_as_current_span(  # type: ignore[override]
        self, *args: Any, **kwargs: Any
    ) -> AbstractContextManager[trace.Span]:
        return self._tracer().start_as_current_span(*args, **kwargs)


class RoutingTracerProvider(trace.TracerProvider):
    """Hands out `RoutingTracer` s for ``provider`` (None: the global provider at each span start)."""

    def __init__(self, provider: trace.TracerProvider | None = None) -> None:
        self._provider = provider

    def get_tracer(
        self,
        instrumenting_module_name: str,
        instrumenting_library_version: str | None = None,
        schema_url: str | None = None,
        attributes: Attributes = None,
    ) -> trace.Tracer:
        return RoutingTracer(
            self._provider, instrumenting_module_name, instrumenting_library_version, schema_url, attributes
        )
