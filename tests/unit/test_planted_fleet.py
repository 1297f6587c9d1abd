"""Fleet statistics on the facts a planted bug hides: how many executions of each tool failed, and how
that count survives a merge and the JSON round trip (hand-built spans: one failure at a time)."""

from __future__ import annotations

import json

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder
from traceassert._fleet.results import ERROR, FAILED, PASSED, Outcome, TraceResult
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


def test_model_tokens_count_input_and_output_and_survive_a_merge() -> None:
    b = SpanBuilder()
    agent = b.span("invoke_agent a", {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a"})
    b.chat(agent, 10, 5)  # no total recorded: it is input + output
    b.chat(agent, 1, 2, **{"gen_ai.usage.total_tokens": 4})
    one = FleetStats()
    one.add_trace(b.trace())
    m = one.models["m"]
    assert (m.calls, m.input_tokens, m.output_tokens, m.total_tokens) == (2, 11, 7, 19)
    merged = one.merge(one)
    m = merged.models["m"]
    assert (m.calls, m.input_tokens, m.output_tokens, m.total_tokens) == (4, 22, 14, 38)


def test_incomplete_traces_and_policy_errors_are_counted_as_such() -> None:
    stats = FleetStats()
    stats.add_result(TraceResult("a.jsonl", "1" * 32, (Outcome("p", PASSED),), 3, missing_parents=1))
    stats.add_result(TraceResult("a.jsonl", "2" * 32, (Outcome("p", ERROR, "KeyError: x"),), 3))
    stats.add_result(TraceResult("a.jsonl", "3" * 32, (Outcome("p", FAILED, "no"),), 3))
    assert (stats.evaluated, stats.incomplete) == (3, 1)
    p = stats.policies["p"]
    assert (p.passed, p.failed, p.errors, p.unreadable) == (1, 1, 1, 0)
    merged = stats.merge(stats)
    assert merged.incomplete == 2
    assert (merged.policies["p"].failed, merged.policies["p"].errors) == (2, 2)
