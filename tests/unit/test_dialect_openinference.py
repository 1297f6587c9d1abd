"""The OpenInference dialect on hand-built spans: the edge cases real traces in tests/conformance lack."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder
from traceassert._dialects import classify, openinference
from traceassert._dialects.openinference import flattened_messages

KIND = "openinference.span.kind"


def _oi(b: SpanBuilder, name: str, kind: str | None, parent: ta.Span | None = None, **attrs: Any) -> ta.Span:
    attributes = {key.replace("__", "."): value for key, value in attrs.items()}
    if kind is not None:
        attributes[KIND] = kind
    status = attributes.pop("status", "UNSET")
    description = attributes.pop("description", None)
    events = attributes.pop("events", ())
    return b.span(name, attributes, parent=parent, status=status, description=description, events=events)


def _llm(
    b: SpanBuilder, parent: ta.Span | None, calls: list[tuple[str, str | None, str | None]], **attrs: Any
) -> ta.Span:
    """An LLM span whose first output message asks for ``calls`` (name, arguments JSON, id)."""
    flat: dict[str, Any] = {
        "llm.model_name": "gpt-test",
        "llm.token_count.prompt": 10,
        "llm.token_count.completion": 5,
        "llm.output_messages.0.message.role": "assistant",
    }
    for i, (name, arguments, call_id) in enumerate(calls):
        prefix = f"llm.output_messages.0.message.tool_calls.{i}.tool_call."
        flat[prefix + "function.name"] = name
        if arguments is not None:
            flat[prefix + "function.arguments"] = arguments
        if call_id is not None:
            flat[prefix + "id"] = call_id
    flat.update({key.replace("__", "."): value for key, value in attrs.items()})
    return b.span("llm", {KIND: "LLM", **flat}, parent=parent)


def _op(span: ta.Span) -> Any:
    op = classify(span)
    assert op is not None
    assert op.dialect == "openinference"
    return op


# --------------------------------------------------------------------------------------------------
# Tool arguments
# --------------------------------------------------------------------------------------------------


def test_a_bare_scalar_gets_its_parameter_name_from_the_model_request() -> None:
    b = SpanBuilder()
    agent = _oi(b, "assistant", "AGENT", agent__name="assistant")
    _llm(b, agent, [("get_weather", '{"city": "Paris"}', None)])
    _oi(b, "get_weather", "TOOL", agent, tool__name="get_weather", input__value="Paris")
    (tool,) = b.trace().tool_executions
    assert tool.raw_arguments == "Paris"
    assert tool.arguments == {"city": "Paris"}


@pytest.mark.parametrize("value", ["75001", "true", '{"not": "json args"}', "[1, 2]"])
def test_a_bare_string_that_looks_like_json_stays_the_string_the_tool_received(value: str) -> None:
    b = SpanBuilder()
    agent = _oi(b, "assistant", "AGENT", agent__name="assistant")
    _llm(b, agent, [("lookup", json.dumps({"text": value}), None)])
    _oi(b, "lookup", "TOOL", agent, tool__name="lookup", input__value=value)
    (tool,) = b.trace().tool_executions
    assert tool.arguments == {"text": value}


def test_a_bare_number_for_a_numeric_parameter() -> None:
    b = SpanBuilder()
    agent = _oi(b, "assistant", "AGENT", agent__name="assistant")
    _llm(b, agent, [("square", '{"n": 7}', None)])
    _oi(b, "square", "TOOL", agent, tool__name="square", input__value='{"n": 7}')
    (tool,) = b.trace().tool_executions
    assert tool.arguments == {"n": 7}


def test_a_bare_scalar_without_a_request_is_kept_under_input() -> None:
    b = SpanBuilder()
    agent = _oi(b, "assistant", "AGENT", agent__name="assistant")
    _oi(b, "lookup", "TOOL", agent, tool__name="lookup", input__value="Paris")
    (tool,) = b.trace().tool_executions
    assert tool.arguments == {"input": "Paris"}


def test_json_arguments_and_no_arguments() -> None:
    b = SpanBuilder()
    agent = _oi(b, "assistant", "AGENT", agent__name="assistant")
    _oi(b, "add", "TOOL", agent, tool__name="add", input__value='{"a": 1, "b": 2.5}')
    _oi(b, "now", "TOOL", agent, tool__name="now")
    add, now = b.trace().tool_executions
    assert add.arguments == {"a": 1, "b": 2.5}
    assert now.arguments == {}


def test_a_tool_message_output_gives_the_result_and_the_call_id() -> None:
    b = SpanBuilder()
    message = {"type": "tool", "data": {"content": "Sunny", "tool_call_id": "call_7", "name": "get_weather"}}
    tool = _oi(b, "get_weather", "TOOL", tool__name="get_weather", output__value=json.dumps(message))
    op = _op(tool)
    assert (op.result, op.call_id) == ("Sunny", "call_7")


def test_a_tool_call_id_on_the_tool_span_wins() -> None:
    b = SpanBuilder()
    tool = _oi(b, "t", "TOOL", tool__name="t", tool_call__id="abc", output__value='{"x": 1}')
    op = _op(tool)
    assert (op.call_id, op.result) == ("abc", {"x": 1})


# --------------------------------------------------------------------------------------------------
# Flattened messages and requested tool calls
# --------------------------------------------------------------------------------------------------


def test_flattened_tool_calls_keep_the_models_order() -> None:
    b = SpanBuilder()
    span = _llm(
        b,
        None,
        [("a", '{"x": 1}', "c1"), ("b", None, "c2"), ("c", "{}", None)],
        llm__output_messages__1__message__role="assistant",
        llm__output_messages__1__message__tool_calls__0__tool_call__function__name="d",
    )
    # the flattened keys may come in any order: indexes decide
    shuffled = dataclasses.replace(span, attributes=dict(reversed(list(span.attributes.items()))))
    op = _op(shuffled)
    assert [(r.name, r.arguments, r.call_id) for r in op.requested_tools] == [
        ("a", '{"x": 1}', "c1"),
        ("b", None, "c2"),
        ("c", "{}", None),
        ("d", None, None),
    ]


def test_ten_or_more_messages_are_ordered_by_number() -> None:
    attrs = {f"llm.input_messages.{i}.message.content": f"m{i}" for i in range(12)}
    attrs.update({f"llm.input_messages.{i}.message.role": "user" for i in range(12)})
    messages = flattened_messages(attrs, "llm.input_messages.")
    assert [m["content"] for m in messages] == [f"m{i}" for i in range(12)]


def test_content_parts_and_final_text() -> None:
    b = SpanBuilder()
    span = _oi(
        b,
        "response",
        "LLM",
        llm__input_messages__0__message__role="user",
        llm__input_messages__0__message__content="Hi?",
        llm__output_messages__0__message__role="assistant",
        llm__output_messages__0__message__contents__0__message_content__type="text",
        llm__output_messages__0__message__contents__0__message_content__text="Hello",
    )
    op = _op(span)
    assert (op.input, op.output) == ("Hi?", "Hello")


def test_model_fields() -> None:
    b = SpanBuilder()
    span = _oi(
        b,
        "ChatOpenAI",
        "LLM",
        llm__model_name="gpt-4o",
        llm__provider="openai",
        llm__system="openai",
        llm__token_count__prompt=12,
        llm__token_count__completion=3,
        llm__finish_reason="stop",
    )
    op = _op(span)
    assert (op.kind, op.operation, op.model, op.provider) == ("model", "chat", "gpt-4o", "openai")
    assert (op.input_tokens, op.output_tokens, op.total_tokens) == (12, 3, 15)
    assert op.finish_reasons == ("stop",)


def test_an_embedding_is_a_model_call() -> None:
    b = SpanBuilder()
    span = _oi(b, "embed", "EMBEDDING", embedding__model_name="text-embedding-3", llm__token_count__total=8)
    op = _op(span)
    assert (op.kind, op.operation, op.model, op.total_tokens, op.input_tokens) == (
        "model",
        "embeddings",
        "text-embedding-3",
        8,
        None,
    )


def test_a_retriever_is_a_retrieval() -> None:
    b = SpanBuilder()
    agent = _oi(b, "assistant", "AGENT", agent__name="assistant")
    _oi(
        b,
        "retrieve",
        "RETRIEVER",
        agent,
        input__value="jackets",
        retrieval__documents__1__document__content="second",
        retrieval__documents__0__document__content="first",
    )
    (ret,) = b.trace().retrievals
    assert (ret.query, ret.documents, ret.agent.name if ret.agent else None) == (
        "jackets",
        ("first", "second"),
        "assistant",
    )


# --------------------------------------------------------------------------------------------------
# Span kinds
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["RERANKER", "GUARDRAIL", "EVALUATOR", "PROMPT", "UNKNOWN", "SOMETHING_NEW"])
def test_other_kinds(kind: str) -> None:
    b = SpanBuilder()
    root = _oi(b, "root", "CHAIN")
    assert _op(_oi(b, "x", kind, root)).kind == "other"


def test_chains_root_is_a_workflow_the_rest_other() -> None:
    b = SpanBuilder()
    root = _oi(b, "pipeline", "CHAIN", input__value="q")
    step = _oi(b, "RunnableSequence", "CHAIN", root)
    assert (_op(root).kind, _op(root).name, _op(root).input) == ("workflow", "pipeline", "q")
    assert _op(step).kind == "other"


def test_kind_is_read_case_insensitively() -> None:
    b = SpanBuilder()
    assert _op(_oi(b, "t", "tool", tool__name="t")).kind == "tool"


def test_agent_name_and_session() -> None:
    b = SpanBuilder()
    named = _oi(b, "Agent run", "AGENT", agent__name="planner", session__id="s-1")
    unnamed = _oi(b, "AgentExecutor", "AGENT")
    assert (_op(named).name, _op(named).conversation_id) == ("planner", "s-1")
    assert _op(unnamed).name == "AgentExecutor"


def test_the_openai_agents_trace_span_is_a_workflow() -> None:
    b = SpanBuilder()
    root = dataclasses.replace(
        _oi(b, "Agent workflow", "AGENT"), scope_name="openinference.instrumentation.openai_agents"
    )
    assert (_op(root).kind, _op(root).name) == ("workflow", "Agent workflow")


@pytest.mark.parametrize(
    ("attrs", "expected"),
    [
        ({"llm.model_name": "m", "llm.token_count.prompt": 1}, "model"),
        ({"llm.token_count.total": 3}, "model"),
        ({"tool.name": "t", "input.value": "x"}, "tool"),
        ({"tool.name": "t", "tool.parameters": "{}"}, "tool"),
        ({"tool.name": "t"}, None),
        ({"input.value": "x", "output.value": "y"}, None),
        ({"llm.usage.total_tokens": 3, "llm.request.type": "chat"}, None),  # Traceloop's keys
    ],
)
def test_a_span_without_kind_is_read_only_from_openinference_keys(
    attrs: dict[str, Any], expected: str | None
) -> None:
    span = SpanBuilder().span("s", attrs)
    op = openinference.classify(span)
    assert (op.kind if op is not None else None) == expected


# --------------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------------


def _exception(type_: str, message: str) -> ta.SpanEvent:
    return ta.SpanEvent("exception", 0, {"exception.type": type_, "exception.message": message})


def test_a_failed_tool_does_not_fail_its_agent() -> None:
    b = SpanBuilder()
    agent = _oi(b, "assistant", "AGENT", agent__name="assistant", status="OK")
    _oi(
        b,
        "explode",
        "TOOL",
        agent,
        tool__name="explode",
        status="ERROR",
        description="ToolException('boom')Traceback ...",
        events=(_exception("langchain_core.tools.base.ToolException", "boom"),),
    )
    trace = b.trace()
    (tool,) = trace.tool_executions
    assert tool.failed is True
    assert tool.error == ta.ErrorInfo("langchain_core.tools.base.ToolException", "boom")
    assert trace.agents[0].status == "succeeded"


def test_the_openai_agents_error_description_gives_the_message() -> None:
    b = SpanBuilder()
    description = "Error running tool (non-fatal): {'tool_name': 'explode', 'error': 'it broke: badly'}"
    op = _op(_oi(b, "explode", "TOOL", tool__name="explode", status="ERROR", description=description))
    assert op.failed is True
    assert op.error == ta.ErrorInfo(None, "Error running tool (non-fatal): it broke: badly")


@pytest.mark.parametrize(
    "description",
    [
        "Error running tool (non-fatal): {'tool_name': 'x', 'error': ''}",  # the SDK's default: no detail
        "Error running tool: {not a dict",
        None,
    ],
)
def test_other_error_descriptions_are_kept(description: str | None) -> None:
    b = SpanBuilder()
    op = _op(_oi(b, "x", "TOOL", tool__name="x", status="ERROR", description=description))
    assert op.failed is True
    assert op.error == ta.ErrorInfo(None, description)


def test_a_failed_agent_and_an_open_one() -> None:
    b = SpanBuilder()
    failed = _oi(b, "a", "AGENT", agent__name="a", status="ERROR", events=(_exception("ValueError", "bad"),))
    assert (_op(failed).failed, _op(failed).error) == (True, ta.ErrorInfo("ValueError", "bad"))
    open_span = dataclasses.replace(_oi(b, "b", "AGENT", agent__name="b"), end_ns=None)
    assert _op(open_span).failed is None


# --------------------------------------------------------------------------------------------------
# LangGraph graphs
# --------------------------------------------------------------------------------------------------


def _meta(node: str | None = None, ns: str | None = None) -> str:
    meta: dict[str, Any] = {"ls_integration": "langgraph"}
    if node is not None:
        meta.update(langgraph_node=node, langgraph_checkpoint_ns=ns)
    return json.dumps(meta)


def test_langgraph_graphs_are_agents_and_their_nodes_are_not() -> None:
    b = SpanBuilder()
    graph = _oi(b, "LangGraph", "CHAIN", metadata=_meta(), input__value='{"messages": [["user", "Hi"]]}')
    node = _oi(b, "agent", "AGENT", graph, metadata=_meta("agent", "agent:1"))
    inner = _oi(b, "call_model", "CHAIN", node, metadata=_meta("agent", "agent:1"))
    _llm(b, inner, [("ask", '{"q": "x"}', "c1")])
    tools = _oi(b, "tools", "CHAIN", graph, metadata=_meta("tools", "tools:2"))
    ask = _oi(b, "ask", "TOOL", tools, tool__name="ask", input__value="x", metadata=_meta("tools", "tools:2"))
    sub = _oi(b, "helper", "CHAIN", ask, metadata=_meta("tools", "tools:2"), input__value='{"messages": []}')
    sub_node = _oi(b, "agent", "AGENT", sub, metadata=_meta("agent", "tools:2|agent:3"))
    _llm(b, sub_node, [])
    trace = b.trace()
    assert [(a.name, a.parent.name if a.parent else None) for a in trace.all_agents()] == [
        ("LangGraph", None),
        ("helper", "LangGraph"),
    ]
    (top,) = trace.agents
    assert top.input == "Hi"
    assert [t.name for t in top.tool_executions] == ["ask"]
    assert top.tool_executions[0].arguments == {"q": "x"}
    assert [len(a.model_calls) for a in trace.all_agents()] == [1, 1]


def test_a_chain_whose_children_share_its_namespace_stays_a_step() -> None:
    b = SpanBuilder()
    graph = _oi(b, "LangGraph", "CHAIN", metadata=_meta())
    node = _oi(b, "tools", "CHAIN", graph, metadata=_meta("tools", "tools:2"))
    step = _oi(b, "RunnableLambda", "CHAIN", node, metadata=_meta("tools", "tools:2"))
    _oi(b, "tools", "CHAIN", step, metadata=_meta("tools", "tools:2"))
    trace = b.trace()
    assert [a.name for a in trace.all_agents()] == ["LangGraph"]
    assert trace.operation(node) is not None
    assert trace.operation(step).kind == "other"  # type: ignore[union-attr]


def test_a_langgraph_output_state_gives_the_last_ai_message() -> None:
    b = SpanBuilder()
    state = {
        "messages": [
            {"type": "human", "data": {"content": "Hi"}},
            {"type": "ai", "data": {"content": "Hello!"}},
            {"type": "tool", "data": {"content": "tool says"}},
        ]
    }
    op = _op(_oi(b, "LangGraph", "CHAIN", metadata=_meta(), output__value=json.dumps(state)))
    assert (op.kind, op.output) == ("agent", "Hello!")
