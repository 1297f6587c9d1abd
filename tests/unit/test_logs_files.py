"""Log records in files: OTLP ``resourceLogs`` and the SDK's dumps, joined to their spans by id; the older
per-message GenAI events, exceptions, records that cannot be joined, and redaction of log bodies."""

from __future__ import annotations

import gzip
import io
import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import ConsoleLogRecordExporter, SimpleLogRecordProcessor
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor

import traceassert as ta
from traceassert import parse_spans

TRACE = "5b8efff798038103d269b633813fc60c"
CHAT_1, CHAT_2, TOOL = "eee19b7ec3c1b174", "eee19b7ec3c1b175", "eee19b7ec3c1b176"


def _value(value: Any) -> dict[str, Any]:
    """An OTLP AnyValue."""
    if isinstance(value, str):
        return {"stringValue": value}
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, dict):
        return {"kvlistValue": {"values": [{"key": k, "value": _value(v)} for k, v in value.items()]}}
    return {"arrayValue": {"values": [_value(v) for v in value]}}


def _span(span_id: str, name: str, attrs: dict[str, Any], start: int, **extra: Any) -> dict[str, Any]:
    return {
        "traceId": TRACE,
        "spanId": span_id,
        "name": name,
        "kind": 3,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(start + 10),
        "attributes": [{"key": k, "value": _value(v)} for k, v in attrs.items()],
        **extra,
    }


def _spans() -> dict[str, Any]:
    chat = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o", "gen_ai.usage.input_tokens": 5}
    tool = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "get_weather",
        "gen_ai.tool.call.id": "c1",
    }
    return {
        "resourceSpans": [
            {
                "scopeSpans": [
                    {
                        "spans": [
                            _span(CHAT_1, "chat gpt-4o", chat, 100),
                            _span(TOOL, "execute_tool get_weather", tool, 200, status={"code": 2}),
                            _span(CHAT_2, "chat gpt-4o", chat, 300),
                        ]
                    }
                ]
            }
        ]
    }


def _record(
    span_id: str | None, event: str | None, body: Any = None, time: int = 0, **attrs: Any
) -> dict[str, Any]:
    record: dict[str, Any] = {"timeUnixNano": str(time)}
    if span_id is not None:
        record.update(traceId=TRACE, spanId=span_id)
    if event is not None:
        record["eventName"] = event
    if body is not None:
        record["body"] = _value(body)
    if attrs:
        record["attributes"] = [{"key": k.replace("_", "."), "value": _value(v)} for k, v in attrs.items()]
    return record


#: the older GenAI conventions: one event per message, content in the body (openai-v2 1.x, through logs)
_PER_MESSAGE = [
    _record(CHAT_1, "gen_ai.system.message", {"content": "Be brief."}, 101),
    _record(CHAT_1, "gen_ai.user.message", {"content": "Weather in Paris?"}, 102),
    _record(
        CHAT_1,
        "gen_ai.choice",
        {
            "index": 0,
            "finish_reason": "tool_calls",
            "message": {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                    }
                ],
            },
        },
        103,
    ),
    _record(
        TOOL,
        None,
        None,
        201,
        exception_type="TimeoutError",
        exception_message="the weather service timed out",
    ),
    _record(CHAT_2, "gen_ai.user.message", {"content": "Weather in Paris?"}, 301),
    _record(CHAT_2, "gen_ai.tool.message", {"content": "Error: timed out", "id": "c1"}, 302),
    _record(
        CHAT_2,
        "gen_ai.choice",
        {"index": 0, "finish_reason": "stop", "message": {"content": "No idea."}},
        303,
    ),
]


def _logs(records: list[dict[str, Any]]) -> dict[str, Any]:
    return {"resourceLogs": [{"scopeLogs": [{"scope": {"name": "app"}, "logRecords": records}]}]}


def _check_per_message(trace: ta.Trace) -> None:
    first, second = trace.model_calls
    assert [(r.name, r.arguments, r.call_id) for r in first.requested_tools] == [
        ("get_weather", {"city": "Paris"}, "c1")
    ]
    assert first.span is not None and second.span is not None
    op = trace.operation(first.span)
    assert op is not None and op.input == "Weather in Paris?"
    assert second.output == "No idea."
    (tool,) = trace.tool_executions
    assert tool.failed and tool.error is not None
    assert (tool.error.type, tool.error.message) == ("TimeoutError", "the weather service timed out")
    # each record is an event on its span, in time order, named by its event name
    names = {s.span_id: [e.name for e in s.events] for s in trace.spans}
    assert names == {
        CHAT_1: ["gen_ai.system.message", "gen_ai.user.message", "gen_ai.choice"],
        TOOL: ["exception"],
        CHAT_2: ["gen_ai.user.message", "gen_ai.tool.message", "gen_ai.choice"],
    }
    assert trace.warnings == ()


def test_per_message_events_and_exceptions_in_one_otlp_document() -> None:
    document = {**_spans(), **_logs(_PER_MESSAGE)}
    trace = ta.Trace(parse_spans(json.dumps(document)).spans)
    _check_per_message(trace)


