"""The OpenInference LlamaIndex instrumentation's own shapes, on hand-built spans: an agent workflow run
(a CHAIN ``FunctionAgent.run``) named only in its steps' event reprs, LLM spans of methods that call no
model, tool arguments under ``kwargs`` and the result inside the ``ToolOutput``."""

from __future__ import annotations

import json
from typing import Any

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder
from traceassert._dialects import _llamaindex as li
from traceassert._dialects import openinference, traceloop

CHAIN = {"openinference.span.kind": "CHAIN"}


def _step(b: SpanBuilder, run: ta.Span, step: str, agent: str) -> ta.Span:
    event = f"AgentSetup(input=[ChatMessage(role=<MessageRole.USER: 'user'>)], current_agent_name='{agent}')"
    return b.span(
        f"BaseWorkflowAgent.{step}", {**CHAIN, "input.value": json.dumps({"ev": event})}, parent=run
    )


def _chat(b: SpanBuilder, parent: ta.Span, name: str = "OpenAI.achat", **attrs: Any) -> ta.Span:
    return b.span(name, {"openinference.span.kind": "LLM", "llm.model_name": "m", **attrs}, parent=parent)


def _tool(b: SpanBuilder, parent: ta.Span, name: str, kwargs: dict[str, Any], **attrs: Any) -> ta.Span:
    span_attrs = {
        "openinference.span.kind": "TOOL",
        "tool.name": name,
        "input.value": json.dumps({"kwargs": kwargs}),
        **attrs,
    }
    return b.span("FunctionTool.acall", span_attrs, parent=parent)


def _agents(b: SpanBuilder) -> ta.Trace:
    """orchestrator's run -> step -> tool ask_helper -> helper's run -> step -> model call."""
    run = b.span("FunctionAgent.run", {**CHAIN, "input.value": '{"init_state": {}}'})
    step = _step(b, run, "run_agent_step", "orchestrator")
    _chat(b, step, **{"llm.token_count.prompt": 5, "llm.token_count.completion": 2})
    tool = _tool(b, _step(b, run, "call_tool", "orchestrator"), "ask_helper", {"question": "q"})
    inner = b.span("FunctionAgent.run", CHAIN, parent=tool)
    _chat(b, _step(b, inner, "run_agent_step", "helper"), **{"llm.token_count.prompt": 3})
    return ta.Trace(b.spans)


def test_an_agent_workflow_run_is_named_by_its_steps() -> None:
    trace = _agents(SpanBuilder())
    (top,) = trace.agents
    assert (top.name, top.dialect, top.implicit) == ("orchestrator", "openinference", False)
    assert [(a.name, a.via_tool.name) for a in top.nested if a.via_tool] == [("helper", "ask_helper")]
    assert [len(a.model_calls) for a in trace.all_agents()] == [1, 1]
    # the run's input is the workflow state, its output a cut repr: neither is read
    assert top.input is None and top.output is None


def test_a_run_whose_steps_name_no_agent_or_two_stays_what_it_was() -> None:
    b = SpanBuilder()
    run = b.span("FunctionAgent.run", CHAIN)
    b.span("BaseWorkflowAgent.setup_agent", CHAIN, parent=run)
    handoffs = b.span("AgentWorkflow.run", CHAIN)
    _step(b, handoffs, "setup_agent", "a")
    _step(b, handoffs, "setup_agent", "b")
    # a CHAIN ".run" of something else (a query engine) is not an agent either
    engine = b.span("RetrieverQueryEngine.run", CHAIN)
    _step(b, engine, "setup_agent", "x")
    trace = ta.Trace(b.spans)
    assert list(trace.all_agents()) == []


def test_llm_spans_of_methods_that_call_no_model_are_not_model_calls() -> None:
    b = SpanBuilder()
    agent = b.agent("a")
    prepare = _chat(b, agent, "OpenAI._prepare_chat_with_tools", **{"input.value": "{}"})
    call = _chat(b, agent, "OpenAI.astream_chat", **{"llm.token_count.prompt": 9})
    assert li.llm_helper(prepare) and not li.llm_helper(call)
    assert openinference.classify(prepare).kind == "other"  # type: ignore[union-attr]
    # a private method that did record a model's answer is still read as a model call
    answered = _chat(b, agent, "Custom._call", **{"llm.output_messages.0.message.content": "hi"})
    assert openinference.classify(answered).kind == "model"  # type: ignore[union-attr]
    (inv,) = ta.Trace(b.spans).agents
    assert [c.input_tokens for c in inv.model_calls] == [9, None]


