"""Fleet statistics on the facts a planted bug hides: how many executions of each tool failed, and how
that count survives a merge and the JSON round trip (hand-built spans: one failure at a time)."""

from __future__ import annotations

import json

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder
from traceassert._fleet.stats import FleetStats


def _trace(outcomes: tuple[bool, ...]) -> ta.Trace:
    """An agent that runs ``lookup`` once per outcome (True: that execution fails) and ``send`` once."""
    b = SpanBuilder()
    agent = b.span("invoke_agent a", {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a"})
    for failed in outcomes:
        b.tool("lookup", agent, args="{}", status="ERROR" if failed else "UNSET")
    b.tool("send", agent, args="{}", result="ok")
    return b.trace()


def test_failed_tool_executions_are_counted_as_failures_and_successes_are_not() -> None:
    trace = _trace((True, False, False))
    assert [t.failed for t in trace.tool_executions] == [True, False, False, False]
    stats = FleetStats()
    stats.add_trace(trace)
    lookup, send = stats.tools["lookup"], stats.tools["send"]
    assert (lookup.executions, lookup.failures) == (3, 1)
    assert (send.executions, send.failures, send.failure_rate) == (1, 0, 0.0)
    assert lookup.failure_rate is not None and abs(lookup.failure_rate - 1 / 3) < 1e-9


def test_failure_counts_add_up_over_traces_merges_and_json() -> None:
    one, two = FleetStats(), FleetStats()
    one.add_trace(_trace((True, True)))
    two.add_trace(_trace((False,)))
    merged = one.merge(two)
    assert (merged.tools["lookup"].executions, merged.tools["lookup"].failures) == (3, 2)
    data = json.loads(json.dumps(merged.to_json()))
    assert data["tools"]["lookup"]["failures"] == 2 and data["tools"]["send"]["failures"] == 0
    back = FleetStats.from_json(data)
    assert (back.tools["lookup"].failures, back.tools["send"].failures) == (2, 0)
