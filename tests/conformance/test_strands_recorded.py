"""Strands, from its recorded traces (no Strands needed): the Strands dialect rebuilds what the script did.

One recording per content layout Strands has (messages as span events by default; the latest GenAI
conventions as details events or as span attributes). Record them again with
``python -m tests._stackfacts strands_events strands_latest strands_attributes`` in the Strands
environment.
"""

from __future__ import annotations

import pytest

import traceassert as ta
from instrumentation import ScenarioFacts
from tests._stackfacts import check_facts, load_recording

LAYOUTS = ("strands_events", "strands_latest", "strands_attributes")


@pytest.fixture(params=LAYOUTS)
def recording(request: pytest.FixtureRequest) -> tuple[ta.Trace, ScenarioFacts]:
    return load_recording(request.param)


def test_ground_truth(recording: tuple[ta.Trace, ScenarioFacts]) -> None:
    trace, facts = recording
    check_facts(trace, facts)


def test_agent_aggregates_are_not_added_again(recording: tuple[ta.Trace, ScenarioFacts]) -> None:
    trace, facts = recording
    # the agent spans repeat their calls' usage under the same gen_ai.usage.* keys
    usage_spans = [s for s in trace.spans if "gen_ai.usage.input_tokens" in s.attributes]
    raw_sum = sum(s.attributes["gen_ai.usage.input_tokens"] for s in usage_spans)
    assert raw_sum == 2 * facts.input_tokens
    assert sum(c.input_tokens or 0 for c in trace.model_calls) == facts.input_tokens
    (top,) = trace.agents
    assert (top.input_tokens, top.output_tokens) == (facts.input_tokens, facts.output_tokens)
    assert top.nested[0].total_tokens == 37 + 7


def test_records_come_from_the_strands_dialect(recording: tuple[ta.Trace, ScenarioFacts]) -> None:
    trace, _ = recording
    assert trace.unclassified == ()
    records = [*trace.reconstruction.all_agents, *trace.tool_executions, *trace.model_calls]
    assert {r.dialect for r in records} == {"strands"}
    # gen_ai.system / provider.name is Strands' own marker, not the model's provider
    assert {c.provider for c in trace.model_calls} == {None}


def test_results_finish_reasons_and_failure(recording: tuple[ta.Trace, ScenarioFacts]) -> None:
    trace, _ = recording
    weather, explode, ask = trace.tool_executions
    assert weather.result == "Sunny, 21C in Paris"
    assert ask.result == "Wear a light jacket."
    assert explode.error is not None
    assert (explode.error.type, explode.error.message) == (
        "RuntimeError",
        "explode failed: the detonator is broken",
    )
    reasons = [c.finish_reasons for c in trace.model_calls]
    assert reasons.count(("tool_use",)) == 3
    assert reasons.count(("end_turn",)) == 2
    assert trace.agents[0].input == "What is the weather in Paris, and what should I wear?"


def test_event_loop_cycles_are_understood_but_not_records() -> None:
    trace, _ = load_recording("strands_events")
    cycles = [s for s in trace.spans if s.name == "execute_event_loop_cycle"]
    assert len(cycles) == 5
    for span in cycles:
        op = trace.operation(span)
        assert op is not None
        assert op.kind == "other"
