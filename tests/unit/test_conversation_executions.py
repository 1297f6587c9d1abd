"""Executions from the conversation: a request that no tool span answers, whose result a later model
call's input holds, is an execution (``source == "conversation"``) in every message shape."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

import traceassert as ta
from tests.unit._invocations import fails
from tests.unit.spanbuilder import SpanBuilder
from traceassert._golden import slim_trace


def _asks(*calls: tuple[str, Any, str | None]) -> str:
    parts = [{"type": "tool_call", "name": n, "arguments": a, "id": i} for n, a, i in calls]
    return json.dumps([{"role": "assistant", "parts": parts}])


_USER = {"role": "user", "parts": [{"type": "text", "content": "Weather in Rome?"}]}


def _two_calls(second_input: Any, *, key: str = "gen_ai.input.messages") -> ta.Trace:
    """An agent whose model asks for ``get_weather(city='Rome')`` (call id ``c1``), then is called
    again with ``second_input`` (under ``key``) as its input; no tool span."""
    b = SpanBuilder()
    agent = b.agent("assistant")
    b.chat(agent, **{"gen_ai.output.messages": _asks(("get_weather", {"city": "Rome"}, "c1"))})
    value = second_input if isinstance(second_input, str) else json.dumps(second_input)
    b.chat(agent, **{key: value})
    return b.trace()


def _agent(trace: ta.Trace, name: str) -> ta.AgentInvocation:
    (found,) = (inv for inv in trace.all_agents() if inv.name == name)
    return found


def _only(trace: ta.Trace) -> ta.ToolExecution:
    (tool,) = trace.tool_executions
    assert tool.source == "conversation" and tool.span is None
    assert (tool.name, tool.arguments, tool.call_id) == ("get_weather", {"city": "Rome"}, "c1")
    assert trace.unexecuted_tool_requests == ()
    (request,) = trace.tool_requests
    assert request.execution is tool and tool.request is request and request.executed
    (agent,) = trace.agents
    assert agent.tool_executions == (tool,) and tool.agent is agent
    return tool


def test_openai_chat_tool_message() -> None:
    asked = {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "get_weather"}}]}
    answer = {"role": "tool", "tool_call_id": "c1", "content": "Sunny, 21C"}
    tool = _only(_two_calls([{"role": "user", "content": "Weather in Rome?"}, asked, answer]))
    # a tool message has no failure field: a failed tool's error text reads like any result
    assert (tool.result, tool.failed, tool.error) == ("Sunny, 21C", None, None)


def test_anthropic_tool_result_block_marks_the_failure() -> None:
    asked = {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "get_weather"}]}
    answer = {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "c1", "is_error": True, "content": "no such city"}
        ],
    }
    tool = _only(_two_calls([asked, answer]))
    assert (tool.result, tool.failed) == ("no such city", True)
    assert tool.error is not None and str(tool.error) == "no such city"


def test_anthropic_flattened_prompt() -> None:
    """OpenLLMetry's Anthropic instrumentation flattens the prompt (``gen_ai.prompt.N.*``), the
    content blocks as JSON."""
    b = SpanBuilder()
    agent = b.agent("assistant")
    b.chat(agent, **{"gen_ai.output.messages": _asks(("get_weather", {"city": "Rome"}, "c1"))})
    block = [{"type": "tool_result", "tool_use_id": "c1", "content": [{"type": "text", "text": "Sunny"}]}]
    b.chat(agent, **{"gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": json.dumps(block)})
    tool = _only(b.trace())
    assert (tool.result, tool.failed) == ("Sunny", False)


def test_genai_tool_call_response_part() -> None:
    answer = {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": {"temp": 21}}]}
    tool = _only(_two_calls([_USER, answer]))
    assert (tool.result, tool.failed) == ({"temp": 21}, None)  # the part has no failure field


def test_genai_result_with_an_error_field_failed() -> None:
    answer = {
        "role": "tool",
        "parts": [{"type": "tool_call_response", "id": "c1", "response": {"error": "down"}}],
    }
    tool = _only(_two_calls([_USER, answer]))
    assert tool.failed is True and tool.error is not None and tool.error.message == "down"


def test_openinference_tool_message() -> None:
    b = SpanBuilder()
    agent = b.agent("assistant")
    asks = "llm.output_messages.0.message.tool_calls.0.tool_call."
    llm = {"openinference.span.kind": "LLM", "llm.model_name": "m"}
    b.span(
        "ChatCompletion",
        {
            **llm,
            "llm.output_messages.0.message.role": "assistant",
            f"{asks}id": "c1",
            f"{asks}function.name": "get_weather",
            f"{asks}function.arguments": json.dumps({"city": "Rome"}),
        },
        parent=agent,
    )
    b.span(
        "ChatCompletion",
        {
            **llm,
            "llm.input_messages.0.message.role": "user",
            "llm.input_messages.0.message.content": "Weather in Rome?",
            "llm.input_messages.1.message.role": "tool",
            "llm.input_messages.1.message.tool_call_id": "c1",
            "llm.input_messages.1.message.content": "Sunny, 21C",
        },
        parent=agent,
    )
    tool = _only(b.trace())
    assert (tool.result, tool.failed) == ("Sunny, 21C", None)  # a tool message: no failure field


@pytest.mark.parametrize("key", ["function_response", "functionResponse"])
def test_gemini_function_response(key: str) -> None:
    answer = {
        "role": "user",
        "parts": [{key: {"id": "c1", "name": "get_weather", "response": {"error": "x"}}}],
    }
    tool = _only(_two_calls([answer]))
    assert tool.failed is True and tool.result == {"error": "x"}


def test_bedrock_tool_result_status() -> None:
    block = {"toolResult": {"toolUseId": "c1", "status": "error", "content": [{"text": "boom"}]}}
    tool = _only(_two_calls([{"role": "user", "content": [block]}]))
    assert (tool.result, tool.failed) == ("boom", True)


def test_results_without_call_ids_answer_the_latest_request_by_name_then_position() -> None:
    """No call ids anywhere: the results after the input's last assistant message answer the agent's
    latest request, the k-th result of a name the k-th request of that name; history is not read
    again."""
    b = SpanBuilder()
    agent = b.agent("assistant")
    asked = _asks(("get_weather", {"city": "Rome"}, None), ("get_weather", {"city": "Oslo"}, None))
    b.chat(agent, **{"gen_ai.output.messages": asked})
    results = [
        {"role": "tool", "name": "get_weather", "content": "Sunny"},
        {"role": "tool", "name": "get_weather", "content": "Snow"},
    ]
    history = [_USER, json.loads(asked)[0], *results]
    b.chat(agent, **{"gen_ai.input.messages": json.dumps(history)})
    b.chat(agent, **{"gen_ai.output.messages": _asks(("get_time", {}, None))})
    again = [*history, json.loads(_asks(("get_time", {}, None)))[0], {"role": "tool", "content": "noon"}]
    b.chat(agent, **{"gen_ai.input.messages": json.dumps(again)})
    trace = b.trace()
    assert [(t.name, t.arguments, t.result, t.source) for t in trace.tool_executions] == [
        ("get_weather", {"city": "Rome"}, "Sunny", "conversation"),
        ("get_weather", {"city": "Oslo"}, "Snow", "conversation"),
        ("get_time", {}, "noon", "conversation"),
    ]
    assert trace.unexecuted_tool_requests == ()


def test_a_tool_span_wins_and_no_result_means_no_execution() -> None:
    """A request a tool span answers keeps that one execution; a request with no result stays a
    request."""
    b = SpanBuilder()
    agent = b.agent("assistant")
    asked = _asks(("get_weather", {"city": "Rome"}, "c1"), ("get_time", {}, "c2"))
    b.chat(agent, **{"gen_ai.output.messages": asked})
    b.span(
        "execute_tool get_weather",
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "get_weather",
            "gen_ai.tool.call.id": "c1",
        },
        parent=agent,
    )
    answer = {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": "Sunny"}]}
    b.chat(agent, **{"gen_ai.input.messages": json.dumps([_USER, answer])})
    trace = b.trace()
    (tool,) = trace.tool_executions
    assert tool.source == "span" and tool.span is not None
    assert [r.name for r in trace.unexecuted_tool_requests] == ["get_time"]


def test_a_result_after_a_handoff_answers_the_first_agent_by_call_id() -> None:
    """The conversation moves to the next agent: a result there, by call id, is an execution of the
    agent that asked."""
    b = SpanBuilder()
    first = b.agent("triage")
    b.chat(first, **{"gen_ai.output.messages": _asks(("lookup", {"q": "x"}, "c9"))})
    second = b.agent("expert")
    answer = {"role": "tool", "tool_call_id": "c9", "content": "found"}
    b.chat(second, **{"gen_ai.input.messages": json.dumps([answer])})
    trace = b.trace()
    (tool,) = trace.tool_executions
    assert tool.agent is not None and tool.agent.name == "triage" and tool.result == "found"
    assert [t.name for t in _agent(trace, "triage").tool_executions] == ["lookup"]
    assert _agent(trace, "expert").tool_executions == ()


def test_a_handoff_request_answered_by_the_framework_is_no_execution() -> None:
    """A framework answers a handoff it does not carry out ("Multiple handoffs detected"): no
    execution, no handoff."""
    answer = {
        "role": "tool",
        "tool_call_id": "c1",
        "content": "Multiple handoffs detected, ignoring this one.",
    }
    b = SpanBuilder()
    agent = b.agent("triage")
    b.chat(agent, **{"gen_ai.output.messages": _asks(("transfer_to_billing", {}, "c1"))})
    b.chat(agent, **{"gen_ai.input.messages": json.dumps([answer])})
    trace = b.trace()
    assert trace.tool_executions == ()
    assert [r.name for r in trace.unexecuted_tool_requests] == ["transfer_to_billing"]


def test_placed_after_the_model_call_that_asked_and_rendered_as_from_conversation() -> None:
    asked = {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "get_weather"}}]}
    answer = {"role": "tool", "tool_call_id": "c1", "content": "Sunny, 21C"}
    trace = _two_calls([asked, answer])
    lines = trace.render().splitlines()
    assert lines[2:] == [
        "├─ model chat m tokens in=10 out=5",
        "├─ tool get_weather(city='Rome') -> 'Sunny, 21C' (status unknown) (from conversation)",
        "└─ model chat m tokens in=10 out=5",
    ]
    assert "1 tool execution(s) (0 failed)" in lines[0] and "not executed" not in lines[0]


def test_checks_count_executions_from_the_conversation() -> None:
    asked = {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "get_weather"}}]}
    answer = {"role": "tool", "tool_call_id": "c1", "content": "Sunny, 21C"}
    asserter = ta.TraceAsserter(_two_calls([asked, answer]))
    asserter.called_tool("get_weather", count=1)
    with fails("whose outcome the producer did not record"):  # ran, but did it succeed? cannot tell
        asserter.has_tool_executed("get_weather")
    with fails("get_weather(city='Rome') -> 'Sunny, 21C' (status unknown) (from conversation)"):
        asserter.does_not_call_tool("get_weather")
    with fails("the producer did not record whether 1 execution(s) failed"):
        asserter.has_no_failed_tool_executions()
    asserter.accepting_unknown_outcomes().has_no_failed_tool_executions()  # accepted on purpose
    # an upper bound on successful executions: the one of unknown outcome may have succeeded
    with fails("but cannot tell: 1 more execution(s) of it record no outcome"):
        asserter.has_tool_executed("get_weather", count=0)
    with fails("but cannot tell: 1 more execution(s) of it record no outcome"):
        asserter.has_tool_executed_times("get_weather", 0)
    asserter.has_tool_executed("get_weather", max_count=1)  # within the bound whatever it did
    asserter.accepting_unknown_outcomes().has_tool_executed("get_weather", count=0)
    succeeded = {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "c1", "is_error": False, "content": "ok"}],
    }
    ta.TraceAsserter(_two_calls([succeeded])).has_tool_executed("get_weather").has_no_failed_tool_executions()

    failed = {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "c1", "is_error": True, "content": "x"}],
    }
    ta.TraceAsserter(_two_calls([failed])).has_tool_execution_failed("get_weather", error_containing="x")
    with fails("get_weather(city='Rome') FAILED: x (from conversation)"):
        ta.TraceAsserter(_two_calls([failed])).has_no_failed_tool_executions()
    with fails("get_weather(city='Rome') FAILED: x (from conversation)"):  # a recorded failure is no unknown
        ta.TraceAsserter(_two_calls([failed])).accepting_unknown_outcomes().has_no_failed_tool_executions()


def test_a_nested_agent_with_spans_still_nests_under_its_tool_span() -> None:
    """Conversation results change nothing where spans show the work: the helper agent that the
    ``ask_helper`` tool ran stays nested under that tool's execution."""
    b = SpanBuilder()
    top = b.agent("orchestrator")
    b.chat(top, **{"gen_ai.output.messages": _asks(("ask_helper", {"q": "?"}, "c1"))})
    tool = b.span(
        "execute_tool ask_helper",
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "ask_helper",
            "gen_ai.tool.call.id": "c1",
        },
        parent=top,
    )
    b.agent("helper", parent=tool)
    answer = {"role": "tool", "tool_call_id": "c1", "content": "done"}
    b.chat(top, **{"gen_ai.input.messages": json.dumps([answer])})
    trace = b.trace()
    (execution,) = trace.tool_executions
    assert execution.source == "span"
    assert _agent(trace, "helper").via_tool is execution


