"""Other producers' files, as people share them: Arize Phoenix's span JSON, ConsoleSpanExporter output
mixed with the program's own prints, OTLP documents that also carry logs or metrics, and model tool
requests recorded only as ``gen_ai.completion.N.function_call.*``. Never a silent wrong answer."""

from __future__ import annotations

import io
import itertools
import json
from pathlib import Path
from typing import Any

import pytest

import traceassert as ta
from traceassert._loaders import detect_format, load_spans, parse_spans
from traceassert._trace import load_trace

from . import _formats
from .spanbuilder import SpanBuilder

DATA = Path(__file__).resolve().parent.parent / "data"
#: a real OpenAI Agents SDK run recorded with OpenInference (tests/conformance): `explode` fails with
#: status ERROR and no exception event
OPENINFERENCE = DATA / "openinference_openai_agents.json"


# ---------------------------------------------------------------------------------------- Phoenix


def _nest(flat: dict[str, Any]) -> dict[str, Any]:
    """Dotted keys as nested objects, digit segments as list positions (gaps stay None): how Phoenix
    stores attributes, and how its dataframe's ``attributes.*`` columns hold them."""
    root: dict[str, Any] = {}
    for key, value in flat.items():
        parts = key.split(".")
        node: Any = root
        for part, nxt in itertools.pairwise(parts):
            child: Any = [] if nxt.isdigit() else {}
            if isinstance(node, list):
                index = int(part)
                node.extend([None] * (index + 1 - len(node)))
                node[index] = node[index] if node[index] is not None else child
                node = node[index]
            else:
                node = node.setdefault(part, child)
        if isinstance(node, list):
            node.extend([None] * (int(parts[-1]) + 1 - len(node)))
            node[int(parts[-1])] = value
        else:
            node[parts[-1]] = value
    return root


def _dataframe_record(span: ta.Span) -> dict[str, Any]:
    """One row of Phoenix's ``get_spans_dataframe()`` saved with ``to_json(orient="records")``: pandas
    writes times as epoch milliseconds, and the ids and attributes as flattened column names."""
    attrs = dict(span.attributes)
    if isinstance(attrs.get("tool.parameters"), str):  # Phoenix parses this JSON text when it stores it
        attrs["tool.parameters"] = json.loads(attrs["tool.parameters"])
    row: dict[str, Any] = {
        "name": span.name,
        "span_kind": attrs.get("openinference.span.kind", "UNKNOWN"),
        "parent_id": span.parent_id,
        "start_time": span.start_ns // 1_000_000,
        "end_time": (span.end_ns or 0) // 1_000_000,
        "status_code": span.status.code,
        "status_message": span.status.description or "",
        "events": [],
        "context.span_id": span.span_id,
        "context.trace_id": span.trace_id,
    }
    row.update({f"attributes.{k}": v for k, v in _nest(attrs).items()})
    return row


def _facts(trace: ta.Trace) -> dict[str, Any]:
    tools = trace.tool_executions
    return {
        "tools": [(t.name, t.arguments, t.failed) for t in tools],
        "errors": [str(t.error) for t in tools if t.failed],
        "agents": [(a.name, [n.name for n in a.nested]) for a in trace.agents],
        "tokens": [(c.input_tokens, c.output_tokens) for c in trace.model_calls],
        "totals": trace.summary()["totals"],
    }


def test_phoenix_rest_span_json_of_a_real_run(tmp_path: Path, backend: str) -> None:
    original = load_trace(OPENINFERENCE)
    doc = {"data": [_formats.phoenix_span(s) for s in original.spans], "next_cursor": None}
    assert all("openinference.span.kind" not in s["attributes"] for s in doc["data"])  # moved out by Phoenix
    path = tmp_path / "phoenix.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert detect_format(path) == "phoenix"
    trace = load_trace(path)
    assert trace.warnings == ()
    assert _facts(trace) == _facts(original)
    explode = next(t for t in trace.tool_executions if t.name == "explode")
    assert explode.failed is True and "the detonator is broken" in str(explode.error)
    assert explode.span.status.code == "ERROR" and not explode.span.events
    assert explode.span.attributes["openinference.span.kind"] == "TOOL"
    with pytest.raises(ta.TraceAssertionError, match="explode"):
        ta.TraceAsserter(trace).including_nested().has_no_failed_tool_executions()


