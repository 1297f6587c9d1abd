"""One vocabulary for nesting, and chains that read as "inside", on a real Pydantic AI app.

``support_triage`` calls ``lookup_order`` and ``delegate_to_refunds``; that tool runs the nested agent
``refunds``, which calls ``issue_refund`` (tests/unit/_support_app.py). Monocle-style checks include the
nested agent by default; ``top_level_only()`` leaves it out; the invocation checks ask for a choice.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

import traceassert as ta
from tests.unit import _support_app as app
from tests.unit._scenarios import Spans, trace_of

pytest.importorskip("pydantic_ai")


@pytest.fixture
def a() -> ta.TraceAsserter:
    return ta.TraceAsserter(app.trace())


@contextlib.contextmanager
def fails(*parts: str) -> Iterator[None]:
    """Expect a TraceAssertionError whose first two lines (what failed; how nesting decided it) hold
    every part, in order."""
    with pytest.raises(ta.TraceAssertionError) as info:
        yield
    head = "\n".join(str(info.value).splitlines()[:2])
    at = 0
    for part in parts:
        found = head.find(part, at)
        assert found >= 0, f"{part!r} is not in (or not in order in):\n{head}"
        at = found + len(part)


REFUND_BY_NESTED = "'issue_refund' was called once, by nested agent 'refunds' inside 'support_triage'"


def test_the_app_is_what_its_script_says(a: ta.TraceAsserter) -> None:
    trace = a.trace
    assert [inv.name for inv in trace.agents] == ["support_triage"]
    assert [inv.name for inv in trace.agents[0].nested] == ["refunds"]
    assert [(t.name, t.agent.name if t.agent else None) for t in trace.tool_executions] == [
        ("lookup_order", "support_triage"),
        ("delegate_to_refunds", "support_triage"),
        ("issue_refund", "refunds"),
    ]


# -- item 1: one vocabulary ------------------------------------------------------------------------


def test_monocle_checks_include_nested_agents_by_default_and_the_failure_says_so(a: ta.TraceAsserter) -> None:
    a.called_tool("issue_refund")
    a.called_agent("support_triage").called_tool("issue_refund")
    a.including_nested().called_agent("support_triage").called_tool("issue_refund")  # the same, said aloud
    with fails(
        "does_not_call_tool('issue_refund'): expected no call of 'issue_refund', found 1: ",
        REFUND_BY_NESTED,
        "; use top_level_only() or agent_name= to check support_triage's own calls",
    ):
        a.called_agent("support_triage").does_not_call_tool("issue_refund")


def test_top_level_only_applies_to_the_monocle_checks_after_it(a: ta.TraceAsserter) -> None:
    a.called_agent("support_triage").top_level_only().does_not_call_tool("issue_refund")
    a.top_level_only().called_agent("support_triage").does_not_call_tool("issue_refund")  # the choice carries
    a.top_level_only().does_not_call_tool("issue_refund").called_tool("lookup_order", count=1)
    a.does_not_call_tool("issue_refund", agent_name="support_triage")  # the other fix the message names
    with fails(
        "called_tool('issue_refund'): expected at least 1 call(s) of tool 'issue_refund', found 0\n",
        f"nesting: top_level_only() left out: {REFUND_BY_NESTED}",
        "(without top_level_only(), nested agents' calls count)",
    ):
        a.top_level_only().called_tool("issue_refund")
    with fails(
        "called_agent('refunds')",
        "found 0\nnesting: top_level_only() left out: 'refunds' was invoked once, nested inside",
    ):
        a.top_level_only().called_agent("refunds")
    a.top_level_only().does_not_call_agent("refunds")
    with fails(
        "expected no invocation of agent 'refunds', found 1: 'refunds' was invoked once, nested inside "
        "'support_triage'; use top_level_only() to check only the selection's top-level invocations"
    ):
        a.does_not_call_agent("refunds")


def test_top_level_only_on_tokens_spans_and_aggregates(a: ta.TraceAsserter) -> None:
    # support_triage's own model calls: 110 + 132 + 165 tokens; refunds': 48 + 66
    a.under_token_limit(521)
    a.top_level_only().under_token_limit(407)
    a.called_agent("support_triage").top_level_only().under_token_limit(407)
    a.called_agent("refunds").top_level_only().under_token_limit(114)
    with fails("under_token_limit(406): expected at most 406 tokens, used 407 in 3 model call(s)"):
        a.top_level_only().under_token_limit(406)
    with fails(
        "under_token_limit(520): expected at most 520 tokens, used 521 in 5 model call(s)\nnesting: 114 of them "
        "by nested agent 'refunds' inside 'support_triage'; use top_level_only() to count support_triage's own"
    ):
        a.under_token_limit(520)
    assert len(a.spans) == 10
    assert [s.name for s in a.top_level_only().spans if "refunds" in s.name or "issue" in s.name] == [
        "execute_tool delegate_to_refunds"
    ]
    a.top_level_only().does_not_have_attribute("gen_ai.agent.name", "refunds")
    a.called_tools(count=3).called_agents(count=2)
    a.top_level_only().called_tools(count=2).called_agents(count=1)


def test_inputs_and_outputs_of_nested_spans(a: ta.TraceAsserter) -> None:
    a.contains_input("Refund 25.0 for order A-17")  # the nested agent's input, recorded on its spans
    a.top_level_only().does_not_contain_input("Refund 25.0 for order A-17")
    with fails(
        "expected no input to contain",
        "but one did\nnesting: recorded by nested agent 'refunds'; use top_level_only()",
    ):
        a.does_not_contain_input("Refund 25.0 for order A-17")
    with fails(
        "found none\nnesting: top_level_only() left out the spans of nested agents, which record a matching input"
    ):
        a.top_level_only().contains_input("Refund 25.0 for order A-17")


def test_invocation_checks_still_ask_for_a_choice(a: ta.TraceAsserter) -> None:
    with fails(
        "has_tool_executed('lookup_order') on agent 'support_triage'",
        "including_nested()",
        "top_level_only()",
    ):
        a.has_tool_executed("lookup_order")
    a.top_level_only().has_tool_executed("lookup_order").has_tool_executed("delegate_to_refunds")
    with fails("expected a successful execution of 'issue_refund', found it was not executed"):
        a.top_level_only().has_tool_executed("issue_refund")
    a.including_nested().has_tool_executed("issue_refund")
    a.called_agent("refunds").has_tool_executed("issue_refund")  # no nested agent: no choice needed


def test_agent_name_counts_the_agents_own_calls_and_the_failure_says_where_the_call_was(
    a: ta.TraceAsserter,
) -> None:
    a.called_tool("issue_refund", agent_name="refunds", count=1)
    with fails(
        "called_tool('issue_refund', 'support_triage'): expected at least 1 call(s) of tool 'issue_refund' by "
        "agent 'support_triage', found 0\nnesting: 'issue_refund' was called once, by nested agent 'refunds' inside "
        "'support_triage'; agent_name= counts the calls 'support_triage' made itself: "
        "called_agent('support_triage').called_tool(...) finds calls anywhere inside it"
    ):
        a.called_tool("issue_refund", agent_name="support_triage")


def test_too_many_calls_because_of_a_nested_agent(a: ta.TraceAsserter) -> None:
    a.called_tool(["lookup_order", "issue_refund"], count=2)
    with fails(
        "expected exactly 1 call(s) of any of the tools 'lookup_order', 'issue_refund', found 2\nnesting: of these, ",
        REFUND_BY_NESTED,
        "; use top_level_only() or agent_name= to count support_triage's own calls",
    ):
        a.called_tool(["lookup_order", "issue_refund"], count=1)
    a.top_level_only().called_tool(["lookup_order", "issue_refund"], count=1)


# -- item 2: chains read as "inside", all the way down ----------------------------------------------


def test_called_tool_then_called_tool_finds_calls_below_through_nested_agents(a: ta.TraceAsserter) -> None:
    refund = a.called_tool("delegate_to_refunds").called_tool("issue_refund", count=1)
    refund.has_input({"order_id": "A-17", "amount": 25.0}).contains_output("refund of 25.0")
    a.called_tool("delegate_to_refunds").called_agent("refunds", count=1).called_tool("issue_refund")
    a.called_agent("support_triage").called_agent("refunds").called_tool("issue_refund")
    a.called_tool("delegate_to_refunds").called_tool("delegate_to_refunds", count=1)  # the selection itself
    a.called_tool("lookup_order").does_not_call_tool("issue_refund").does_not_call_agent("refunds")
    with fails("called_tool('issue_refund'): expected at least 1 call(s) of tool 'issue_refund', found 0"):
        a.called_tool("lookup_order").called_tool("issue_refund")
    # top_level_only() after called_tool: what the caller's agent did below the call, not the nested agent
    a.called_tool("delegate_to_refunds").top_level_only().does_not_call_tool("issue_refund")
    with fails("top_level_only() left out: " + REFUND_BY_NESTED):
        a.called_tool("delegate_to_refunds").top_level_only().called_tool("issue_refund")


def test_chains_on_the_nested_planner_scenario() -> None:
    a = ta.TraceAsserter(trace_of("nested"))  # planner -> research -> researcher -> search (twice)
    a.called_tool("research").called_tool("search", count=2).contains_any_input("Paris")
    a.called_tool("book_hotel").does_not_call_tool("search")
    a.called_agent("planner").called_agent("researcher").called_tool("search", count=2)
    a.called_tool("research").called_agent("researcher", count=1)


def _three_levels() -> ta.Trace:
    """A -> tool t1 -> agent B -> tool t2 -> agent C -> tool t3 (hand-built GenAI spans)."""
    s = Spans()
    top = s.agent("A")
    t1 = s.tool("t1", top, {"step": 1})
    b = s.agent("B", t1)
    t2 = s.tool("t2", b, {"step": 2})
    c = s.agent("C", t2)
    s.tool("t3", c, {"step": 3})
    return s.trace()


def test_chains_reach_any_depth() -> None:
    a = ta.TraceAsserter(_three_levels())
    a.called_tool("t1").called_tool("t3", count=1).has_input({"step": 3})
    a.called_tool("t1").called_agent("C", count=1)
    a.called_agent("A").called_agent("C").called_tool("t3")
    a.called_tool("t2").called_tool("t3").called_tools(count=1)
    a.called_tool("t1").called_tools(count=3).called_agents(count=2)
    a.top_level_only().called_tools(count=1)
    a.called_agent("B").top_level_only().called_tools(count=1).does_not_call_tool("t3")
    with fails(
        "does_not_call_tool('t3')",
        "'t3' was called once, by nested agent 'C' inside 'A'",
        "use top_level_only() or agent_name= to check A's own calls",
    ):
        a.does_not_call_tool("t3")
