"""The OpenInference stacks through traceassert: what it reconstructs agrees with the scenario's ground
truth, on a live run under ``ta.capture()`` (needs the framework and its instrumentation) and on the
recorded trace in ``tests/data`` (needs neither).

Stacks: LangGraph ``create_react_agent`` + ``openinference-instrumentation-langchain``, and the OpenAI
Agents SDK + ``openinference-instrumentation-openai-agents``. Then, for each, what the producer records
and how traceassert reads it.
"""

from __future__ import annotations

import asyncio
from types import ModuleType

import pytest

import traceassert as ta
from instrumentation import ScenarioFacts
from instrumentation._scenario import PROMPT
from tests._stackfacts import (
    cached_live_trace,
    check_agents,
    check_model_calls,
    check_tokens,
    check_tools,
    check_with_asserter,
    load_recording,
    recorded_facts,
    recorded_trace,
    stack_module,
)

#: recording -> stack module
STACKS = {
    "openinference_langgraph": "instrumentation.langgraph_openinference",
    "openinference_openai_agents": "instrumentation.openai_agents_openinference",
}


def _stack(recording: str) -> ModuleType:
    return stack_module(STACKS[recording])


@pytest.fixture(params=[(r, source) for r in STACKS for source in ("live", "recorded")], ids="-".join)
def case(request: pytest.FixtureRequest) -> tuple[ta.Trace, ScenarioFacts]:
    recording, source = request.param
    if source == "recorded":
        return load_recording(recording)
    stack = _stack(recording)
    return cached_live_trace(stack), stack.EXPECTED


def _trace(recording: str, source: str) -> ta.Trace:
    return recorded_trace(recording) if source == "recorded" else cached_live_trace(_stack(recording))


@pytest.fixture(params=["live", "recorded"])
def langgraph(request: pytest.FixtureRequest) -> ta.Trace:
    return _trace("openinference_langgraph", request.param)


@pytest.fixture(params=["live", "recorded"])
def agents(request: pytest.FixtureRequest) -> ta.Trace:
    return _trace("openinference_openai_agents", request.param)


# --------------------------------------------------------------------------------------------------
# The ground truth
# --------------------------------------------------------------------------------------------------


def test_agents_and_nesting(case: tuple[ta.Trace, ScenarioFacts]) -> None:
    check_agents(*case, dialect="openinference")


def test_tools_in_order_with_arguments_and_failures(case: tuple[ta.Trace, ScenarioFacts]) -> None:
    check_tools(*case, dialect="openinference")


def test_model_calls(case: tuple[ta.Trace, ScenarioFacts]) -> None:
    check_model_calls(*case, operation="chat")


def test_tokens(case: tuple[ta.Trace, ScenarioFacts]) -> None:
    check_tokens(*case)


def test_the_asserter_agrees(case: tuple[ta.Trace, ScenarioFacts]) -> None:
    check_with_asserter(*case)


@pytest.mark.parametrize("recording", list(STACKS))
def test_the_recorded_facts_are_the_script(recording: str) -> None:
    assert _stack(recording).EXPECTED.to_json() == recorded_facts(recording).to_json()


# --------------------------------------------------------------------------------------------------
# The stack modules
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("recording", list(STACKS))
def test_async_run_records_the_same_facts(recording: str) -> None:
    stack = _stack(recording)
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
    check_agents(trace, stack.EXPECTED, dialect="openinference")
    check_tools(trace, stack.EXPECTED, dialect="openinference")
    check_tokens(trace, stack.EXPECTED)


@pytest.mark.parametrize("recording", list(STACKS))
def test_uninstrument_stops_the_spans(recording: str) -> None:
    stack = _stack(recording)
    stack.instrument()
    stack.uninstrument()
    with ta.capture() as cap:
        assert stack.run_scenario() == stack.EXPECTED.final_output
    assert cap.spans == ()


# --------------------------------------------------------------------------------------------------
# LangGraph: what the producer records, and how traceassert reads it
# --------------------------------------------------------------------------------------------------


def test_langgraph_every_span_is_understood(langgraph: ta.Trace) -> None:
    assert langgraph.unclassified == ()
    assert {s.scope_name for s in langgraph.spans} == {"openinference.instrumentation.langchain"}


def test_langgraph_the_model_node_is_not_an_agent(langgraph: ta.Trace) -> None:
    """The ReAct model node is named ``agent``, which OpenInference tags AGENT: it is a node, not a run."""
    nodes = [s for s in langgraph.spans if s.name == "agent"]
    assert len(nodes) == 5
    assert all(s.attributes["openinference.span.kind"] == "AGENT" for s in nodes)
    assert [a.name for a in langgraph.all_agents()] == ["orchestrator", "helper"]


def test_langgraph_graph_runs_are_chain_spans_named_after_the_graph(langgraph: ta.Trace) -> None:
    orchestrator, helper = langgraph.all_agents()
    assert orchestrator.span.attributes["openinference.span.kind"] == "CHAIN"
    assert helper.span.attributes["openinference.span.kind"] == "CHAIN"
    assert helper.via_tool is not None
    assert helper.via_tool.name == "ask_helper"
    assert helper.parent is orchestrator


def test_langgraph_single_string_arguments_are_recorded_bare_and_recovered(langgraph: ta.Trace) -> None:
    get_weather, explode, ask_helper = langgraph.tool_executions
    # OpenInference unwraps a tool's only string argument; the model's request names the parameter.
    assert get_weather.raw_arguments == "Paris"
    assert get_weather.arguments == {"city": "Paris"}
    assert ask_helper.raw_arguments == "What should I wear?"
    assert ask_helper.arguments == {"question": "What should I wear?"}
    # A tool without arguments has no input.value at all.
    assert explode.span is not None
    assert "input.value" not in explode.span.attributes
    assert explode.arguments == {}


