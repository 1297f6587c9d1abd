"""Two instrumentation layers on one app: each step recorded twice becomes one record."""

from __future__ import annotations

import json
from typing import Any

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
    _genai_steps(b, agent, start)


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


def _genai_work_without_agent(b: SpanBuilder, start: int, *, root_name: str = "request") -> None:
    """The GenAI layer's tool and model-call spans under a span no dialect reads as an agent (an agent
    span the layer's dialect does not recognise, or none at all)."""
    root = b.span(root_name, {"app.step": "run"}, start_ns=start + 1, duration_ns=99_000)
    _genai_steps(b, root, start)


def _genai_steps(b: SpanBuilder, parent: ta.Span, start: int) -> None:
    """The GenAI layer's model call and tool execution under ``parent``."""
    b.span(
        "chat gpt-4o",
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "gpt-4o",
            "gen_ai.usage.input_tokens": 10,
            "gen_ai.usage.output_tokens": 5,
        },
        parent=parent,
        start_ns=start + 11,
        duration_ns=900,
    )
    b.tool(
        "search",
        parent,
        args=json.dumps({"q": "weather"}),
        result="sunny",
        start_ns=start + 2_001,
        duration_ns=900,
    )


def test_one_layers_work_outside_any_agent_pairs_with_the_agents_work() -> None:
    a = SpanBuilder("a" * 32)
    _openinference_tree(a, 1_000_000_000)
    b = SpanBuilder("b" * 32)
    _genai_work_without_agent(b, 1_000_000_000, root_name="planner")
    trace = ta.Trace([*a.spans, *b.spans])
    assert [inv.name for inv in trace.all_agents()] == ["planner"]  # no "outside any agent" invocation
    (tool,) = trace.tool_executions
    assert tool.agent is not None and tool.agent.name == "planner"
    assert tool.arguments == {"q": "weather"} and tool.result == "sunny"
    (call,) = trace.model_calls
    assert call.total_tokens == 15 and len(call.spans) == 2
    ta.TraceAsserter(trace).under_token_limit(15)


def test_work_outside_any_agent_in_both_layers_stays_outside() -> None:
    a = SpanBuilder("a" * 32)
    _genai_work_without_agent(a, 1_000_000_000)
    b = SpanBuilder("b" * 32)
    root = b.span("request", start_ns=1_000_000_000, duration_ns=100_000)
    b.span(
        "search",
        {
            "openinference.span.kind": "TOOL",
            "tool.name": "search",
            "input.value": json.dumps({"q": "weather"}),
        },
        parent=root,
        start_ns=1_000_002_000,
        duration_ns=1_000,
    )
    trace = ta.Trace([*a.spans, *b.spans])
    (implicit,) = trace.agents
    assert implicit.implicit
    (tool,) = trace.tool_executions
    assert tool.agent is implicit and len(implicit.tool_executions) == 1


def test_the_merged_agent_keeps_the_nesting_one_layer_recorded() -> None:
    """Layer A nests ``helper`` in ``planner``'s tool; layer B records ``helper`` at the top level: one
    ``helper``, nested."""
    a = SpanBuilder("a" * 32)
    planner = a.span(
        "planner", {"openinference.span.kind": "AGENT", "agent.name": "planner"}, duration_ns=1_000_000
    )
    ask = a.span(
        "ask",
        {"openinference.span.kind": "TOOL", "tool.name": "ask", "input.value": "{}"},
        parent=planner,
        start_ns=planner.start_ns + 100,
        duration_ns=500_000,
    )
    a.span(
        "helper",
        {"openinference.span.kind": "AGENT", "agent.name": "helper"},
        parent=ask,
        start_ns=planner.start_ns + 200,
        duration_ns=400_000,
    )
    b = SpanBuilder("b" * 32)
    b.span(
        "invoke_agent helper",
        {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "helper"},
        start_ns=planner.start_ns + 250,
        duration_ns=300_000,
    )
    trace = ta.Trace([*a.spans, *b.spans])
    (top,) = trace.agents
    assert top.name == "planner"
    (helper,) = top.nested
    assert helper.name == "helper" and len(helper.spans) == 2
    assert helper.via_tool is not None and helper.via_tool.name == "ask"


# -- one layer recording one run's turns as separate invocations (Monocle on the OpenAI Agents SDK) --


def _monocle(span_type: str, **attrs: Any) -> dict[str, Any]:
    return {"monocle_apptrace.version": "0.8.15", "span.type": span_type, **attrs}


