"""The OpenLLMetry (Traceloop) dialect and the nesting repairs it relies on, on hand-built spans: the
edge cases the real traces in tests/conformance do not show (older releases' flattened keys, SDK
decorators, a LangChain wrapper over a provider span, nesting that must not be repaired)."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder
from traceassert._dialects import classify, traceloop

LC_SCOPE = "opentelemetry.instrumentation.langchain"
AGENTS_SCOPE = "opentelemetry.instrumentation.openai_agents"


def _scoped(span: ta.Span, scope: str) -> ta.Span:
    return dataclasses.replace(span, scope_name=scope)


def _build(b: SpanBuilder, scope: str | None = None) -> ta.Trace:
    spans = b.spans if scope is None else [_scoped(s, scope) for s in b.spans]
    return ta.Trace(spans)


def _lc_tool_input(inputs: Any, input_str: str, call_id: str | None = None) -> str:
    kwargs: dict[str, Any] = {"color": "green", "name": None}
    if call_id is not None:
        kwargs["tool_call_id"] = call_id
    wrapper = {"input_str": input_str, "tags": [], "metadata": {}, "inputs": inputs, "kwargs": kwargs}
    return json.dumps(wrapper)


def _tool(
    b: SpanBuilder, name: str, parent: ta.Span | None, attrs: dict[str, Any] | None = None, **span: Any
) -> ta.Span:
    attributes = {"traceloop.span.kind": "tool", "traceloop.entity.name": name, **(attrs or {})}
    return b.span(f"{name}.tool", attributes, parent=parent, **span)


def _chat(
    b: SpanBuilder, name: str, parent: ta.Span | None, attrs: dict[str, Any] | None = None, **span: Any
) -> ta.Span:
    return b.span(name, {"gen_ai.operation.name": "chat", **(attrs or {})}, parent=parent, **span)


# --------------------------------------------------------------------------------------------------
# Detection and span kinds
# --------------------------------------------------------------------------------------------------


def test_detection_needs_a_traceloop_key_or_an_openllmetry_scope() -> None:
    b = SpanBuilder()
    plain = b.span("chat m", {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m"})
    marked = b.span("x.task", {"traceloop.span.kind": "task", "traceloop.entity.name": "x"})
    streaming = b.span("openai.chat", {"gen_ai.is_streaming": False, "gen_ai.operation.name": "chat"})
    assert traceloop.classify(plain) is None
    assert traceloop.classify(_scoped(plain, "opentelemetry.instrumentation.openai_v2")) is None
    assert traceloop.classify(_scoped(plain, "opentelemetry.instrumentation.openai.v1")) is not None
    assert traceloop.classify(marked) is not None
    assert traceloop.classify(streaming) is not None
    op = classify(_scoped(plain, LC_SCOPE))
    assert op is not None and op.dialect == "traceloop"


@pytest.mark.parametrize(
    ("name", "attrs", "kind", "op_name"),
    [
        ("Agent Workflow", {"traceloop.span.kind": "workflow", "traceloop.workflow.name": "Agent Workflow"}, "workflow", "Agent Workflow"),
        ("ask.task", {"traceloop.span.kind": "task", "traceloop.entity.name": "ask"}, "workflow", "ask"),
        ("planner.agent", {"traceloop.span.kind": "agent", "traceloop.entity.name": "planner"}, "agent", "planner"),
        ("invoke_agent g", {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "g"}, "agent", "g"),
        ("RunnableSequence.workflow", {"traceloop.span.kind": "workflow", "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "RunnableSequence", "gen_ai.provider.name": "langchain"}, "workflow", "RunnableSequence"),
        ("g.workflow", {"traceloop.span.kind": "workflow", "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "g", "gen_ai.provider.name": "langgraph"}, "agent", "g"),
        ("execute_tool t", {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "t"}, "tool", "t"),
        ("openai.chat", {"llm.request.type": "chat"}, "model", None),
        ("goto tools", {"gen_ai.operation.name": "goto"}, "other", "goto tools"),
    ],
)  # fmt: skip
def test_span_kinds(name: str, attrs: dict[str, Any], kind: str, op_name: str | None) -> None:
    op = traceloop.classify(_scoped(SpanBuilder().span(name, attrs), LC_SCOPE))
    assert op is not None
    assert (op.kind, op.name) == (kind, op_name)


# --------------------------------------------------------------------------------------------------
# Tool arguments, call ids and results
# --------------------------------------------------------------------------------------------------


def test_langchain_tool_wrapper_is_unwrapped() -> None:
    b = SpanBuilder()
    agent = b.agent("a")
    raw = _lc_tool_input({"city": "Paris", "units": ["C"]}, "{'city': 'Paris', 'units': ['C']}", "call_9")
    message = {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "ToolMessage"]}
    output = {"output": {**message, "kwargs": {"content": "Sunny", "tool_call_id": "call_9"}}, "kwargs": {}}
    _tool(
        b,
        "get_weather",
        agent,
        {"traceloop.entity.input": raw, "traceloop.entity.output": json.dumps(output)},
    )
    (tool,) = b.trace().tool_executions
    assert tool.arguments == {"city": "Paris", "units": ["C"]}
    assert tool.call_id == "call_9"
    assert tool.result == "Sunny"


def test_older_langchain_wrapper_without_inputs_reads_the_repr() -> None:
    b = SpanBuilder()
    agent = b.agent("a")
    raw = json.dumps({"input_str": "{'city': 'Paris', 'days': 2}", "tags": [], "metadata": {}, "kwargs": {}})
    _tool(
        b, "forecast", agent, {"traceloop.entity.input": raw, "traceloop.entity.output": '{"output": "ok"}'}
    )
    (tool,) = b.trace().tool_executions
    assert tool.arguments == {"city": "Paris", "days": 2}
    assert tool.result == "ok"


def test_a_bare_string_input_takes_the_parameter_name_the_model_used() -> None:
    b = SpanBuilder()
    agent = b.agent("a")
    calls = {"gen_ai.completion.0.role": "assistant", "gen_ai.completion.0.tool_calls.0.name": "lookup"}
    calls["gen_ai.completion.0.tool_calls.0.arguments"] = '{"query": "otel"}'
    _chat(b, "openai.chat", agent, {"llm.request.type": "chat", **calls})
    raw = json.dumps({"input_str": "otel", "tags": [], "metadata": {}, "inputs": None, "kwargs": {}})
    _tool(b, "lookup", agent, {"traceloop.entity.input": raw})
    (tool,) = b.trace().tool_executions
    assert tool.arguments == {"query": "otel"}


@pytest.mark.parametrize(
    ("recorded", "expected"),
    [
        ({"args": [], "kwargs": {"city": "Paris"}}, {"city": "Paris"}),
        ({"args": ["Paris"], "kwargs": {}}, {"input": "Paris"}),
        ({"args": ["Paris", 2], "kwargs": {"units": "C"}}, {"args": ["Paris", 2], "units": "C"}),
    ],
)
def test_sdk_decorator_input(recorded: dict[str, Any], expected: dict[str, Any]) -> None:
    b = SpanBuilder()
    agent = b.span("a.agent", {"traceloop.span.kind": "agent", "traceloop.entity.name": "a"})
    _tool(b, "weather", agent, {"traceloop.entity.input": json.dumps(recorded)})
    (tool,) = b.trace().tool_executions
    assert tool.arguments == expected


def test_agents_sdk_error_repr_and_task_status_failures() -> None:
    b = SpanBuilder()
    agent = b.span("a.agent", {"traceloop.span.kind": "agent", "gen_ai.agent.name": "a"}, status="OK")
    description = "{'message': 'Error running tool (non-fatal)', 'data': {'tool_name': 't', 'error': 'boom'}}"
    _tool(b, "t", agent, status="ERROR", description=description)
    _tool(b, "u", agent, {"gen_ai.task.status": "failure"})
    first, second = b.trace().tool_executions
    assert first.failed and first.error == ta.ErrorInfo(None, "Error running tool (non-fatal): boom")
    assert second.failed is True
    assert b.trace().agents[0].status == "succeeded"


# --------------------------------------------------------------------------------------------------
# Model calls
# --------------------------------------------------------------------------------------------------


def test_flattened_prompts_and_completions() -> None:
    b = SpanBuilder()
    attrs = {
        "llm.request.type": "chat",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.prompt.0.role": "system",
        "gen_ai.prompt.0.content": "Be brief.",
        "gen_ai.prompt.1.role": "user",
        "gen_ai.prompt.1.content": "Weather in Paris and Rome?",
        "gen_ai.completion.0.role": "assistant",
        "gen_ai.completion.0.finish_reason": "tool_calls",
        "gen_ai.completion.0.tool_calls.0.id": "c1",
        "gen_ai.completion.0.tool_calls.0.name": "get_weather",
        "gen_ai.completion.0.tool_calls.0.arguments": '{"city": "Paris"}',
        "gen_ai.completion.0.tool_calls.1.id": "c2",
        "gen_ai.completion.0.tool_calls.1.name": "get_weather",
        "gen_ai.completion.0.tool_calls.1.arguments": '{"city": "Rome"}',
        "gen_ai.usage.prompt_tokens": 30,
        "gen_ai.usage.completion_tokens": 12,
        "llm.usage.total_tokens": 42,
    }
    op = traceloop.classify(b.span("openai.chat", attrs))
    assert op is not None and op.kind == "model"
    assert (op.operation, op.model, op.input, op.finish_reasons) == (
        "chat",
        "gpt-4o",
        "Weather in Paris and Rome?",
        ("tool_calls",),
    )
    assert (op.input_tokens, op.output_tokens, op.total_tokens) == (30, 12, 42)
    assert [(r.name, r.arguments, r.call_id) for r in op.requested_tools] == [
        ("get_weather", '{"city": "Paris"}', "c1"),
        ("get_weather", '{"city": "Rome"}', "c2"),
    ]


def test_flattened_completion_text_and_function_call() -> None:
    b = SpanBuilder()
    text = traceloop.classify(
        b.span("openai.chat", {"llm.request.type": "chat", "gen_ai.completion.0.content": "Hi there"})
    )
    assert text is not None and text.output == "Hi there"
    legacy = {
        "llm.request.type": "chat",
        "gen_ai.completion.0.role": "assistant",
        "gen_ai.completion.0.function_call.name": "lookup",
        "gen_ai.completion.0.function_call.arguments": '{"q": 1}',
    }
    op = traceloop.classify(b.span("openai.chat", legacy))
    assert op is not None and [(r.name, r.arguments) for r in op.requested_tools] == [("lookup", '{"q": 1}')]


def test_model_name_placeholder_streaming_and_chunks() -> None:
    b = SpanBuilder()
    chunk = ta.SpanEvent("gen_ai.content.completion.chunk")
    unknown = {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "unknown",
        "traceloop.association.properties.ls_model_name": "claude-x",
        "gen_ai.usage.input_tokens": 3,
        "gen_ai.usage.output_tokens": 4,
        "gen_ai.usage.total_tokens": 9,  # the producer's own total wins (e.g. reasoning tokens)
    }
    op = traceloop.classify(_scoped(b.span("ChatX.chat", unknown, events=(chunk,)), LC_SCOPE))
    assert op is not None
    assert (op.model, op.streamed, op.total_tokens) == ("claude-x", True, 9)
    bare = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "unknown", "llm.is_streaming": False}
    op = traceloop.classify(_scoped(b.span("ChatX.chat", bare), LC_SCOPE))
    assert op is not None and (op.model, op.streamed, op.total_tokens) == (None, False, None)


def test_wrapper_and_provider_spans_are_one_call() -> None:
    b = SpanBuilder()
    graph = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "g",
        "gen_ai.provider.name": "langgraph",
    }
    agent = b.span("g.workflow", {"traceloop.span.kind": "workflow", **graph})
    usage = {
        "gen_ai.usage.input_tokens": 10,
        "gen_ai.usage.output_tokens": 5,
        "gen_ai.usage.total_tokens": 15,
    }
    wrapper = _chat(b, "ChatOpenAI.chat", agent, {"gen_ai.request.model": "gpt-4o", **usage})
    _chat(b, "openai.chat", wrapper, {"gen_ai.request.model": "gpt-4o", "gen_ai.is_streaming": True, **usage})
    trace = _build(b, LC_SCOPE)
    (call,) = trace.model_calls
    assert (call.total_tokens, call.streamed, len(call.spans)) == (15, True, 2)
    assert trace.agents[0].total_tokens == 15


# --------------------------------------------------------------------------------------------------
# Nesting the parent ids do not show
# --------------------------------------------------------------------------------------------------


def _agents_sdk(b: SpanBuilder, *, inside: bool) -> ta.Trace:
    """Agent Workflow > [orchestrator.agent > ask.tool], helper.agent (inside ask.tool in time or after)."""
    root = b.span("Agent Workflow", {"traceloop.span.kind": "workflow"}, start_ns=0, duration_ns=1000)
    agent = {"traceloop.span.kind": "agent", "gen_ai.operation.name": "invoke_agent"}
    orchestrator = {**agent, "gen_ai.agent.name": "orchestrator"}
    orch = b.span("orchestrator.agent", orchestrator, parent=root, start_ns=10, duration_ns=500)
    _tool(b, "ask", orch, {"gen_ai.tool.name": "ask"}, start_ns=100, duration_ns=200)
    start = 150 if inside else 600
    helper = {**agent, "gen_ai.agent.name": "helper"}
    helper_span = b.span("helper.agent", helper, parent=root, start_ns=start, duration_ns=100)
    _chat(
        b,
        "openai.response",
        helper_span,
        {"gen_ai.usage.input_tokens": 7},
        start_ns=start + 10,
        duration_ns=10,
    )
    return _build(b, AGENTS_SCOPE)


def test_a_flattened_agent_is_nested_in_the_tool_that_ran_it() -> None:
    trace = _agents_sdk(SpanBuilder(), inside=True)
    (top,) = trace.agents
    (helper,) = top.nested
    assert helper.name == "helper" and helper.via_tool is not None and helper.via_tool.name == "ask"
    assert [c.agent.name for c in trace.model_calls if c.agent is not None] == ["helper"]
    recorded_parent = trace.parent(helper.span)
    assert recorded_parent is not None and recorded_parent.name == "Agent Workflow"


def test_an_agent_after_the_tool_stays_top_level() -> None:
    trace = _agents_sdk(SpanBuilder(), inside=False)
    assert [a.name for a in trace.agents] == ["orchestrator", "helper"]
    assert trace.agents[0].nested == ()


def _invoke(name: str) -> dict[str, Any]:
    return {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name}


def _langgraph_split(b: SpanBuilder, body_name: str, body_start: int) -> ta.Trace:
    """execute_tool ask > invoke_agent helper (empty) + execute_task <body_name> > helper's model call."""
    graph = b.span("invoke_agent main", _invoke("main"), start_ns=0, duration_ns=1000)
    tool = _tool(b, "ask", graph, start_ns=100, duration_ns=300)
    b.span("invoke_agent helper", _invoke("helper"), parent=tool, start_ns=110, duration_ns=200)
    reply = {"lc": 1, "type": "constructor", "id": ["x", "AIMessage"], "kwargs": {"content": "Hi!"}}
    body = {
        "traceloop.span.kind": "task",
        "traceloop.entity.name": body_name,
        "traceloop.entity.input": json.dumps({"inputs": {"messages": [["user", "Hello?"]]}}),
        "traceloop.entity.output": json.dumps({"outputs": {"messages": [reply]}}),
    }
    task = b.span(f"execute_task {body_name}", body, parent=tool, start_ns=body_start, duration_ns=100)
    _chat(b, "Fake.chat", task, {"gen_ai.usage.input_tokens": 5}, start_ns=body_start + 10, duration_ns=10)
    return _build(b, LC_SCOPE)


