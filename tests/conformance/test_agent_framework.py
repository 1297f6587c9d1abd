"""Microsoft Agent Framework through traceassert: its built-in GenAI spans, read by the GenAI dialect,
agree with the scenario's ground truth, live (needs ``agent-framework-core``) and from the recorded trace
``tests/data/agent_framework.json`` (needs nothing). Record again with
``python -m tests._stackfacts agent_framework``.
"""

from __future__ import annotations

import pytest

import traceassert as ta
from instrumentation import ScenarioFacts
from instrumentation._scenario import EXPLODE_MESSAGE, HELPER_QUESTION, PROMPT
from tests._stackcases import live_and_recorded
from tests._stackfacts import (
    check_facts,
    check_spans_follow_the_global_provider,
    check_with_asserter,
    stack_module,
)

STACK = "instrumentation.agent_framework"
RECORDING = "agent_framework"


case = live_and_recorded(STACK, RECORDING)


def test_six_facts(case: tuple[ta.Trace, ScenarioFacts]) -> None:
    trace, facts = case
    check_facts(trace, facts, dialect="genai", operation="chat")
    check_with_asserter(trace, facts)


def test_every_span_is_understood(case: tuple[ta.Trace, ScenarioFacts]) -> None:
    trace, _ = case
    assert trace.unclassified == ()
    assert {s.scope_name for s in trace.spans} == {"agent_framework"}
    assert {c.provider for c in trace.model_calls} == {"scripted"}  # the client's OTEL_PROVIDER_NAME


def test_the_agent_totals_are_not_added_again(case: tuple[ta.Trace, ScenarioFacts]) -> None:
    trace, facts = case
    # invoke_agent repeats the usage of its model calls under the same gen_ai.usage.* keys
    raw = sum(s.attributes.get("gen_ai.usage.input_tokens", 0) for s in trace.spans)
    assert raw == 2 * facts.input_tokens
    (top,) = trace.agents
    assert top.total_tokens == facts.total_tokens
    assert top.nested[0].total_tokens == 37 + 7


def test_the_failed_tool_inputs_and_outputs(case: tuple[ta.Trace, ScenarioFacts]) -> None:
    trace, _ = case
    weather, explode, ask = trace.tool_executions
    assert (weather.result, ask.result) == ("Sunny, 21C in Paris", "Wear a light jacket.")
    # a call without arguments is recorded as gen_ai.tool.call.arguments = "None" (str(None))
    (span,) = [s for s in trace.spans if s.name == "execute_tool explode"]
    assert span.attributes["gen_ai.tool.call.arguments"] == "None"
    assert explode.arguments == {}
    assert explode.error is not None
    assert (explode.error.type, explode.error.message) == ("RuntimeError", EXPLODE_MESSAGE)
    requested = [r.call_id for c in trace.model_calls for r in c.requested_tools]
    assert requested == [t.call_id for t in trace.tool_executions]
    (top,) = trace.agents
    assert top.input == PROMPT
    assert top.nested[0].input == HELPER_QUESTION


def test_spans_follow_the_global_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    check_spans_follow_the_global_provider(stack_module(STACK), monkeypatch)


def test_uninstrument_restores_the_settings() -> None:
    stack = stack_module(STACK)
    from agent_framework import observability

    settings = observability.OBSERVABILITY_SETTINGS
    before = (settings.enable_instrumentation, settings.enable_sensitive_data, observability.get_tracer)
    recorder_spans = stack.record_spans()
    assert recorder_spans
    after = (settings.enable_instrumentation, settings.enable_sensitive_data, observability.get_tracer)
    assert after == before
