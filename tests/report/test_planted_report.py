"""The report's view-model on the facts a planted bug hides: per-agent totals over several runs, the
requests a model made that nothing executed, children in start order, failed-tool counts, a file whose
only failure is a tool's, and a handoff to an agent that never ran (hand-built spans)."""

from __future__ import annotations

import json
from typing import Any

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder
from traceassert._report import file_page, trace_view


def _asks(*calls: tuple[str, str]) -> str:
    parts = [{"type": "tool_call", "name": n, "arguments": {}, "id": i} for n, i in calls]
    return json.dumps([{"role": "assistant", "parts": parts}])


def _agents(view: dict[str, Any]) -> list[dict[str, Any]]:
    return [n for n in view["tree"] if n["k"] == "agent"]


def test_per_agent_model_calls_add_up_over_every_run() -> None:
    b = SpanBuilder()
    for calls in (2, 1):
        a = b.agent("a")
        for _ in range(calls):
            b.chat(a, 3, 2)
    (row,) = trace_view(b.trace())["agents"]
    assert (row["agent"], row["runs"], row["model_calls"], row["tokens"]) == ("a", 2, 3, 15)


def test_only_the_requests_nothing_executed_hang_under_their_model_call() -> None:
    b = SpanBuilder()
    a = b.agent("a")
    b.chat(a, **{"gen_ai.output.messages": _asks(("lookup", "c1"), ("forgotten", "c2"))})
    b.tool("lookup", a, args="{}", result="ok")
    (agent,) = _agents(trace_view(b.trace()))
    model = next(n for n in agent["c"] if n["k"] == "model")
    assert [c["t"] for c in model["c"]] == ["forgotten() requested, not executed"]
    assert [n["t"].split("(")[0] for n in agent["c"] if n["k"] == "tool"] == ["lookup"]


def test_an_agents_children_are_in_start_order() -> None:
    b = SpanBuilder()
    a = b.agent("a")
    for name in ("first", "second", "third"):
        b.tool(name, a, args="{}", result="ok")
    (agent,) = _agents(trace_view(b.trace()))
    assert [n["t"].split("(")[0] for n in agent["c"]] == ["first", "second", "third"]


def _tools(*failed: bool) -> ta.Trace:
    b = SpanBuilder()
    a = b.agent("a")
    for i, bad in enumerate(failed):
        b.tool(f"t{i}", a, args="{}", result="ok", status="ERROR" if bad else "UNSET")
    return b.trace()


def test_the_failed_tool_count_counts_the_failed_ones_only() -> None:
    assert trace_view(_tools(True, False, False))["counts"]["failed_tool_executions"] == 1
    assert trace_view(_tools(False, False))["counts"]["failed_tool_executions"] == 0


def test_a_file_whose_only_failure_is_a_tools_is_marked_so() -> None:
    page = file_page([("tool fails", _tools(False, True)), ("fine", _tools(False))])
    outcomes = {s["title"]: s["outcome"] for s in page["sections"]}
    assert outcomes == {"tool fails": "tool_failed", "fine": None}
    assert page["summary"]["failed_tools"] == 1


def test_a_handoff_says_so_only_when_its_target_never_ran() -> None:
    b = SpanBuilder()
    concierge = b.agent("concierge")
    b.chat(concierge, **{"gen_ai.output.messages": _asks(("transfer_to_bookings", "c1"))})
    b.tool("transfer_to_bookings", concierge)
    b.agent("bookings")
    nodes = [n for agent in _agents(trace_view(b.trace())) for n in agent["c"] if n["k"] == "handoff"]
    assert [n["t"] for n in nodes] == ["handoff concierge → bookings"]

    b = SpanBuilder()
    root = b.span("Agent workflow", {"openinference.span.kind": "CHAIN"})
    concierge = b.span(
        "concierge", {"openinference.span.kind": "AGENT", "agent.name": "concierge"}, parent=root
    )
    b.span(
        "handoff to weather",
        {"openinference.span.kind": "TOOL", "input.value": "concierge", "output.value": "weather"},
        parent=concierge,
    )
    nodes = [n for agent in _agents(trace_view(b.trace())) for n in agent["c"] if n["k"] == "handoff"]
    assert [n["t"] for n in nodes] == ["handoff concierge → weather (no invocation of weather recorded)"]
