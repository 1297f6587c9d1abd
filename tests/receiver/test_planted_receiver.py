"""The receiver where planted bugs survived the other tests (tests/mutants/catalogue_receive.py): a body of
exactly the size limit, a chunked body past it in small chunks, the span limit and the partial success it
gives, a trace whose root came in an earlier request, Content-Encoding it does not speak or that lies, the
root under the test's traceparent (OTLP/JSON) or under a span of another process (protobuf), a wait that
ends soon after the process given exited and is not repeated for each check, and the diagnosis: the
protocol the app used, and what it quotes redacted.

Requests made by the SDK's own OTLP encoder and a plain HTTP client, as in test_protocol.py."""

from __future__ import annotations

import http.client
import json
import subprocess
import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from opentelemetry import propagate
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult

import traceassert as ta
from traceassert._receive import Limits

from ._requests import JSON, PROTO, json_body, post, proto_body, sdk_spans

SECRET = "sk-live-0123456789abcdef"


def _trace_id(spans: list[ReadableSpan]) -> str:
    return f"{spans[0].context.trace_id:032x}"


def _padded(size: int) -> bytes:
    """An empty OTLP/JSON request of exactly ``size`` bytes (JSON allows the white space)."""
    body = b'{"resourceSpans": []}'
    return body + b" " * (size - len(body))


def test_a_body_of_exactly_the_limit_is_taken() -> None:
    with ta.receiver(limits=Limits(max_request_bytes=5_000)) as rx:
        assert post(rx.endpoint, "/v1/traces", _padded(5_000), JSON)[0] == 200
        assert post(rx.endpoint, "/v1/traces", _padded(5_001), JSON)[0] == 413


def _chunked(endpoint: str, chunks: list[bytes]) -> tuple[int, bytes]:
    """POST ``chunks`` with chunked transfer encoding (as Node's exporters send); (status, body)."""
    parts = urlsplit(endpoint)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=30)
    try:
        conn.request(
            "POST", "/v1/traces", body=iter(chunks), headers={"Content-Type": JSON}, encode_chunked=True
        )
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def test_a_chunked_body_is_held_to_the_limit_in_total() -> None:
    """Refused as soon as the chunks pass the limit, before the rest is read."""
    with ta.receiver(limits=Limits(max_request_bytes=5_000)) as rx:
        body = _padded(8_000)
        status, answer = _chunked(rx.endpoint, [body[i : i + 1_000] for i in range(0, len(body), 1_000)])
        assert status == 413
        assert (
            json.loads(answer)["message"] == "the chunked request body is larger than the limit of 5000 bytes"
        )
        body = _padded(4_000)
        assert _chunked(rx.endpoint, [body[i : i + 1_000] for i in range(0, len(body), 1_000)])[0] == 200
        assert sorted(r["status"] for r in rx.status()["requests"]) == [200, 413]


def test_spans_past_max_spans_are_refused_whole_trace_by_trace() -> None:
    with ta.receiver(limits=Limits(max_spans=3)) as rx:
        first = sdk_spans()
        assert post(rx.endpoint, "/v1/traces", proto_body(first)) == (200, b"")  # 3 spans: the limit
        second = sdk_spans()
        status, body = post(rx.endpoint, "/v1/traces", proto_body(second))
        assert status == 200
        partial = ExportTraceServiceResponse.FromString(body).partial_success
        assert partial.rejected_spans == 3
        assert partial.error_message == "the receiver holds its limit of 3 spans (max_spans)"
        assert len(rx.trace(trace_id=_trace_id(first), timeout=0).spans) == 3
        assert rx.status()["counts"]["spans"] == 3


def test_a_root_that_came_in_an_earlier_request_stays_the_root(shared: ta.Receiver) -> None:
    spans = sdk_spans()  # ended children first: search, chat model, then the root
    (root,) = [s for s in spans if s.parent is None]
    children = [s for s in spans if s.parent is not None]
    assert post(shared.endpoint, "/v1/traces", proto_body([root]))[0] == 200
    assert post(shared.endpoint, "/v1/traces", proto_body(children))[0] == 200
    trace = shared.new_trace().wait(trace_id=_trace_id(spans), timeout=0)
    assert len(trace.spans) == 3


def test_content_encodings_other_than_gzip_and_bodies_that_are_not_gzip_are_400(shared: ta.Receiver) -> None:
    body = json_body(sdk_spans())
    status, answer = post(shared.endpoint, "/v1/traces", body, JSON, **{"Content-Encoding": "br"})
    assert status == 400
    assert "unsupported Content-Encoding 'br' (gzip or none)" in json.loads(answer)["message"]
    status, answer = post(shared.endpoint, "/v1/traces", body, JSON, **{"Content-Encoding": "gzip"})
    assert status == 400
    assert "Content-Encoding is gzip but the body is not gzip data" in json.loads(answer)["message"]


class _Keep(SpanExporter):
    def __init__(self) -> None:
        self.spans: list[ReadableSpan] = []

    def export(self, spans: object) -> SpanExportResult:
        self.spans.extend(spans)  # type: ignore[call-overload]
        return SpanExportResult.SUCCESS