def test_phoenix_dataframe_json_of_a_real_run(backend: str) -> None:
    original = load_trace(OPENINFERENCE)
    rows = [_dataframe_record(s) for s in original.spans]
    assert any(isinstance(v, list) for row in rows for v in row.values())  # nested message lists
    for lines in (False, True):
        text = "\n".join(json.dumps(r) for r in rows) if lines else json.dumps(rows)
        result = parse_spans(text, name="spans.json")
        assert set(result.formats.values()) == {"phoenix"} and result.warnings == []
        trace = ta.Trace(result.spans)
        assert _facts(trace) == _facts(original)
        response = next(s for s in trace.spans if s.name == "response")
        recorded = next(s for s in original.spans if s.span_id == response.span_id)
        assert response.attributes["llm.input_messages.1.message.role"] == "user"
        assert json.loads(response.attributes["llm.invocation_parameters"]) == json.loads(
            recorded.attributes["llm.invocation_parameters"]
        )
        tool = next(s for s in trace.spans if s.name == "get_weather")
        assert json.loads(tool.attributes["tool.parameters"]) == json.loads(
            next(s for s in original.spans if s.name == "get_weather").attributes["tool.parameters"]
        )


def test_phoenix_span_fields(backend: str) -> None:
    span = {
        "id": "U3BhbjoxMjM=",
        "name": "lookup",
        "context": {"trace_id": "a1b2c3d4e5f6a1b2c3d4e5f6a1b2c3d4", "span_id": "1a2b3c4d5e6f7a8b"},
        "span_kind": "TOOL",
        "parent_id": None,
        "start_time": "2024-01-01T12:00:00+00:00",
        "end_time": "2024-01-01T12:00:01.5Z",
        "status_code": "ERROR",
        "status_message": "lookup failed: no such city",
        "attributes": {"tool": {"name": "lookup"}, "input": {"value": '{"city": "Atlantis"}'}, "gone": None},
        "events": [
            {
                "name": "exception",
                "timestamp": "2024-01-01T12:00:01Z",
                "attributes": {"exception.type": "KeyError"},
            }
        ],
    }
    (got,) = parse_spans(json.dumps({"data": [span], "next_cursor": None})).spans
    assert got.status == ta.Status("ERROR", "lookup failed: no such city")
    assert dict(got.attributes) == {
        "tool.name": "lookup",
        "input.value": '{"city": "Atlantis"}',
        "openinference.span.kind": "TOOL",
    }
    assert (got.start_ns, got.end_ns) == (1_704_110_400_000_000_000, 1_704_110_401_500_000_000)
    assert got.kind == "INTERNAL" and got.scope_name is None and got.events[0].name == "exception"
    (tool,) = ta.Trace([got]).tool_executions
    assert tool.failed is True and tool.arguments == {"city": "Atlantis"}
    unknown = dict(span, span_kind="UNKNOWN", status_code="OK", status_message="")
    (plain,) = parse_spans(json.dumps([unknown])).spans
    assert "openinference.span.kind" not in plain.attributes and plain.status == ta.Status("OK", None)


def test_phoenix_records_that_are_wrong_name_their_place(backend: str) -> None:
    span = {"name": "x", "context": {"trace_id": "ab" * 16, "span_id": "cd" * 8}, "span_kind": "LLM"}
    with pytest.raises(ta.TraceLoadError, match=r"\[1\]: invalid record: unknown status code 'BROKEN'"):
        parse_spans(json.dumps([span, dict(span, status_code="BROKEN")]), name="p.json")
    deep: Any = "leaf"
    for _ in range(100):
        deep = {"k": deep}
    with pytest.raises(ta.TraceLoadError, match="nested deeper than 64"):
        parse_spans(json.dumps([dict(span, attributes=deep)]))


# ---------------------------------------------------------------------------------------- console


def test_console_exporter_output_with_the_program_s_own_lines(backend: str) -> None:
    spans = _formats.record()
    out = io.StringIO()
    print("starting the travel agent", file=out)
    out.write(_formats.console_output(spans[:2]))
    print("[INFO] weather: {'city': 'Paris'}", file=out)
    print("{not json either}", file=out)
    out.write(_formats.console_output(spans[2:]))
    print("done.", file=out)
    for data in (out.getvalue(), out.getvalue().encode()):
        result = parse_spans(data, name="run.log")
        assert len(result.spans) == 4
        assert result.warnings == [
            "run.log: skipped 4 line(s) that are not JSON (a program's own output between the spans "
            "ConsoleSpanExporter printed)"
        ]
        assert ta.Trace(result.spans).summary() == load_trace(DATA / "formats" / "console.txt").summary()


