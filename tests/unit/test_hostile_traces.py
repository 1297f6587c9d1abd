"""Hostile but loadable traces never crash anything downstream: render, summary, the checks, the CLI.

Hand-built spans (tests/unit/spanbuilder.py) and OTLP files written here: the shapes are what a broken
or malicious producer writes, which no real framework run gives.
"""

from __future__ import annotations

import contextlib
import json
import math
from pathlib import Path
from typing import Any

import pytest

import traceassert as ta
from traceassert._common.jsonvalue import MAX_JSON_DEPTH, as_int, loads_json, maybe_json
from traceassert._golden.generate import generate_test
from traceassert._loaders import parse_spans, split
from traceassert._loaders.jsontext import json_text
from traceassert.cli import main

from .spanbuilder import SpanBuilder


def _otlp(*spans: dict[str, Any], resource: list[Any] | None = None) -> bytes:
    rs: dict[str, Any] = {"scopeSpans": [{"spans": list(spans)}]}
    if resource is not None:
        rs["resource"] = {"attributes": resource}
    return json.dumps({"resourceSpans": [rs]}).encode()


def _span(i: int, **extra: Any) -> dict[str, Any]:
    return {
        "traceId": "ab" * 16,
        "spanId": f"{i:016x}",
        "name": f"s{i}",
        "startTimeUnixNano": str(i),
        **extra,
    }


def _everything(trace: ta.Trace) -> None:
    """Every reader of a trace; only TraceAssertionError may come out of a check."""
    trace.render()
    trace.render(color=True, durations=True)
    json_text(trace.summary())  # what `traceassert summary --json` prints
    for root in trace.roots:
        trace.descendants(root)
    asserter = ta.TraceAsserter(trace)
    checks = [
        lambda: asserter.called_tool("t"),
        lambda: asserter.under_token_limit(100),
        lambda: asserter.including_nested().has_no_failed_tool_executions(),
        lambda: asserter.where(attribute={"gen_ai.tool.name": "t"}),
        lambda: asserter.called_agent("a").called_tool("t").has_input({"x": 1}),
        lambda: asserter.called_tool("t").contains_output("x"),
        lambda: asserter.under_duration(10),
    ]
    for check in checks:
        with contextlib.suppress(ta.TraceAssertionError):
            check()
    _golden(trace)


def _golden(trace: ta.Trace) -> None:
    """slim, diff and generate: a trace that loads never crashes them (a trace without spans is the
    one refusal)."""
    if not trace.spans:
        with pytest.raises(ta.TraceWriteError):
            ta.slim_trace(trace)
        return
    ta.slim_trace(trace)  # redacted: JSON deeper than redaction looks is replaced, so it may differ
    slim = ta.slim_trace(trace, redact=False)
    again = ta.Trace(parse_spans(slim.data).spans)
    diff = ta.behaviour_diff(trace, again)
    assert diff.same, diff.text()
    generate_test(trace)


# ---------------------------------------------------------------------------------------- null keys


@pytest.mark.parametrize(
    ("attribute", "message"),
    [
        ({"key": None, "value": {"stringValue": "x"}}, "attribute key must be a string, got null"),
        ({"value": {"stringValue": "x"}}, "missing field 'key'"),
        ({"key": 7, "value": {"stringValue": "x"}}, "attribute key must be a string, got int"),
    ],
)
def test_a_null_or_missing_attribute_key_is_refused_alike_by_both_paths(
    attribute: dict[str, Any], message: str, backend: str
) -> None:
    """The msgspec typed path and the stdlib path agree: a TraceLoadError naming the place."""
    places = {
        _otlp(_span(1, attributes=[attribute])): "resourceSpans[0].scopeSpans[0].spans[0]",
        _otlp(_span(1), resource=[attribute]): "resourceSpans[0].resource",
        _otlp(_span(1, events=[{"name": "e", "attributes": [attribute]}])): "spans[0]",
    }
    for data, place in places.items():
        with pytest.raises(ta.TraceLoadError, match=message) as info:
            parse_spans(data, name="keys.json")
        assert place in str(info.value)


def test_both_paths_give_the_same_message(monkeypatch: pytest.MonkeyPatch) -> None:
    if split._msgspec is None:
        pytest.skip("msgspec is not installed")
    data = _otlp(_span(1), _span(2, attributes=[{"value": {"stringValue": "x"}}]))
    with pytest.raises(ta.TraceLoadError) as typed:
        parse_spans(data, name="k.json")
    monkeypatch.setattr(split, "_msgspec", None)
    with pytest.raises(ta.TraceLoadError) as stdlib:
        parse_spans(data, name="k.json")
    assert str(typed.value).endswith(
        "resourceSpans[0].scopeSpans[0].spans[1]: invalid record: missing field 'key' "
        "(formats tried: otlp, jaeger, phoenix, sdk, okahu, any-agent, otel-js)"
    )
    assert str(stdlib.value).endswith(str(typed.value).split(": ", 2)[-1])


