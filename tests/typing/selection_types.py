"""What a type checker sees of the asserter's chains (checked by tests/unit/test_selection_types.py with
mypy; never run). Each ``assert_type`` is a claim about the return type of a chain the docs show."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from typing_extensions import assert_type

import traceassert as ta


def chains(trace: ta.Trace) -> None:
    a = ta.TraceAsserter(trace)
    assert_type(a, ta.TraceAsserter)
    assert_type(a.where(attribute={"k": "v"}), ta.TraceAsserter)
    assert_type(a.has_attribute("k"), ta.TraceAsserter)
    assert_type(a.where_scope("customer"), ta.TraceAsserter)

    assert_type(a.called_agent("planner"), ta.AgentSelection)
    assert_type(a.called_agent("planner").has_succeeded(), ta.AgentSelection)
    assert_type(a.handed_off_to("billing"), ta.AgentSelection)
    assert_type(a.turn(1), ta.AgentSelection)
    assert_type(a.conversation("c1"), ta.AgentSelection)

    tools = a.called_agent("planner").called_tool("search")
    assert_type(tools, ta.ToolSelection)
    assert_type(tools.has_input({"q": "x"}), ta.ToolSelection)
    assert_type(tools.contains_output("ok").called_agent("researcher"), ta.AgentSelection)
    assert_type(tools.tool_executions(), list[ta.ToolExecution])

    assert_type(a.including_nested().has_tool_executed("search", count=2), ta.TraceAsserter)
    assert_type(a.top_level_only().tool_executions(), list[ta.ToolExecution])
    assert_type(a.accepting_unknown_outcomes().does_not_call_tool("delete"), ta.TraceAsserter)
    assert_type(tools.accepting_unknown_outcomes(), ta.ToolSelection)
    with a.soft() as s:
        assert_type(s, ta.TraceAsserter)


def rules(trace: ta.Trace) -> None:
    """Name patterns and the rules over a run keep the type of the selection they are called on."""
    a = ta.TraceAsserter(trace)
    assert_type(a.called_tool("search_*", agent_name=re.compile("plan.*")), ta.ToolSelection)
    assert_type(a.called_agent(ta.exact("a*b")), ta.AgentSelection)
    assert_type(a.calls_tool_after("book", "search").ends_with_tool(ta.glob("submit*")), ta.TraceAsserter)
    assert_type(
        a.called_agent("planner").calls_only_tools(["search_*"], denied="delete_*"), ta.AgentSelection
    )
    assert_type(a.called_tool("x").has_milestones(ta.milestone("y", after=[])), ta.ToolSelection)
    assert_type(a.has_retried_failed_tools().does_not_repeat_tool_calls(max_count=2), ta.TraceAsserter)
    assert_type(a.called_agent("planner").has_valid_tool_arguments("book_*"), ta.AgentSelection)
    assert_type(a.under_step_limits(tools=3, retries=0).under_token_limits(cache_read=10), ta.TraceAsserter)
    assert_type(a.called_tool("x").under_tool_failure_rate(0.25), ta.ToolSelection)
    assert_type(a.has_trajectory_score(["a", ("b", {"k": 1})], metric="order"), ta.TraceAsserter)
    assert_type(a.called_agent("planner").has_claim_backed_by_tool(r"(?P<k>\w+)", "b"), ta.AgentSelection)
    assert_type(a.has_output_backed_by_tool_results(ignore=[2]), ta.TraceAsserter)


def values(trace: ta.Trace) -> None:
    """The values the rules give: a trajectory score, the tools a model call offered, token details."""
    score = ta.TraceAsserter(trace).trajectory_score(["search", ta.milestone("book", args={"seat": "1A"})])
    assert_type(score, ta.TrajectoryScore)
    assert_type(score.arguments, float)
    assert_type(score.explanation(), str)
    call = trace.model_calls[0]
    assert_type(call.tool_definitions, dict[str, ta.ToolDefinition])
    assert_type(call.tool_definitions["book"].parameters, Mapping[str, Any] | None)
    assert_type(call.cache_read_tokens, int | None)
    assert_type(call.reasoning_tokens, int | None)


def refused(trace: ta.Trace) -> None:
    tools = ta.TraceAsserter(trace).called_tool("search")
    tools.has_succeeded()  # E: an invocation check is not offered on a tool selection
