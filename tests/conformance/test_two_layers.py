"""Two instrumentation layers on one real app: OpenInference and OpenLLMetry on the same LangGraph agent.

Every step is recorded twice (sibling spans of two dialects); the records must be those of one run.
"""

from __future__ import annotations

import pytest

import traceassert as ta
from instrumentation import langgraph_openinference as openinference
from instrumentation import langgraph_traceloop as traceloop

EXPECTED = openinference.EXPECTED


@pytest.fixture(scope="module")
def trace() -> ta.Trace:
    openinference.instrument()
    traceloop.instrument()
    try:
        with ta.capture() as cap:
            openinference.run_scenario()
    finally:
        traceloop.uninstrument()
        openinference.uninstrument()
    return cap.trace()


def test_both_layers_recorded_the_run(trace: ta.Trace) -> None:
    dialects = {op.dialect for s in trace.spans if (op := trace.operation(s)) is not None}
    assert {"openinference", "traceloop"} <= dialects


def test_one_record_per_step(trace: ta.Trace) -> None:
    assert [a.name for a in trace.agents] == list(EXPECTED.agents)
    (orchestrator,) = trace.agents
    assert [n.name for n in orchestrator.nested] == list(EXPECTED.nested["orchestrator"])
    assert [t.name for t in trace.tool_executions] == list(EXPECTED.tools_in_order)
    assert [t.arguments for t in trace.tool_executions] == [dict(a) for a in EXPECTED.tool_arguments]
    assert [t.name for t in trace.tool_executions if t.failed] == list(EXPECTED.failed_tools)
    assert len(trace.model_calls) == EXPECTED.model_calls
    assert sum(c.total_tokens or 0 for c in trace.model_calls) == EXPECTED.total_tokens


def test_checks_count_each_step_once(trace: ta.Trace) -> None:
    asserter = ta.TraceAsserter(trace)
    asserter.called_tool("get_weather", count=1).has_input({"city": "Paris"})
    asserter.called_agent("helper", count=1)
    asserter.under_token_limit(EXPECTED.total_tokens)
    with pytest.raises(ta.TraceAssertionError, match=f"used {EXPECTED.total_tokens}"):
        asserter.under_token_limit(EXPECTED.total_tokens - 1)