# ---------------------------------------------------------------------------------------- numbers


@pytest.mark.parametrize("bad", [math.inf, -math.inf, math.nan, "1e400", "Infinity", "NaN", " -inf "])
def test_non_finite_token_counts_read_as_not_recorded_with_a_warning(bad: Any) -> None:
    assert as_int(bad) is None
    b = SpanBuilder()
    agent = b.agent("a")
    chat = b.chat(agent, inp=bad, out=bad)
    trace = ta.Trace(b.spans)
    (call,) = trace.model_calls
    assert (call.input_tokens, call.output_tokens, call.total_tokens) == (None, None, None)
    totals = trace.summary()["totals"]
    assert (totals["input_tokens"], totals["total_tokens"]) == (None, None)
    (warning,) = trace.warnings
    assert "not a finite number (NaN or infinity); read as not recorded: 'chat m'" in warning
    assert "gen_ai.usage.input_tokens=" in warning
    assert f"warning: {warning}" in trace.render()
    with pytest.raises(ta.TraceAssertionError, match="record a token count that is not a finite number"):
        ta.TraceAsserter(trace).under_token_limit(1_000_000)
    assert chat in trace.spans


def test_one_non_finite_count_among_good_ones_still_fails_the_budget() -> None:
    """Counting the other calls only would pass a budget the run may have broken."""
    b = SpanBuilder()
    agent = b.agent("a")
    b.chat(agent, inp=10, out=5)
    b.chat(agent, inp="Infinity", out=5)
    trace = ta.Trace(b.spans)
    assert trace.summary()["totals"]["total_tokens"] == 20  # 15 + the 5 output tokens, never inf
    with pytest.raises(ta.TraceAssertionError, match=r"^under_token_limit\(100\): 1 model call\(s\)"):
        ta.TraceAsserter(trace).under_token_limit(100)
    with pytest.raises(ta.TraceAssertionError, match="not a finite number"):
        ta.TraceAsserter(trace).called_agent("a").under_token_limit(100)


def test_non_finite_counts_from_a_file(backend: str) -> None:
    attrs = [
        {"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
        {"key": "gen_ai.usage.input_tokens", "value": {"doubleValue": "Infinity"}},
        {"key": "gen_ai.usage.output_tokens", "value": {"doubleValue": "NaN"}},
        {"key": "gen_ai.usage.total_tokens", "value": {"stringValue": "1e400"}},
    ]
    result = parse_spans(_otlp(_span(1, name="chat m", attributes=attrs)))
    trace = ta.Trace(result.spans, warnings=result.warnings)
    assert trace.model_calls[0].total_tokens is None
    _everything(trace)
    assert any("not a finite number" in w for w in trace.warnings)


@pytest.mark.parametrize("limit", [-1, -0.5, math.nan, -math.inf])
def test_negative_or_nan_limits_are_value_errors(limit: float) -> None:
    b = SpanBuilder()
    b.chat(b.agent("a"))
    asserter = ta.TraceAsserter(ta.Trace(b.spans))
    with pytest.raises(ValueError, match=r"token_limit must be a number >= 0"):
        asserter.under_token_limit(limit)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"duration_limit must be a number >= 0"):
        asserter.under_duration(limit)


# ---------------------------------------------------------------------------------------- deep JSON


