"""The OpenInference smolagents instrumentation's own shapes, on hand-built spans: agents named only in
``<agent>.run``, tool arguments under ``kwargs``, and a managed agent that the model calls as a tool
with no tool span of its own (the request is carried out by the nested agent run)."""

from __future__ import annotations

import json
from typing import Any

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder
from traceassert._dialects import _smolagents as sa
from traceassert._dialects import openinference


def _run(b: SpanBuilder, agent: str, parent: ta.Span | None = None, **attrs: Any) -> ta.Span:
    return b.span(
        f"{agent}.run",
        {"openinference.span.kind": "AGENT", "smolagents.max_steps": 6, "input.value": "{}", **attrs},
        parent=parent,
    )


def _asks(b: SpanBuilder, parent: ta.Span, name: str, arguments: dict[str, Any]) -> ta.Span:
    prefix = "llm.output_messages.0.message.tool_calls.0.tool_call."
    return b.span(
        "OpenAIModel.generate",
        {
            "openinference.span.kind": "LLM",
            "llm.model_name": "m",
            "llm.token_count.prompt": 3,
            "llm.token_count.completion": 1,
            f"{prefix}id": f"call_{name}",
            f"{prefix}function.name": name,
            f"{prefix}function.arguments": json.dumps(arguments),
        },
        parent=parent,
    )


def _tool(b: SpanBuilder, parent: ta.Span, name: str, call: str) -> ta.Span:
    attrs = {"openinference.span.kind": "TOOL", "tool.name": name, "input.value": call}
    return b.span("SimpleTool", attrs, parent=parent)


def test_agent_name_from_the_run_span() -> None:
    b = SpanBuilder()
    span = _run(b, "orchestrator")
    op = openinference.classify(span)
    assert op is not None and (op.kind, op.name) == ("agent", "orchestrator")
    # only smolagents' spans: another producer's AGENT span named "x.run" keeps its name
    other = b.span("x.run", {"openinference.span.kind": "AGENT"})
    assert sa.agent_name(other) is None
    assert openinference.classify(other).name == "x.run"  # type: ignore[union-attr]


def test_tool_arguments_from_the_bound_call() -> None:
    assert sa.tool_arguments(
        '{"args": [], "sanitize_inputs_outputs": true, "kwargs": {"city": "Paris"}}'
    ) == {"city": "Paris"}
    assert sa.tool_arguments('{"args": ["Paris"], "sanitize_inputs_outputs": true, "kwargs": {}}') == "Paris"
    # anything else stays as recorded
    for value in (
        '{"args": [1, 2], "sanitize_inputs_outputs": true, "kwargs": {}}',
        '{"args": [1], "sanitize_inputs_outputs": true, "kwargs": {"a": 2}}',
        '{"args": [], "kwargs": {"a": 2}, "other": 1}',
        '{"city": "Paris"}',
        None,
    ):
        assert sa.tool_arguments(value) == value


def _managed_agent_trace(*, helper_runs: bool = True) -> ta.Trace:
    b = SpanBuilder()
    top = _run(b, "orchestrator")
    _asks(b, top, "get_weather", {"city": "Paris"})
    _tool(b, top, "get_weather", '{"args": [], "sanitize_inputs_outputs": true, "kwargs": {"city": "Paris"}}')
    _asks(b, top, "helper", {"task": "What should I wear?"})
    if helper_runs:
        helper = _run(b, "helper", top)
        _asks(b, helper, "final_answer", {"answer": "a jacket"})
        _tool(
            b,
            helper,
            "final_answer",
            '{"args": [], "sanitize_inputs_outputs": true, "kwargs": {"answer": "a jacket"}}',
        )
    return ta.Trace(b.spans)


def test_a_managed_agent_carries_out_the_request_that_names_it() -> None:
    trace = _managed_agent_trace()
    (top,) = trace.agents
    (helper,) = top.nested
    requests = [r for c in trace.model_calls for r in c.requested_tools]
    assert [(r.name, r.executed) for r in requests] == [
        ("get_weather", True),
        ("helper", True),
        ("final_answer", True),
    ]
    assert requests[1].agent is helper and requests[1].execution is None
    assert requests[0].agent is None and requests[0].execution is not None
    assert [(t.name, t.arguments) for t in trace.tool_executions] == [
        ("get_weather", {"city": "Paris"}),
        ("final_answer", {"answer": "a jacket"}),
    ]
    assert trace.unexecuted_tool_requests == ()
    assert "not executed" not in trace.render()


def test_a_managed_agent_that_never_ran_leaves_the_request_unexecuted() -> None:
    trace = _managed_agent_trace(helper_runs=False)
    assert [r.name for r in trace.unexecuted_tool_requests] == ["helper"]
    assert "helper(task='What should I wear?') (requested, not executed)" in trace.render()


def test_an_agent_started_before_the_request_does_not_carry_it_out() -> None:
    b = SpanBuilder()
    top = _run(b, "orchestrator")
    _run(b, "helper", top)  # ran before the model asked for it
    _asks(b, top, "helper", {"task": "again"})
    trace = ta.Trace(b.spans)
    assert [r.name for r in trace.unexecuted_tool_requests] == ["helper"]


def test_agent_input_is_the_task() -> None:
    b = SpanBuilder()
    run = _run(b, "orchestrator", **{"input.value": '{"task": "Paris?", "stream": false, "reset": true}'})
    assert ta.Trace(b.spans).agents[0].input == "Paris?"
    # another producer's agent span keeps its input as recorded
    other = b.span("x", {"openinference.span.kind": "AGENT", "input.value": '{"task": "Paris?"}'})
    assert sa.agent_input(other.attributes) == '{"task": "Paris?"}'
    assert run.attributes["smolagents.max_steps"] == 6
