"""Two instrumentation layers on one real app: OpenInference and OpenLLMetry on the same LangGraph agent
and on the same OpenAI Agents SDK run; OpenInference and Monocle on the Agents SDK; Monocle alone there.

Every step is recorded twice (sibling spans of two dialects, or two whole trees); the records must be
those of one run.
"""

from __future__ import annotations

import pytest

import traceassert as ta
from instrumentation import langgraph_openinference as openinference
from instrumentation import langgraph_traceloop as traceloop
from tests._stackfacts import check_facts, check_model_calls, check_tokens, nesting

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


# --------------------------------------------------------------------------------------------------
# The OpenAI Agents SDK under two layers, live (instrumentation/openai_agents_layers.py)
# --------------------------------------------------------------------------------------------------


def _layered_run(layers: str) -> ta.Trace:
    stack = pytest.importorskip("instrumentation.openai_agents_layers")
    stack.instrument(layers)
    try:
        with ta.capture() as cap:
            assert stack.run_scenario() == EXPECTED.final_output
    finally:
        stack.uninstrument()
    return cap.trace()


def _layers_of(trace: ta.Trace) -> set[str]:
    return {op.dialect for s in trace.spans if (op := trace.operation(s)) is not None}


def test_openinference_and_openllmetry_on_one_agents_sdk_run() -> None:
    """OpenLLMetry parents its spans on its own root (agent spans without children: the work sits
    outside any agent); OpenInference nests them. Without pairing across agents the run had 10 model
    calls and twice the tokens."""
    trace = _layered_run("openinference+traceloop")
    assert {"openinference", "traceloop"} <= _layers_of(trace)
    check_facts(trace, EXPECTED, agent_output=False)
    asserter = ta.TraceAsserter(trace)
    asserter.called_agent("orchestrator", count=1).called_tool("get_weather", count=1)
    with pytest.raises(ta.TraceAssertionError, match=f"used {EXPECTED.total_tokens}"):
        asserter.under_token_limit(EXPECTED.total_tokens - 1)


def test_monocle_on_the_agents_sdk_is_one_run_per_agent() -> None:
    """Monocle records each turn of the SDK's agent loop as an invocation of its own (four
    ``orchestrator`` spans): they are one run. ``explode`` is not wrapped (see the stack module): only
    the model's request for it is recorded."""
    trace = _layered_run("monocle")
    assert _layers_of(trace) == {"monocle"}
    turns = [s for s in trace.spans if s.attributes.get("span.type") == "agentic.invocation"]
    assert len(turns) == 5  # four orchestrator turns, one helper turn
    assert [a.name for a in trace.agents] == ["orchestrator"]
    check_model_calls(trace, EXPECTED)
    check_tokens(trace, EXPECTED)
    assert nesting(trace) == dict(EXPECTED.nested)
    assert [(t.name, t.arguments) for t in trace.tool_executions] == [
        ("get_weather", {"city": "Paris"}),
        ("ask_helper", {"question": "What should I wear?"}),
    ]
    assert [r.name for r in trace.unexecuted_tool_requests] == ["explode"]


def test_openinference_and_monocle_on_one_agents_sdk_run() -> None:
    trace = _layered_run("openinference+monocle")
    assert {"openinference", "monocle"} <= _layers_of(trace)
    check_facts(trace, EXPECTED, agent_output=False)
