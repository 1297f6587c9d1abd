"""The logs signal on a real instrumentation: ``opentelemetry-instrumentation-openai-v2`` in ``event_only``
mode writes the message content as log records (``gen_ai.client.inference.operation.details``) tied to
its ``chat`` spans, through the OpenTelemetry logs API, and nothing on the spans.

The same scripted run, recorded once in ``span_only`` mode and once in ``event_only`` mode, reads the
same: under ``ta.capture()`` (which also collects the global SDK logger provider's records) and from
files (spans in one file, the log records in another, in every form the SDK and the OTLP encoder
write them).
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import traceassert as ta
from tests import _logfiles

pytestmark = [
    pytest.mark.filterwarnings("ignore::traceassert.TraceAssertWarning"),
]


@pytest.fixture
def stack() -> Iterator[Any]:
    pytest.importorskip("openai")
    pytest.importorskip("opentelemetry.instrumentation.openai_v2")
    from instrumentation import openai_v2

    try:
        yield openai_v2
    finally:
        openai_v2.uninstrument()


def _captured(stack: Any, content: str, *, agent_spans: bool = True) -> ta.Capture:
    """The scenario under ``ta.capture()``, instrumented on the global providers."""
    stack.instrument(content=content)
    try:
        with ta.capture() as cap:
            output = stack.run_scenario(agent_spans=agent_spans)
    finally:
        stack.uninstrument()
    assert output == stack.EXPECTED.final_output
    return cap


def _differences(a: Any, b: Any, path: str = "") -> list[str]:
    """The JSON paths where two summaries differ."""
    if isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys():
        return [d for key in a for d in _differences(a[key], b[key], f"{path}.{key}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [
            d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in _differences(x, y, f"{path}[{i}]")
        ]
    return [] if a == b else [path]


def _at(summary: Any, path: str) -> Any:
    """The value at a path of `_differences`."""
    value = summary
    for part in re.findall(r"\.(\w+)|\[(\d+)\]", path):
        value = value[part[0]] if part[0] else value[int(part[1])]
    return value


#: what util-genai (the scenario's own agent loop) writes only on its ``invoke_agent`` / ``execute_tool``
#: spans, and only in span mode: in event mode no log record carries it (the instrumentation logs its
#: ``chat`` calls only). The tool arguments are read from the model's requests all the same.
_ON_AGENT_AND_TOOL_SPANS_ONLY = [
    ".agents[0].input",
    ".agents[0].output",
    ".agents[0].tool_executions[0].result",
    ".agents[0].tool_executions[2].result",
    ".agents[0].nested[0].input",
    ".agents[0].nested[0].output",
]


def test_chat_spans_event_mode_reads_as_span_mode(stack: Any) -> None:
    """Everything the instrumentation records (its chat spans): the same summary in both modes."""
    spans_mode = _captured(stack, "span_only", agent_spans=False)
    events_mode = _captured(stack, "event_only", agent_spans=False)
    assert spans_mode.logs == ()
    assert [r.name for r in events_mode.logs] == ["gen_ai.client.inference.operation.details"] * 5
    assert all("gen_ai.input.messages" not in s.attributes for s in events_mode.spans)
    summary = events_mode.trace().summary()
    assert summary == spans_mode.trace().summary()
    # the facts read from the log records: messages, the tool calls asked for, tokens
    (agent,) = summary["agents"]
    assert [c["requested_tools"] for c in agent["model_calls"]] == [
        ["get_weather"],
        ["explode"],
        ["ask_helper"],
        [],
        [],
    ]
    assert summary["totals"]["total_tokens"] == sum(c["total_tokens"] for c in agent["model_calls"])
    trace = events_mode.trace()
    first = trace.model_calls[0]
    assert first.span is not None
    operation = trace.operation(first.span)
    assert operation is not None
    assert operation.input == stack.PROMPT
    assert trace.model_calls[-1].output == stack.EXPECTED.final_output
    assert (trace.tool_requests[0].name, trace.tool_requests[0].arguments) == (
        "get_weather",
        {"city": "Paris"},
    )
    assert trace.warnings == ()


def test_whole_run_event_mode_reads_as_span_mode(stack: Any) -> None:
    """With the loop's agent and tool spans: the same summary but for what only those spans record."""
    spans_mode = _captured(stack, "span_only").trace().summary()
    events_mode = _captured(stack, "event_only").trace().summary()
    assert _differences(spans_mode, events_mode) == _ON_AGENT_AND_TOOL_SPANS_ONLY
    assert [_at(events_mode, path) for path in _ON_AGENT_AND_TOOL_SPANS_ONLY] == [None] * 6
    assert all(_at(spans_mode, path) for path in _ON_AGENT_AND_TOOL_SPANS_ONLY)
    agent = events_mode["agents"][0]
    assert [t["name"] for t in agent["tool_executions"]] == ["get_weather", "explode", "ask_helper"]
    assert [t["arguments"] for t in agent["tool_executions"]] == [
        {"city": "Paris"},
        {},
        {"question": "What should I wear?"},
    ]
    assert [t["failed"] for t in agent["tool_executions"]] == [False, True, False]
    assert events_mode["totals"] == spans_mode["totals"]


