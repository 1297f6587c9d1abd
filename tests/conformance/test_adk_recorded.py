"""Google ADK, from its recorded traces (no ADK needed): the ADK dialect rebuilds what the script did.

The traces are the scenario of ``instrumentation/google_adk.py`` recorded with ADK's current telemetry
format (schema 2) and its legacy one (schema 1: ``call_llm`` over ``generate_content``, ``gcp.vertex.agent.*``
JSON keys). Record them again with ``python -m tests._stackfacts adk_schema2 adk_schema1`` in the
ADK environment.
"""

from __future__ import annotations

import pytest

import traceassert as ta
from instrumentation import ScenarioFacts
from tests._stackfacts import check_facts, load_recording


@pytest.fixture(params=["adk_schema2", "adk_schema1"])
def recording(request: pytest.FixtureRequest) -> tuple[ta.Trace, ScenarioFacts]:
    return load_recording(request.param)


def test_ground_truth(recording: tuple[ta.Trace, ScenarioFacts]) -> None:
    trace, facts = recording
    # ADK records no input or output on its agent spans
    check_facts(trace, facts, agent_output=False)


def test_every_record_comes_from_the_adk_dialect(recording: tuple[ta.Trace, ScenarioFacts]) -> None:
    trace, _ = recording
    assert trace.unclassified == ()
    records = [*trace.reconstruction.all_agents, *trace.tool_executions, *trace.model_calls]
    assert {r.dialect for r in records} == {"adk"}


def test_tool_results_failure_and_call_ids(recording: tuple[ta.Trace, ScenarioFacts]) -> None:
    trace, _ = recording
    weather, explode, ask = trace.tool_executions
    # ADK wraps a plain return value as {"result": value}; the dialect unwraps it
    assert weather.result == "Sunny, 21C in Paris"
    assert ask.result == "Wear a light jacket."
    assert [t.call_id for t in trace.tool_executions] == [
        "call_0_get_weather",
        "call_1_explode",
        "call_2_ask_helper",
    ]
    # on_tool_error_callback answered for the tool: the error is in the response, the run went on
    assert explode.error is not None
    assert explode.error.message == "RuntimeError: explode failed: the detonator is broken"
    assert explode.result == {"error": "RuntimeError: explode failed: the detonator is broken"}


def test_legacy_call_llm_and_generate_content_are_one_model_call() -> None:
    trace, facts = load_recording("adk_schema1")
    calls = trace.model_calls
    assert len(calls) == facts.model_calls
    assert [[s.name for s in c.spans] for c in calls] == [
        ["call_llm", f"generate_content scripted-{c.agent.name if c.agent else ''}"] for c in calls
    ]
    assert all(c.operation == "generate_content" for c in calls)
    # ten spans carry gen_ai.usage.*; the tokens count once per logical call
    with_usage = [s for s in trace.spans if "gen_ai.usage.input_tokens" in s.attributes]
    assert len(with_usage) == 2 * facts.model_calls
    assert sum(c.input_tokens or 0 for c in calls) == facts.input_tokens


def test_the_runner_spans_are_workflows() -> None:
    for name, runner in (("adk_schema2", "invoke_workflow orchestrator"), ("adk_schema1", "invocation")):
        trace, _ = load_recording(name)
        root = trace.roots[0]
        assert root.name == runner
        op = trace.operation(root)
        assert op is not None
        assert op.kind == "workflow"


def test_asserter_on_the_recorded_trace() -> None:
    trace, facts = load_recording("adk_schema2")
    asserter = ta.TraceAsserter(trace)
    asserter.called_agent("orchestrator").called_tool("get_weather", count=1)
    asserter.called_agent("helper")
    asserter.under_token_limit(facts.total_tokens)
    with pytest.raises(ta.TraceAssertionError):
        asserter.under_token_limit(facts.total_tokens - 1)