def test_langgraph_call_ids_and_results_come_from_the_tool_message(langgraph: ta.Trace) -> None:
    get_weather, explode, ask_helper = langgraph.tool_executions
    assert [t.call_id for t in langgraph.tool_executions] == [
        "call_0_get_weather",
        "call_1_explode",
        "call_2_ask_helper",
    ]
    assert get_weather.result == "Sunny, 21C in Paris"
    assert ask_helper.result == "Wear a light jacket."
    assert explode.result is None  # a tool that raised records no output


def test_langgraph_the_tool_failure_is_recorded_with_its_exception(langgraph: ta.Trace) -> None:
    explode = langgraph.tool_executions[1]
    assert explode.failed is True
    assert explode.error is not None
    assert explode.error.type == "langchain_core.tools.base.ToolException"
    assert explode.error.message == "explode failed: the detonator is broken"
    assert all(a.status == "succeeded" for a in langgraph.all_agents())


def test_langgraph_agent_input_and_output(langgraph: ta.Trace) -> None:
    orchestrator, helper = langgraph.all_agents()
    assert orchestrator.input == PROMPT
    assert orchestrator.output == "It is sunny in Paris; wear a light jacket."
    assert helper.input == "What should I wear?"
    assert helper.output == "Wear a light jacket."


def test_langgraph_model_call_details(langgraph: ta.Trace) -> None:
    calls = langgraph.model_calls
    assert [c.model for c in calls] == ["scripted-orchestrator"] * 3 + [
        "scripted-helper",
        "scripted-orchestrator",
    ]
    assert [c.finish_reasons for c in calls] == [("tool_calls",)] * 3 + [("stop",), ("stop",)]
    # LangChain derives the provider from the chat model class name when the model does not say
    assert {c.provider for c in calls} == {"scriptedchatmodel"}
    assert calls[-1].output == "It is sunny in Paris; wear a light jacket."


# --------------------------------------------------------------------------------------------------
# OpenAI Agents SDK: what the producer records, and how traceassert reads it
# --------------------------------------------------------------------------------------------------


def test_openai_agents_every_span_is_understood(agents: ta.Trace) -> None:
    assert agents.unclassified == ()
    assert {s.scope_name for s in agents.spans} == {"openinference.instrumentation.openai_agents"}


def test_openai_agents_the_sdk_trace_span_is_a_workflow_not_an_agent(agents: ta.Trace) -> None:
    (root,) = agents.roots
    assert root.name == "Agent workflow"
    assert root.attributes["openinference.span.kind"] == "AGENT"
    op = agents.operation(root)
    assert op is not None
    assert op.kind == "workflow"
    assert [a.name for a in agents.all_agents()] == ["orchestrator", "helper"]


def test_openai_agents_the_nested_agent_runs_inside_its_tool(agents: ta.Trace) -> None:
    orchestrator, helper = agents.all_agents()
    assert helper.parent is orchestrator
    assert helper.via_tool is not None
    assert helper.via_tool.name == "ask_helper"
    assert helper.span.attributes["agent.name"] == "helper"


def test_openai_agents_arguments_are_json_and_call_ids_come_from_the_model_requests(agents: ta.Trace) -> None:
    get_weather, explode, ask_helper = agents.tool_executions
    assert get_weather.raw_arguments == '{"city": "Paris"}'
    assert explode.raw_arguments == "{}"
    # The tool spans carry no call id; matching them with the model's requests supplies it.
    assert all(t.span is not None and "tool_call.id" not in t.span.attributes for t in agents.tool_executions)
    assert [t.call_id for t in agents.tool_executions] == [
        "call_0_get_weather",
        "call_1_explode",
        "call_2_ask_helper",
    ]
    assert get_weather.result == "Sunny, 21C in Paris"
    assert ask_helper.result == "Wear a light jacket."


def test_openai_agents_the_tool_failure_comes_from_the_status_description(agents: ta.Trace) -> None:
    explode = agents.tool_executions[1]
    assert explode.failed is True
    assert explode.span is not None
    assert explode.span.events == ()  # the SDK records no exception event
    assert explode.error is not None
    assert explode.error.type is None
    assert explode.error.message == "Error running tool (non-fatal): explode failed: the detonator is broken"
    # what the failure_error_function told the model
    assert explode.result == "Error: explode failed: the detonator is broken"
    assert all(a.status == "succeeded" for a in agents.all_agents())


def test_openai_agents_model_call_details(agents: ta.Trace) -> None:
    calls = agents.model_calls
    assert [c.model for c in calls] == ["scripted-orchestrator"] * 3 + [
        "scripted-helper",
        "scripted-orchestrator",
    ]
    assert {c.provider for c in calls} == {"openai"}
    # The Responses API status "completed" is reported as "stop", also for responses that call tools.
    assert {c.finish_reasons for c in calls} == {("stop",)}
    assert calls[-1].output == "It is sunny in Paris; wear a light jacket."


def test_openai_agents_agent_input_and_output_are_not_recorded(agents: ta.Trace) -> None:
    """The agent spans carry only the agent's name: the run's input and output are on the model calls."""
    orchestrator, _ = agents.all_agents()
    assert (orchestrator.input, orchestrator.output) == (None, None)
    first_call = orchestrator.model_calls[0].span
    assert first_call is not None
    assert first_call.attributes["input.value"].startswith('[{"content": "What is')


def test_openai_agents_uninstrumented_runs_disable_sdk_tracing() -> None:
    stack = stack_module("instrumentation.openai_agents_openinference")
    stack.instrument()
    stack.uninstrument()
    # Uninstrumented runs disable the SDK's tracing, so its default exporter never calls OpenAI.
    assert stack._run_config().tracing_disabled is True