def test_span_and_event_mode_reads_as_span_mode(stack: Any) -> None:
    """Content on the spans and in the log records: read once (what the span says wins)."""
    both = _captured(stack, "span_and_event")
    assert len(both.logs) == 5
    assert both.trace().summary() == _captured(stack, "span_only").trace().summary()


# -- files -------------------------------------------------------------------------------------------


def _write_logs(kind: str, records: list[Any], folder: Path) -> Path:
    if kind == "otlp-json":
        path = folder / "logs.json"
        path.write_text(json.dumps(_logfiles.otlp_logs_document(records)), encoding="utf-8")
    elif kind == "otlp-jsonl":
        path = folder / "logs.jsonl"
        path.write_text(_logfiles.collector_logs_lines(records), encoding="utf-8")
    elif kind == "otlp-jsonl-gzip":
        path = folder / "logs.jsonl.gz"
        path.write_bytes(gzip.compress(_logfiles.collector_logs_lines(records).encode()))
    elif kind == "sdk-lines":
        path = folder / "logs-sdk.jsonl"
        path.write_text(_logfiles.sdk_log_lines(records), encoding="utf-8")
    else:
        path = folder / "logs-console.txt"
        path.write_text(_logfiles.console_logs(records), encoding="utf-8")
    return path


@pytest.mark.parametrize("kind", ["otlp-json", "otlp-jsonl", "otlp-jsonl-gzip", "sdk-lines", "console"])
def test_event_mode_files_read_as_the_capture(stack: Any, kind: str, tmp_path: Path) -> None:
    """Spans in one file, their log records in another: the trace reads as the live capture did."""
    spans, records = _logfiles.record_with_logs(
        lambda provider: stack.record_spans(content="event_only", logger_provider=provider)
    )
    assert len(records) == 5
    span_file = tmp_path / "spans.jsonl"
    span_file.write_text(_logfiles.collector_trace_lines(spans), encoding="utf-8")
    log_file = _write_logs(kind, records, tmp_path)

    expected = ta.Trace([*_captured(stack, "event_only").spans]).summary()
    for order in ([span_file, log_file], [log_file, span_file]):
        loaded = ta.load_trace(order)
        assert loaded.warnings == ()
        assert loaded.summary() == expected, kind
    # the spans alone: the content is not on them
    alone = ta.load_trace(span_file)
    assert all(c.requested_tools == () for c in alone.model_calls)


def test_spans_and_logs_in_one_collector_file(stack: Any, tmp_path: Path) -> None:
    """The Collector's file exporter writes every pipeline's requests to one file: spans and logs mixed."""
    spans, records = _logfiles.record_with_logs(
        lambda provider: stack.record_spans(content="event_only", logger_provider=provider)
    )
    lines = _logfiles.collector_trace_lines(spans).splitlines()
    log_lines = _logfiles.collector_logs_lines(records, per_line=1).splitlines()
    mixed = [line for pair in zip(lines, log_lines, strict=False) for line in pair]
    mixed += lines[len(log_lines) :] + log_lines[len(lines) :]
    path = tmp_path / "collector.jsonl"
    path.write_text("\n".join(mixed) + "\n", encoding="utf-8")
    loaded = ta.load_trace(path)
    assert loaded.warnings == ()
    assert sum(len(s.events) for s in loaded.spans) == 5
    assert [c.requested_tools[0].name for c in loaded.model_calls if c.requested_tools] == [
        "get_weather",
        "explode",
        "ask_helper",
    ]
