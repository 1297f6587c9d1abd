"""Fuzzing the loaders and everything after them: whatever the input, the only exception that escapes
is TraceLoadError (the file cannot be read) or TraceAssertionError (a check failed). Every fuzzed file
that loads goes through ``Trace``, ``render()``, ``summary()`` and a few checks."""

from __future__ import annotations

import contextlib
import gzip
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import traceassert as ta
from traceassert import TraceLoadError
from traceassert._golden.generate import generate_test
from traceassert._loaders import FORMATS, load_spans, parse_spans, split
from traceassert._loaders.jsontext import json_text

DATA = Path(__file__).resolve().parent.parent / "data" / "formats"
SAMPLES = [p.read_bytes() for p in sorted(DATA.iterdir())]
GZ_DIR = Path(tempfile.mkdtemp(prefix="traceassert-fuzz-"))
FAST = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# JSON built from the words the formats use, so that fuzzing reaches the converters, not only the parser
KEYS = st.sampled_from(
    [
        "resourceSpans",
        "resource_spans",
        "batches",
        "scopeSpans",
        "spans",
        "traceId",
        "spanId",
        "trace_id",
        "span_id",
        "parentSpanId",
        "parent_id",
        "name",
        "span_name",
        "kind",
        "status",
        "code",
        "message",
        "attributes",
        "key",
        "value",
        "stringValue",
        "intValue",
        "doubleValue",
        "boolValue",
        "arrayValue",
        "kvlistValue",
        "bytesValue",
        "values",
        "events",
        "links",
        "context",
        "start_time",
        "end_time",
        "startTimeUnixNano",
        "data",
        "traceID",
        "spanID",
        "operationName",
        "references",
        "tags",
        "processes",
        "resource",
        "scope",
        "entity",
        "batch",
        "timestamp",
        "logs",
        "fields",
        "type",
    ]
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False),
    st.text(max_size=40),
    st.sampled_from(
        [
            "ab" * 16,
            "cd" * 8,
            "0x" + "ef" * 8,
            "AAAAAAAAAAAAAAAAAAAAAA==",
            "SPAN_KIND_CLIENT",
            "2024-01-01T00:00:00Z",
        ]
    ),
)
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(KEYS | st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=30,
)


def _only_load_errors(data: bytes | str, fmt: str | None = None) -> None:
    try:
        result = parse_spans(data, format=fmt)
    except TraceLoadError:
        return
    assert result.spans, "a file without spans must be a TraceLoadError"
    _downstream(ta.Trace(result.spans, warnings=result.warnings))


def _downstream(trace: ta.Trace) -> None:
    """What a loaded trace goes through: only TraceAssertionError may come out of a check."""
    trace.render()
    json_text(trace.summary())
    asserter = ta.TraceAsserter(trace)
    checks = (
        lambda: asserter.called_tool("t"),
        lambda: asserter.under_token_limit(100),
        lambda: asserter.including_nested().has_no_failed_tool_executions(),
        lambda: asserter.where(attribute={"gen_ai.tool.name": "t"}),
        lambda: asserter.where(attribute={"gen_ai.usage.input_tokens": None}),
    )
    for check in checks:
        with contextlib.suppress(ta.TraceAssertionError):
            check()
    assert ta.behaviour_diff(trace, trace).same  # the golden readers too (slim: test_hostile_traces)
    generate_test(trace)
    calls = trace.model_calls
    for value in [c.total_tokens for c in calls] + [a.total_tokens for a in trace.all_agents()]:
        assert value is None or value.__class__ is int  # never NaN or infinity in a total


pytestmark = pytest.mark.usefixtures("backend")  # every test runs with both OTLP converters


@FAST
@given(st.binary(max_size=300))
def test_arbitrary_bytes(data: bytes) -> None:
    _only_load_errors(data)


@FAST
@given(JSON, st.sampled_from((None, *FORMATS)))
def test_arbitrary_json(value: Any, fmt: str | None) -> None:
    _only_load_errors(json.dumps(value), fmt)
    _only_load_errors(json.dumps(value) + "\n" + json.dumps(value) + "\n")


