"""The receiver speaks OTLP as the specification says: the same spans from protobuf and JSON (and as the
file loaders read the same request), partial success, 400 with the loaders' typed errors, 413 before and
after gzip, and never a crash. Requests are made by the SDK's own encoder and a plain HTTP client."""

from __future__ import annotations

import json
import random

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

import traceassert as ta
from traceassert._errors import TraceLoadError
from traceassert._loaders import otlp_proto, parse_spans
from traceassert._loaders.common import Context
from traceassert._receive import Limits

from ._requests import JSON, PROTO, json_body, post, proto_body, sdk_spans


def _fields(span: ta.Span) -> tuple[object, ...]:
    return (
        span.trace_id,
        span.span_id,
        span.parent_id,
        span.name,
        span.kind,
        span.start_ns,
        span.end_ns,
        span.status,
        dict(span.attributes),
        span.events,
        dict(span.resource),
        span.scope_name,
        span.scope_version,
        span.links,
    )


def test_protobuf_and_json_give_the_same_spans_as_the_file_loaders(shared: ta.Receiver) -> None:
    spans = sdk_spans()
    by_file = sorted(_fields(s) for s in parse_spans(json_body(spans)).spans)
    ctx = Context("<request>")
    otlp_proto.spans_of(otlp_proto.parse_traces(proto_body(spans)), ctx)
    assert sorted(_fields(s) for s in ctx.spans) == by_file

    for content_type, encode in ((PROTO, proto_body), (JSON, json_body)):
        spans = sdk_spans()
        status, _ = post(shared.endpoint, "/v1/traces", encode(spans), content_type)
        assert status == 200
        trace_id = f"{spans[0].context.trace_id:032x}"
        received = sorted(_fields(s) for s in shared.trace(trace_id=trace_id).spans)
        assert received == sorted(_fields(s) for s in parse_spans(json_body(spans)).spans)
        assert len(received) == 3


def test_a_refused_span_is_a_partial_success_and_the_rest_is_kept(shared: ta.Receiver) -> None:
    spans = sdk_spans()
    request = ExportTraceServiceRequest()
    request.ParseFromString(proto_body(spans))
    request.resource_spans[0].scope_spans[0].spans[1].trace_id = b"\x01" * 5
    status, body = post(shared.endpoint, "/v1/traces", request.SerializeToString())
    assert status == 200
    answer = ExportTraceServiceResponse.FromString(body)
    assert answer.partial_success.rejected_spans == 1
    assert "trace id of 5 bytes (expected 16)" in answer.partial_success.error_message
    assert "resourceSpans[0].scopeSpans[0].spans[1]" in answer.partial_success.error_message
    kept = shared.trace(trace_id=f"{spans[0].context.trace_id:032x}", timeout=0)
    assert len(kept.spans) == len(spans) - 1

    doc = json.loads(json_body(sdk_spans()))
    doc["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["kind"] = 42
    status, body = post(shared.endpoint, "/v1/traces", json.dumps(doc).encode(), JSON)
    assert status == 200
    partial = json.loads(body)["partialSuccess"]
    assert partial["rejectedSpans"] == "1"
    assert "unknown span kind 42" in partial["errorMessage"]


def _deep(levels: int) -> dict[str, object]:
    value: dict[str, object] = {"stringValue": "x"}
    for _ in range(levels):
        value = {"arrayValue": {"values": [value]}}
    return value


#: a body -> what both the receiver's reason and the file loaders' error say
HOSTILE = {
    "not json": (b"this is not json", "line 1, column 1: invalid JSON: Expecting value"),
    "cut off": (
        b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "0af7651916cd43dd8448eb211c80319c"',
        "the data is cut off at line 1, column 93",
    ),
    "invalid utf-8": (
        b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "0af7651916cd43dd8448eb211c80319c", '
        b'"spanId": "b7ad6b7169203331", "name": "\xff\xfe"}]}]}]}',
        "invalid UTF-8 at byte 114",
    ),
    "not otlp": (b'{"data": [{"traceID": 1}]}', "not a otlp record"),
}


@pytest.mark.parametrize("name", HOSTILE)
def test_a_malformed_body_is_a_400_with_the_loaders_reason(shared: ta.Receiver, name: str) -> None:
    body, said = HOSTILE[name]
    status, answer = post(shared.endpoint, "/v1/traces", body, JSON)
    assert status == 400
    reason = json.loads(answer)["message"]
    noted = [r for r in shared.status()["requests"] if r["status"] == 400][-1]
    assert noted["reason"] == reason
    assert said in reason
    try:
        result = parse_spans(body, format="otlp")
    except TraceLoadError as exc:
        loaders = str(exc)
    else:
        loaders = " ".join(result.partial)
    assert said in loaders


def test_hostile_values_are_refused_with_typed_reasons(shared: ta.Receiver) -> None:
    """Deep nesting and huge strings: a refused span (the loaders' depth limit), never a crash; protobuf
    the parser refuses (invalid UTF-8, nesting past its limit) is a 400."""
    span = {
        "traceId": "0af7651916cd43dd8448eb211c80319c",
        "spanId": "b7ad6b7169203331",
        "name": "deep",
        "attributes": [
            {"key": "k", "value": _deep(100)},
            {"key": "big", "value": {"stringValue": "x" * 2_000_000}},
        ],
    }
    body = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}).encode()
    status, answer = post(shared.endpoint, "/v1/traces", body, JSON)
    assert status == 200
    assert "nested deeper than 64 levels" in json.loads(answer)["partialSuccess"]["errorMessage"]

    spans = sdk_spans()
    bad_utf8 = proto_body(spans).replace(b"chat model", b"chat \xff\xfe\xfd\xfc\xfb")
    status, answer = post(shared.endpoint, "/v1/traces", bad_utf8)
    assert status == 400
    assert b"invalid OTLP protobuf" in answer


