"""Reconstruction edge cases on hand-built GenAI spans (real traces are covered in tests/conformance)."""

from __future__ import annotations

import json

import pytest

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder


def _calls(*calls: tuple[str, object, str | None]) -> str:
    parts = [{"type": "tool_call", "name": n, "arguments": a, "id": i} for n, a, i in calls]
    return json.dumps([{"role": "assistant", "parts": parts}])


def test_nested_agents_tools_and_tokens() -> None:
    b = SpanBuilder()
    root = b.agent("boss")
    b.chat(root, 10, 5)
    tool = b.tool("delegate", root, args='{"task": "x"}', result="done")
    sub = b.agent("worker", parent=tool)
    b.chat(sub, 3, 2)
    b.tool("search", sub, args='{"q": "y"}')
    trace = b.trace()
    (boss,) = trace.agents
    assert boss.name == "boss" and boss.status == "succeeded"
    (worker,) = boss.nested
    assert worker.parent is boss and worker.via_tool is boss.tool_executions[0]
    assert [t.name for t in boss.tool_executions] == ["delegate"]
    assert [t.name for t in boss.all_tool_executions()] == ["delegate", "search"]
    assert boss.total_tokens == 20 and worker.total_tokens == 5
    assert [a.name for a in trace.all_agents()] == ["boss", "worker"]
    assert trace.tool_executions[1].agent is worker


def test_wrapper_and_provider_model_spans_are_one_call() -> None:
    b = SpanBuilder()
    root = b.agent("a")
    wrapper = b.chat(root, None, None, **{"gen_ai.request.model": "wrapper-model"})
    b.chat(wrapper, 7, 3, **{"gen_ai.response.model": "gpt-4o-2024"})
    trace = b.trace()
    (call,) = trace.model_calls
    assert (call.input_tokens, call.output_tokens, call.total_tokens) == (7, 3, 10)
    assert call.model == "gpt-4o-2024"
    assert len(call.spans) == 2
    ta.TraceAsserter(trace).under_token_limit(10)


def test_two_layers_recording_the_same_agent_are_one_invocation() -> None:
    b = SpanBuilder()
    outer = b.agent("planner")
    inner = b.agent("planner", parent=outer)
    b.tool("search", inner, args="{}")
    trace = b.trace()
    (planner,) = trace.agents
    assert planner.nested == ()
    assert len(planner.spans) == 2
    ta.TraceAsserter(trace).called_agent("planner", count=1)


def test_recursion_through_a_tool_is_a_nested_invocation() -> None:
    b = SpanBuilder()
    outer = b.agent("solver")
    tool = b.tool("solve_part", outer, args="{}")
    b.agent("solver", parent=tool)
    trace = b.trace()
    ta.TraceAsserter(trace).called_agent("solver", count=2)


def test_requested_calls_give_ids_order_and_scalar_argument_names() -> None:
    b = SpanBuilder()
    root = b.agent("a")
    b.chat(
        root,
        **{
            "gen_ai.output.messages": _calls(
                ("lookup", {"city": "Paris"}, "call_1"), ("lookup", {"city": "Rome"}, "call_2")
            )
        },
    )
    # parallel executions that started in the other order, with bare scalar arguments
    second = b.tool("lookup", root, args='"Rome"')
    first = b.tool("lookup", root, args='"Paris"', start_ns=second.start_ns + 10)
    assert first.start_ns > second.start_ns
    trace = b.trace()
    tools = trace.agents[0].tool_executions
    assert [t.call_id for t in tools] == ["call_1", "call_2"]
    assert [t.arguments for t in tools] == [{"city": "Paris"}, {"city": "Rome"}]


def test_requested_calls_without_recorded_executions_are_requests_not_executions() -> None:
    b = SpanBuilder()
    b.chat(None, **{"gen_ai.output.messages": _calls(("get_time", {"tz": "UTC"}, "c1"))})
    trace = b.trace()
    (implicit,) = trace.agents
    assert implicit.implicit
    assert trace.tool_executions == ()
    (request,) = trace.unexecuted_tool_requests
    assert (request.name, request.arguments, request.call_id) == ("get_time", {"tz": "UTC"}, "c1")
    assert trace.model_calls[0].requested_tools == (request,)
    # a producer not known to record executions (hand-built chat spans only): the outcome is unknown
    assert "tool get_time(tz='UTC') (requested, no execution recorded)" in trace.render()
    with pytest.raises(
        ta.TraceAssertionError, match=r"found 0 \(1 more requested by the model with no execution"
    ):
        ta.TraceAsserter(trace).called_tool("get_time")