def test_json_text_nested_past_the_limit_stays_text() -> None:
    assert loads_json("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH) == (True, eval("[" * 99 + "[]" + "]" * 99))
    assert loads_json("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1)) == (False, None)
    wide = json.dumps([{"a": [1]} for _ in range(500)])  # many brackets, shallow: parsed
    assert loads_json(wide)[0] is True
    tricky = json.dumps({"text": "[" * 500})  # brackets inside a string do not count
    assert loads_json(tricky) == (True, {"text": "[" * 500})
    deep = "[" * 100_000 + "]" * 100_000
    assert maybe_json(deep) is deep


@pytest.mark.parametrize("depth", [500, 5_000])
def test_deeply_nested_json_in_arguments_results_and_messages(depth: int) -> None:
    deep_list = "[" * depth + "]" * depth
    deep_object = '{"a":' * depth + "1" + "}" * depth
    b = SpanBuilder()
    agent = b.agent("a", **{"gen_ai.input.messages": deep_list})
    b.tool("t", agent, args=deep_object, result=deep_list)
    b.chat(agent, **{"gen_ai.input.messages": deep_list, "gen_ai.output.messages": deep_object})
    trace = ta.Trace(b.spans)
    (tool,) = trace.tool_executions
    assert tool.arguments == {"input": deep_object}  # kept as text, not parsed
    assert tool.result == deep_list
    _everything(trace)
    assert "tool t(input=" in trace.render()


# ---------------------------------------------------------------------------------------- deep nesting


def _deep_agents(depth: int) -> ta.Trace:
    b = SpanBuilder()
    parent = None
    for i in range(depth):
        parent = b.agent(f"a{i}", parent=parent)
    assert parent is not None
    b.tool("t", parent, args='{"x": 1}', result="ok")
    b.tool("t", parent, args="{}", status="ERROR", description="boom")
    b.chat(parent)
    return ta.Trace(b.spans)


@pytest.mark.slow
def test_agents_nested_a_thousand_deep() -> None:
    trace = _deep_agents(1_000)
    assert len(trace.all_agents()) == 1_000
    (top,) = trace.agents
    assert len(top.all_tool_executions()) == 2 and top.total_tokens == 15
    assert len(list(top.walk())) == 1_000
    text = trace.render()
    assert text.count("agent a") == 1_000 and "tool t(x=1) -> 'ok' ok" in text
    summary = trace.summary()
    assert summary["totals"]["agent_invocations"] == 1_000
    assert len(trace.descendants(trace.roots[0])) == 1_002
    _everything(trace)
    asserter = ta.TraceAsserter(trace)
    asserter.called_agent("a999").called_tool("t", count=2)
    asserter.called_agent("a0").called_agent("a999")
    with pytest.raises(ta.TraceAssertionError, match="has_no_failed_tool_executions"):
        asserter.including_nested().has_no_failed_tool_executions()


def test_cli_on_agents_nested_a_thousand_deep(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "deep.json"
    ta.dump_trace(_deep_agents(1_000), path)
    assert main(["show", str(path)]) == 0
    assert capsys.readouterr().out.count("agent a") == 1_000
    assert main(["summary", str(path), "--json"]) == 0
    out = capsys.readouterr().out
    assert out.startswith('{\n  "agents": [\n    {\n      "error": null,')
    assert '"agent_invocations": 1000,' in out and out.count('"name": "a') == 1_000
    assert main(["summary", str(path)]) == 0
    assert main(["check", str(path), "--called-tool", "t", "--under-token-limit", "100"]) == 0
    assert main(["check", str(path), "--no-failed-tools"]) == 1
    assert main(["convert", str(path), str(tmp_path / "again.json")]) == 0
    assert len(ta.load_trace(tmp_path / "again.json").all_agents()) == 1_000


def test_cli_never_passes_a_budget_on_non_finite_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    b = SpanBuilder()
    agent = b.agent("a")
    b.chat(agent, inp=10, out=5)
    b.chat(agent, inp=float("nan"), out=float("inf"))
    path = tmp_path / "nan.json"
    ta.dump_trace(ta.Trace(b.spans), path)
    assert main(["check", str(path), "--under-token-limit", "1000000"]) == 1
    assert "not a finite number" in capsys.readouterr().out
    assert main(["show", str(path)]) == 0
    assert "warning: 1 span(s) record a token count" in capsys.readouterr().out
    assert main(["summary", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["totals"]["total_tokens"] == 15


def test_the_cli_json_of_a_deep_summary_is_the_json_module_s_text() -> None:
    import sys

    shallow = _deep_agents(3).summary()
    reference = json.dumps(shallow, indent=2, sort_keys=True, ensure_ascii=False, default=str)
    assert json_text(shallow) == reference
    deep: Any = {"leaf": [1, "ü", None, {}, [], 2.5, True]}
    for i in range(800):  # 1,600 levels: past the recursion limit of json.dumps
        deep = {"nested": [deep], "i": i}
    with pytest.raises(RecursionError):
        json.dumps(deep)
    text = json_text(deep)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(20_000)
    try:
        assert text == json.dumps(deep, indent=2, sort_keys=True, ensure_ascii=False, default=str)
    finally:
        sys.setrecursionlimit(limit)


# ---------------------------------------------------------------------------------------- structure


def test_a_span_that_is_its_own_parent() -> None:
    b = SpanBuilder()
    agent = b.agent("a")
    b.tool("t", agent)
    b.span("selfish", span_id="00000000000000ff", parent_id="00000000000000ff")
    b.span("lost", parent_id="00000000000000ee")
    trace = ta.Trace(b.spans)
    assert [s.name for s in trace.orphans] == ["selfish", "lost"]
    assert (
        "span 'selfish' is its own parent (its parent id is its own span id): made a root" in trace.warnings
    )
    assert any(
        "1 span(s) name a parent that is not in the trace" in w and "'lost'" in w for w in trace.warnings
    )
    assert not any("not in the trace" in w and "selfish" in w for w in trace.warnings)
    _everything(trace)


def test_several_spans_that_are_their_own_parent() -> None:
    b = SpanBuilder()
    for i in range(7):
        b.span(f"s{i}", span_id=f"{i + 1:016x}", parent_id=f"{i + 1:016x}")
    trace = ta.Trace(b.spans)
    (warning,) = trace.warnings
    assert warning.startswith("7 spans are each its own parent (parent id = span id), made roots: 's0'")
    assert warning.endswith("and 2 more")
