"""Turns and conversations: ``Trace.turns`` / ``Trace.conversations``, the ``turn(n)`` and
``conversation(id)`` selectors and ``has_turn_count``, on a real multi-turn Pydantic AI chat."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder

pydantic_ai = pytest.importorskip("pydantic_ai")
from pydantic_ai import Agent  # noqa: E402
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart  # noqa: E402
from pydantic_ai.models.function import FunctionModel  # noqa: E402


def _respond(messages: list, info: object) -> ModelResponse:  # type: ignore[type-arg]
    last = messages[-1]
    if any(isinstance(p, ToolReturnPart) for p in last.parts):
        return ModelResponse(parts=[TextPart("It is sunny in Paris.")])
    text = " ".join(p.content for p in last.parts if isinstance(getattr(p, "content", None), str))
    if "weather" in text:
        return ModelResponse(parts=[ToolCallPart("get_weather", {"city": "Paris"})])
    return ModelResponse(parts=[TextPart("Hello! How can I help?")])


chat = Agent(FunctionModel(_respond), name="chat")


@chat.tool_plain
def get_weather(city: str) -> str:
    return f"Sunny in {city}"


@pytest.fixture
def instrumented() -> Iterator[None]:
    Agent.instrument_all(True)
    try:
        yield
    finally:
        Agent.instrument_all(False)


def _two_turns() -> None:
    first = chat.run_sync("Hi there")
    chat.run_sync("What is the weather in Paris?", message_history=first.all_messages())


def test_turn_two_used_the_tool_turn_one_did_not(instrumented: None) -> None:
    with ta.capture() as cap:
        _two_turns()
    a = ta.assert_trace(cap)
    a.has_turn_count(2)
    a.turn(1).does_not_call_tool("get_weather")
    a.turn(2).called_tool("get_weather")
    # invocation checks per turn
    a.turn(-1).top_level_only().has_tool_executed_with("get_weather", {"city": "Paris"}).has_succeeded()
    a.turn(1).top_level_only().has_no_tool_executions()
    trace = cap.trace()
    assert [t.name for t in trace.turns] == ["chat", "chat"]
    (conversation,) = trace.conversations  # message_history carries Pydantic AI's conversation id
    assert conversation.id is not None and conversation.turns == trace.turns
    a.conversation(conversation.id).has_turn_count(2).turn(2).called_tool("get_weather")


def test_separate_chats_are_separate_conversations(instrumented: None) -> None:
    with ta.capture() as cap:
        _two_turns()
        chat.run_sync("Hi again")
    trace = cap.trace()
    first, second = trace.conversations
    assert [len(first.turns), len(second.turns)] == [2, 1]
    a = ta.assert_trace(trace)
    a.has_turn_count(3)
    a.conversation(second.id).has_turn_count(1).does_not_call_tool("get_weather")
    a.conversation(first.id).turn(2).called_tool("get_weather")


def test_failures_name_the_turns(instrumented: None) -> None:
    with ta.capture() as cap:
        _two_turns()
    a = ta.assert_trace(cap)
    cid = cap.trace().conversations[0].id
    with pytest.raises(ta.TraceAssertionError) as info:
        a.turn(3)
    assert str(info.value).startswith(
        f"turn(3): expected a turn 3, found 2 turn(s)\nchecked: the whole trace\n"
        f"turns in the selection: 1. chat (conversation {cid!r}), 2. chat (conversation {cid!r})"
    )
    with pytest.raises(ta.TraceAssertionError, match=r"has_turn_count\(1\): expected 1 turn\(s\), found 2"):
        a.has_turn_count(1)
    with pytest.raises(ta.TraceAssertionError) as info:
        a.conversation("nope")
    assert f"conversations in the selection: {cid!r}" in str(info.value)
    with pytest.raises(ta.TraceAssertionError, match="called_tool"):
        a.turn(1).called_tool("get_weather")


@pytest.mark.parametrize("bad", [0, 1.5, True, "1"])
def test_turn_numbers_start_at_one(bad: object) -> None:
    with pytest.raises(ValueError, match="start at 1"):
        ta.assert_trace(ta.Trace([])).turn(bad)  # type: ignore[arg-type]


def test_conversation_ids_from_any_producer_key() -> None:
    b = SpanBuilder()
    one = b.span("turn 1", attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "bot"})
    b.span("chat", parent=one, attributes={"gen_ai.operation.name": "chat", "session.id": "s-1"})
    two = b.span("turn 2", attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "bot"})
    b.span("chat", parent=two, attributes={"gen_ai.operation.name": "chat", "scope.agentic.session": "s-1"})
    b.span("turn 3", attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "bot"})
    trace = ta.Trace(b.spans)
    assert [(c.id, len(c.turns)) for c in trace.conversations] == [("s-1", 2), (None, 1)]
    ta.assert_trace(trace).conversation(None).has_turn_count(1)


def test_work_outside_any_agent_is_a_turn_only_when_there_is_no_agent() -> None:
    b = SpanBuilder()
    b.span("chat", attributes={"gen_ai.operation.name": "chat", "gen_ai.request.model": "m"})
    assert len(ta.Trace(b.spans).turns) == 1
    b.span("bot", attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "bot"})
    assert [t.name for t in ta.Trace(b.spans).turns] == ["bot"]


def test_the_tree_shows_a_header_per_turn(instrumented: None) -> None:
    with ta.capture() as cap:
        _two_turns()
        chat.run_sync("Hi again")
    text = cap.trace().render()
    trace = cap.trace()
    second_id = trace.conversations[1].id
    lines = text.splitlines()
    headers = [line for line in lines if line.startswith("turn ")]
    assert headers[:2] == [f"turn 1 of 3 (conversation {trace.conversations[0].id!r})"] * 1 + [
        f"turn 2 of 3 (conversation {trace.conversations[0].id!r})"
    ]
    assert headers[2] == f"turn 3 of 3 (conversation {second_id!r})"
    assert lines[lines.index(headers[1]) + 1].startswith("agent chat [succeeded]")


def test_a_single_turn_has_no_header() -> None:
    b = SpanBuilder()
    b.span("bot", attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "bot"})
    assert "turn " not in ta.Trace(b.spans).render()