@pytest.mark.parametrize("compress", [False, True])
def test_spans_and_logs_in_json_lines_files_in_any_order(tmp_path: Path, compress: bool) -> None:
    """The Collector writes one request a line; logs first, spans after, the same trace."""
    lines = [json.dumps(_logs(_PER_MESSAGE[:3])), json.dumps(_spans()), json.dumps(_logs(_PER_MESSAGE[3:]))]
    text = "\n".join(lines) + "\n"
    path = tmp_path / ("mixed.jsonl.gz" if compress else "mixed.jsonl")
    if compress:
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text, encoding="utf-8")
    _check_per_message(ta.load_trace(path))
    logs_only = tmp_path / "logs.json"
    logs_only.write_text(json.dumps(_logs(_PER_MESSAGE)), encoding="utf-8")
    spans_only = tmp_path / "spans.json"
    spans_only.write_text(json.dumps(_spans()), encoding="utf-8")
    _check_per_message(ta.load_trace([logs_only, spans_only]))
    with pytest.raises(
        ta.TraceLoadError, match=r"holds 7 log record\(s\) and no span; load the trace file with it"
    ):
        ta.load_trace(logs_only)


def test_records_that_cannot_be_joined_are_counted_in_warnings(tmp_path: Path) -> None:
    records = [
        _record(None, "gen_ai.user.message", {"content": "hi"}),  # outside any span
        _record("0000000000000000", None, "all-zero span id"),
        _record("ffffffffffffffff", "gen_ai.choice", {"message": {"content": "lost?"}}),  # not in the trace
        {
            **_record(CHAT_1, "gen_ai.choice", {"message": {"content": "x"}}),
            "traceId": "1" * 32,
        },  # other trace
    ]
    document = json.dumps({**_spans(), **_logs(records)})
    result = parse_spans(document)
    assert len(result.logs) == 4
    expected = [
        "2 log record(s) carry no span id: they are not part of the trace (logs written outside any span)",
        "2 log record(s) belong to a span that is not in the trace: they are not part of it",
    ]
    assert result.warnings == expected
    assert all(not s.events for s in result.spans)
    path = tmp_path / "trace.json"
    path.write_text(document, encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trace = ta.load_trace(path)
    assert [str(w.message) for w in caught if w.category is ta.TraceAssertWarning] == expected
    assert list(trace.warnings) == expected


def test_the_sdk_console_exporters_output_spans_and_logs_interleaved() -> None:
    """``ConsoleSpanExporter`` and ``ConsoleLogRecordExporter`` printing to the same stream (stdout)."""
    out = io.StringIO()
    tracers = TracerProvider()
    tracers.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter(out=out)))
    loggers = LoggerProvider()
    loggers.add_log_record_processor(SimpleLogRecordProcessor(ConsoleLogRecordExporter(out=out)))
    tracer, logger = tracers.get_tracer("app"), loggers.get_logger("app")
    attrs = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m", "gen_ai.usage.input_tokens": 2}
    with tracer.start_as_current_span("chat m", attributes=attrs):
        logger.emit(event_name="gen_ai.user.message", body={"content": "Hello?"})
        logger.emit(event_name="gen_ai.choice", body={"index": 0, "message": {"content": "Hi."}})
    logger.emit(body="after the span")
    text = out.getvalue()
    assert text.index('"event_name": "gen_ai.user.message"') < text.index('"name": "chat m"')
    result = parse_spans(text)
    trace = ta.Trace(result.spans)
    (call,) = trace.model_calls
    assert call.output == "Hi."
    assert call.span is not None
    op = trace.operation(call.span)
    assert op is not None and op.input == "Hello?"
    assert result.warnings == [
        "1 log record(s) carry no span id: they are not part of the trace (logs written outside any span)"
    ]


_SECRET = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"


def test_secrets_in_log_bodies_are_redacted_wherever_they_are_written_or_shown(tmp_path: Path) -> None:
    records = [
        _record(
            CHAT_1, "gen_ai.user.message", {"content": f"my key is {_SECRET}", "api_key": "hunter2-value"}, 1
        ),
        _record(CHAT_1, "gen_ai.choice", {"message": {"content": f"Your key {_SECRET} works."}}, 2),
        _record(TOOL, None, f"Authorization: Bearer {_SECRET}", 3),
    ]
    trace = ta.Trace(parse_spans(json.dumps({**_spans(), **_logs(records)})).spans)
    # the content is read (the checks see it) ...
    assert trace.model_calls[0].output == f"Your key {_SECRET} works."
    # ... but never written or shown
    dumped = tmp_path / "dump.json"
    ta.dump_trace(trace, dumped)
    shown = [dumped.read_text(encoding="utf-8"), trace.render(), json.dumps(trace.summary())]
    with pytest.raises(ta.TraceAssertionError) as failure:
        ta.assert_trace(trace).called_tool("no_such_tool")
    shown.append(str(failure.value))
    for text in shown:
        assert _SECRET not in text
        assert "hunter2-value" not in text
    assert "[REDACTED]" in shown[0]
