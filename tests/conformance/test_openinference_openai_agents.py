"""OpenAI Agents SDK + ``openinference-instrumentation-openai-agents``, read by traceassert.

Every fact of the scripted scenario is checked twice: on a live run under ``ta.capture()`` (needs the
framework and its instrumentation) and on the recorded trace in ``tests/data`` (needs neither).
"""

from __future__ import annotations

import asyncio
import importlib
from types import ModuleType

import pytest

import traceassert as ta
from instrumentation import ScenarioFacts
from tests.conformance._openinference_facts import (
    STACKS,
    check_agents,
    check_model_calls,
    check_tokens,
    check_tools,
    check_with_asserter,
    facts_to_json,
    recorded_facts,
    recorded_trace,
    run_live,
)

STACK = "openai_agents"


def _stack() -> ModuleType:
    pytest.importorskip("agents")
    pytest.importorskip("openinference.instrumentation.openai_agents")
    return importlib.import_module(STACKS[STACK])


@pytest.fixture(params=["live", "recorded"])
def case(request: pytest.FixtureRequest) -> tuple[ta.Trace, ScenarioFacts]:
    if request.param == "recorded":
        return recorded_trace(STACK), recorded_facts(STACK)
    stack = _stack()
    trace, output = run_live(stack)
    assert output == stack.EXPECTED.final_output
    return trace, stack.EXPECTED


@pytest.fixture
def trace(case: tuple[ta.Trace, ScenarioFacts]) -> ta.Trace:
    return case[0]


# --------------------------------------------------------------------------------------------------
# The ground truth
# --------------------------------------------------------------------------------------------------


def test_agents_and_nesting(case: tuple[ta.Trace, ScenarioFacts]) -> None:
    check_agents(*case)


def test_tools_in_order_with_arguments_and_failures(case: tuple[ta.Trace, ScenarioFacts]) -> None:
    check_tools(*case)


def test_model_calls(case: tuple[ta.Trace, ScenarioFacts]) -> None:
    check_model_calls(*case)


def test_tokens(case: tuple[ta.Trace, ScenarioFacts]) -> None:
    check_tokens(*case)


def test_the_asserter_agrees(case: tuple[ta.Trace, ScenarioFacts]) -> None:
    check_with_asserter(*case)


def test_the_recorded_facts_are_the_script() -> None:
    assert facts_to_json(_stack().EXPECTED) == facts_to_json(recorded_facts(STACK))


# --------------------------------------------------------------------------------------------------
# What this producer records, and how traceassert reads it
# --------------------------------------------------------------------------------------------------


def test_every_span_is_understood(trace: ta.Trace) -> None:
    assert trace.unclassified == ()
    assert {s.scope_name for s in trace.spans} == {"openinference.instrumentation.openai_agents"}


def test_the_sdk_trace_span_is_a_workflow_not_an_agent(trace: ta.Trace) -> None:
    (root,) = trace.roots
    assert root.name == "Agent workflow"
    assert root.attributes["openinference.span.kind"] == "AGENT"
    op = trace.operation(root)
    assert op is not None
    assert op.kind == "workflow"
    assert [a.name for a in trace.all_agents()] == ["orchestrator", "helper"]


def test_the_nested_agent_runs_inside_its_tool(trace: ta.Trace) -> None:
    orchestrator, helper = trace.all_agents()
    assert helper.parent is orchestrator
    assert helper.via_tool is not None
    assert helper.via_tool.name == "ask_helper"
    assert helper.span.attributes["agent.name"] == "helper"


def test_arguments_are_json_and_call_ids_come_from_the_model_requests(trace: ta.Trace) -> None:
    get_weather, explode, ask_helper = trace.tool_executions
    assert get_weather.raw_arguments == '{"city": "Paris"}'
    assert explode.raw_arguments == "{}"
    # The tool spans carry no call id; matching them with the model's requests supplies it.
    assert all(t.span is not None and "tool_call.id" not in t.span.attributes for t in trace.tool_executions)
    assert [t.call_id for t in trace.tool_executions] == [
        "call_0_get_weather",
        "call_1_explode",
        "call_2_ask_helper",
    ]
    assert get_weather.result == "Sunny, 21C in Paris"
    assert ask_helper.result == "Wear a light jacket."


def test_the_tool_failure_comes_from_the_status_description(trace: ta.Trace) -> None:
    explode = trace.tool_executions[1]
    assert explode.failed is True
    assert explode.span is not None
    assert explode.span.events == ()  # the SDK records no exception event
    assert explode.error is not None
    assert explode.error.type is None
    assert explode.error.message == "Error running tool (non-fatal): explode failed: the detonator is broken"
    # what the failure_error_function told the model
    assert explode.result == "Error: explode failed: the detonator is broken"
    assert all(a.status == "succeeded" for a in trace.all_agents())


def test_model_call_details(trace: ta.Trace) -> None:
    calls = trace.model_calls
    assert [c.model for c in calls] == ["scripted-orchestrator"] * 3 + [
        "scripted-helper",
        "scripted-orchestrator",
    ]
    assert {c.provider for c in calls} == {"openai"}
    # The Responses API status "completed" is reported as "stop", also for responses that call tools.
    assert {c.finish_reasons for c in calls} == {("stop",)}
    assert calls[-1].output == "It is sunny in Paris; wear a light jacket."


def test_agent_input_and_output_are_not_recorded(trace: ta.Trace) -> None:
    """The agent spans carry only the agent's name: the run's input and output are on the model calls."""
    orchestrator, _ = trace.all_agents()
    assert (orchestrator.input, orchestrator.output) == (None, None)
    first_call = orchestrator.model_calls[0].span
    assert first_call is not None
    assert first_call.attributes["input.value"].startswith('[{"content": "What is')


# --------------------------------------------------------------------------------------------------
# The stack module
# --------------------------------------------------------------------------------------------------


def test_async_run_records_the_same_facts() -> None:
    stack = _stack()
    with ta.capture() as cap:
        stack.instrument()
        try:
            loop = asyncio.new_event_loop()
            try:
                assert loop.run_until_complete(stack.run_scenario_async()) == stack.EXPECTED.final_output
            finally:
                loop.close()
        finally:
            stack.uninstrument()
    trace = cap.trace()
    check_agents(trace, stack.EXPECTED)
    check_tools(trace, stack.EXPECTED)
    check_tokens(trace, stack.EXPECTED)


def test_uninstrument_stops_the_spans_and_sdk_tracing() -> None:
    stack = _stack()
    stack.instrument()
    stack.uninstrument()
    with ta.capture() as cap:
        assert stack.run_scenario() == stack.EXPECTED.final_output
    assert cap.spans == ()
    # Uninstrumented runs disable the SDK's tracing, so its default exporter never calls OpenAI.
    assert stack._run_config().tracing_disabled is True
