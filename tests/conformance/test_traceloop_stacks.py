"""The two OpenLLMetry (Traceloop) stacks through traceassert: what it reconstructs agrees with the
scenario's ground truth (``EXPECTED``, written from the script), live and from the recorded file.

Stacks: OpenAI Agents SDK + ``opentelemetry-instrumentation-openai-agents`` / ``-openai``, and LangGraph
``create_react_agent`` + ``opentelemetry-instrumentation-langchain``. The live cases need the frameworks
(their own environment) and are skipped elsewhere; the recorded traces (``tests/data/traceloop_<stack>
.json``) are checked everywhere. Re-record with ``python -m instrumentation.<stack module>``.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import traceassert as ta
from instrumentation._traceloop_common import EXPECTED, ORCHESTRATOR_TURNS, PROMPT

DATA = Path(__file__).resolve().parents[1] / "data"

#: stack -> (instrumentation module, modules it needs)
STACKS: Mapping[str, tuple[str, tuple[str, ...]]] = {
    "openai_agents": (
        "instrumentation.openai_agents_traceloop",
        ("agents", "opentelemetry.instrumentation.openai_agents", "opentelemetry.instrumentation.openai"),
    ),
    "langgraph": (
        "instrumentation.langgraph_traceloop",
        ("langgraph.prebuilt", "opentelemetry.instrumentation.langchain"),
    ),
}


def stack_module(stack: str) -> ModuleType:
    """The stack's module, or a skip when its framework or instrumentation is not installed."""
    name, needs = STACKS[stack]
    for module in needs:
        try:
            found = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:
            found = False
        if not found:
            pytest.skip(f"needs {module}")
    return importlib.import_module(name)


def live_trace(stack: str) -> ta.Trace:
    """The scenario run under ``ta.capture()``, instrumented with no explicit provider (the global one)."""
    module = stack_module(stack)
    module.instrument()
    try:
        with ta.capture() as cap:
            assert module.run_scenario() == EXPECTED.final_output
    finally:
        module.uninstrument()
    return cap.trace()


def recorded_trace(stack: str) -> ta.Trace:
    return ta.load_trace(DATA / f"traceloop_{stack}.json")


@pytest.fixture(scope="module")
def live_traces() -> dict[str, ta.Trace]:
    """Live traces, each stack run once per module."""
    return {}


@pytest.fixture(params=[(s, src) for s in STACKS for src in ("live", "recorded")], ids=lambda p: "-".join(p))
def trace(request: pytest.FixtureRequest, live_traces: dict[str, ta.Trace]) -> ta.Trace:
    stack, source = request.param
    if source == "recorded":
        return recorded_trace(stack)
    if stack not in live_traces:
        live_traces[stack] = live_trace(stack)
    return ta.Trace(live_traces[stack].spans)  # a fresh ledger for every test


# --------------------------------------------------------------------------------------------------
# The facts, from the records
# --------------------------------------------------------------------------------------------------


def test_every_span_is_read_by_the_traceloop_dialect(trace: ta.Trace) -> None:
    assert trace.summary()["unclassified_spans"] == 0
    records: list[Any] = [*trace.all_agents(), *trace.tool_executions, *trace.model_calls]
    assert {r.dialect for r in records} == {"traceloop"}


def test_agents_and_their_nesting(trace: ta.Trace) -> None:
    assert tuple(a.name for a in trace.agents) == EXPECTED.agents
    nested = {a.name: tuple(n.name for n in a.nested) for a in trace.all_agents() if a.nested}
    assert nested == dict(EXPECTED.nested)
    (top,) = trace.agents
    (helper,) = top.nested
    assert helper.via_tool is not None and helper.via_tool.name == "ask_helper"
    assert not any(a.implicit for a in trace.all_agents())


def test_tools_in_order_with_exact_arguments_and_failures(trace: ta.Trace) -> None:
    tools = trace.tool_executions
    assert tuple(t.name for t in tools) == EXPECTED.tools_in_order
    assert [t.arguments for t in tools] == [dict(a) for a in EXPECTED.tool_arguments]
    assert tuple(t.name for t in tools if t.failed) == EXPECTED.failed_tools
    assert all(t.failed is False for t in tools if t.name not in EXPECTED.failed_tools)
    assert all(t.error is not None for t in tools if t.failed)
    assert {t.agent.name for t in tools if t.agent is not None} == {"orchestrator"}