def test_sizes_past_the_limits_are_413_before_and_after_gzip() -> None:
    limits = Limits(max_request_bytes=50_000, max_decoded_bytes=200_000)
    with ta.receiver(limits=limits) as rx:
        status, _ = post(rx.endpoint, "/v1/traces", b"{" + b" " * 60_000 + b"}", JSON)
        assert status == 413
        bomb = b'{"resourceSpans": [], "pad": "' + b"a" * 1_000_000 + b'"}'
        status, answer = post(rx.endpoint, "/v1/traces", bomb, JSON, gzipped=True)
        assert status == 413
        assert "decompressed size exceeds the limit of 200000 bytes" in json.loads(answer)["message"]
        status, _ = post(
            rx.endpoint,
            "/v1/traces",
            b"\x1f\x8b\x08\x00" + b"\x00" * 20,
            JSON,
            **{"Content-Encoding": "gzip"},
        )
        assert status == 400
        small = proto_body(sdk_spans())
        assert post(rx.endpoint, "/v1/traces", small, gzipped=True)[0] == 200
        codes = sorted(r["status"] for r in rx.status()["requests"])
        assert codes == [200, 400, 413, 413]


def test_wrong_paths_types_and_protocols_are_answered_and_noted(shared: ta.Receiver) -> None:
    assert post(shared.endpoint, "/v1/metrics", b"{}", JSON)[0] == 404
    assert post(shared.endpoint, "/v1/traces", b"{}", "text/plain")[0] == 415
    assert post(shared.endpoint, "/v1/traces", b"{}", JSON)[0] == 200  # an empty request
    status = shared.status()
    kinds = {(k[1], k[2]) for k in status["kinds"]}
    assert {("/v1/metrics", 404), ("/v1/traces", 415)} <= kinds


