"""Any-of and aggregate checks (Monocle parity), and the arguments they reject."""

from __future__ import annotations

import re

import pytest

import traceassert as ta
from tests.unit import _support_app as app

pytest.importorskip("pydantic_ai")


@pytest.fixture
def a() -> ta.TraceAsserter:
    return ta.TraceAsserter(app.trace())


def fails(text: str) -> pytest.RaisesContext[ta.TraceAssertionError]:
    return pytest.raises(ta.TraceAssertionError, match=r"\A" + re.escape(text))


def test_called_tool_takes_a_list(a: ta.TraceAsserter) -> None:
    both = a.called_tool(["lookup_order", "issue_refund"], count=2)
    assert [t.name for t in both.selected_tools()] == ["lookup_order", "issue_refund"]
    both.has_any_input({"order_id": "A-17"}, {"x": 1})
    a.called_tool(("nope", "lookup_order"), count=1)
    with fails(
        "called_tool(['nope', 'never']): expected at least 1 call(s) of any of the tools 'nope', 'never', found 0"
    ):
        a.called_tool(["nope", "never"])


def test_called_any_tool(a: ta.TraceAsserter) -> None:
    a.called_any_tool(["nope", "lookup_order"]).has_input({"order_id": "A-17"})
    a.called_any_tool(["lookup_order", "issue_refund"], min_count=2, max_count=2)
    a.called_any_tool(["issue_refund", "nope"], agent_name="refunds", count=1)
    with fails("called_any_tool(['issue_refund'], 'support_triage'): expected at least 1 call(s) of tool"):
        a.called_any_tool(["issue_refund"], agent_name="support_triage")
    with fails(
        "called_any_tool(['nope', 'lookup_order'], max_count=0): expected at most 0 call(s) of any of the "
        "tools 'nope', 'lookup_order', found 1"
    ):
        a.called_any_tool(["nope", "lookup_order"], max_count=0)


def test_does_not_call_any_tool(a: ta.TraceAsserter) -> None:
    a.does_not_call_any_tool(["delete_order", "charge_card"])
    a.does_not_call_tool(["delete_order", "charge_card"])
    a.does_not_call_any_tool(["issue_refund"], agent_name="support_triage")
    with fails(
        "does_not_call_any_tool(['delete_order', 'lookup_order']): expected no call of 'delete_order', "
        "'lookup_order', found 1: 'lookup_order'"
    ):
        a.does_not_call_any_tool(["delete_order", "lookup_order"])


def test_called_agent_takes_a_list_and_called_any_agent(a: ta.TraceAsserter) -> None:
    a.called_agent(["refunds", "nope"], count=1).called_tool("issue_refund")
    a.called_any_agent(["support_triage", "refunds"], count=2)
    with fails(
        "called_any_agent(['billing', 'shipping']): expected at least 1 invocation(s) of any of the "
        "agents 'billing', 'shipping', found 0"
    ):
        a.called_any_agent(["billing", "shipping"])


def test_does_not_call_any_agent(a: ta.TraceAsserter) -> None:
    a.does_not_call_any_agent(["billing", "shipping"])
    a.called_agent("refunds").does_not_call_any_agent(["support_triage"])
    with fails(
        "does_not_call_any_agent(['billing', 'refunds']): expected no invocation of any of the agents "
        "'billing', 'refunds', found 1"
    ):
        a.does_not_call_any_agent(["billing", "refunds"])


def test_aggregates_count_every_tool_execution_and_agent_invocation(a: ta.TraceAsserter) -> None:
    a.called_tools().called_tools(count=3).called_tools(min_count=1, max_count=3)
    a.called_agents().called_agents(count=2).called_agents(max_count=2)
    a.called_agent("refunds").called_tools(count=1).called_agents(count=1)
    with fails(
        "called_tools(max_count=2): expected at most 2 tool execution(s) in all, found 3: 'lookup_order', "
        "'delegate_to_refunds', 'issue_refund'"
    ):
        a.called_tools(max_count=2)
    with fails("called_agents(min_count=3): expected at least 3 agent invocation(s) in all, found 2"):
        a.called_agents(min_count=3)


def test_aggregates_without_a_bound_mean_at_least_one(a: ta.TraceAsserter) -> None:
    lookup = a.called_tool("lookup_order")
    lookup.called_tools()  # the execution itself is in the selection
    with fails("called_agents(): expected at least 1 agent invocation(s) in all, found 0"):
        lookup.called_agents()
    with fails("called_tools(): expected at least 1 tool execution(s) in all, found 0"):
        ta.TraceAsserter([]).called_tools()


def test_invalid_combinations_are_value_errors(a: ta.TraceAsserter) -> None:
    with pytest.raises(ValueError, match="either count= or min_count=/max_count="):
        a.called_tools(count=1, min_count=1)
    with pytest.raises(ValueError, match="either count= or min_count=/max_count="):
        a.called_any_agent(["refunds"], count=1, max_count=1)
    with pytest.raises(ValueError, match="called_any_tool needs at least one tool name"):
        a.called_any_tool([])
    with pytest.raises(ValueError, match="does_not_call_tool needs at least one tool name"):
        a.does_not_call_tool([])  # would pass whatever ran
    with pytest.raises(ValueError, match="does_not_call_any_agent needs at least one agent name"):
        a.does_not_call_any_agent(())
    with pytest.raises(ValueError, match="must not be empty"):
        a.called_agent("")
    with pytest.raises(ValueError, match="at least one of attribute=, event=, predicate="):
        a.where()
    with pytest.raises(ValueError, match="has_any_input needs at least one value"):
        a.has_any_input()
    with pytest.raises(ValueError, match="has_any_scope needs at least one expected value"):
        a.has_any_scope("customer")
    with pytest.raises(ValueError, match="contains_any_scope needs at least one substring"):
        a.contains_any_scope("customer")
    with pytest.raises(ValueError, match="greater than"):
        a.called_tools(min_count=2, max_count=1)


def test_wrong_types_stay_type_errors(a: ta.TraceAsserter) -> None:
    with pytest.raises(TypeError, match="takes a tool name"):
        a.called_tool(3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="a tool name must be a str, got 3"):
        a.called_any_tool(["lookup_order", 3])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="count must be an int"):
        a.called_agents(count=1.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="agent_name must be a non-empty str or None"):
        a.does_not_call_tool("issue_refund", agent_name=["refunds"])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="takes substrings"):
        a.contains_input(3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="takes substrings"):
        a.contains_any_scope("customer", 3)  # type: ignore[arg-type]
