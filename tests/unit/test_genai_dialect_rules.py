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


def test_positional_arguments_take_the_names_of_the_tools_definition() -> None:
    b = SpanBuilder()
    agent = b.agent("planner")
    definitions = (
        '[{"type": "function", "name": "book_flight", "parameters": {"type": "object", "properties": '
        '{"origin": {"type": "string"}, "destination": {"type": "string"}}}}, {"type": "function", '
        '"name": "final_answer", "parameters": {"properties": {"answer": {}}}}]'
    )
    b.chat(agent, **{"gen_ai.tool.definitions": definitions})
    b.tool("book_flight", agent, args='["SFO", "BOM"]')
    b.tool("final_answer", agent, args='"done"')
    b.tool("unknown_tool", agent, args='"x"')
    tools = b.trace().tool_executions
    assert [t.arguments for t in tools] == [
        {"origin": "SFO", "destination": "BOM"},
        {"answer": "done"},
        {"input": "x"},  # no definition: the value stays under ``input``
    ]


def test_a_mapping_or_too_many_values_keep_their_shape() -> None:
    b = SpanBuilder()
    agent = b.agent("planner")
    b.chat(
        agent,
        **{
            "llm.request.functions.0.name": "add",
            "llm.request.functions.0.parameters": '{"properties": {"a": {}, "b": {}}}',
        },
    )
    b.tool("add", agent, args='{"input": 1}')
    b.tool("add", agent, args="[1, 2, 3]")
    b.tool("add", agent, args="[1, 2]")
    tools = b.trace().tool_executions
    assert [t.arguments for t in tools] == [{"input": 1}, {"input": [1, 2, 3]}, {"a": 1, "b": 2}]


def test_agent_span_tokens_count_once_for_the_outermost_agent() -> None:
    b = SpanBuilder()
    outer = b.agent("outer", **{"gen_ai.usage.input_tokens": 30, "gen_ai.usage.output_tokens": 10})
    inner = b.agent("inner", outer, **{"gen_ai.usage.input_tokens": 20, "gen_ai.usage.output_tokens": 5})
    b.chat(inner, inp=None, out=None)
    trace = b.trace()
    # the outer span's usage holds the inner one's
    assert trace.summary()["totals"]["total_tokens"] == 40
    assert trace.render().splitlines()[0].endswith(", 40 tokens")


def test_agent_span_tokens_beside_model_calls_with_usage() -> None:
    b = SpanBuilder()
    outer = b.agent("outer", **{"gen_ai.usage.input_tokens": 300, "gen_ai.usage.output_tokens": 100})
    b.chat(outer, inp=10, out=5)
    silent = b.agent("silent", outer, **{"gen_ai.usage.input_tokens": 7, "gen_ai.usage.output_tokens": 3})
    b.chat(silent, inp=None, out=None)
    trace = b.trace()
    # outer's calls record usage, so its span's 400 is not counted; silent's calls record none: its 10 is
    totals = trace.summary()["totals"]
    assert (totals["input_tokens"], totals["total_tokens"]) == (17, 25)
    assert trace.token_total() == (15, 1)  # the model calls' usage (what under_token_limit reads)