def test_tool_calls_are_matched_to_the_calls_the_model_asked_for(trace: ta.Trace) -> None:
    requested = [turn.call_id(i) for i, turn in enumerate(ORCHESTRATOR_TURNS) if turn.tool is not None]
    assert [t.call_id for t in trace.tool_executions] == requested


def test_model_calls_one_per_logical_call(trace: ta.Trace) -> None:
    calls = trace.model_calls
    assert len(calls) == EXPECTED.model_calls
    own = {a.name: len(a.model_calls) for a in trace.all_agents()}
    assert own == dict(EXPECTED.own_model_calls)
    assert all(c.operation == "chat" and not c.failed for c in calls)
    assert [c.model for c in calls if c.agent is not None and c.agent.name == "helper"] == ["scripted-helper"]
    assert calls[-1].output == EXPECTED.final_output


def test_tokens_counted_once(trace: ta.Trace) -> None:
    calls = trace.model_calls
    assert sum(c.input_tokens or 0 for c in calls) == EXPECTED.input_tokens
    assert sum(c.output_tokens or 0 for c in calls) == EXPECTED.output_tokens
    assert sum(c.total_tokens or 0 for c in calls) == EXPECTED.total_tokens
    (top,) = trace.agents
    assert (top.input_tokens, top.output_tokens, top.total_tokens) == (
        EXPECTED.input_tokens,
        EXPECTED.output_tokens,
        EXPECTED.total_tokens,
    )
    assert trace.summary()["totals"]["total_tokens"] == EXPECTED.total_tokens


def test_a_failed_tool_does_not_fail_the_run(trace: ta.Trace) -> None:
    assert [a.status for a in trace.all_agents()] == ["succeeded", "succeeded"]


def test_the_asserter_agrees(trace: ta.Trace) -> None:
    """The same facts through the public asserter, as a user would write them."""
    asserter = ta.TraceAsserter(trace)
    agent = asserter.called_agent("orchestrator", count=1).including_nested()
    agent.has_tools_executed_in_order("get_weather", "ask_helper")
    agent.has_tool_executed_with("get_weather", {"city": "Paris"})
    agent.has_tool_executed_with("ask_helper", {"question": "What should I wear?"})
    agent.has_tool_execution_failed("explode")
    agent.has_model_call_count(EXPECTED.model_calls)
    asserter.called_agent("orchestrator").called_agent("helper", count=1)
    asserter.called_agent("orchestrator").called_tool("explode", count=1)
    asserter.under_token_limit(EXPECTED.total_tokens)
    with pytest.raises(ta.TraceAssertionError, match="token"):
        asserter.under_token_limit(EXPECTED.total_tokens - 1)
    with pytest.raises(ta.TraceAssertionError, match="get_weather"):
        agent.has_tool_executed_with("get_weather", {"city": "London"})


def test_agent_io_where_the_producer_records_it(trace: ta.Trace) -> None:
    (top,) = trace.agents
    (helper,) = top.nested
    if top.span.scope_name == "opentelemetry.instrumentation.openai_agents":
        # the Agents SDK instrumentation records no input or output on agent spans
        assert (top.input, top.output, helper.input, helper.output) == (None, None, None, None)
    else:
        assert (top.input, top.output) == (PROMPT, EXPECTED.final_output)
        assert (helper.input, helper.output) == ("What should I wear?", "Wear a light jacket.")


# --------------------------------------------------------------------------------------------------
# The recordings are current
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("stack", list(STACKS))
def test_the_recording_reads_like_a_live_run(stack: str, live_traces: dict[str, ta.Trace]) -> None:
    if stack not in live_traces:
        live_traces[stack] = live_trace(stack)
    live, recorded = live_traces[stack].summary(), recorded_trace(stack).summary()
    assert live == recorded, "re-record: python -m " + STACKS[stack][0]