@pytest.mark.parametrize("span_name", ["get_weather.__call__", "Tool: get_weather", "SimpleTool"])
@pytest.mark.parametrize("call_id", ["c1", None])
def test_a_tool_span_named_otherwise_takes_the_requested_name(span_name: str, call_id: str | None) -> None:
    b = SpanBuilder()
    agent = b.agent("assistant")
    b.chat(agent, **{"gen_ai.output.messages": _asks(("get_weather", {"city": "Rome"}, call_id))})
    attrs: dict[str, Any] = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": span_name,
        "gen_ai.tool.call.arguments": json.dumps({"city": "Rome"}),
    }
    if call_id is not None:
        attrs["gen_ai.tool.call.id"] = call_id
    b.span(span_name, attrs, parent=agent)
    trace = b.trace()
    (tool,) = trace.tool_executions
    assert (tool.name, tool.source, tool.call_id) == ("get_weather", "span", call_id)
    assert trace.unexecuted_tool_requests == ()
    ta.TraceAsserter(trace).called_tool("get_weather", count=1)


def test_a_span_of_another_tool_with_other_arguments_keeps_its_name() -> None:
    b = SpanBuilder()
    agent = b.agent("assistant")
    b.chat(agent, **{"gen_ai.output.messages": _asks(("get_weather", {"city": "Rome"}, None))})
    b.span(
        "SimpleTool",
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "SimpleTool",
            "gen_ai.tool.call.arguments": json.dumps({"city": "Oslo"}),
        },
        parent=agent,
    )
    trace = b.trace()
    assert [t.name for t in trace.tool_executions] == ["SimpleTool"]
    assert [r.name for r in trace.unexecuted_tool_requests] == ["get_weather"]


