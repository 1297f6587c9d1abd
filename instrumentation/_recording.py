"""Recording a stack's spans: the scenario, run instrumented on a private provider with an in-memory
exporter."""

from __future__ import annotations

from collections.abc import Callable

from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

__all__ = ["record_spans"]


def record_spans(
    instrument: Callable[[TracerProvider], None], uninstrument: Callable[[], None], run: Callable[[], object]
) -> list[ReadableSpan]:
    """``instrument`` a fresh provider, ``run`` the scenario, ``uninstrument``; return the finished spans.

    The instrumentation is switched off (and the provider shut down) even when the run fails.
    """
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    instrument(provider)
    try:
        run()
    finally:
        uninstrument()
        provider.shutdown()
    return list(exporter.get_finished_spans())