def test_a_split_agent_gets_its_body() -> None:
    trace = _langgraph_split(SpanBuilder(), "helper", 120)
    (top,) = trace.agents
    (helper,) = top.nested
    assert [c.agent.name for c in trace.model_calls if c.agent is not None] == ["helper"]
    assert (helper.input, helper.output) == ("Hello?", "Hi!")
    assert helper.via_tool is not None and helper.via_tool.name == "ask"


@pytest.mark.parametrize(("body_name", "body_start"), [("other", 120), ("helper", 330)])
def test_a_body_needs_the_agent_name_and_its_time(body_name: str, body_start: int) -> None:
    trace = _langgraph_split(SpanBuilder(), body_name, body_start)
    (top,) = trace.agents
    (helper,) = top.nested
    assert helper.model_calls == ()
    assert [c.agent.name for c in trace.model_calls if c.agent is not None] == ["main"]


def test_a_named_span_outside_its_agent_joins_it() -> None:
    b = SpanBuilder()
    root = b.span("Agent Workflow", {"traceloop.span.kind": "workflow"}, start_ns=0, duration_ns=1000)
    attrs = {
        "traceloop.span.kind": "agent",
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "a",
    }
    b.span("a.agent", attrs, parent=root, start_ns=10, duration_ns=300)
    tool = {"traceloop.span.kind": "tool", "gen_ai.tool.name": "t", "gen_ai.agent.name": "a"}
    b.span("t.tool", tool, parent=root, start_ns=50, duration_ns=10)  # inside a's time, parented on the root
    late = {**tool, "gen_ai.tool.name": "late"}
    b.span("late.tool", late, parent=root, start_ns=500, duration_ns=10)  # after a ended: not a's
    trace = _build(b, AGENTS_SCOPE)
    agent = next(a for a in trace.agents if a.name == "a")
    assert [t.name for t in agent.tool_executions] == ["t"]
    assert [t.agent.name for t in trace.tool_executions if t.agent is not None] == ["a", "Agent Workflow"]


