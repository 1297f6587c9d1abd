"""Two instrumentation layers on one app: each step recorded twice becomes one record."""

from __future__ import annotations

import json

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder


def _openinference_tree(b: SpanBuilder, start: int) -> None:
    agent = b.span(
        "planner",
        {"openinference.span.kind": "AGENT", "agent.name": "planner"},
        start_ns=start,
        duration_ns=100_000,
    )
    b.span(
        "response",
        {
            "openinference.span.kind": "LLM",
            "llm.model_name": "gpt-4o",
            "llm.token_count.prompt": 10,
            "llm.token_count.completion": 5,
        },
        parent=agent,
        start_ns=start + 10,
        duration_ns=1_000,
    )
    b.span(
        "search",
        {
            "openinference.span.kind": "TOOL",
            "tool.name": "search",
            "input.value": json.dumps({"q": "weather"}),
        },
        parent=agent,
        start_ns=start + 2_000,
        duration_ns=1_000,
    )


def _genai_tree(b: SpanBuilder, start: int) -> None:
    """The same steps through a GenAI-conventions layer: each span a little inside the other layer's."""
    agent = b.span(
        "invoke_agent planner",
        {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "planner"},
        start_ns=start + 1,
        duration_ns=99_000,
    )
    b.span(
        "chat gpt-4o",
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "gpt-4o",
            "gen_ai.usage.input_tokens": 10,
            "gen_ai.usage.output_tokens": 5,
        },
        parent=agent,
        start_ns=start + 11,
        duration_ns=900,
    )
    b.tool(
        "search",
        agent,
        args=json.dumps({"q": "weather"}),
        result="sunny",
        start_ns=start + 2_001,
        duration_ns=900,
    )


def test_two_trees_with_separate_trace_ids_are_one_set_of_records() -> None:
    a = SpanBuilder("a" * 32)
    _openinference_tree(a, 1_000_000_000)
    b = SpanBuilder("b" * 32)
    _genai_tree(b, 1_000_000_000)
    trace = ta.Trace([*a.spans, *b.spans])
    assert len(trace.trace_ids) == 2
    (planner,) = trace.agents
    assert planner.name == "planner" and len(planner.spans) == 2
    (tool,) = trace.tool_executions
    assert tool.arguments == {"q": "weather"} and tool.result == "sunny"
    (call,) = trace.model_calls
    assert call.total_tokens == 15
    asserter = ta.TraceAsserter(trace)
    asserter.called_agent("planner", count=1).called_tool("search", count=1)
    asserter.under_token_limit(15)


def test_same_dialect_parallel_calls_are_not_merged() -> None:
    b = SpanBuilder()
    root = b.agent("a")
    first = b.tool("lookup", root, args='{"city": "Paris"}', duration_ns=10_000)
    b.tool("lookup", root, args='{"city": "Paris"}', start_ns=first.start_ns + 1)
    trace = b.trace()
    assert [t.name for t in trace.tool_executions] == ["lookup", "lookup"]


def test_sequential_steps_of_two_layers_are_not_merged_across_steps() -> None:
    a = SpanBuilder("a" * 32)
    _openinference_tree(a, 1_000_000_000)
    _openinference_tree(a, 5_000_000_000)
    b = SpanBuilder("b" * 32)
    _genai_tree(b, 1_000_000_000)
    trace = ta.Trace([*a.spans, *b.spans])
    assert [len(inv.spans) for inv in trace.agents] == [2, 1]
    assert len(trace.tool_executions) == 2
