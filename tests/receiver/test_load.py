"""Load: ten real SDK exporters send at once, and every span is received exactly once (the big run, and the
spans per second, are in benchmarks/bench_receiver.py)."""

from __future__ import annotations

import threading
from collections import Counter

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult

import traceassert as ta

EXPORTERS = 10
SPANS_EACH = 300
BATCH = 100


class _Keep(SpanExporter):
    def __init__(self) -> None:
        self.spans: list[object] = []

    def export(self, spans: object) -> SpanExportResult:
        self.spans.extend(spans)  # type: ignore[call-overload]
        return SpanExportResult.SUCCESS


def _spans(n: int) -> list[object]:
    keep = _Keep()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(keep))
    tracer = provider.get_tracer("load")
    for i in range(n // 3):
        with tracer.start_as_current_span("request", attributes={"i": i}):
            with tracer.start_as_current_span("tool", attributes={"tool": "search"}):
                pass
            with tracer.start_as_current_span("chat", attributes={"gen_ai.usage.input_tokens": i}):
                pass
    return keep.spans


def test_ten_exporters_at_once_every_span_received_exactly_once() -> None:
    batches = [_spans(SPANS_EACH) for _ in range(EXPORTERS)]
    sent = Counter(f"{s.context.span_id:016x}" for spans in batches for s in spans)  # type: ignore[attr-defined]
    with ta.receiver() as rx:
        errors: list[object] = []

        def send(spans: list[object]) -> None:
            exporter = OTLPSpanExporter(endpoint=f"{rx.endpoint}/v1/traces")
            for i in range(0, len(spans), BATCH):
                result = exporter.export(spans[i : i + BATCH])  # type: ignore[arg-type]
                if result is not SpanExportResult.SUCCESS:
                    errors.append(result)
            exporter.shutdown()

        threads = [threading.Thread(target=send, args=(spans,)) for spans in batches]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
        assert errors == []
        received: Counter[str] = Counter()
        for trace_id in rx.trace_ids():
            received.update(s.span_id for s in rx.new_trace().trace(trace_id=trace_id, timeout=0).spans)
        assert received == sent
        assert rx.status()["counts"]["spans"] == EXPORTERS * SPANS_EACH