def test_tool_error_is_a_failed_execution_not_a_failed_run() -> None:
    b = SpanBuilder()
    root = b.agent("a")
    b.tool(
        "explode",
        root,
        status="ERROR",
        events=(ta.SpanEvent("exception", 1, {"exception.type": "ValueError", "exception.message": "boom"}),),
    )
    trace = b.trace()
    (tool,) = trace.tool_executions
    assert tool.failed is True
    assert tool.error == ta.ErrorInfo("ValueError", "boom")
    assert trace.agents[0].status == "succeeded"


def test_failed_agent_with_error_type() -> None:
    b = SpanBuilder()
    b.agent("a", **{"error.type": "TimeoutError"})
    trace = b.trace()
    assert trace.agents[0].status == "failed"
    assert trace.agents[0].error is not None and trace.agents[0].error.type == "TimeoutError"


def test_unrecognised_spans_are_counted_and_shown() -> None:
    b = SpanBuilder()
    root = b.agent("a")
    b.span("GET /v1/things", {"http.method": "GET"}, parent=root)
    trace = b.trace()
    assert [s.name for s in trace.unclassified] == ["GET /v1/things"]
    assert "not recognised by any dialect: 1 span(s): 'GET /v1/things'" in trace.render()
    assert trace.summary()["unclassified_spans"] == 1


def test_arguments_in_every_shape() -> None:
    from traceassert._reconstruct.arguments import parse_arguments

    assert parse_arguments('{"a": 1}') == {"a": 1}
    assert parse_arguments('{ "a" :  1 ,\n "b": [1, 2] }') == {"a": 1, "b": [1, 2]}
    assert parse_arguments("{'a': 1, 'b': None}") == {"a": 1, "b": None}
    assert parse_arguments("Paris") == {"input": "Paris"}
    assert parse_arguments("3", ("n",)) == {"n": 3}
    assert parse_arguments(None) == {} and parse_arguments("") == {}
    assert parse_arguments({"a": (1, 2)}) == {"a": [1, 2]}


def test_cancelled_run() -> None:
    b = SpanBuilder()
    b.span(
        "invoke_agent a",
        {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a"},
        status="ERROR",
        events=(ta.SpanEvent("exception", 1, {"exception.type": "asyncio.exceptions.CancelledError"}),),
    )
    (inv,) = b.trace().agents
    assert inv.status == "cancelled"


def test_error_causes_from_the_stack_trace() -> None:
    stack = (
        "Traceback (most recent call last):\n  File \"x.py\", line 1, in f\nKeyError: 'city'\n\n"
        "The above exception was the direct cause of the following exception:\n\n"
        'Traceback (most recent call last):\n  File "x.py", line 3, in g\nRuntimeError: lookup failed\n'
    )
    b = SpanBuilder()
    b.span(
        "invoke_agent a",
        {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a"},
        status="ERROR",
        events=(
            ta.SpanEvent(
                "exception",
                1,
                {
                    "exception.type": "RuntimeError",
                    "exception.message": "lookup failed",
                    "exception.stacktrace": stack,
                },
            ),
        ),
    )
    (inv,) = b.trace().agents
    assert inv.status == "failed"
    assert inv.error == ta.ErrorInfo("RuntimeError", "lookup failed", (ta.ErrorInfo("KeyError", "'city'"),))


def test_streamed_run_without_a_final_message_reads_its_chunks() -> None:
    b = SpanBuilder()
    root = b.agent("a")
    chunks = tuple(
        ta.SpanEvent("gen_ai.content.completion.chunk", i, {"gen_ai.completion.chunk": text})
        for i, text in enumerate(["It is ", "sunny ", "in Paris."])
    )
    b.span(
        "chat m", {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m"}, parent=root, events=chunks
    )
    (inv,) = b.trace().agents
    assert inv.output is None
    assert inv.streamed_output == "It is sunny in Paris."
    agent = ta.TraceAsserter(b.trace()).called_agent("a")
    agent.has_output("It is sunny in Paris.").contains_output("sunny in paris")


def test_final_message_wins_over_chunks() -> None:
    b = SpanBuilder()
    root = b.agent(
        "a",
        **{
            "gen_ai.output.messages": '[{"role": "assistant", "parts": [{"type": "text", "content": "Final."}]}]'
        },
    )
    chunk = ta.SpanEvent("gen_ai.content.completion.chunk", 1, {"gen_ai.completion.chunk": "Fin"})
    b.span("chat m", {"gen_ai.operation.name": "chat"}, parent=root, events=(chunk,))
    (inv,) = b.trace().agents
    assert inv.output == "Final." and inv.streamed_output is None
    ta.TraceAsserter(b.trace()).called_agent("a").has_output("Final.").does_not_contain_output("FinFinal")