def test_many_results_are_matched_in_linear_time() -> None:
    """A long loop (one request, then its result, n times), every input the whole history: each input is
    read once and each result looked up by call id."""
    n = 400
    b = SpanBuilder()
    agent = b.agent("assistant")
    history: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for i in range(n):
        b.chat(
            agent,
            **{
                "gen_ai.input.messages": json.dumps(history),
                "gen_ai.output.messages": _asks(("step", {"n": i}, f"c{i}")),
            },
        )
        history.append({"role": "assistant", "tool_calls": [{"id": f"c{i}", "function": {"name": "step"}}]})
        history.append({"role": "tool", "tool_call_id": f"c{i}", "content": str(i)})
    b.chat(agent, **{"gen_ai.input.messages": json.dumps(history)})
    trace = b.trace()
    started = time.process_time()
    tools = trace.tool_executions
    elapsed = time.process_time() - started
    assert [t.result for t in tools[:3]] == ["0", "1", "2"] and len(tools) == n
    assert all(t.source == "conversation" for t in tools)
    assert elapsed < 30, f"{n} results took {elapsed:.1f} s of CPU"


def test_matching_spans_named_otherwise_is_linear() -> None:
    """Many parallel calls, no call ids, every span named ``Tool: lookup``: each is matched through a word
    of its name, within a generous time (pairwise matching is quadratic)."""
    n = 5_000
    b = SpanBuilder()
    agent = b.agent("assistant")
    b.chat(agent, **{"gen_ai.output.messages": _asks(*(("lookup", {"n": i}, None) for i in range(n)))})
    for i in reversed(range(n)):
        attrs = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "Tool: lookup",
            "gen_ai.tool.call.arguments": json.dumps({"n": i}),
        }
        b.span("Tool: lookup", attrs, parent=agent)
    trace = b.trace()
    started = time.process_time()
    (inv,) = trace.agents
    elapsed = time.process_time() - started
    assert {t.name for t in inv.tool_executions} == {"lookup"}
    assert [t.arguments for t in inv.tool_executions[:2]] == [{"n": 0}, {"n": 1}]
    assert trace.unexecuted_tool_requests == ()
    assert elapsed < 15, f"{n} renamed spans took {elapsed:.1f} s of CPU to reconstruct"


