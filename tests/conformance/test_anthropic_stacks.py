"""Anthropic SDK, a hand-written tool loop: ``openinference-instrumentation-anthropic`` (agents and tools
from OpenInference's tracer) and OpenLLMetry's ``opentelemetry-instrumentation-anthropic`` (agents and
tools from util-genai), live (need ``anthropic`` and the instrumentation) and recorded
(``tests/data/anthropic_*.json``, need nothing). Record again with
``python -m tests._stackfacts anthropic_openinference anthropic_traceloop``.
"""

from __future__ import annotations

from types import ModuleType

import pytest

import traceassert as ta
from instrumentation import ScenarioFacts
from tests._stackcases import SOURCES, live_async_trace, live_or_recorded, recorded_spans_trace
from tests._stackfacts import (
    cached_live_trace,
    check_facts,
    check_spans_follow_the_global_provider,
    check_with_asserter,
    requests_only_facts,
    stack_module,
)
from traceassert._model.span import Span

#: recording -> (stack module, the dialect of its model calls, that of its agents and tools)
STACKS = {
    "anthropic_openinference": ("instrumentation.anthropic_openinference", "openinference", "openinference"),
    "anthropic_traceloop": ("instrumentation.anthropic_traceloop", "traceloop", "genai"),
}


def _stack(recording: str) -> ModuleType:
    return stack_module(STACKS[recording][0])


@pytest.fixture(params=[(r, source) for r in STACKS for source in SOURCES], ids="-".join)
def case(request: pytest.FixtureRequest) -> tuple[str, ta.Trace, ScenarioFacts]:
    recording, source = request.param
    return (recording, *live_or_recorded(source, STACKS[recording][0], recording))


def test_six_facts(case: tuple[str, ta.Trace, ScenarioFacts]) -> None:
    recording, trace, facts = case
    check_facts(trace, facts, operation="chat")
    check_with_asserter(trace, facts)
    _, model_dialect, agent_dialect = STACKS[recording]
    assert {c.dialect for c in trace.model_calls} == {model_dialect}
    assert {a.dialect for a in trace.all_agents()} == {agent_dialect}
    assert {t.dialect for t in trace.tool_executions} == {agent_dialect}


def test_tool_call_ids_errors_and_models(case: tuple[str, ta.Trace, ScenarioFacts]) -> None:
    _, trace, _ = case
    assert [t.call_id for t in trace.tool_executions] == [
        "toolu_0_get_weather",
        "toolu_1_explode",
        "toolu_2_ask_helper",
    ]
    (explode,) = (t for t in trace.tool_executions if t.failed)
    assert explode.error is not None
    assert explode.error.type is not None and explode.error.type.endswith("RuntimeError")
    assert explode.error.message is not None
    assert explode.error.message.endswith("explode failed: the detonator is broken")
    assert {c.provider for c in trace.model_calls} == {"anthropic"}
    assert [c.model for c in trace.model_calls] == ["scripted-orchestrator"] * 3 + [
        "scripted-helper",
        "scripted-orchestrator",
    ]
    # every tool execution is the one its model call asked for: no request is left unexecuted
    assert trace.unexecuted_tool_requests == ()
    requested = [r.name for c in trace.model_calls for r in c.requested_tools]
    assert requested == ["get_weather", "explode", "ask_helper"]


def test_a_missing_tool_is_reported_with_the_tree(case: tuple[str, ta.Trace, ScenarioFacts]) -> None:
    _, trace, _ = case
    with pytest.raises(ta.TraceAssertionError, match="get_forecast") as raised:
        ta.TraceAsserter(trace).called_agent("orchestrator").has_tool_executed("get_forecast")
    assert "agent orchestrator" in str(raised.value)


# -- live only ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("recording", list(STACKS))
def test_async_client(recording: str) -> None:
    stack = _stack(recording)
    check_facts(live_async_trace(stack), stack.EXPECTED)


@pytest.mark.parametrize("recording", list(STACKS))
def test_model_calls_only(recording: str) -> None:
    """Without the loop's own spans the instrumentation records the model calls alone, and the work
    belongs to no agent: no tool span, but each later call's input holds the results of the calls the
    model asked for, so every request is an execution from the conversation."""
    stack = _stack(recording)
    trace = recorded_spans_trace(stack, agent_spans=False)
    facts = requests_only_facts(stack.EXPECTED)
    tools = trace.tool_executions
    assert [(t.name, t.arguments) for t in tools] == [
        (r["name"], r["arguments"]) for r in facts["requested_tools"]
    ]
    assert all(t.source == "conversation" and t.span is None for t in tools)
    assert trace.unexecuted_tool_requests == ()
    assert len(trace.model_calls) == facts["model_calls"]
    assert sum(c.total_tokens or 0 for c in trace.model_calls) == facts["total_tokens"]
    assert all(a.implicit for a in trace.agents)
    asserter = ta.TraceAsserter(trace)
    asserter.called_tool("explode", count=1)
    if recording == "anthropic_openinference":
        # the raw request (input.value) keeps the tool_result blocks, is_error and all
        asserter.has_tool_executed("get_weather")
        asserter.has_tool_execution_failed("explode", error_containing="the detonator is broken")
        assert [t.failed for t in tools] == [False, True, False]
    else:
        # OpenLLMetry writes each block as a tool_call_response part without is_error: the outcomes are
        # unknown, and no check says the tools succeeded (or that none failed)
        assert [t.failed for t in tools] == [None, None, None]
        with pytest.raises(ta.TraceAssertionError, match="whose outcome the producer did not record"):
            asserter.has_tool_executed("get_weather")
        with pytest.raises(ta.TraceAssertionError, match="did not record whether 3 execution"):
            asserter.has_no_failed_tool_executions()


@pytest.mark.parametrize("recording", list(STACKS))
def test_spans_follow_the_global_provider(recording: str, monkeypatch: pytest.MonkeyPatch) -> None:
    check_spans_follow_the_global_provider(_stack(recording), monkeypatch)


@pytest.mark.parametrize("recording", list(STACKS))
def test_the_instrumentation_without_the_sdks_own_spans(recording: str) -> None:
    """The client's own spans (anthropic 2.x) merge with the instrumentation's; the instrumentation alone
    gives the same facts."""
    stack = _stack(recording)
    spans = stack.record_spans(sdk_spans=False)
    assert "com.anthropic.sdk.python" not in {s.instrumentation_scope.name for s in spans}
    trace = ta.Trace([Span.from_readable(s) for s in spans])
    check_facts(trace, stack.EXPECTED)
    assert trace.summary() == cached_live_trace(stack).summary()


@pytest.mark.parametrize("recording", list(STACKS))
def test_uninstrumented_only_the_sdks_own_spans_remain(recording: str) -> None:
    """Switched off, the stack leaves the SDK's default: one CLIENT span per API call (model, tokens,
    no content), each outside any agent, no tool call the model asked for."""
    stack = _stack(recording)
    stack.instrument()
    stack.uninstrument()
    with ta.capture() as cap:
        assert stack.run_scenario() == stack.EXPECTED.final_output
    trace = cap.trace()
    assert {s.scope_name for s in trace.spans} == {"com.anthropic.sdk.python"}
    assert len(trace.model_calls) == stack.EXPECTED.model_calls
    assert sum(c.total_tokens or 0 for c in trace.model_calls) == stack.EXPECTED.total_tokens
    assert trace.tool_executions == trace.unexecuted_tool_requests == ()
    assert all(a.implicit for a in trace.agents)
