"""GenAI dialect rules found on other producers' traces, on hand-built spans (the edge cases; the real
files are read in tests/conformance/test_third_party_traces.py)."""

from __future__ import annotations

from .spanbuilder import SpanBuilder


def test_finish_reason_under_the_singular_key() -> None:
    b = SpanBuilder()
    b.span(
        "chat m",
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "m",
            "gen_ai.response.finish_reason": "stop",
        },
    )
    [call] = b.trace().model_calls
    assert call.finish_reasons == ("stop",)


def test_the_plural_finish_reasons_win_over_the_singular() -> None:
    b = SpanBuilder()
    b.span(
        "chat m",
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.response.finish_reasons": ("tool_calls",),
            "gen_ai.response.finish_reason": "stop",
        },
    )
    [call] = b.trace().model_calls
    assert call.finish_reasons == ("tool_calls",)


def test_an_empty_message_list_is_no_input() -> None:
    b = SpanBuilder()
    agent = b.agent("helper", **{"gen_ai.input.messages": "[]"})
    b.span("chat m", {"gen_ai.operation.name": "chat", "gen_ai.input.messages": "[]"}, parent=agent)
    trace = b.trace()
    [invocation] = trace.agents
    assert invocation.input is None
    [call] = trace.model_calls
    op = trace.operation(call.span)
    assert op is not None and op.input is None