def test_a_slim_golden_keeps_the_executions_from_the_conversation() -> None:
    data = Path(__file__).resolve().parents[1] / "data" / "openai_v2_chat_only.json"
    trace = ta.load_trace(data)
    slim = ta.Trace(slim_trace(trace).spans)
    assert [(t.name, t.arguments, t.source) for t in slim.tool_executions] == [
        (t.name, t.arguments, t.source) for t in trace.tool_executions
    ]
    assert len(slim.tool_executions) == 3 and slim.unexecuted_tool_requests == ()


def test_exactly_these_tools_cannot_tell_past_an_execution_of_unknown_outcome() -> None:
    """``get_weather`` ran twice: once known to succeed (an Anthropic ``tool_result``), once from an
    OpenAI tool message that cannot say. "Exactly one successful get_weather" cannot be told."""
    b = SpanBuilder()
    agent = b.agent("assistant")
    asks = _asks(("get_weather", {"city": "Rome"}, "c1"), ("get_weather", {"city": "Oslo"}, "c2"))
    b.chat(agent, **{"gen_ai.output.messages": asks})
    answers = [
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "Sunny"}]},
        {"role": "tool", "tool_call_id": "c2", "content": "Snow"},
    ]
    b.chat(agent, **{"gen_ai.input.messages": json.dumps(answers)})
    asserter = ta.TraceAsserter(b.trace())
    assert [t.failed for t in asserter.trace.tool_executions] == [False, None]
    with fails("but cannot tell: 1 more execution(s) record no outcome ('get_weather')"):
        asserter.has_tools_executed_exactly_in_any_order("get_weather")
    asserter.accepting_unknown_outcomes().has_tools_executed_exactly_in_any_order("get_weather")
