"""Least privilege: allow- and deny-lists of tools for the run or an agent, and handoffs only to listed
agents. On real runs: the shared scenario on Pydantic AI (live), LangGraph and the OpenAI Agents SDK
(recorded); handoffs recorded from the OpenAI Agents SDK (OpenInference) and LangGraph (Monocle)."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

import traceassert as ta
from tests._stackfacts import recorded_trace
from tests.unit._scenarios import trace_of

pytest.importorskip("pydantic_ai")

RECORDED = ("openinference_langgraph", "openinference_openai_agents")


@pytest.fixture(params=("pydantic_ai", *RECORDED))
def run(request: pytest.FixtureRequest) -> ta.TraceAsserter:
    """get_weather (step 1), explode (step 2, fails), ask_helper (step 3, runs the nested helper)."""
    trace = trace_of("weather") if request.param == "pydantic_ai" else recorded_trace(request.param)
    return ta.TraceAsserter(trace)


def first_line(check: Callable[[], object]) -> str:
    with pytest.raises(ta.TraceAssertionError) as failure:
        check()
    return str(failure.value).splitlines()[0]


def test_an_allow_list(run: ta.TraceAsserter) -> None:
    run.calls_only_tools(["get_weather", "explode", "ask_helper"]).calls_only_tools(["get_*", "ex*", "ask_*"])
    run.calls_only_tools(re.compile(r"(get|ask)_\w+|explode")).calls_only_tools("*", agent_name="orch*")
    assert first_line(lambda: run.calls_only_tools(["get_*", "ask_helper"])) == (
        "calls_only_tools(['get_*', 'ask_helper']): expected only calls of 'get_*', 'ask_helper', found 1 "
        "other call(s) ('explode'): not allowed: 'explode' at step 2 (agent 'orchestrator')"
    )


def test_a_deny_list_wins(run: ta.TraceAsserter) -> None:
    run.calls_only_tools("*", denied=["delete_*", "transfer_money"])
    assert first_line(lambda: run.calls_only_tools("*", denied="ex*")) == (
        "calls_only_tools('*', denied='ex*'): expected only calls of '*' and none of 'ex*', found 1 other "
        "call(s) ('explode'): denied: 'explode' at step 2 (agent 'orchestrator')"
    )


def test_an_agent_s_own_calls(run: ta.TraceAsserter) -> None:
    run.calls_only_tools(["get_weather", "explode", "ask_helper"], agent_name="orchestrator")
    line = first_line(lambda: run.calls_only_tools("get_*", "orchestrator"))
    assert line.startswith(
        "calls_only_tools('get_*', 'orchestrator'): expected only calls of 'get_*' by agent"
    )
    assert "found 2 other call(s) ('explode', 'ask_helper')" in line
    # the helper calls no tool: the trace cannot show that it kept to its list
    assert "cannot tell: the selection records no tool execution" in first_line(
        lambda: run.called_agent("helper").calls_only_tools([])
    )


def test_nested_agents_calls_count_unless_top_level_only() -> None:
    nested = ta.TraceAsserter(trace_of("nested"))  # planner: research (researcher: search x2), book_hotel
    assert "not allowed: 'search' at step 2 (agent 'researcher')" in first_line(
        lambda: nested.calls_only_tools(["research", "book_hotel"])
    )
    nested.top_level_only().calls_only_tools(["research", "book_hotel"])
    nested.called_agent("researcher").calls_only_tools("search")


@pytest.mark.parametrize(
    "recording", ["openinference_openai_agents_handoffs_parallel", "monocle_langgraph_handoffs_parallel"]
)
def test_handoffs_only_to_listed_agents(recording: str) -> None:
    desk = ta.TraceAsserter(recorded_trace(recording))
    desk.hands_off_only_to(["bookings", "weather"]).hands_off_only_to("*")
    line = first_line(lambda: desk.hands_off_only_to("weather"))
    assert line.startswith(
        "hands_off_only_to('weather'): expected handoffs only to 'weather', found 1 to another agent: "
        "concierge -> bookings"
    )
    desk.called_agent("bookings").hands_off_only_to([])  # bookings hands off to no one


def test_no_handoff_passes_where_agents_ran(run: ta.TraceAsserter) -> None:
    run.hands_off_only_to("nobody")
