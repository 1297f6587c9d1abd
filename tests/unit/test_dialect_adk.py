"""The Google ADK dialect on hand-built spans: older releases' shapes and edge cases the live runs lack."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder
from traceassert._dialects import adk, classify

SCOPE = "gcp.vertex.agent"


def _adk(b: SpanBuilder, name: str, attrs: dict[str, Any] | None = None, **kw: Any) -> ta.Span:
    """A span from ADK's tracer (scope ``gcp.vertex.agent``)."""
    span = dataclasses.replace(b.span(name, attrs, **kw), scope_name=SCOPE)
    b.spans[-1] = span
    return span


def _call_llm(
    b: SpanBuilder,
    parent: ta.Span,
    *,
    prompt: int,
    candidates: int,
    calls: tuple[tuple[str, dict[str, Any], str], ...] = (),
    text: str | None = None,
    attrs_output_tokens: int | None = None,
    **extra: Any,
) -> ta.Span:
    """A legacy ``call_llm`` span; ``attrs_output_tokens`` mimics what early 1.x wrote into the attribute."""
    parts: list[dict[str, Any]] = [{"function_call": {"id": i, "name": n, "args": a}} for n, a, i in calls]
    if text is not None:
        parts.append({"text": text})
    response = {
        "content": {"role": "model", "parts": parts},
        "finish_reason": "STOP",
        "usage_metadata": {
            "prompt_token_count": prompt,
            "candidates_token_count": candidates,
            "total_token_count": prompt + candidates,
        },
    }
    request = {"model": "gemini-x", "contents": [{"role": "user", "parts": [{"text": "Weather in Paris?"}]}]}
    attrs = {
        "gen_ai.system": "gcp.vertex.agent",
        "gen_ai.request.model": "gemini-x",
        "gcp.vertex.agent.llm_request": json.dumps(request),
        "gcp.vertex.agent.llm_response": json.dumps(response),
        "gen_ai.usage.input_tokens": prompt,
        "gen_ai.usage.output_tokens": attrs_output_tokens if attrs_output_tokens is not None else candidates,
        **extra,
    }
    return _adk(b, "call_llm", attrs, parent=parent)


def _legacy_tool(b: SpanBuilder, parent: ta.Span, name: str, args: str, response: str, **kw: Any) -> ta.Span:
    attrs = {
        "gen_ai.system": "gcp.vertex.agent",
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": name,
        "gen_ai.tool.call.id": kw.pop("call_id", f"id-{name}"),
        "gcp.vertex.agent.tool_call_args": args,
        "gcp.vertex.agent.tool_response": response,
        "gcp.vertex.agent.llm_request": "{}",
        "gcp.vertex.agent.llm_response": "{}",
    }
    return _adk(b, f"execute_tool {name}", attrs, parent=parent, **kw)


def test_early_1x_trace_agent_run_and_call_llm_alone() -> None:
    b = SpanBuilder()
    agent = _adk(b, "agent_run [weather]", parent=_adk(b, "invocation"))
    weather_call = (("get_weather", {"city": "Paris"}, "fc-1"),)
    _call_llm(b, agent, prompt=50, candidates=5, calls=weather_call, attrs_output_tokens=55)
    _legacy_tool(b, agent, "get_weather", '{"city": "Paris"}', '{"result": "sunny"}', call_id="fc-1")
    _call_llm(b, agent, prompt=70, candidates=7, text="It is sunny.", attrs_output_tokens=77)
    trace = b.trace()
    (inv,) = trace.agents
    assert inv.name == "weather"
    assert inv.dialect == "adk"
    # early 1.x wrote the total into gen_ai.usage.output_tokens: the response's usage_metadata is right
    assert [(c.input_tokens, c.output_tokens, c.total_tokens) for c in trace.model_calls] == [
        (50, 5, 55),
        (70, 7, 77),
    ]
    assert inv.total_tokens == 132
    (tool,) = trace.tool_executions
    assert (tool.arguments, tool.result, tool.call_id, tool.failed) == (
        {"city": "Paris"},
        "sunny",
        "fc-1",
        False,
    )
    assert trace.model_calls[0].finish_reasons == ("stop",)
    assert trace.model_calls[1].output == "It is sunny."
    assert trace.model_calls[0].spans[0].name == "call_llm"


