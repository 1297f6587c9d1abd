"""Requested is not executed: the tool calls a model asked for are `ta.ToolRequest`s, matched to the
executions recorded, and never executions themselves; matching is linear."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder
from traceassert._reconstruct import requests as requests_module


def _asks(*calls: tuple[str, Any, str | None]) -> str:
    parts = [{"type": "tool_call", "name": n, "arguments": a, "id": i} for n, a, i in calls]
    return json.dumps([{"role": "assistant", "parts": parts}])


def _tool(
    b: SpanBuilder, name: str, parent: ta.Span, args: Any = None, call_id: str | None = None
) -> ta.Span:
    attrs: dict[str, Any] = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name}
    if args is not None:
        attrs["gen_ai.tool.call.arguments"] = args
    if call_id is not None:
        attrs["gen_ai.tool.call.id"] = call_id
    return b.span(f"execute_tool {name}", attrs, parent=parent)


def _one_ran_of_two() -> ta.Trace:
    """The model asks for ``get_weather`` and ``get_time``; only ``get_weather`` runs."""
    b = SpanBuilder()
    agent = b.agent("assistant")
    b.chat(
        agent,
        **{
            "gen_ai.output.messages": _asks(
                ("get_weather", {"city": "Rome"}, "c1"), ("get_time", {"tz": "CET"}, "c2")
            )
        },
    )
    _tool(b, "get_weather", agent, '{"city": "Rome"}')
    b.chat(
        agent,
        **{
            "gen_ai.output.messages": json.dumps(
                [{"role": "assistant", "parts": [{"type": "text", "content": "Sunny."}]}]
            )
        },
    )
    return b.trace()


def test_every_request_is_reachable_and_linked() -> None:
    trace = _one_ran_of_two()
    first, second = trace.model_calls
    weather, time_request = first.requested_tools
    assert second.requested_tools == ()
    (execution,) = trace.tool_executions
    assert weather.execution is execution and execution.request is weather and weather.executed
    assert execution.call_id == "c1" and weather.model_call is first
    assert (time_request.name, time_request.arguments, time_request.call_id) == (
        "get_time",
        {"tz": "CET"},
        "c2",
    )
    assert time_request.execution is None and time_request.handoff is None and not time_request.executed
    assert trace.unexecuted_tool_requests == (time_request,)
    assert trace.tool_requests == (weather, time_request)
    assert repr(time_request) == "ToolRequest('get_time', arguments={'tz': 'CET'}, not executed)"


def test_an_unexecuted_request_is_shown_after_the_model_call_that_asked() -> None:
    rendered = _one_ran_of_two().render()
    assert rendered.splitlines() == [
        "trace: 4 spans, 1 agent invocation(s), 1 tool execution(s) (0 failed), 2 model call(s), 30 tokens, "
        "1 tool request(s) not executed",
        "agent assistant [succeeded] tokens=30",
        "├─ model chat m tokens in=10 out=5",
        "│  └─ tool get_time(tz='CET') (requested, not executed)",
        "├─ tool get_weather(city='Rome') ok",
        "└─ model chat m tokens in=10 out=5",
    ]


def test_checks_never_count_a_request() -> None:
    trace = _one_ran_of_two()
    asserter = ta.TraceAsserter(trace)
    asserter.called_tool("get_weather", count=1)
    asserter.does_not_call_tool("get_time")
    with pytest.raises(ta.TraceAssertionError) as failure:
        asserter.called_tool("get_time")
    assert (
        "expected at least 1 call(s) of tool 'get_time', found 0 (1 more requested by the model but never "
        "executed)" in str(failure.value)
    )
    agent = asserter.called_agent("assistant")
    agent.has_tool_executed("get_weather").has_no_failed_tool_executions()
    with pytest.raises(ta.TraceAssertionError) as failure:
        agent.has_tool_executed("get_time")
    assert (
        "expected a successful execution of 'get_time', found it was requested by the model but never executed "
        "(1 request(s))" in str(failure.value)
    )


def test_summary_lists_requests() -> None:
    summary = _one_ran_of_two().summary()
    assert summary["unexecuted_tool_requests"] == [{"name": "get_time", "arguments": {"tz": "CET"}}]
    assert summary["totals"]["unexecuted_tool_requests"] == 1
    calls = summary["agents"][0]["model_calls"]
    assert [c["requested_tools"] for c in calls] == [["get_weather", "get_time"], []]
    assert summary["tool_order"] == ["get_weather"]


def test_parallel_calls_without_ids_match_by_arguments_then_order() -> None:
    b = SpanBuilder()
    agent = b.agent("travel")
    b.chat(
        agent,
        **{
            "gen_ai.output.messages": _asks(
                ("lookup", {"city": "Rome", "days": 3}, "c1"),
                ("lookup", {"city": "Oslo", "days": 3.0}, "c2"),
                ("lookup", {"city": "Kyiv"}, "c3"),
                ("lookup", {}, "c4"),
            )
        },
    )
    # recorded in another order; one with float-vs-int arguments, one bare, one with none
    _tool(b, "lookup", agent, '{"days": 3, "city": "Oslo"}')
    _tool(b, "lookup", agent, "Kyiv")
    _tool(b, "lookup", agent, None)
    _tool(b, "lookup", agent, '{"city": "Rome", "days": 3.0}')
    trace = b.trace()
    (inv,) = trace.agents
    assert [t.call_id for t in inv.tool_executions] == ["c1", "c2", "c3", "c4"]
    assert [t.arguments for t in inv.tool_executions] == [
        {"city": "Rome", "days": 3.0},
        {"days": 3, "city": "Oslo"},
        {"city": "Kyiv"},
        {},
    ]
    assert trace.unexecuted_tool_requests == ()


def test_a_request_made_after_an_execution_started_is_not_its_request() -> None:
    b = SpanBuilder()
    agent = b.agent("a")
    _tool(b, "lookup", agent, '{"q": 1}')
    b.chat(agent, **{"gen_ai.output.messages": _asks(("lookup", {"q": 1}, "c1"))})
    trace = b.trace()
    (tool,) = trace.tool_executions
    assert tool.request is None and tool.call_id is None
    assert [r.call_id for r in trace.unexecuted_tool_requests] == ["c1"]


# -- no quadratic matching ------------------------------------------------------------------------


def _parallel(n: int, *, ids: bool) -> ta.Trace:
    """One model call asking for ``n`` parallel calls of one tool; ``n`` executions, recorded in reverse
    order, with the call ids (``ids``) or only the arguments."""
    b = SpanBuilder()
    agent = b.agent("bulk")
    parts = [{"type": "tool_call", "name": "lookup", "arguments": {"n": i}, "id": f"c{i}"} for i in range(n)]
    b.chat(agent, **{"gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": parts}])})
    for i in reversed(range(n)):
        _tool(b, "lookup", agent, json.dumps({"n": i}), f"c{i}" if ids else None)
    return b.trace()


@pytest.mark.parametrize(("n", "ids"), [(10_000, True), (20_000, False)], ids=["call-ids", "arguments-only"])
def test_matching_many_parallel_calls_is_linear(n: int, ids: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every request is matched to its execution with a bounded number of argument parses and keys per
    call (pairwise matching needs n²/2 of them), and within a generous time (pairwise took 39 s for 8,000)."""
    counts = {"parse": 0, "key": 0}
    parse, key = requests_module.parse_arguments, requests_module._key

    def counting_parse(*args: Any, **kwargs: Any) -> Any:
        counts["parse"] += 1
        return parse(*args, **kwargs)

    def counting_key(*args: Any) -> Any:
        counts["key"] += 1
        return key(*args)

    monkeypatch.setattr(requests_module, "parse_arguments", counting_parse)
    monkeypatch.setattr(requests_module, "_key", counting_key)
    trace = _parallel(n, ids=ids)
    started = time.process_time()
    (inv,) = trace.agents
    elapsed = time.process_time() - started
    assert [t.call_id for t in inv.tool_executions[:3]] == ["c0", "c1", "c2"]
    assert inv.tool_executions[-1].arguments == {"n": n - 1}
    assert trace.unexecuted_tool_requests == ()
    assert counts["parse"] <= 2 * n and counts["key"] <= 2 * n, counts
    assert elapsed < 15, f"{n} parallel calls took {elapsed:.1f} s of CPU to reconstruct"


