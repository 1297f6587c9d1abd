"""The home-grown agent decorators (``ta.instrument``): the spans they emit and what traceassert rebuilds."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import pytest

import traceassert as ta
from traceassert._instrument import instrument

# --------------------------------------------------------------------------------------------------
# A home-grown agent: the shared scenario, decorated
# --------------------------------------------------------------------------------------------------

_TURNS: dict[str, list[dict[str, Any]]] = {
    "scripted-orchestrator": [
        {"tool": ("get_weather", {"city": "Paris"}), "usage": (101, 11)},
        {"tool": ("explode", {}), "usage": (123, 13)},
        {"tool": ("ask_helper", {"question": "What should I wear?"}), "usage": (147, 17)},
        {"text": "It is sunny in Paris; wear a light jacket.", "usage": (171, 19)},
    ],
    "scripted-helper": [{"text": "Wear a light jacket.", "usage": (37, 7)}],
}


@dataclass
class Usage:
    prompt_tokens: int
    completion_tokens: int


def _completion(model: str, index: int) -> SimpleNamespace:
    """An object shaped like an OpenAI chat completion (attributes, not dicts)."""
    turn = _TURNS[model][index]
    tool_calls = None
    content = turn.get("text")
    finish = "stop"
    if "tool" in turn:
        name, args = turn["tool"]
        fn = SimpleNamespace(name=name, arguments=json.dumps(args))
        tool_calls = [SimpleNamespace(id=f"call_{index}_{name}", type="function", function=fn)]
        finish = "tool_calls"
    message = SimpleNamespace(role="assistant", content=content, tool_calls=tool_calls)
    return SimpleNamespace(
        model=model,
        choices=[SimpleNamespace(index=0, message=message, finish_reason=finish)],
        usage=Usage(*turn["usage"]),
    )


@instrument.model_call(model="scripted-orchestrator", provider="scripted")
def orchestrator_model(messages: list[dict[str, Any]]) -> SimpleNamespace:
    return _completion("scripted-orchestrator", sum(m["role"] == "tool" for m in messages))


@instrument.model_call(model="scripted-helper")
def helper_model(messages: list[dict[str, Any]]) -> SimpleNamespace:
    return _completion("scripted-helper", 0)


@instrument.tool
def get_weather(city: str, units: str = "C") -> str:
    return f"Sunny, 21{units} in {city}"


@instrument.tool()
def explode() -> str:
    raise RuntimeError("explode failed: the detonator is broken")


@instrument.agent("helper")
def helper(question: str) -> str:
    reply = helper_model([{"role": "user", "content": question}])
    return str(reply.choices[0].message.content)


@instrument.tool("ask_helper")
def ask(question: str) -> str:
    return helper(question)


_TOOLS = {"get_weather": get_weather, "explode": explode, "ask_helper": ask}


@instrument.agent("orchestrator")
def orchestrator(prompt: str) -> str:
    messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
    while True:
        reply = orchestrator_model(messages)
        message = reply.choices[0].message
        if not message.tool_calls:
            return str(message.content)
        for call in message.tool_calls:
            try:
                result = _TOOLS[call.function.name](**json.loads(call.function.arguments))
            except RuntimeError as exc:
                result = f"Error: {exc}"
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})


PROMPT = "What is the weather in Paris, and what should I wear?"


@pytest.fixture
def trace() -> ta.Trace:
    with ta.capture() as cap:
        assert orchestrator(PROMPT) == "It is sunny in Paris; wear a light jacket."
    return cap.trace()


# --------------------------------------------------------------------------------------------------
# Reconstruction
# --------------------------------------------------------------------------------------------------


def test_agents_and_nesting(trace: ta.Trace) -> None:
    assert [a.name for a in trace.agents] == ["orchestrator"]
    (top,) = trace.agents
    assert [n.name for n in top.nested] == ["helper"]
    assert top.nested[0].via_tool is not None
    assert top.nested[0].via_tool.name == "ask_helper"
    assert top.status == "succeeded"
    assert top.input == PROMPT
    assert top.output == "It is sunny in Paris; wear a light jacket."


def test_tools_arguments_and_failures(trace: ta.Trace) -> None:
    tools = trace.tool_executions
    assert [t.name for t in tools] == ["get_weather", "explode", "ask_helper"]
    # defaults are applied: the arguments are what the function received
    assert [t.arguments for t in tools] == [
        {"city": "Paris", "units": "C"},
        {},
        {"question": "What should I wear?"},
    ]
    assert [t.failed for t in tools] == [False, True, False]
    assert tools[0].result == "Sunny, 21C in Paris"
    assert tools[1].error is not None
    assert tools[1].error.type == "RuntimeError"
    assert tools[1].error.message == "explode failed: the detonator is broken"
    assert all(t.call_id and t.call_id.startswith("call_") for t in tools)
    assert len({t.call_id for t in tools}) == 3


def test_model_calls_and_tokens(trace: ta.Trace) -> None:
    calls = trace.model_calls
    assert len(calls) == 5
    assert [c.agent.name for c in calls if c.agent] == ["orchestrator"] * 3 + ["helper", "orchestrator"]
    assert sum(c.input_tokens or 0 for c in calls) == 101 + 123 + 147 + 171 + 37
    assert sum(c.output_tokens or 0 for c in calls) == 11 + 13 + 17 + 19 + 7
    assert calls[0].finish_reasons == ("tool_calls",)
    assert calls[-1].finish_reasons == ("stop",)
    assert calls[0].provider == "scripted"
    assert calls[0].model == "scripted-orchestrator"
    assert trace.agents[0].total_tokens == 646


def test_asserter_reads_the_decorated_run(trace: ta.Trace) -> None:
    asserter = ta.TraceAsserter(trace)
    asserter.called_agent("orchestrator").called_tool("get_weather", count=1)
    asserter.called_agent("helper")
    asserter.under_token_limit(646)
    with pytest.raises(ta.TraceAssertionError):
        asserter.under_token_limit(645)


# --------------------------------------------------------------------------------------------------
# Span shapes
# --------------------------------------------------------------------------------------------------


def test_span_names_kinds_and_keys(trace: ta.Trace) -> None:
    names = [s.name for s in trace.spans]
    assert names[0] == "invoke_agent orchestrator"
    assert "execute_tool get_weather" in names
    assert "chat scripted-orchestrator" in names
    chat = next(s for s in trace.spans if s.name == "chat scripted-orchestrator")
    assert chat.kind == "CLIENT"
    assert chat.attributes["gen_ai.operation.name"] == "chat"
    assert chat.attributes["gen_ai.usage.input_tokens"] == 101
    assert chat.attributes["gen_ai.response.model"] == "scripted-orchestrator"
    output = json.loads(chat.attributes["gen_ai.output.messages"])
    assert output[0]["parts"][0]["name"] == "get_weather"
    tool = next(s for s in trace.spans if s.name == "execute_tool explode")
    assert tool.status.code == "ERROR"
    assert tool.attributes["error.type"] == "RuntimeError"
    assert [e.name for e in tool.events] == ["exception"]
    assert tool.scope_name == "traceassert.instrument"


def test_exceptions_are_reraised_unchanged() -> None:
    boom = ValueError("no")

    @instrument.agent("failing")
    def failing() -> None:
        raise boom

    with ta.capture() as cap, pytest.raises(ValueError) as info:
        failing()
    assert info.value is boom
    (agent,) = cap.trace().agents
    assert agent.status == "failed"
    assert agent.error is not None
    assert agent.error.type == "ValueError"


def test_async_functions_are_awaited_inside_their_span() -> None:
    @instrument.tool("lookup")
    async def lookup(key: str) -> dict[str, int]:
        await asyncio.sleep(0)
        return {"value": len(key)}

    @instrument.agent("async-agent")
    async def agent(text: str) -> str:
        found = await lookup(text)
        return f"found {found['value']}"

    with ta.capture() as cap:
        assert asyncio.run(agent("abc")) == "found 3"
    (inv,) = cap.trace().agents
    (tool,) = inv.tool_executions
    assert tool.name == "lookup"
    assert tool.arguments == {"key": "abc"}
    assert tool.result == {"value": 3}
    assert inv.output == "found 3"


def test_usage_from_dicts_and_anthropic_shapes() -> None:
    @instrument.model_call(model="m1")
    def as_dict() -> dict[str, Any]:
        return {"usage": {"input_tokens": 5, "output_tokens": 2}, "stop_reason": "end_turn"}

    @instrument.model_call(model="m2", provider="anthropic")
    def anthropic_like() -> SimpleNamespace:
        block = SimpleNamespace(type="tool_use", id="tu_1", name="get_weather", input={"city": "Rome"})
        return SimpleNamespace(content=[block], usage=SimpleNamespace(input_tokens=9, output_tokens=4))

    @instrument.model_call(model="m3")
    def no_usage() -> str:
        return "plain text"

    with ta.capture() as cap:
        as_dict()
        anthropic_like()
        no_usage()
    first, second, third = cap.trace().model_calls
    assert (first.input_tokens, first.output_tokens, first.finish_reasons) == (5, 2, ("end_turn",))
    assert (second.input_tokens, second.output_tokens, second.provider) == (9, 4, "anthropic")
    assert (third.input_tokens, third.total_tokens) == (None, None)
    # the tool call the model asked for is known, although no tool ran: a request, not an execution
    assert cap.trace().tool_executions == ()
    (requested,) = second.requested_tools
    assert (requested.name, requested.arguments, requested.call_id) == (
        "get_weather",
        {"city": "Rome"},
        "tu_1",
    )
    assert cap.trace().unexecuted_tool_requests == (requested,)


def test_methods_and_keyword_arguments() -> None:
    class Toolbox:
        @instrument.tool()
        def add(self, a: int, b: int = 1, **extra: Any) -> dict[str, int]:
            return {"sum": a + b}

    with ta.capture() as cap:
        assert Toolbox().add(2, b=3, note="x") == {"sum": 5}
    (tool,) = cap.trace().tool_executions
    assert tool.name == "add"
    assert tool.arguments == {"a": 2, "b": 3, "note": "x"}
    assert tool.result == {"sum": 5}


def test_the_tool_name_is_taken_by_keyword_too() -> None:
    # the docs table shows `.tool(name=None)`: the keyword works as the positional form does
    @instrument.tool(name="lookup_order")
    def find(order_id: str) -> str:
        return f"order {order_id}"

    @instrument.tool(name=None)
    def refund(order_id: str) -> str:
        return "refunded"

    with ta.capture() as cap:
        assert find("A1") == "order A1" and refund("A1") == "refunded"
    names = [t.name for t in cap.trace().tool_executions]
    assert names == ["lookup_order", "refund"]
    assert [s.name for s in cap.trace().spans] == ["execute_tool lookup_order", "execute_tool refund"]


def test_unserialisable_values_do_not_break_the_call() -> None:
    class Opaque:
        __slots__ = ()

        def __str__(self) -> str:
            return "<opaque>"

    @instrument.tool()
    def takes(thing: Opaque) -> Opaque:
        return thing

    with ta.capture() as cap:
        takes(Opaque())
    (tool,) = cap.trace().tool_executions
    assert tool.arguments == {"thing": "<opaque>"}


def test_generators_are_refused() -> None:
    def gen() -> Any:
        yield 1

    with pytest.raises(TypeError, match="generator"):
        instrument.tool()(gen)


def test_the_wrapped_function_keeps_its_name_and_doc() -> None:
    assert get_weather.__name__ == "get_weather"
    assert orchestrator.__wrapped__.__name__ == "orchestrator"  # type: ignore[attr-defined]
    assert repr(instrument) == "traceassert.instrument"
