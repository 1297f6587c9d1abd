"""Finding OpenTelemetry SDK tracer providers: the global one (an SDK provider is installed when none is
set), the SDK provider behind a wrapper, and every SDK provider alive in the process."""

from __future__ import annotations

import gc

from opentelemetry import trace as otel_trace
from opentelemetry.sdk.trace import TracerProvider

from .._errors import TraceCaptureError

__all__ = ["global_sdk_provider", "sdk_providers", "unwrap"]


def unwrap(provider: object) -> object:
    """The SDK provider behind a wrapper that delegates to one (Logfire's global proxy, for example)."""
    for _ in range(3):
        if isinstance(provider, TracerProvider):
            return provider

        inner = getattr(provider, "provider", None)
        if inner is None or inner is provider:
            return provider
        provider = inner

    return provider


def global_sdk_provider() -> TracerProvider:
    """The global SDK provider; one is installed when none is set. A TraceCaptureError when the global
    provider is set but is not the SDK's."""
    current = unwrap(otel_trace.get_tracer_provider())
    if isinstance(current, TracerProvider):
        return current

    if isinstance(current, otel_trace.ProxyTracerProvider | otel_trace.NoOpTracerProvider):
        # nothing is set yet: install an SDK provider (an app that sets its own later is told so)
        otel_trace.set_tracer_provider(TracerProvider())
        current = unwrap(otel_trace.get_tracer_provider())
        if isinstance(current, TracerProvider):
            return current

    raise TraceCaptureError(
        f"the global tracer provider is {current!r}, not an OpenTelemetry SDK TracerProvider; traceassert "
        "can only capture from an SDK provider. Pass one with capture(tracer_provider=...)"
    )


def sdk_providers() -> list[TracerProvider]:
    """Every SDK tracer provider alive in the process (only asked when a check saw no span)."""
    current = unwrap(otel_trace.get_tracer_provider())
    found = [current] if isinstance(current, TracerProvider) else []
    found += [o for o in gc.get_objects() if isinstance(o, TracerProvider) and o is not current]
    return found
