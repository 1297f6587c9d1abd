"""The Vercel AI SDK dialect (``ai.*`` spans) on hand-built spans: streaming, older SDK keys, failures,
unnamed calls, embeddings, and spans without a scope. The recorded trace is checked in
tests/conformance/test_vercel_ai.py."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder
from traceassert._dialects import classify, scope_hints, vercel_ai


def _s(b: SpanBuilder, op_id: str, attrs: dict[str, Any] | None = None, **kw: Any) -> ta.Span:
    """A span as the SDK writes it: named by its operation id, scope ``ai``."""
    attributes = {"ai.operationId": op_id, "operation.name": op_id, **(attrs or {})}
    span = dataclasses.replace(b.span(op_id, attributes, **kw), scope_name="ai")
    b.spans[-1] = span
    return span


def test_a_streamed_step_is_a_streamed_model_call() -> None:
    b = SpanBuilder()
    top = _s(b, "ai.streamText", {"ai.telemetry.functionId": "writer", "ai.prompt": '{"prompt":"hi"}'})
    _s(
        b,
        "ai.streamText.doStream",
        {
            "ai.model.id": "m1",
            "ai.model.provider": "openai.chat",
            "ai.response.text": "hello",
            "ai.response.finishReason": "stop",
            "ai.usage.inputTokens": 5,
            "ai.usage.outputTokens": 2,
            "gen_ai.system": "openai.chat",
            "gen_ai.usage.input_tokens": 5,
        },
        parent=top,
    )
    trace = ta.Trace(b.spans)
    (agent,) = trace.agents
    assert (agent.name, agent.input, agent.dialect) == ("writer", "hi", "vercel_ai")
    (call,) = trace.model_calls
    assert (call.model, call.provider, call.streamed, call.output) == ("m1", "openai.chat", True, "hello")
    assert (call.input_tokens, call.output_tokens, call.total_tokens) == (5, 2, 7)
    assert call.finish_reasons == ("stop",)


def test_sdk_4_keys_prompt_tokens_and_args() -> None:
    b = SpanBuilder()
    calls = [{"toolCallType": "function", "toolCallId": "c1", "toolName": "lookup", "args": '{"q": "x"}'}]
    span = _s(
        b,
        "ai.generateText.doGenerate",
        {
            "ai.model.id": "m",
            "ai.usage.promptTokens": 11,
            "ai.usage.completionTokens": 3,
            "ai.response.toolCalls": json.dumps(calls),
        },
    )
    op = classify(span)
    assert op is not None and op.kind == "model" and op.dialect == "vercel_ai"
    assert (op.input_tokens, op.output_tokens, op.total_tokens) == (11, 3, 14)
    assert [(r.name, r.arguments, r.call_id) for r in op.requested_tools] == [("lookup", {"q": "x"}, "c1")]


def test_a_failed_call_and_a_failed_tool() -> None:
    b = SpanBuilder()
    top = _s(b, "ai.generateText", status="ERROR", description="No output generated.")
    boom = ta.SpanEvent("exception", 1, {"exception.type": "TypeError", "exception.message": "bad input"})
    _s(
        b,
        "ai.toolCall",
        {"ai.toolCall.name": "parse", "ai.toolCall.id": "c9", "ai.toolCall.args": "{}"},
        parent=top,
        status="ERROR",
        description="bad input",
        events=(boom,),
    )
    trace = ta.Trace(b.spans)
    (agent,) = trace.agents
    assert agent.name == "ai.generateText"  # no functionId: the span name
    assert agent.status == "failed"
    (tool,) = trace.tool_executions
    assert (tool.name, tool.call_id, tool.arguments, tool.failed) == ("parse", "c9", {}, True)
    assert tool.error is not None and (tool.error.type, tool.error.message) == ("TypeError", "bad input")


def test_embeddings_and_other_operations() -> None:
    b = SpanBuilder()
    outer = _s(b, "ai.embedMany", {"ai.telemetry.functionId": "index"})
    inner = _s(b, "ai.embedMany.doEmbed", {"ai.model.id": "e1", "ai.usage.tokens": 12}, parent=outer)
    outer_op, inner_op = classify(outer), classify(inner)
    assert outer_op is not None and (outer_op.kind, outer_op.name) == ("other", "index")
    assert inner_op is not None and (inner_op.kind, inner_op.operation) == ("model", "embeddings")
    assert (inner_op.model, inner_op.input_tokens, inner_op.total_tokens) == ("e1", 12, 12)


def test_the_sdks_spans_come_before_the_genai_reader() -> None:
    b = SpanBuilder()
    span = _s(b, "ai.generateText.doGenerate", {"gen_ai.system": "p", "gen_ai.request.model": "m"})
    op = classify(span)
    assert op is not None and op.dialect == "vercel_ai"


def test_spans_of_other_producers_are_not_claimed() -> None:
    b = SpanBuilder()
    plain = b.span("ai.generateText", {"gen_ai.operation.name": "chat"})  # not scope ai, no operationId
    assert vercel_ai.classify(plain) is None
    other_id = b.span("x", {"ai.operationId": "db.query"})
    assert vercel_ai.classify(other_id) is None


def test_a_span_without_a_scope_is_given_the_sdks() -> None:
    b = SpanBuilder()
    span = dataclasses.replace(_s(b, "ai.toolCall", {"ai.toolCall.name": "t"}), scope_name=None)
    other = dataclasses.replace(b.span("work"), scope_name=None)
    assert vercel_ai.scope_hint(span, frozenset()) == "ai"
    assert vercel_ai.scope_hint(other, frozenset()) is None
    assert scope_hints([span, other]) == {id(span): "ai"}
