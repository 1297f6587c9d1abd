"""An all-zero parent span id means a root, in every source; a span still running fails under_duration."""

from __future__ import annotations

import json
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace import _Span as SdkSpan
from opentelemetry.trace import SpanContext, TraceFlags

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder
from traceassert._loaders import parse_spans
from traceassert._model.span import Span

TRACE = "cf9fe7b23e444c00cc683d5edad09df2"
ROOT = "46d2a18dee067689"
CHILD = "9c706817cf39879d"
ZERO_HEX = "0000000000000000"
ZERO_B64 = "AAAAAAAAAAA="  # base64 of 8 zero bytes


def _root_and_child(spans: list[Span]) -> None:
    """The zero-parent span is a root (parent_id None, not an orphan); its child still hangs under it."""
    trace = ta.Trace(spans)
    by_name = {s.name: s for s in trace.spans}
    assert by_name["root"].parent_id is None
    assert trace.roots == (by_name["root"],)
    assert trace.orphans == ()
    assert trace.parent(by_name["child"]) is by_name["root"]


def _otlp(parent: str, id_of: Any = str) -> str:
    spans = [
        {
            "traceId": TRACE,
            "spanId": ROOT,
            "parentSpanId": parent,
            "name": "root",
            "kind": 1,
            "startTimeUnixNano": "1",
            "endTimeUnixNano": "5",
        },
        {
            "traceId": TRACE,
            "spanId": CHILD,
            "parentSpanId": ROOT,
            "name": "child",
            "kind": 1,
            "startTimeUnixNano": "2",
            "endTimeUnixNano": "3",
        },
    ]
    return json.dumps({"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {}, "spans": spans}]}]})


@pytest.mark.parametrize("zero", [ZERO_HEX, ZERO_B64])
def test_otlp_all_zero_parent_is_a_root(zero: str, backend: str) -> None:
    result = parse_spans(_otlp(zero), format="otlp")
    _root_and_child(result.spans)


def test_otlp_base64_ids_with_an_all_zero_parent(backend: str) -> None:
    import base64

    def b64(hex_id: str) -> str:
        return base64.b64encode(bytes.fromhex(hex_id)).decode()

    doc = json.loads(_otlp(ZERO_B64))
    for span in doc["resourceSpans"][0]["scopeSpans"][0]["spans"]:
        span["traceId"], span["spanId"] = b64(span["traceId"]), b64(span["spanId"])
        if span["parentSpanId"] != ZERO_B64:
            span["parentSpanId"] = b64(span["parentSpanId"])
    _root_and_child(parse_spans(json.dumps(doc), format="otlp").spans)


@pytest.mark.parametrize("zero", ["0x" + ZERO_HEX, ZERO_HEX])
def test_sdk_to_json_all_zero_parent_is_a_root(zero: str) -> None:
    def one(name: str, span_id: str, parent: str) -> dict[str, Any]:
        return {
            "name": name,
            "context": {"trace_id": "0x" + TRACE, "span_id": "0x" + span_id, "trace_state": "[]"},
            "kind": "SpanKind.INTERNAL",
            "parent_id": parent,
            "start_time": "2026-11-29T19:13:30.269023Z",
            "end_time": "2026-11-29T19:13:30.269064Z",
            "status": {"status_code": "UNSET"},
            "attributes": {},
            "events": [],
            "links": [],
            "resource": {"attributes": {}, "schema_url": ""},
        }

    text = json.dumps([one("root", ROOT, zero), one("child", CHILD, "0x" + ROOT)])
    _root_and_child(parse_spans(text, format="sdk").spans)


@pytest.mark.parametrize("zero", ["0x" + ZERO_HEX, ZERO_HEX])
def test_okahu_all_zero_parent_is_a_root(zero: str) -> None:
    def one(name: str, span_id: str, parent: str) -> dict[str, Any]:
        return {
            "span_name": name,
            "start_time": "2026-11-29T19:13:30.269023Z",
            "end_time": "2026-11-29T19:13:30.269064Z",
            "status": {"code": "unset", "message": None},
            "span_id": span_id,
            "trace_id": TRACE,
            "parent_id": parent,
            "attributes": {},
            "events": [],
        }

    doc = {"trace_id": TRACE, "spans": [one("root", ROOT, zero), one("child", CHILD, ROOT)]}
    _root_and_child(parse_spans(json.dumps(doc), format="okahu").spans)


@pytest.mark.parametrize("how", ["parentSpanID", "reference", "reference-base64"])
def test_jaeger_all_zero_parent_is_a_root(how: str) -> None:
    root: dict[str, Any] = {
        "traceID": TRACE,
        "spanID": ROOT,
        "operationName": "root",
        "startTime": 1,
        "duration": 5,
        "tags": [],
        "processID": "p1",
    }
    if how == "parentSpanID":
        root["parentSpanID"] = ZERO_HEX
    else:
        zero = ZERO_HEX if how == "reference" else ZERO_B64
        root["references"] = [{"refType": "CHILD_OF", "traceID": TRACE, "spanID": zero}]
    child = {
        "traceID": TRACE,
        "spanID": CHILD,
        "operationName": "child",
        "references": [{"refType": "CHILD_OF", "traceID": TRACE, "spanID": ROOT}],
        "startTime": 2,
        "duration": 1,
        "tags": [],
        "processID": "p1",
    }
    doc = {"data": [{"traceID": TRACE, "spans": [root, child], "processes": {"p1": {"serviceName": "s"}}}]}
    _root_and_child(parse_spans(json.dumps(doc), format="jaeger").spans)


def test_live_capture_all_zero_parent_is_a_root() -> None:
    """A span handed to the SDK with an all-zero parent context (a bridge, a hand-made span) is a root."""
    provider = TracerProvider()
    with ta.capture(tracer_provider=provider) as cap:
        zero_parent = SpanContext(int(TRACE, 16), 0, is_remote=True)
        root = SdkSpan(
            "root",
            SpanContext(int(TRACE, 16), int(ROOT, 16), is_remote=False, trace_flags=TraceFlags(1)),
            parent=zero_parent,
            span_processor=provider._active_span_processor,
        )
        root.start()
        child = provider.get_tracer("t").start_span("child", context=_context_of(root))
        child.end()
        root.end()
    assert [s.name for s in cap.spans] == ["root", "child"]
    _root_and_child(list(cap.spans))
    assert Span.from_readable(root).parent_id is None


def _context_of(span: Any) -> Any:
    from opentelemetry import trace

    return trace.set_span_in_context(span)


# -------------------------------------------------------------------------- under_duration, still running


def _open_run() -> ta.Trace:
    b = SpanBuilder()
    agent = b.agent("planner")
    b.tool("search", agent, args='{"q": "x"}', finished=False)
    b.span(
        "chat m", {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m"}, parent=agent, finished=False
    )
    b.span("step", {"span.type": "agentic.step"}, parent=agent, finished=False)
    agent_attrs = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "still-running"}
    running = b.span("invoke_agent still-running", agent_attrs, finished=False)
    assert running.end_ns is None
    return b.trace()


@pytest.mark.parametrize(
    ("span_type", "running"),
    [
        ("workflow", "invoke_agent still-running"),
        ("span", "execute_tool search"),
        ("all", "chat m"),
        ("agent", "agent still-running"),
        ("tool", "tool search"),
        ("inference", "model call m"),
        ("agentic.step", "step"),
    ],
)
def test_under_duration_fails_on_a_span_still_running(span_type: str, running: str) -> None:
    check = ta.TraceAsserter(_open_run())
    with pytest.raises(ta.TraceAssertionError) as info:
        check.under_duration(1000, span_type=span_type)
    message = str(info.value)
    assert f"expected every {span_type} span to take at most 1000 seconds;" in message
    assert f"  - {running}: still running when checked" in message


def test_under_duration_passes_once_everything_has_ended() -> None:
    b = SpanBuilder()
    agent = b.agent("planner")
    b.tool("search", agent)
    ta.TraceAsserter(b.trace()).under_duration(1000).under_duration(1000, span_type="tool")
