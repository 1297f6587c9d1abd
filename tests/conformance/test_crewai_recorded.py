"""CrewAI, from its recorded traces (no CrewAI needed): a crew of two agents whose orchestrator delegates
to the helper, traced by ``openinference-instrumentation-crewai`` (event-listener mode) and by OpenLLMetry
(``opentelemetry-instrumentation-crewai`` + ``-openai``). Record them again with ``python -m
tests._stackfacts openinference_crewai traceloop_crewai`` in the CrewAI environment (tests/envs/crewai,
which also runs them live).
"""

from __future__ import annotations

import json

import pytest

import traceassert as ta
from instrumentation import ScenarioFacts
from tests._crewfacts import check_traceloop_crew
from tests._stackfacts import (
    DATA,
    check_facts,
    check_with_asserter,
    load_recording,
    recorded_requests,
    recorded_trace,
)

RECORDING = "openinference_crewai"
DELEGATE = "delegate_work_to_coworker"


@pytest.fixture
def recording() -> tuple[ta.Trace, ScenarioFacts]:
    return load_recording(RECORDING)


def test_the_six_facts(recording: tuple[ta.Trace, ScenarioFacts]) -> None:
    check_facts(*recording, dialect="openinference", operation="chat")


def test_the_asserter_agrees(recording: tuple[ta.Trace, ScenarioFacts]) -> None:
    trace, facts = recording
    tree = check_with_asserter(trace, facts)
    tree.has_tool_executed(DELEGATE)
    with pytest.raises(ta.TraceAssertionError, match="explode"):
        tree.has_tool_executed("explode")


def test_the_delegation_holds_the_helper(recording: tuple[ta.Trace, ScenarioFacts]) -> None:
    trace, facts = recording
    (top,) = trace.agents
    assert [t.name for t in top.tool_executions] == list(facts.tools_in_order)
    (helper,) = top.nested
    assert helper.via_tool is not None and helper.via_tool.name == DELEGATE
    assert helper.via_tool.arguments["coworker"] == "helper"
    assert (helper.input or "").startswith("What should I wear?")
    assert helper.output == helper.via_tool.result == "Wear a light jacket."


def test_agents_are_named_by_their_role(recording: tuple[ta.Trace, ScenarioFacts]) -> None:
    trace, _ = recording
    # the AGENT spans are named "<role>.<task>.execute" and carry no agent.name: the role is graph.node.id
    agents = [s for s in trace.spans if s.attributes.get("openinference.span.kind") == "AGENT"]
    assert all("agent.name" not in s.attributes for s in agents)
    assert sorted(a.name for a in trace.all_agents()) == ["helper", "orchestrator"]


def test_the_failed_tool(recording: tuple[ta.Trace, ScenarioFacts]) -> None:
    trace, _ = recording
    (explode,) = (t for t in trace.tool_executions if t.failed)
    assert explode.error is not None
    # the instrumentation records the message only (no exception event, so no type)
    assert (explode.error.type, explode.error.message) == (None, "explode failed: the detonator is broken")


def test_the_crew_span_is_no_agent_and_its_tokens_are_not_counted_again(
    recording: tuple[ta.Trace, ScenarioFacts],
) -> None:
    trace, facts = recording
    (crew,) = (s for s in trace.spans if s.name == "crew.kickoff")
    assert crew.attributes["llm.token_count.total"] == facts.total_tokens
    assert trace.summary()["totals"]["total_tokens"] == facts.total_tokens
    assert [a.name for a in trace.agents] == ["orchestrator"]


# --------------------------------------------------------------------------------------------------
# OpenLLMetry (opentelemetry-instrumentation-crewai + -openai): no tool spans
# --------------------------------------------------------------------------------------------------


def test_traceloop_recording() -> None:
    trace = recorded_trace("traceloop_crewai")
    facts = ScenarioFacts.from_json(
        {
            k: v
            for k, v in json.loads((DATA / "traceloop_crewai.facts.json").read_text()).items()
            if k != "requested_tools"
        }
    )
    requested = recorded_requests("traceloop_crewai")
    assert [name for name, _ in requested] == ["get_weather", "explode", DELEGATE]
    check_traceloop_crew(trace, facts, requested)
