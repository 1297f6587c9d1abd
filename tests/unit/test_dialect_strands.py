"""The Strands dialect on hand-built spans: aggregates, the three content layouts, and edge cases."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder
from traceassert._dialects import classify, strands

SCOPE = "strands.telemetry.tracer"


def _s(b: SpanBuilder, name: str, op: str, attrs: dict[str, Any] | None = None, **kw: Any) -> ta.Span:
    """A span from Strands' tracer, in the default (events) layout."""
    attributes = {"gen_ai.operation.name": op, "gen_ai.system": "strands-agents", **(attrs or {})}
    span = dataclasses.replace(b.span(name, attributes, **kw), scope_name=SCOPE)
    b.spans[-1] = span
    return span


def _ev(name: str, **attrs: Any) -> ta.SpanEvent:
    return ta.SpanEvent(name, 1, attrs)


def _usage(inp: int, out: int) -> dict[str, int]:
    return {
        "gen_ai.usage.input_tokens": inp,
        "gen_ai.usage.prompt_tokens": inp,
        "gen_ai.usage.output_tokens": out,
        "gen_ai.usage.completion_tokens": out,
        "gen_ai.usage.total_tokens": inp + out,
    }


def _agent(b: SpanBuilder, name: str, usage: tuple[int, int] | None, **kw: Any) -> ta.Span:
    attrs: dict[str, Any] = {"gen_ai.agent.name": name, **(_usage(*usage) if usage else {})}
    return _s(b, f"invoke_agent {name}", "invoke_agent", attrs, duration_ns=50_000_000, **kw)


def _chat(
    b: SpanBuilder, parent: ta.Span, usage: tuple[int, int] | None, blocks: list[Any], reason: str
) -> ta.Span:
    attrs: dict[str, Any] = {"gen_ai.request.model": "m", **(_usage(*usage) if usage else {})}
    choice = _ev("gen_ai.choice", finish_reason=reason, message=json.dumps(blocks))
    user = _ev("gen_ai.user.message", content=json.dumps([{"text": "hello"}]))
    return _s(b, "chat", "chat", attrs, parent=parent, events=(user, choice))


def _tool(
    b: SpanBuilder, parent: ta.Span, name: str, args: dict[str, Any], result: list[Any], **kw: Any
) -> ta.Span:
    attrs = {"gen_ai.tool.name": name, "gen_ai.tool.call.id": f"tu-{name}", "gen_ai.tool.status": "success"}
    events = (
        _ev("gen_ai.tool.message", role="tool", content=json.dumps(args), id=f"tu-{name}"),
        _ev("gen_ai.choice", message=json.dumps(result), id=f"tu-{name}"),
        *kw.pop("events", ()),
    )
    return _s(b, f"execute_tool {name}", "execute_tool", attrs, parent=parent, events=events, **kw)


def _use(name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"toolUse": {"toolUseId": f"tu-{name}", "name": name, "input": args}}


def test_the_agents_accumulated_usage_is_never_added_to_its_calls() -> None:
    b = SpanBuilder()
    agent = _agent(b, "a", (100, 10))
    cycle = _s(b, "execute_event_loop_cycle", "execute_event_loop_cycle", parent=agent)
    _chat(b, cycle, (60, 6), [_use("t", {"x": 1})], "tool_use")
    _tool(b, cycle, "t", {"x": 1}, [{"text": "ok"}])
    _chat(b, agent, (40, 4), [{"text": "done"}], "end_turn")
    trace = b.trace()
    (inv,) = trace.agents
    assert (inv.input_tokens, inv.output_tokens, inv.total_tokens) == (100, 10, 110)
    assert sum(c.total_tokens or 0 for c in trace.model_calls) == 110
    assert ta.TraceAsserter(trace).under_token_limit(110)
    op = classify(cycle)
    assert op is not None
    assert op.kind == "other"


def test_the_aggregate_is_used_when_no_call_records_usage() -> None:
    b = SpanBuilder()
    agent = _agent(b, "a", (30, 3))
    _chat(b, agent, None, [{"text": "done"}], "end_turn")
    (inv,) = b.trace().agents
    assert inv.total_tokens == 33
    assert b.trace().model_calls[0].total_tokens is None


def test_events_layout_tool_arguments_results_and_requests() -> None:
    b = SpanBuilder()
    agent = _agent(b, "a", None)
    chat = _chat(b, agent, (5, 1), [{"text": "Let me look."}, _use("lookup", {"q": "x"})], "tool_use")
    _tool(b, agent, "lookup", {"q": "x"}, [{"json": {"hits": 2}}])
    op = classify(chat)
    assert op is not None
    assert op.finish_reasons == ("tool_use",)
    assert op.output == "Let me look."
    assert op.input == "hello"
    assert [(r.name, r.arguments, r.call_id) for r in op.requested_tools] == [
        ("lookup", {"q": "x"}, "tu-lookup")
    ]
    assert op.provider is None
    (tool,) = b.trace().tool_executions
    assert (tool.arguments, tool.result, tool.call_id) == ({"q": "x"}, {"hits": 2}, "tu-lookup")


