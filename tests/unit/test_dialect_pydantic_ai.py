"""The Pydantic AI dialect on hand-built spans: formats the installed pydantic-ai no longer emits (format 1,
releases without ``gen_ai.operation.name``), the Logfire flavour, and edge cases.

The shapes follow the spans of pydantic-ai's own tests for those releases (``agent run`` with
``agent_name``, ``logfire.msg``, the run's usage in ``gen_ai.usage.*``, ``all_messages_events``; model spans
with an ``events`` attribute). Current formats are checked on real spans in
``tests/conformance/test_pydantic_ai_dialect.py``.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder
from traceassert._dialects import classify, pydantic_ai

SCOPE = "pydantic-ai"


class Pydantic(SpanBuilder):
    def span(self, name: str, attributes: dict[str, Any] | None = None, **kw: Any) -> ta.Span:  # type: ignore[override]
        scope = kw.pop("scope", SCOPE)
        built = super().span(name, attributes, **kw)
        span = dataclasses.replace(built, scope_name=scope)
        self.spans[-1] = span
        return span


def old_run(b: Pydantic, **extra: Any) -> ta.Span:
    """``agent run`` as releases before the GenAI operation names recorded it (format 1)."""
    messages = [
        {"content": "Hello", "role": "user", "gen_ai.message.index": 0, "event.name": "gen_ai.user.message"},
        {
            "role": "assistant",
            "content": "1",
            "gen_ai.message.index": 3,
            "event.name": "gen_ai.assistant.message",
        },
    ]
    attrs = {
        "model_name": "test",
        "agent_name": "my_agent",
        "logfire.msg": "my_agent run",
        "logfire.span_type": "span",
        "gen_ai.usage.input_tokens": 103,
        "gen_ai.usage.output_tokens": 12,
        "all_messages_events": json.dumps(messages),
        "final_result": "1",
        **extra,
    }
    return b.span("agent run", attrs, duration_ns=10**8)


def old_chat(b: Pydantic, parent: ta.Span, inp: int, out: int, response: dict[str, Any]) -> ta.Span:
    events = [
        {"content": "Hello", "role": "user", "gen_ai.message.index": 0, "event.name": "gen_ai.user.message"},
        {"index": 0, "message": response, "event.name": "gen_ai.choice"},
    ]
    attrs = {
        "gen_ai.operation.name": "chat",
        "gen_ai.system": "test",
        "gen_ai.request.model": "test",
        "gen_ai.usage.input_tokens": inp,
        "gen_ai.usage.output_tokens": out,
        "events": json.dumps(events),
    }
    return b.span("chat test", attrs, parent=parent)


def old_trace() -> tuple[ta.Trace, dict[str, ta.Span]]:
    b = Pydantic()
    run = old_run(b)
    call = {"id": "call_1", "type": "function", "function": {"name": "my_ret", "arguments": {"x": 0}}}
    first = old_chat(b, run, 51, 4, {"role": "assistant", "tool_calls": [call]})
    group = b.span("running tools", {"logfire.msg": "running tools: my_ret"}, parent=run, duration_ns=10**6)
    tool = b.span(
        "running tool",
        {
            "gen_ai.tool.name": "my_ret",
            "gen_ai.tool.call.id": "call_1",
            "tool_arguments": '{"x":0}',
            "tool_response": "1",
            "logfire.msg": "running tool: my_ret",
        },
        parent=group,
    )
    second = old_chat(b, run, 52, 8, {"role": "assistant", "content": "1"})
    return b.trace(), {"run": run, "first": first, "group": group, "tool": tool, "second": second}


def test_oldest_format_reconstructs() -> None:
    trace, spans = old_trace()
    assert trace.summary()["unclassified_spans"] == 0
    (run,) = trace.agents
    assert (run.name, run.dialect, run.input, run.output) == ("my_agent", "pydantic_ai", "Hello", "1")
    (tool,) = run.tool_executions
    assert (tool.name, tool.arguments, tool.result, tool.call_id) == ("my_ret", {"x": 0}, "1", "call_1")
    assert tool.raw_arguments == '{"x":0}'
    group = trace.operation(spans["group"])
    assert group is not None and group.kind == "other"


def test_agent_span_usage_is_never_added_to_the_model_calls() -> None:
    trace, _ = old_trace()
    (run,) = trace.agents
    # the agent span's gen_ai.usage.* (103 / 12) is the run's aggregate of the two calls: counted once
    assert [(c.input_tokens, c.output_tokens) for c in run.model_calls] == [(51, 4), (52, 8)]
    assert (run.input_tokens, run.output_tokens, run.total_tokens) == (103, 12, 115)
    assert trace.summary()["totals"]["total_tokens"] == 115
    ta.TraceAsserter(trace).under_token_limit(115)
    with pytest.raises(ta.TraceAssertionError, match="used 115"):
        ta.TraceAsserter(trace).under_token_limit(114)


def test_aggregate_is_only_a_fallback_for_the_agent_and_never_a_model_call() -> None:
    b = Pydantic()
    b.span(
        "invoke_agent solo",
        {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": "solo",
            "gen_ai.aggregated_usage.input_tokens": 40,
            "gen_ai.aggregated_usage.output_tokens": 2,
            "final_result": "done",
        },
    )
    trace = b.trace()
    (run,) = trace.agents
    assert (run.input_tokens, run.output_tokens, run.total_tokens) == (40, 2, 42)
    assert trace.model_calls == ()
    with pytest.raises(ta.TraceAssertionError, match="no token usage"):
        ta.TraceAsserter(trace).under_token_limit(1000)


def test_format_1_model_span_reads_its_events() -> None:
    trace, spans = old_trace()
    first = trace.operation(spans["first"])
    assert first is not None
    assert first.input == "Hello"
    assert [(r.name, r.arguments, r.call_id) for r in first.requested_tools] == [
        ("my_ret", {"x": 0}, "call_1")
    ]
    second = trace.operation(spans["second"])
    assert second is not None and second.output == "1"


def test_tool_name_from_logfire_msg_and_legacy_keys_without_scope() -> None:
    b = Pydantic()
    span = b.span(
        "running tool",
        {
            "tool_arguments": '{"q": "x"}',
            "tool_response": '{"hits": 2}',
            "logfire.msg": "running tool: search",
        },
        scope=None,
    )
    op = classify(span)
    assert op is not None
    assert (op.dialect, op.kind, op.name, op.arguments, op.result) == (
        "pydantic_ai",
        "tool",
        "search",
        '{"q": "x"}',
        {"hits": 2},
    )


def test_logfire_flavour_finish_reasons_as_json_string() -> None:
    b = Pydantic()
    run = b.span("invoke_agent a", {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a"})
    chat = b.span(
        "chat m",
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "m",
            "gen_ai.usage.input_tokens": 5,
            "gen_ai.usage.output_tokens": 1,
            "gen_ai.response.finish_reasons": '["stop"]',
            "logfire.msg": "chat m",
            "logfire.metrics": json.dumps({"gen_ai.client.token.usage": {"details": [{"total": 6}]}}),
        },
        parent=run,
    )
    op = classify(chat)
    assert op is not None and op.finish_reasons == ("stop",) and op.dialect == "pydantic_ai"
    (inv,) = b.trace().agents
    assert inv.finish_reason == "stop"
    assert inv.total_tokens == 6  # logfire.metrics is not usage to count


def test_structured_output_and_new_messages_only() -> None:
    b = Pydantic()
    history = [
        {"role": "user", "parts": [{"type": "text", "content": "earlier question"}]},
        {"role": "assistant", "parts": [{"type": "text", "content": "earlier answer"}]},
        {"role": "user", "parts": [{"type": "text", "content": "now"}]},
    ]
    span = b.span(
        "invoke_agent a",
        {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": "a",
            "final_result": '{"answer": 42}',
            "pydantic_ai.all_messages": json.dumps(history),
            "pydantic_ai.new_message_index": 2,
        },
    )
    op = classify(span)
    assert op is not None
    assert op.output == {"answer": 42}
    assert op.input == "now"


def test_failed_run() -> None:
    b = Pydantic()
    exc = ta.SpanEvent("exception", None, {"exception.type": "RuntimeError", "exception.message": "no way"})
    old_run(b)
    b.spans[-1] = dataclasses.replace(
        b.spans[-1], status=ta.Status("ERROR", "RuntimeError: no way"), events=(exc,)
    )
    (run,) = b.trace().agents
    assert run.status == "failed"
    assert run.error is not None and (run.error.type, run.error.message) == ("RuntimeError", "no way")


def test_other_logfire_spans_are_left_to_the_other_dialects() -> None:
    b = Pydantic()
    openai_span = b.span(
        "Chat Completion with 'gpt-4o'",
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "gpt-4o",
            "gen_ai.usage.input_tokens": 3,
            "logfire.msg": "Chat Completion with 'gpt-4o'",
        },
        scope="logfire.openai",
    )
    plain = b.span("my step", {"logfire.msg": "my step"}, scope="logfire")
    assert pydantic_ai.classify(openai_span) is None
    assert pydantic_ai.classify(plain) is None
    op = classify(openai_span)
    assert op is not None and op.dialect == "genai"


def test_unknown_pydantic_ai_span_is_other_not_dropped() -> None:
    b = Pydantic()
    span = b.span("preparing model request params", {"logfire.msg": "preparing model request params"})
    op = classify(span)
    assert op is not None and (op.kind, op.dialect) == ("other", "pydantic_ai")


def test_a_span_named_like_pydantic_ai_from_elsewhere_is_not_claimed() -> None:
    b = Pydantic()
    span = b.span("agent run", {"app.step": 1}, scope="my-app")
    assert pydantic_ai.classify(span) is None