def test_lines_that_are_not_json_are_still_an_error_without_spans(backend: str) -> None:
    with pytest.raises(ta.TraceLoadError, match=r"^log\.txt: line 1, column 1: invalid JSON"):
        parse_spans("hello\nworld\n", name="log.txt")
    # a broken span record is never skipped: the error is inside a value, not a line of its own
    text = _formats.console_output(_formats.record())
    broken = text.replace('"kind": "SpanKind.INTERNAL"', '"kind": SpanKind.INTERNAL', 1)
    with pytest.raises(ta.TraceLoadError, match="invalid JSON"):
        parse_spans(broken)
    # JSON Lines (a Collector file) with a corrupt line: an error, not a skipped line
    lines = (DATA / "formats" / "otlp-collector.jsonl").read_text().splitlines()
    with pytest.raises(ta.TraceLoadError, match="line 2"):
        parse_spans("\n".join([lines[0], "garbage", *lines[1:]]))


# ---------------------------------------------------------------------------------------- logs, metrics


def test_otlp_metrics_next_to_traces_are_ignored_with_a_warning_and_logs_are_read(backend: str) -> None:
    traces = json.loads((DATA / "formats" / "otlp-protobuf.json").read_text())
    logs = {"resourceLogs": [{"scopeLogs": [{"logRecords": [{"body": {"stringValue": "hi"}}]}]}]}
    metrics = {"resourceMetrics": [{"scopeMetrics": [{"metrics": [{"name": "m"}]}]}]}
    expected = "f.json: ignored the OTLP metrics (resourceMetrics) in the file"
    # the log record carries no span id: it stays out of the trace, counted in a warning
    outside = (
        "1 log record(s) carry no span id: they are not part of the trace (logs written outside any span)"
    )
    one_document = json.dumps({**traces, **logs, **metrics})
    collector_lines = "\n".join(json.dumps(d) for d in (logs, traces, metrics))
    logs_first = "\n".join(json.dumps(d) for d in (metrics, logs, traces))
    for text in (one_document, collector_lines, logs_first):
        for data in (text, text.encode()):
            result = parse_spans(data, name="f.json")
            assert len(result.spans) == 4
            assert [w for w in result.warnings if "ignored" in w] == [expected + ": only traces are read"]
            assert [w for w in result.warnings if "log record" in w] == [outside]
            assert [r.body for r in result.logs] == ["hi"]
    with pytest.raises(
        ta.TraceLoadError, match=r"no spans in f\.json: it holds 1 log record\(s\) and no span"
    ):
        parse_spans(json.dumps(logs), name="f.json")
    with pytest.raises(ta.TraceLoadError, match=r"no spans in f\.json: it holds OTLP metrics"):
        parse_spans(json.dumps(metrics), name="f.json")


# ---------------------------------------------------------------------------------------- requests


@pytest.mark.parametrize("scope", ["litellm", "opentelemetry.instrumentation.openai.v1"])
def test_a_tool_request_recorded_only_as_a_function_call(scope: str) -> None:
    b = SpanBuilder()
    agent = b.agent("planner")
    chat = b.span(
        "litellm_request",
        {
            "gen_ai.system": "openai",
            "gen_ai.request.model": "gpt-4o",
            "gen_ai.usage.prompt_tokens": 20,
            "gen_ai.usage.completion_tokens": 7,
            "llm.request.type": "chat",
            "gen_ai.prompt.0.role": "user",
            "gen_ai.prompt.0.content": "Weather in Paris?",
            "gen_ai.completion.0.function_call.name": "get_weather",
            "gen_ai.completion.0.function_call.arguments": '{"city": "Paris"}',
        },
        parent=agent,
    )
    spans = [s if s is not chat else _with_scope(s, scope) for s in b.spans]
    trace = ta.Trace(spans)
    op = trace.operation(trace.spans[1])
    assert op is not None and op.kind == "model"
    (request,) = op.requested_tools
    assert (request.name, request.arguments) == ("get_weather", '{"city": "Paris"}')
    assert not trace.tool_executions  # a request is not an execution
    assert "tool get_weather(city='Paris') (requested" in trace.render()


def _with_scope(span: ta.Span, scope: str) -> ta.Span:
    import dataclasses

    return dataclasses.replace(span, scope_name=scope)


def test_load_spans_reads_the_committed_phoenix_sample() -> None:
    result = load_spans(DATA / "formats" / "phoenix-rest.json")
    assert result.formats == {str(DATA / "formats" / "phoenix-rest.json"): "phoenix"}
    failing = next(s for s in result.spans if s.name == "execute_tool book_hotel")
    assert failing.status == ta.Status("ERROR", "hotel API timed out")


# -- the OpenTelemetry JS SDK's spans as it holds them (ReadableSpan written with JSON.stringify) -------