def test_a_failed_tool_and_a_surviving_run() -> None:
    b = SpanBuilder()
    agent = _agent(b, "a", None, status="OK")
    exc = _ev("exception", **{"exception.type": "RuntimeError", "exception.message": "boom"})
    _tool(
        b,
        agent,
        "bad",
        {},
        [{"text": "Error: RuntimeError - boom"}],
        status="ERROR",
        description="boom",
        events=(exc,),
    )
    (tool,) = b.trace().tool_executions
    assert tool.failed is True
    assert tool.error == ta.ErrorInfo("RuntimeError", "boom")
    assert tool.result == "Error: RuntimeError - boom"
    assert b.trace().agents[0].status == "succeeded"


def _details(**attrs: Any) -> ta.SpanEvent:
    return _ev("gen_ai.client.inference.operation.details", **attrs)


def test_latest_layout_messages_on_details_events() -> None:
    b = SpanBuilder()
    prompt = json.dumps([{"role": "user", "parts": [{"type": "text", "content": "hi"}]}])
    reply = [
        {"role": "assistant", "parts": [{"type": "text", "content": "Hello!\n"}], "finish_reason": "end_turn"}
    ]
    agent = _s(
        b,
        "invoke_agent a",
        "invoke_agent",
        {"gen_ai.agent.name": "a", "gen_ai.provider.name": "strands-agents"},
        events=(
            _details(**{"gen_ai.input.messages": prompt}),
            _details(**{"gen_ai.output.messages": json.dumps(reply)}),
        ),
    )
    call = [
        {
            "role": "assistant",
            "parts": [{"type": "tool_call", "name": "t", "id": "tu-t", "arguments": {"k": 1}}],
            "finish_reason": "tool_use",
        }
    ]
    chat = _s(
        b,
        "chat",
        "chat",
        _usage(2, 1),
        parent=agent,
        events=(_details(**{"gen_ai.output.messages": json.dumps(call)}),),
    )
    response = [
        {"role": "tool", "parts": [{"type": "tool_call_response", "id": "tu-t", "response": [{"text": "v"}]}]}
    ]
    _s(
        b,
        "execute_tool t",
        "execute_tool",
        {"gen_ai.tool.name": "t", "gen_ai.tool.call.id": "tu-t", "gen_ai.tool.call.arguments": '{"k": 1}'},
        parent=agent,
        events=(_details(**{"gen_ai.output.messages": json.dumps(response)}),),
    )
    trace = b.trace()
    (inv,) = trace.agents
    assert (inv.input, inv.output) == ("hi", "Hello!")
    op = classify(chat)
    assert op is not None
    assert op.finish_reasons == ("tool_use",)
    assert [r.name for r in op.requested_tools] == ["t"]
    (tool,) = trace.tool_executions
    assert (tool.arguments, tool.result) == ({"k": 1}, "v")


def test_latest_layout_tool_arguments_only_in_the_input_messages() -> None:
    b = SpanBuilder()
    agent = _agent(b, "a", None)
    calls = [
        {"role": "tool", "parts": [{"type": "tool_call", "name": "t", "id": "tu-t", "arguments": {"k": 2}}]}
    ]
    details = _details(**{"gen_ai.input.messages": json.dumps(calls)})
    _s(b, "execute_tool t", "execute_tool", {"gen_ai.tool.name": "t"}, parent=agent, events=(details,))
    (tool,) = b.trace().tool_executions
    assert tool.arguments == {"k": 2}


def test_multi_agent_spans_are_workflows() -> None:
    b = SpanBuilder()
    swarm = _s(b, "invoke_swarm", "invoke_swarm")
    op = classify(swarm)
    assert op is not None
    assert (op.kind, op.dialect) == ("workflow", "strands")


def test_only_strands_spans_are_claimed() -> None:
    b = SpanBuilder()
    plain = b.span("chat m", {"gen_ai.operation.name": "chat", "gen_ai.system": "openai"})
    assert strands.classify(plain) is None
    marked = b.span("chat", {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "strands-agents"})
    op = strands.classify(marked)
    assert op is not None
    assert op.dialect == "strands"
    unknown = dataclasses.replace(b.span("memory.search"), scope_name=SCOPE)
    op = strands.classify(unknown)
    assert op is not None
    assert op.kind == "other"