def _turn(b: SpanBuilder, parent: ta.Span, agent: str, *, requests_tool: bool, start: int) -> ta.Span:
    turn = b.span(
        "agents.run.run_single_turn",
        _monocle("agentic.invocation", **{"entity.1.name": agent, "entity.1.type": "agent.openai_agents"}),
        parent=parent,
        start_ns=start,
        duration_ns=100_000,
    )
    response = (
        json.dumps({"tools": [{"tool_id": "c1", "tool_name": "lookup", "tool_arguments": '{"q": "x"}'}]})
        if requests_tool
        else json.dumps({"assistant": "done"})
    )
    b.span(
        "openai.create",
        _monocle("inference", **{"entity.2.name": "gpt-4o", "entity.2.type": "model.llm.gpt-4o"}),
        parent=turn,
        start_ns=start + 10,
        duration_ns=1_000,
        events=(
            ta.SpanEvent("data.output", None, {"response": response}),
            ta.SpanEvent("metadata", None, {"prompt_tokens": 10, "completion_tokens": 5}),
        ),
    )
    if requests_tool:
        b.span(
            "agents.tool.FunctionTool.__init__",
            _monocle(
                "agentic.tool.invocation",
                **{"entity.1.name": "lookup", "entity.1.type": "tool.openai_agents"},
            ),
            parent=turn,
            start_ns=start + 2_000,
            duration_ns=1_000,
            events=(ta.SpanEvent("data.input", None, {"input": ('{"q": "x"}',)}),),
        )
    return turn


def _request(b: SpanBuilder) -> ta.Span:
    root = b.span("workflow", _monocle("workflow", **{"entity.1.name": "app"}), duration_ns=10_000_000)
    return b.span("agents.run.Runner.run", _monocle("agentic.turn"), parent=root, duration_ns=9_000_000)


def test_the_turns_of_one_agent_run_are_one_invocation() -> None:
    b = SpanBuilder()
    run = _request(b)
    _turn(b, run, "a", requests_tool=True, start=run.start_ns + 1_000)
    _turn(b, run, "a", requests_tool=False, start=run.start_ns + 200_000)
    trace = b.trace()
    (a,) = trace.agents
    assert a.name == "a" and len(a.spans) == 2
    assert len(a.model_calls) == 2 and [t.name for t in a.tool_executions] == ["lookup"]
    assert a.total_tokens == 30


def test_two_runs_that_each_ended_with_an_answer_stay_two() -> None:
    b = SpanBuilder()
    run = _request(b)
    _turn(b, run, "a", requests_tool=False, start=run.start_ns + 1_000)
    _turn(b, run, "a", requests_tool=False, start=run.start_ns + 200_000)
    assert [a.name for a in b.trace().agents] == ["a", "a"]


def test_turns_are_joined_only_under_a_request_or_tool() -> None:
    """Under an agent (a supervisor running ``a`` twice) they are two runs, even after a tool request."""
    b = SpanBuilder()
    run = _request(b)
    boss = b.span(
        "supervisor",
        _monocle("agentic.invocation", **{"entity.1.name": "boss", "entity.1.type": "agent.langgraph"}),
        parent=run,
        start_ns=run.start_ns + 10,
        duration_ns=8_000_000,
    )
    _turn(b, boss, "a", requests_tool=True, start=run.start_ns + 1_000)
    _turn(b, boss, "a", requests_tool=False, start=run.start_ns + 200_000)
    (top,) = b.trace().agents
    assert [n.name for n in top.nested] == ["a", "a"]


def test_an_agent_is_never_merged_with_one_it_runs() -> None:
    """An agent that runs itself through a tool, each recorded by another layer: two invocations, the
    inner one nested (merging them would make an invocation its own parent)."""
    b = SpanBuilder()
    outer = b.span("loop", {"openinference.span.kind": "AGENT", "agent.name": "loop"}, duration_ns=1_000_000)
    call = b.span(
        "recurse",
        {"openinference.span.kind": "TOOL", "tool.name": "recurse", "input.value": "{}"},
        parent=outer,
        start_ns=outer.start_ns + 10,
        duration_ns=500_000,
    )
    b.span(
        "invoke_agent loop",
        {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "loop"},
        parent=call,
        start_ns=outer.start_ns + 20,
        duration_ns=400_000,
    )
    (top,) = b.trace().agents
    assert top.name == "loop" and [n.name for n in top.nested] == ["loop"]
    assert top.nested[0].nested == ()