def test_random_bodies_never_crash_the_receiver(shared: ta.Receiver) -> None:
    rng = random.Random(25)
    good = proto_body(sdk_spans())
    for i in range(150):
        if i % 2:
            body = bytearray(good)
            for _ in range(rng.randint(1, 8)):
                body[rng.randrange(len(body))] = rng.randrange(256)
            data = bytes(body)
        else:
            data = bytes(rng.randrange(256) for _ in range(rng.randint(0, 300)))
        status, _ = post(
            shared.endpoint, "/v1/traces" if i % 3 else "/v1/logs", data, PROTO if i % 4 else JSON
        )
        assert status in (200, 400), (i, status)
    assert not [r for r in shared.status()["requests"] if r["status"] >= 500]
    assert post(shared.endpoint, "/v1/traces", good)[0] == 200


def _raw(endpoint: str, data: bytes) -> bytes:
    """What the receiver answers to raw bytes on a connection of their own (read to its close)."""
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(endpoint)
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as conn:
        conn.sendall(data)
        conn.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_the_http_layer_answers_what_it_cannot_take_and_keeps_connections(shared: ta.Receiver) -> None:
    body = proto_body(sdk_spans())
    post_line = b"POST /v1/traces HTTP/1.1\r\nContent-Type: application/x-protobuf\r\n"
    # two requests on one connection (keep-alive), the second after an Expect: 100-continue
    two = (
        post_line
        + b"Content-Length: %d\r\n\r\n" % len(body)
        + body
        + post_line
        + b"Expect: 100-continue\r\nContent-Length: %d\r\n\r\n" % len(body)
        + body
    )
    answer = _raw(shared.endpoint, two)
    assert answer.count(b"HTTP/1.1 200 OK\r\n") == 2
    assert b"HTTP/1.1 100 Continue\r\n\r\n" in answer
    assert _raw(shared.endpoint, b"PUT /v1/traces HTTP/1.1\r\nContent-Length: 0\r\n\r\n").startswith(
        b"HTTP/1.1 405 Method Not Allowed\r\n"
    )
    assert _raw(shared.endpoint, b"HELLO\r\n\r\n").startswith(b"HTTP/1.1 400 Bad Request\r\n")
    long_header = b"POST /v1/traces HTTP/1.1\r\nX-Big: " + b"a" * 70_000 + b"\r\n\r\n"
    assert _raw(shared.endpoint, long_header).startswith(b"HTTP/1.1 431 ")
    no_length = _raw(shared.endpoint, post_line + b"\r\n")
    assert no_length.startswith(b"HTTP/1.1 411 Length Required\r\n")
    assert b"Connection: close" in no_length
    assert _raw(shared.endpoint, b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") == b""  # a gRPC client: noted, closed
    reasons = [r["reason"] for r in shared.status()["requests"] if r["status"] in (400, 405, 431, 505)]
    assert any(
        "an HTTP/2 client (an OTLP/gRPC exporter) connected to the OTLP/HTTP port" in (r or "")
        for r in reasons
    )
    assert any("not an HTTP/1.x request line" in (r or "") for r in reasons)
    assert any("PUT /v1/traces: OTLP is sent with POST" in (r or "") for r in reasons)


def test_a_protobuf_value_nested_too_deep_is_refused_when_built_and_named() -> None:
    """The protobuf parser refuses nesting before the loaders' limit (a 400, above); a request made in
    memory can go deeper, and its span is then refused when built, by name, the others kept."""
    from traceassert._receive.proto_index import build, index_request

    spans = sdk_spans()
    request = ExportTraceServiceRequest()
    request.ParseFromString(proto_body(spans))
    target = request.resource_spans[0].scope_spans[0].spans[0]
    value = target.attributes.add(key="deep").value
    for _ in range(70):
        value = value.array_value.values.add()
    value.string_value = "x"
    batches, refused, _error = index_request(request, "<memory>")
    assert refused == 0
    built, notes = build(list(batches.values()), {})
    assert len(built) == len(spans) - 1
    assert notes == [
        f"refused span {target.span_id.hex()} ({target.name!r}) of a protobuf request: attribute value "
        "nested deeper than 64 levels"
    ]