def test_call_llm_over_generate_content_is_one_call_with_the_inner_span_details() -> None:
    b = SpanBuilder()
    agent = _adk(b, "invoke_agent a", {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a"})
    outer = _call_llm(b, agent, prompt=10, candidates=3, text="hi")
    _adk(
        b,
        "generate_content gemini-x",
        {
            "gen_ai.operation.name": "generate_content",
            "gen_ai.system": "gemini",
            "gen_ai.request.model": "gemini-x",
            "gen_ai.usage.input_tokens": 10,
            "gen_ai.usage.output_tokens": 3,
        },
        parent=outer,
    )
    trace = b.trace()
    (call,) = trace.model_calls
    assert (call.input_tokens, call.output_tokens, call.total_tokens) == (10, 3, 13)
    assert call.provider == "gemini"  # gen_ai.system on call_llm is ADK's marker, not a provider
    assert [s.name for s in call.spans] == ["call_llm", "generate_content gemini-x"]
    op = classify(outer)
    assert op is not None
    assert op.wrapper


def test_placeholders_mean_not_recorded_and_the_models_request_fills_in() -> None:
    b = SpanBuilder()
    agent = _adk(b, "agent_run [a]")
    _call_llm(b, agent, prompt=1, candidates=1, calls=(("lookup", {"key": "k1"}, "fc-9"),))
    # ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS=false: "{}" for both, and no call id
    tool = _legacy_tool(b, agent, "lookup", "{}", "{}", call_id="<not specified>")
    op = classify(tool)
    assert op is not None
    assert (op.arguments, op.result, op.call_id) == (None, None, None)
    (execution,) = b.trace().tool_executions
    assert execution.arguments == {"key": "k1"}
    assert execution.call_id == "fc-9"


def test_an_empty_argument_object_with_a_response_is_a_real_empty_call() -> None:
    b = SpanBuilder()
    agent = _adk(b, "agent_run [a]")
    _legacy_tool(b, agent, "now", "{}", '{"result": "12:00"}')
    (execution,) = b.trace().tool_executions
    assert (execution.arguments, execution.raw_arguments, execution.result) == ({}, "{}", "12:00")


def test_an_error_in_the_response_is_a_failed_execution() -> None:
    """How on_tool_error_callback / ReflectAndRetryToolPlugin report failures; older ADK set no status."""
    b = SpanBuilder()
    agent = _adk(b, "agent_run [a]")
    _legacy_tool(b, agent, "explode", "{}", '{"error": "boom"}')
    _legacy_tool(b, agent, "fine", "{}", '{"error": ""}')
    explode, fine = b.trace().tool_executions
    assert explode.failed is True
    assert explode.error == ta.ErrorInfo(None, "boom")
    assert fine.failed is False
    (inv,) = b.trace().agents
    assert inv.status == "succeeded"


def test_current_format_error_type_and_the_response_message() -> None:
    b = SpanBuilder()
    agent = _adk(b, "invoke_agent a", {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a"})
    _adk(
        b,
        "execute_tool explode",
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "explode",
            "error.type": "TOOL_ERROR",
            "gen_ai.tool.call.arguments": "{}",
            "gen_ai.tool.call.result": '{"error": "RuntimeError: boom"}',
        },
        parent=agent,
        status="ERROR",
        description="TOOL_ERROR",
    )
    (tool,) = b.trace().tool_executions
    assert tool.failed is True
    assert tool.error == ta.ErrorInfo("TOOL_ERROR", "RuntimeError: boom")


def test_a_raised_exception_keeps_its_exception_event() -> None:
    b = SpanBuilder()
    agent = _adk(b, "agent_run [a]", status="ERROR", description="ValueError: bad")
    event = ta.SpanEvent("exception", 1, {"exception.type": "ValueError", "exception.message": "bad"})
    _legacy_tool(b, agent, "t", '{"x": 1}', "{}", status="ERROR", events=(event,))
    (tool,) = b.trace().tool_executions
    assert tool.failed is True
    assert tool.error == ta.ErrorInfo("ValueError", "bad")
    (inv,) = b.trace().agents
    assert inv.status == "failed"


def test_merged_parallel_calls_are_not_a_tool() -> None:
    b = SpanBuilder()
    agent = _adk(b, "agent_run [a]")
    merged = _legacy_tool(b, agent, "(merged tools)", "N/A", "[]")
    b.spans[-1] = merged = dataclasses.replace(merged, name="execute_tool (merged)")
    _legacy_tool(b, merged, "one", '{"n": 1}', '{"result": 1}')
    _legacy_tool(b, merged, "two", '{"n": 2}', '{"result": 2}')
    op = classify(merged)
    assert op is not None
    assert op.kind == "other"
    assert [t.name for t in b.trace().tool_executions] == ["one", "two"]


def test_very_old_live_tool_spans() -> None:
    b = SpanBuilder()
    agent = _adk(b, "agent_run [a]")
    _adk(b, "tool_call [stream_tool]", parent=agent)
    (tool,) = b.trace().tool_executions
    assert tool.name == "stream_tool"
    assert tool.dialect == "adk"


def test_a_model_error_code_fails_the_call() -> None:
    b = SpanBuilder()
    agent = _adk(b, "agent_run [a]")
    span = _call_llm(b, agent, prompt=3, candidates=0)
    response = json.loads(span.attributes["gcp.vertex.agent.llm_response"])
    response.update(error_code="RESOURCE_EXHAUSTED", error_message="quota")
    attrs = {**span.attributes, "gcp.vertex.agent.llm_response": json.dumps(response)}
    b.spans[-1] = dataclasses.replace(span, attributes=attrs)
    (call,) = b.trace().model_calls
    assert call.failed is True
    assert call.error == ta.ErrorInfo("RESOURCE_EXHAUSTED", "quota")


def test_other_adk_spans_are_understood_as_other_and_foreign_spans_left_alone() -> None:
    b = SpanBuilder()
    send = _adk(b, "send_data", {"gcp.vertex.agent.event_id": "e1"})
    foreign = b.span("execute_tool x", {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "x"})
    op = adk.classify(send)
    assert op is not None
    assert op.kind == "other"
    assert adk.classify(foreign) is None
    # a file without scope names: the gcp.vertex.agent.* keys are enough
    keyed = dataclasses.replace(send, scope_name=None)
    assert adk.classify(keyed) is not None
