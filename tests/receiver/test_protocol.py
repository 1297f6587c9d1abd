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