@FAST
@given(st.sampled_from(SAMPLES), st.data())
def test_mutated_real_files(sample: bytes, data: st.DataObject) -> None:
    """Real files cut, with bytes flipped, inserted or removed."""
    blob = bytearray(sample)
    for _ in range(data.draw(st.integers(0, 4))):
        op = data.draw(st.sampled_from(["cut", "flip", "insert", "delete"]))
        pos = data.draw(st.integers(0, max(0, len(blob) - 1)))
        if op == "cut":
            del blob[pos:]
        elif op == "flip" and blob:
            blob[pos] = data.draw(st.integers(0, 255))
        elif op == "insert":
            blob[pos:pos] = data.draw(st.binary(min_size=1, max_size=8))
        elif blob:
            del blob[pos : pos + data.draw(st.integers(1, 20))]
    _only_load_errors(bytes(blob))


@FAST
@given(sample=st.sampled_from(SAMPLES), cut=st.integers(0, 10_000))
def test_cut_gzip_files(sample: bytes, cut: int) -> None:
    path = GZ_DIR / "t.json.gz"
    packed = gzip.compress(sample)
    path.write_bytes(packed[: cut % (len(packed) + 1)])
    try:
        result = load_spans(path)
    except TraceLoadError:
        return
    _downstream(ta.Trace(result.spans, warnings=result.warnings))


# span parts that reach the dialects, the reconstruction and the checks, hostile values included
_IDS = [f"{i:016x}" for i in range(1, 7)]
_KEYS = st.sampled_from(
    [
        "gen_ai.operation.name",
        "gen_ai.agent.name",
        "gen_ai.tool.name",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
        "gen_ai.request.model",
        "gen_ai.usage.input_tokens",
        "gen_ai.usage.output_tokens",
        "gen_ai.usage.total_tokens",
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.completion.0.function_call.name",
        "gen_ai.completion.0.function_call.arguments",
        "openinference.span.kind",
        "tool.name",
        "input.value",
        "output.value",
        "llm.token_count.prompt",
        "llm.token_count.total",
        "traceloop.span.kind",
        "traceloop.entity.name",
        "error.type",
        "span.type",
        "entity.1.name",
    ]
)
_WORDS = st.sampled_from(
    [
        "invoke_agent",
        "execute_tool",
        "chat",
        "AGENT",
        "TOOL",
        "LLM",
        "agent",
        "tool",
        "t",
        "a",
        "NaN",
        "Infinity",
        "-Infinity",
        "1e400",
        "-5",
        '{"x": 1}',
        '[{"role": "assistant", "parts": [{"type": "tool_call", "name": "t", "arguments": {}}]}]',
        "[" * 600 + "]" * 600,
        '{"a":' * 300 + "1" + "}" * 300,
    ]
)
_VALUES = st.one_of(
    _WORDS,
    st.text(max_size=12),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
)


def _any_value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value if value == value and abs(value) != float("inf") else str(value)}
    return {"stringValue": value}


@st.composite
def _otlp_documents(draw: st.DrawFn) -> str:
    spans = []
    for _ in range(draw(st.integers(1, 8))):
        start = draw(st.integers(0, 10**6))
        attrs = draw(st.dictionaries(_KEYS, _VALUES, max_size=6))
        span: dict[str, Any] = {
            "traceId": "ab" * 16,
            "spanId": draw(st.sampled_from(_IDS)),  # duplicates, self-parents and cycles included
            "name": draw(_WORDS | st.text(max_size=8)),
            "kind": draw(st.integers(0, 5)),
            "startTimeUnixNano": str(start),
            "attributes": [{"key": k, "value": _any_value(v)} for k, v in attrs.items()],
            "status": {"code": draw(st.integers(0, 2)), "message": draw(st.sampled_from(["", "boom"]))},
        }
        if draw(st.booleans()):
            span["parentSpanId"] = draw(st.sampled_from(_IDS))
        if draw(st.booleans()):
            span["endTimeUnixNano"] = str(start + draw(st.integers(-10, 10**6)))
        spans.append(span)
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_otlp_documents())
def test_loadable_hostile_traces_go_through_everything(document: str) -> None:
    # bytes take the msgspec path when it is on; text always takes the stdlib one
    _only_load_errors(document if split._msgspec is None else document.encode())
