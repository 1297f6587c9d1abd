"""Why a capture's spans may be missing, in words: the global provider was replaced after the capture
started, or nothing was captured while other SDK tracer providers exist."""

from __future__ import annotations

from collections.abc import Iterable

from opentelemetry import trace as otel_trace
from opentelemetry.sdk.trace import TracerProvider

from .providers import sdk_providers, unwrap

__all__ = ["other_providers", "provider_replaced"]


def provider_replaced(providers: tuple[TracerProvider, ...]) -> str | None:
    """What to say when the global SDK provider is none of ``providers`` (the ones a capture listens
    on: it was replaced after the capture started), else None."""
    current = unwrap(otel_trace.get_tracer_provider())
    if not isinstance(current, TracerProvider) or any(current is p for p in providers):
        return None

    return (
        "the global tracer provider was replaced after the capture started; spans sent to the new "
        "one are not captured. Set your provider before the first capture (in conftest.py or at "
        "import), or attach it with ta.capture(tracer_provider=...)\n  the global provider now:"
        f"{_list([current])}\n  traceassert listens on:{_list(providers)}"
    )


def other_providers(providers: tuple[TracerProvider, ...], *, explicit: bool) -> str | None:
    """What to say when nothing was captured on ``providers`` but other SDK providers exist (else None);
    ``explicit``: the capture was given its provider."""
    others = [p for p in sdk_providers() if not any(p is q for q in providers)]
    if not others:
        return None

    attach = (
        "capture that one instead (ta.capture() without tracer_provider= listens on the global one)"
        if explicit
        else "attach it with ta.capture(tracer_provider=...), or set it as the global provider before "
        "the first capture (in conftest.py or at import)"
    )
    return (
        "no span was captured, but other OpenTelemetry SDK tracer providers exist (spans sent to them "
        f"are not captured)\n  traceassert listens on:{_list(providers)}\n  other providers:"
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