def _js_span(**over: Any) -> dict[str, Any]:
    span: dict[str, Any] = {
        "name": "execute_tool get_weather",
        "kind": 2,
        "spanContext": {"traceId": "4bf92f3577b34da6a3ce929d0e0e4736", "spanId": "00f067aa0ba902b7"},
        "parentSpanContext": {"traceId": "4bf92f3577b34da6a3ce929d0e0e4736", "spanId": "b7ad6b7169203331"},
        "startTime": [1700000000, 5],
        "endTime": [1700000001, 999999999],
        "status": {"code": 2, "message": "boom"},
        "attributes": {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather"},
        "events": [{"name": "exception", "time": [1700000001, 0], "attributes": {"exception.type": "E"}}],
        "links": [{"context": {"traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": "c7ad6b7169203331"}}],
        "resource": {"attributes": {"service.name": "node-agent"}},
        "instrumentationScope": {"name": "ai", "version": "6.0.0"},
    }
    span.update(over)
    return span


def test_js_sdk_readable_spans_keep_every_field() -> None:
    [span] = parse_spans(json.dumps([_js_span()]).encode()).spans
    assert (span.trace_id, span.span_id, span.parent_id) == (
        "4bf92f3577b34da6a3ce929d0e0e4736",
        "00f067aa0ba902b7",
        "b7ad6b7169203331",
    )
    assert (span.kind, span.start_ns, span.end_ns) == ("CLIENT", 1700000000_000000005, 1700000001_999999999)
    assert (span.status.code, span.status.description) == ("ERROR", "boom")
    assert [(e.name, e.timestamp_ns, dict(e.attributes)) for e in span.events] == [
        ("exception", 1700000001_000000000, {"exception.type": "E"})
    ]
    assert [(lk.trace_id, lk.span_id) for lk in span.links] == [
        ("0af7651916cd43dd8448eb211c80319c", "c7ad6b7169203331")
    ]
    assert dict(span.resource) == {"service.name": "node-agent"}
    assert (span.scope_name, span.scope_version) == ("ai", "6.0.0")


def test_js_sdk_1x_spans_private_fields_and_millisecond_times() -> None:
    # SDK 1.x: parentSpanId, instrumentationLibrary; the span object's own field names (_spanContext);
    # times in epoch milliseconds
    old = _js_span(parentSpanContext=None, parentSpanId="b7ad6b7169203331", startTime=1700000000123.5)
    old["_spanContext"] = old.pop("spanContext")
    old["instrumentationLibrary"] = old.pop("instrumentationScope")
    old["resource"] = {"_rawAttributes": [["service.name", "node-agent"], ["host.id", {}]]}
    [span] = parse_spans(json.dumps(old).encode(), format="js").spans
    assert (span.parent_id, span.start_ns, span.scope_name) == (
        "b7ad6b7169203331",
        1700000000_123500000,
        "ai",
    )
    assert dict(span.resource) == {"service.name": "node-agent"}  # the unresolved value ({}) is left out
    root = _js_span(parentSpanContext=None)
    assert parse_spans(json.dumps(root).encode()).spans[0].parent_id is None


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("startTime", [1700000000], "not an HrTime"),
        ("startTime", [1700000000, 1_000_000_000], "a second or more"),
        ("endTime", "yesterday", "not a time"),
        ("kind", 9, "unknown span kind"),
        ("status", {"code": 7}, "unknown status code"),
    ],
)
def test_js_sdk_spans_that_are_wrong_name_their_place(field: str, value: Any, message: str) -> None:
    with pytest.raises(ta.TraceLoadError, match=message) as err:
        parse_spans(json.dumps([_js_span(**{field: value})]).encode(), name="spans.json")
    assert "spans.json" in str(err.value)


@pytest.mark.parametrize("flags", [0x300, "768", 0x301])
def test_otlp_json_flags_that_say_the_parent_is_in_another_process(backend: str, flags: Any) -> None:
    # Span.flags bit 8: whether the parent is remote is known; bit 9: it is. Both readers keep it (the
    # receiver then knows the trace's first span of this process is its root here)
    from traceassert._loaders.otlp_request import read_json_request

    def span(span_id: str, parent: str, flags: Any) -> dict[str, Any]:
        out = {"traceId": "5b8efff798038103d269b633813fc60c", "spanId": span_id, "name": span_id}
        return {**out, "parentSpanId": parent, "flags": flags, "startTimeUnixNano": "1"}

    doc = {
        "resourceSpans": [
            {
                "scopeSpans": [
                    {
                        "spans": [
                            span("eee19b7ec3c1b174", "aaaaaaaaaaaaaaaa", flags),
                            span("eee19b7ec3c1b175", "eee19b7ec3c1b174", 0x100),  # known: not remote
                            span("eee19b7ec3c1b176", "eee19b7ec3c1b174", 0x200),  # not known
                        ]
                    }
                ]
            }
        ]
    }
    request = read_json_request(json.dumps(doc).encode(), "body")
    assert request.remote_parents == {("5b8efff798038103d269b633813fc60c", "eee19b7ec3c1b174")}