def test_a_repair_never_makes_a_span_its_own_ancestor() -> None:
    b = SpanBuilder()
    named = {"traceloop.span.kind": "tool", "gen_ai.tool.name": "t", "gen_ai.agent.name": "x"}
    tool = b.span("t.tool", named, start_ns=0, duration_ns=100)
    agent = {"traceloop.span.kind": "agent", "gen_ai.agent.name": "x"}
    b.span("x.agent", agent, parent=tool, start_ns=0, duration_ns=100)
    trace = _build(b, AGENTS_SCOPE)
    (execution,) = trace.tool_executions
    assert execution.agent is not None and execution.agent.implicit
    # the agent stays where its parent id puts it (inside the tool), the tool stays outside the agent
    (agent_x,) = (a for a in trace.all_agents() if a.name == "x")
    assert trace.parent(agent_x.span) is execution.span and agent_x.tool_executions == ()


# --------------------------------------------------------------------------------------------------
# Retrievals and agent I/O
# --------------------------------------------------------------------------------------------------


def test_retrieval_span() -> None:
    b = SpanBuilder()
    agent = b.agent("a")
    output = {"documents": [{"page_content": "Paris is sunny", "metadata": {}}, "raw doc"], "count": 2}
    attrs = {
        "gen_ai.operation.name": "vector_db_retrieve",
        "traceloop.span.kind": "task",
        "traceloop.entity.name": "VectorStoreRetriever",
        "traceloop.entity.input": json.dumps({"query": "weather Paris", "tags": [], "metadata": {}}),
        "traceloop.entity.output": json.dumps(output),
    }
    b.span("vector_db_retrieve VectorStoreRetriever", attrs, parent=agent)
    (retrieval,) = b.trace().retrievals
    assert (retrieval.query, retrieval.documents) == ("weather Paris", ("Paris is sunny", "raw doc"))
    assert retrieval.dialect == "traceloop"


def test_sdk_agent_io() -> None:
    b = SpanBuilder()
    attrs = {
        "traceloop.span.kind": "agent",
        "traceloop.entity.name": "planner",
        "traceloop.entity.input": json.dumps({"args": ["plan a trip"], "kwargs": {}}),
        "traceloop.entity.output": json.dumps("done"),
    }
    b.span("planner.agent", attrs)
    (agent,) = b.trace().agents
    assert (agent.name, agent.input, agent.output, agent.dialect) == (
        "planner",
        "plan a trip",
        "done",
        "traceloop",
    )
