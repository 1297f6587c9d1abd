"""Requests as real exporters make them: spans from the SDK, encoded by the SDK's own OTLP encoder
(protobuf), and the same request as OTLP/JSON (protobuf's JSON writer); and a plain HTTP client."""

from __future__ import annotations

import gzip
import http.client
from typing import Any
from urllib.parse import urlsplit

from google.protobuf.json_format import MessageToJson
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.trace import Link, SpanKind, Status, StatusCode

PROTO = "application/x-protobuf"
JSON = "application/json"


class _Keep(SpanExporter):
    def __init__(self) -> None:
        self.spans: list[ReadableSpan] = []

    def export(self, spans: Any) -> SpanExportResult:
        self.spans.extend(spans)
        return SpanExportResult.SUCCESS


def sdk_spans(traceparent_trace: int | None = None) -> list[ReadableSpan]:
    """A small agent-like trace with every kind of value: ints, floats, bools, arrays, events, a link, an
    error status, a CLIENT span."""
    keep = _Keep()
    provider = TracerProvider(resource=Resource.create({"service.name": "encoded", "deployment": "test"}))
    provider.add_span_processor(SimpleSpanProcessor(keep))
    tracer = provider.get_tracer("encoder", "1.2")
    with tracer.start_as_current_span(
        "invoke_agent planner", attributes={"gen_ai.agent.name": "planner"}
    ) as root:
        with tracer.start_as_current_span(
            "execute_tool search",
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "search",
                "gen_ai.tool.call.arguments": '{"q": "paris"}',
                "count": 3,
                "ratio": 0.5,
                "ok": True,
                "tags": ("a", "b"),
                "scores": (1.5, 2.5),
            },
            links=[Link(root.get_span_context(), {"why": "follows"})],
        ) as tool:
            tool.add_event("progress", {"step": 1})
            tool.set_status(Status(StatusCode.ERROR, "search failed"))
        with tracer.start_as_current_span("chat model", kind=SpanKind.CLIENT) as chat:
            chat.set_attribute("gen_ai.usage.input_tokens", 12)
    provider.shutdown()
    return keep.spans


def proto_body(spans: list[ReadableSpan]) -> bytes:
    return bytes(encode_spans(spans).SerializeToString())


def json_body(spans: list[ReadableSpan]) -> bytes:
    return MessageToJson(encode_spans(spans)).encode()


def post(
    endpoint: str, path: str, body: bytes, content_type: str = PROTO, *, gzipped: bool = False, **headers: str
) -> tuple[int, bytes]:
    """POST ``body``; (status, response body)."""
    parts = urlsplit(endpoint)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=30)
    head = {"Content-Type": content_type, **headers}
    if gzipped:
        body = gzip.compress(body)
        head["Content-Encoding"] = "gzip"
    try:
        conn.request("POST", path, body=body, headers=head)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()
