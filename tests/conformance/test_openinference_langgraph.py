"""LangGraph ``create_react_agent`` + ``openinference-instrumentation-langchain``, read by traceassert.

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

STACK = "langgraph"
PROMPT = "What is the weather in Paris, and what should I wear?"


def _stack() -> ModuleType:
    pytest.importorskip("langgraph.prebuilt")
    pytest.importorskip("openinference.instrumentation.langchain")
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
    assert {s.scope_name for s in trace.spans} == {"openinference.instrumentation.langchain"}


def test_the_model_node_is_not_an_agent(trace: ta.Trace) -> None:
    """The ReAct model node is named ``agent``, which OpenInference tags AGENT: it is a node, not a run."""
    nodes = [s for s in trace.spans if s.name == "agent"]
    assert len(nodes) == 5
    assert all(s.attributes["openinference.span.kind"] == "AGENT" for s in nodes)
    assert [a.name for a in trace.all_agents()] == ["orchestrator", "helper"]


def test_graph_runs_are_chain_spans_named_after_the_graph(trace: ta.Trace) -> None:
    orchestrator, helper = trace.all_agents()
    assert orchestrator.span.attributes["openinference.span.kind"] == "CHAIN"
    assert helper.span.attributes["openinference.span.kind"] == "CHAIN"
    assert helper.via_tool is not None
    assert helper.via_tool.name == "ask_helper"
    assert helper.parent is orchestrator


def test_single_string_arguments_are_recorded_bare_and_recovered(trace: ta.Trace) -> None:
    get_weather, explode, ask_helper = trace.tool_executions
    # OpenInference unwraps a tool's only string argument; the model's request names the parameter.
    assert get_weather.raw_arguments == "Paris"
    assert get_weather.arguments == {"city": "Paris"}
    assert ask_helper.raw_arguments == "What should I wear?"
    assert ask_helper.arguments == {"question": "What should I wear?"}
    # A tool without arguments has no input.value at all.
    assert explode.span is not None
    assert "input.value" not in explode.span.attributes
    assert explode.arguments == {}


def test_call_ids_and_results_come_from_the_tool_message(trace: ta.Trace) -> None:
    get_weather, explode, ask_helper = trace.tool_executions
    assert [t.call_id for t in trace.tool_executions] == [
        "call_0_get_weather",
        "call_1_explode",
        "call_2_ask_helper",
    ]
    assert get_weather.result == "Sunny, 21C in Paris"
    assert ask_helper.result == "Wear a light jacket."
    assert explode.result is None  # a tool that raised records no output


def test_the_tool_failure_is_recorded_with_its_exception(trace: ta.Trace) -> None:
    explode = trace.tool_executions[1]
    assert explode.failed is True
    assert explode.error is not None
    assert explode.error.type == "langchain_core.tools.base.ToolException"
    assert explode.error.message == "explode failed: the detonator is broken"
    assert all(a.status == "succeeded" for a in trace.all_agents())


def test_agent_input_and_output(trace: ta.Trace) -> None:
    orchestrator, helper = trace.all_agents()
    assert orchestrator.input == PROMPT
    assert orchestrator.output == "It is sunny in Paris; wear a light jacket."
    assert helper.input == "What should I wear?"
    assert helper.output == "Wear a light jacket."


def test_model_call_details(trace: ta.Trace) -> None:
    calls = trace.model_calls
    assert [c.model for c in calls] == ["scripted-orchestrator"] * 3 + [
        "scripted-helper",
        "scripted-orchestrator",
    ]
    assert [c.finish_reasons for c in calls] == [("tool_calls",)] * 3 + [("stop",), ("stop",)]
    # LangChain derives the provider from the chat model class name when the model does not say
    assert {c.provider for c in calls} == {"scriptedchatmodel"}
    assert calls[-1].output == "It is sunny in Paris; wear a light jacket."


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


def test_uninstrument_stops_the_spans() -> None:
    stack = _stack()
    stack.instrument()
    stack.uninstrument()
    with ta.capture() as cap:
        assert stack.run_scenario() == stack.EXPECTED.final_output
    assert cap.spans == ()
