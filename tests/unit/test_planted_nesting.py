"""Nesting on the facts a planted bug hides: work outside any agent is nobody's nested work, and the
hint names one principal only when the nested calls are below one (hand-built spans)."""

from __future__ import annotations

import pytest

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder


def test_a_tool_run_outside_any_agent_is_top_level_work() -> None:
    b = SpanBuilder()
    b.tool("ping", b.span("request", {}), args="{}", result="ok")
    a = b.agent("a")
    b.tool("lookup", a, args="{}", result="ok")
    trace = b.trace()
    assert any(inv.implicit for inv in trace.agents)
    ta.TraceAsserter(trace).top_level_only().called_tool("ping", count=1)
    ta.TraceAsserter(trace).top_level_only().called_tools(count=2)


def _nested_under(*principals: str) -> ta.Trace:
    """Each principal starts a nested agent ``helper`` that calls ``search``."""
    b = SpanBuilder()
    for name in principals:
        top = b.agent(name)
        b.tool("search", b.agent("helper", top), args="{}", result="ok")
    return b.trace()


def test_the_hint_names_the_one_principal_above_the_nested_calls() -> None:
    with pytest.raises(ta.TraceAssertionError, match="to count alpha's own calls"):
        ta.TraceAsserter(_nested_under("alpha")).called_tool("search", count=0)


def test_the_hint_names_no_principal_when_the_nested_calls_are_below_several() -> None:
    with pytest.raises(ta.TraceAssertionError) as info:
        ta.TraceAsserter(_nested_under("alpha", "beta")).called_tool("search", count=1)
    text = str(info.value)
    assert "the top-level agents' own calls" in text
    assert "alpha's own" not in text and "beta's own" not in text


def test_work_outside_any_agent_stays_own_work_when_a_span_selector_names_the_principals() -> None:
    """A span selector makes the outermost agents of the selected spans the principals (here ``a``): the
    tool run outside any agent is still nobody's nested work, so ``top_level_only`` counts it."""
    b = SpanBuilder()
    b.tool("ping", b.span("request", {}), args="{}", result="ok")
    b.tool("lookup", b.agent("a"), args="{}", result="ok")
    trace = b.trace()
    selected = ta.TraceAsserter(trace).where(attribute={"gen_ai.operation.name": "execute_tool"})
    selected.top_level_only().called_tool("ping", count=1)
    selected.top_level_only().called_tools(count=2)
