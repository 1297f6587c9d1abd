"""The two OpenLLMetry (Traceloop) stacks through traceassert: what it reconstructs agrees with the
scenario's ground truth (``EXPECTED``, written from the script), live and from the recorded file.

Stacks: OpenAI Agents SDK + ``opentelemetry-instrumentation-openai-agents`` / ``-openai``, and LangGraph
``create_react_agent`` + ``opentelemetry-instrumentation-langchain``. The live cases need the frameworks
(their own environment) and are skipped elsewhere; the recorded traces (``tests/data/traceloop_<stack>
.json``) are checked everywhere. Re-record with ``python -m tests._stackfacts traceloop_<stack>``.
"""

from __future__ import annotations

from typing import Any

import pytest

import traceassert as ta
from instrumentation._scenario import EXPECTED, HELPER_ANSWER, HELPER_QUESTION, ORCHESTRATOR_TURNS, PROMPT
from tests._stackcases import TRACELOOP_STACKS as STACKS
from tests._stackfacts import (
    cached_live_trace,
    check_agents,
    check_model_calls,
    check_tokens,
    check_tools,
    check_with_asserter,
    recorded_trace,
    stack_module,
)


def live_trace(stack: str) -> ta.Trace:
    """The scenario run under ``ta.capture()``, instrumented with no explicit provider (the global one)."""
    return cached_live_trace(stack_module(STACKS[stack]))


@pytest.fixture(params=[(s, src) for s in STACKS for src in ("live", "recorded")], ids="-".join)
def trace(request: pytest.FixtureRequest) -> ta.Trace:
    stack, source = request.param
    return recorded_trace(f"traceloop_{stack}") if source == "recorded" else live_trace(stack)


# --------------------------------------------------------------------------------------------------
# The facts, from the records
# --------------------------------------------------------------------------------------------------


def test_every_span_is_read_by_the_traceloop_dialect(trace: ta.Trace) -> None:
    assert trace.summary()["unclassified_spans"] == 0
    records: list[Any] = [*trace.all_agents(), *trace.tool_executions, *trace.model_calls]
    assert {r.dialect for r in records} == {"traceloop"}


def test_agents_and_their_nesting(trace: ta.Trace) -> None:
    check_agents(trace, EXPECTED)
    (top,) = trace.agents
    (helper,) = top.nested
    assert helper.via_tool is not None and helper.via_tool.name == "ask_helper"


def test_tools_in_order_with_exact_arguments_and_failures(trace: ta.Trace) -> None:
    check_tools(trace, EXPECTED)
    tools = trace.tool_executions
    assert all(t.error is not None for t in tools if t.failed)
    assert {t.agent.name for t in tools if t.agent is not None} == {"orchestrator"}


def test_tool_calls_are_matched_to_the_calls_the_model_asked_for(trace: ta.Trace) -> None:
    requested = [turn.call_id(i) for i, turn in enumerate(ORCHESTRATOR_TURNS) if turn.tool is not None]
    assert [t.call_id for t in trace.tool_executions] == requested


def test_model_calls_one_per_logical_call(trace: ta.Trace) -> None:
    check_model_calls(trace, EXPECTED, operation="chat")
    calls = trace.model_calls
    assert [c.model for c in calls if c.agent is not None and c.agent.name == "helper"] == ["scripted-helper"]
    assert calls[-1].output == EXPECTED.final_output


def test_tokens_counted_once(trace: ta.Trace) -> None:
    check_tokens(trace, EXPECTED)
    assert trace.summary()["totals"]["total_tokens"] == EXPECTED.total_tokens


def test_a_failed_tool_does_not_fail_the_run(trace: ta.Trace) -> None:
    assert [a.status for a in trace.all_agents()] == ["succeeded", "succeeded"]


def test_the_asserter_agrees(trace: ta.Trace) -> None:
    """The same facts through the public asserter, as a user would write them."""
    agent = check_with_asserter(trace, EXPECTED)
    asserter = ta.TraceAsserter(trace)
    asserter.called_agent("orchestrator").called_agent("helper", count=1)
    asserter.called_agent("orchestrator").called_tool("explode", count=1)
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
        assert (helper.input, helper.output) == (HELPER_QUESTION, HELPER_ANSWER)


# --------------------------------------------------------------------------------------------------
# The recordings are current
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("stack", list(STACKS))
def test_the_recording_reads_like_a_live_run(stack: str) -> None:
    live, recorded = live_trace(stack).summary(), recorded_trace(f"traceloop_{stack}").summary()
    assert live == recorded, f"re-record: python -m tests._stackfacts traceloop_{stack}"