def _two_parallel_sets(recorded: tuple[str, str], at_the_call_s_start: bool = False) -> ta.Trace:
    """The model asks for ``set`` twice without call ids (``n`` 2, then 1); the executions record
    ``recorded`` in that order, started after the model call or at its very start (a coarse clock)."""
    b = SpanBuilder()
    agent = b.agent("assistant")
    chat = b.chat(
        agent,
        **{
            "gen_ai.output.messages": _asks(
                ("set", {"opts": {"n": 2}}, None), ("set", {"opts": {"n": 1}}, None)
            )
        },
    )
    for args in recorded:
        b.tool("set", agent, args=args, start_ns=chat.start_ns if at_the_call_s_start else None)
    return b.trace()


def _matched(trace: ta.Trace) -> list[Any]:
    return [tool.request.arguments if tool.request is not None else None for tool in trace.tool_executions]


def test_parallel_calls_are_matched_by_arguments_equal_as_numbers() -> None:
    """``1.0`` recorded for the ``1`` the model asked for (nested, where the arguments are compared as
    JSON): each execution gets its own request, not the first of the name."""
    trace = _two_parallel_sets(('{"opts": {"n": 1.0}}', '{"opts": {"n": 2}}'))
    assert _matched(trace) == [{"opts": {"n": 1}}, {"opts": {"n": 2}}]


def test_executions_started_at_their_model_call_s_very_start_are_matched() -> None:
    trace = _two_parallel_sets(('{"opts": {"n": 1}}', '{"opts": {"n": 2}}'), at_the_call_s_start=True)
    assert _matched(trace) == [{"opts": {"n": 1}}, {"opts": {"n": 2}}]