def _app(traceparent: str) -> list[ReadableSpan]:
    """An app's spans started in the context a ``traceparent`` header names (the real SDK)."""
    keep = _Keep()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(keep))
    tracer = provider.get_tracer("app")
    with tracer.start_as_current_span("handle", context=propagate.extract({"traceparent": traceparent})):
        with tracer.start_as_current_span("step"):
            pass
    provider.shutdown()
    return keep.spans


@pytest.mark.parametrize(("content_type", "encode"), [(PROTO, proto_body), (JSON, json_body)])
def test_the_root_under_the_test_s_traceparent_completes_the_trace(
    shared: ta.Receiver, content_type: str, encode: object
) -> None:
    rx = shared.new_trace()
    assert post(shared.endpoint, "/v1/traces", encode(_app(rx.traceparent)), content_type)[0] == 200  # type: ignore[operator]
    trace = rx.wait(timeout=0)
    assert [s.name for s in trace.spans if s.parent_id is None] == ["handle"]


def test_a_json_root_under_the_test_s_traceparent_without_flags_completes_the_trace(
    shared: ta.Receiver,
) -> None:
    """A JSON exporter that writes no ``flags`` (older SDKs, other languages) leaves only the parent id to
    tell: a span whose parent is the test's own traceparent span is the trace's root."""
    rx = shared.new_trace()
    doc = json.loads(json_body(_app(rx.traceparent)))
    for resource in doc["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                span.pop("flags", None)
    assert post(shared.endpoint, "/v1/traces", json.dumps(doc).encode(), JSON)[0] == 200
    trace = rx.wait(timeout=0)
    assert [s.name for s in trace.spans if s.parent_id is None] == ["handle"]


def test_a_root_under_a_span_of_another_process_completes_the_trace(shared: ta.Receiver) -> None:
    """The app's first span hangs under a service's span (not the test's): protobuf's flags say the
    parent is in another process, so the trace has its root."""
    rx = shared.new_trace()
    upstream = f"00-{rx.trace_id}-{'5' * 16}-01"
    assert post(shared.endpoint, "/v1/traces", proto_body(_app(upstream)))[0] == 200
    assert sorted(s.name for s in rx.wait(timeout=0).spans) == ["handle", "step"]


def test_a_json_root_under_a_span_of_another_process_completes_the_trace(shared: ta.Receiver) -> None:
    """The same over OTLP/JSON: the JSON span readers keep what the flags say of the parent."""
    rx = shared.new_trace()
    upstream = f"00-{rx.trace_id}-{'5' * 16}-01"
    assert post(shared.endpoint, "/v1/traces", json_body(_app(upstream)), JSON)[0] == 200
    assert sorted(s.name for s in rx.wait(timeout=0).spans) == ["handle", "step"]


def test_the_wait_ends_soon_after_the_process_exited() -> None:
    with ta.receiver() as rx:
        done = subprocess.CompletedProcess(["app"], 3)
        started = time.monotonic()
        with pytest.raises(ta.ReceiveTimeout) as err:
            rx.wait(timeout=60, process=done)
        assert time.monotonic() - started < 20  # a quiet period (0.25 s) after the exit, not the timeout
        assert "the process exited (code 3) before any span of the trace arrived" in str(err.value)


def test_a_receiver_that_received_nothing_is_not_waited_on_again_for_each_check() -> None:
    with ta.receiver() as rx:
        with pytest.raises(ta.ReceiveTimeout):
            rx.wait(timeout=0.2)
        started = time.monotonic()
        assert rx.trace(timeout=60).spans == ()
        assert time.monotonic() - started < 20


@pytest.fixture
def lonely() -> Iterator[ta.Receiver]:
    """A receiver of its own, whose test asked for OTLP/HTTP protobuf."""
    with ta.receiver() as rx:
        rx.env("http/protobuf")
        yield rx


def test_the_diagnosis_says_the_protocol_the_app_used(lonely: ta.Receiver) -> None:
    assert post(lonely.endpoint, "/v1/traces", json_body(sdk_spans()), JSON)[0] == 200
    with pytest.raises(ta.ReceiveTimeout) as err:
        lonely.wait(timeout=0)
    assert (
        "    - 1 x http/json /v1/traces: answered 200\n    the app used http/json, not http/protobuf"
        in str(err.value)
    )


def test_the_diagnosis_redacts_what_it_quotes(lonely: ta.Receiver) -> None:
    """A span name and an endpoint path with an API key in them (some vendors put the key in the URL)."""
    other = sdk_spans()
    doc = json.loads(json_body(other))
    for scope in doc["resourceSpans"][0]["scopeSpans"]:
        for span in scope["spans"]:
            span["name"] = f"GET /search?key={SECRET}"
    assert post(lonely.endpoint, "/v1/traces", json.dumps(doc).encode(), JSON)[0] == 200
    assert post(lonely.endpoint, f"/v1/{SECRET}/traces", b"{}", JSON)[0] == 404
    with pytest.raises(ta.ReceiveTimeout) as err:
        lonely.wait(timeout=0)
    text = str(err.value)
    assert f"{_trace_id(other)}: 3 span(s), first 'GET /search?key=[REDACTED]', service 'encoded'" in text
    assert "refused (404): no OTLP endpoint at /v1/[REDACTED]/traces" in text
    assert SECRET not in text