def test_tool_arguments_and_result_of_a_function_tool() -> None:
    b = SpanBuilder()
    output = {
        "blocks": [{"text": "Sunny"}],
        "tool_name": "get_weather",
        "raw_input": {"args": [], "kwargs": {"city": "Paris"}},
        "raw_output": "Sunny",
        "is_error": False,
    }
    _tool(b, b.agent("a"), "get_weather", {"city": "Paris"}, **{"output.value": json.dumps(output)})
    (tool,) = ta.Trace(b.spans).tool_executions
    assert (tool.arguments, tool.result) == ({"city": "Paris"}, "Sunny")
    assert li.tool_arguments('{"args": [], "kwargs": {"x": 1}}') == {"x": 1}
    # positional arguments, other keys, other shapes: left as they are
    for value in (
        '{"args": [1], "kwargs": {}}',
        '{"kwargs": {"x": 1}, "y": 2}',
        '{"kwargs": 3}',
        "Paris",
        None,
    ):
        assert li.tool_arguments(value) == value
    for value in ('{"raw_output": 1}', "plain", 7):
        assert li.tool_result(value) == value


# --------------------------------------------------------------------------------------------------
# OpenLLMetry (opentelemetry-instrumentation-llamaindex)
# --------------------------------------------------------------------------------------------------

TASK = {"traceloop.span.kind": "task"}


def _tl_step(b: SpanBuilder, run: ta.Span, agent: str, **attrs: Any) -> ta.Span:
    output = json.dumps({"input": [], "current_agent_name": agent})
    span_attrs = {
        **TASK,
        "traceloop.entity.name": "BaseWorkflowAgent.task",
        "traceloop.entity.output": output,
    }
    return b.span("BaseWorkflowAgent.task", {**span_attrs, **attrs}, parent=run)


def _tl_call_tool(b: SpanBuilder, run: ta.Span, name: str, arguments: dict[str, Any], **out: Any) -> ta.Span:
    attrs: dict[str, Any] = {
        **TASK,
        "traceloop.entity.name": "BaseWorkflowAgent.task",
        "tool.name": name,
        "tool.arguments": json.dumps(arguments),
    }
    if out:
        attrs["traceloop.entity.output"] = json.dumps({"tool_name": name, "tool_id": f"call_{name}", **out})
    return b.span("BaseWorkflowAgent.task", attrs, parent=run)


def test_openllmetry_runs_and_call_tool_steps() -> None:
    b = SpanBuilder()
    run = b.span("FunctionAgent.workflow", {"traceloop.span.kind": "workflow", "traceloop.entity.name": "x"})
    _tl_step(b, run, "orchestrator")
    ok = {"raw_output": "Sunny", "is_error": False}
    _tl_call_tool(b, run, "get_weather", {"city": "Paris"}, tool_output=ok)
    _tl_call_tool(b, run, "explode", {}, tool_output={"raw_output": "boom", "is_error": True})
    ask = _tl_call_tool(b, run, "ask_helper", {"question": "q"})  # its output set after it ended
    tool = b.span("FunctionTool.task", {**TASK, "traceloop.entity.name": "FunctionTool.task"}, parent=ask)
    inner = b.span("run.task", {**TASK, "traceloop.entity.name": "run.task"}, parent=tool)
    _tl_step(b, inner, "helper")
    trace = ta.Trace(b.spans)
    (top,) = trace.agents
    assert (top.name, top.dialect, top.input, top.output) == ("orchestrator", "traceloop", None, None)
    assert [(a.name, a.via_tool.name if a.via_tool else None) for a in top.nested] == [
        ("helper", "ask_helper")
    ]
    tools = trace.tool_executions
    assert [(t.name, t.arguments, t.result, t.failed) for t in tools] == [
        ("get_weather", {"city": "Paris"}, "Sunny", False),
        ("explode", {}, "boom", True),
        ("ask_helper", {"question": "q"}, None, False),
    ]
    assert tools[1].error is not None and (tools[1].error.type, tools[1].error.message) == (None, "boom")
    assert tools[0].call_id == "call_get_weather"


def test_openllmetry_a_task_with_tool_name_that_is_no_agent_step_is_left_alone() -> None:
    b = SpanBuilder()
    span = b.span("Other.task", {**TASK, "traceloop.entity.name": "Other.task", "tool.name": "t"})
    op = traceloop.classify(span)
    assert op is not None and op.kind == "workflow"
