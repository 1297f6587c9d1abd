"""Invocation checks stay linear in the number of tool executions.

Timing a check on a loaded machine is flaky; counting work is not. Tool executions compare by identity,
so code that looks executions up in lists (``list.index``, ``in``) calls ``ToolExecution.__eq__`` once
per element it passes: patched to count, it shows quadratic work on a few hundred executions, at no
cost. (``benchmarks/bench_asserter.py`` times the same checks on 100,000 executions.)
"""

from __future__ import annotations

import re

import pytest

import traceassert as ta
from tests.unit._scenarios import Spans

N = 600


def _many_tools(n: int, nested: bool) -> ta.Trace:
    """One agent with ``n`` tool executions (``tool_0`` ... ``tool_6``); with ``nested``, spread over
    sub-agents of 20 executions each."""
    s = Spans()
    top = s.agent("orchestrator")
    owner = top
    for i in range(n):
        if nested and i % 20 == 0:
            owner = s.agent(f"worker_{i // 20}", top)
        s.tool(f"tool_{i % 7}", owner, {"i": i})
    return s.trace()


@pytest.fixture
def comparisons(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the ``==`` comparisons of tool executions made while the test runs."""
    count = [0]

    def counting_eq(self: ta.ToolExecution, other: object) -> bool:
        count[0] += 1
        return self is other

    monkeypatch.setattr(ta.ToolExecution, "__eq__", counting_eq)
    return count


@pytest.mark.parametrize("nested", [False, True], ids=["one agent", "nested agents"])
def test_has_no_more_tool_executions_is_linear(comparisons: list[int], nested: bool) -> None:
    trace = _many_tools(N, nested)
    a = ta.TraceAsserter(trace)
    a = a.including_nested() if nested else a
    a.has_tool_executed("tool_0")  # marks 86 of the 600
    comparisons[0] = 0
    with pytest.raises(ta.TraceAssertionError, match=re.escape(f"found 514 of {N} unchecked")) as err:
        a.has_no_more_tool_executions()
    assert f"  {N}. tool_6(i={N - 1})" not in str(err.value)  # the listing is cut ...
    assert "  2. tool_1(i=1)" in str(err.value)  # ... and numbered by position
    for name in (f"tool_{i}" for i in range(1, 7)):
        a.has_tool_executed(name)
    a.has_no_more_tool_executions()
    assert comparisons[0] <= N, f"{comparisons[0]} comparisons of tool executions for {N} executions"


def test_monocle_style_tool_checks_are_linear(comparisons: list[int]) -> None:
    a = ta.TraceAsserter(_many_tools(N, nested=True))
    a.called_tools(count=N).called_tool("tool_3", count=86)
    a.called_agent("orchestrator").top_level_only().called_tools(max_count=0)
    with pytest.raises(ta.TraceAssertionError) as err:
        a.does_not_call_tool("tool_1")
    first = str(err.value).splitlines()[0]
    assert (
        "'tool_1' was called 86 times, by nested agents 'worker_0', 'worker_1', 'worker_2' and 27 more"
        in first
    )
    assert len(first) < 300  # one clause for 30 nested agents
    with pytest.raises(ta.TraceAssertionError, match="left out"):
        a.top_level_only().called_tool("tool_1")
    assert comparisons[0] <= N
