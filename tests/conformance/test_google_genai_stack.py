"""Google GenAI SDK with automatic function calling + ``opentelemetry-instrumentation-google-genai``, live
(needs ``google-genai`` < 3 and the instrumentation) and recorded (``tests/data/google_genai.json``,
needs nothing). Record again with ``python -m tests._stackfacts google_genai``.
"""

from __future__ import annotations

from types import ModuleType

import pytest

import traceassert as ta
from instrumentation import ScenarioFacts
from instrumentation._scenario import EXPECTED as SCRIPT
from tests._stackcases import live_and_recorded, live_async_trace, recorded_spans_trace, uninstrumented_trace
from tests._stackfacts import (
    check_facts,
    check_spans_follow_the_global_provider,
    check_with_asserter,
    stack_module,
)

STACK = "instrumentation.google_genai"


case = live_and_recorded(STACK, "google_genai")


def test_six_facts(case: tuple[ta.Trace, ScenarioFacts]) -> None:
    trace, facts = case
    check_facts(trace, facts, dialect="genai", operation="generate_content")
    check_with_asserter(trace, facts)


def test_the_turns_inside_automatic_function_calling_are_not_recorded(
    case: tuple[ta.Trace, ScenarioFacts],
) -> None:
    """One span for the whole AFC loop, with the usage of its last turn: the script's first three
    orchestrator turns (their function calls and tokens) are in no span."""
    trace, facts = case
    assert (facts.model_calls, SCRIPT.model_calls) == (2, 5)
    assert (facts.total_tokens, SCRIPT.total_tokens) == (234, 646)
    orchestrator_call = trace.agents[0].model_calls[0]
    assert (orchestrator_call.input_tokens, orchestrator_call.output_tokens) == (171, 19)
    assert orchestrator_call.requested_tools == ()
    # the tools ran inside that call: its span is their parent
    assert all(t.span.parent_id == orchestrator_call.spans[0].span_id for t in trace.tool_executions)
    with pytest.raises(ta.TraceAssertionError, match="model call"):
        ta.TraceAsserter(trace).called_agent("orchestrator").including_nested().has_model_call_count(5)


def test_tool_spans(case: tuple[ta.Trace, ScenarioFacts]) -> None:
    trace, _ = case
    tools = trace.tool_executions
    assert [t.call_id for t in tools] == [None, None, None]  # the wrapper sees no call id
    assert [t.result for t in tools] == ["Sunny, 21C in Paris", None, "Wear a light jacket."]
    (explode,) = (t for t in tools if t.failed)
    assert explode.error is not None
    assert (explode.error.type, explode.error.message) == (
        "RuntimeError",
        "explode failed: the detonator is broken",
    )
    assert {c.provider for c in trace.model_calls} == {"gemini"}


# -- live only ---------------------------------------------------------------------------------------


@pytest.fixture
def stack() -> ModuleType:
    pytest.importorskip("google.genai")
    pytest.importorskip("opentelemetry.instrumentation.google_genai")
    return stack_module(STACK)


def test_async_client(stack: ModuleType) -> None:
    check_facts(live_async_trace(stack), stack.EXPECTED, dialect="genai")


def test_without_the_apps_agent_spans(stack: ModuleType) -> None:
    """The instrumentation alone: the tools and the nested call are recorded, no agent."""
    trace = recorded_spans_trace(stack, agent_spans=False)
    assert [t.name for t in trace.tool_executions] == list(stack.EXPECTED.tools_in_order)
    assert [t.arguments for t in trace.tool_executions] == [dict(a) for a in stack.EXPECTED.tool_arguments]
    assert len(trace.model_calls) == stack.EXPECTED.model_calls
    assert all(a.implicit for a in trace.agents)


def test_spans_follow_the_global_provider(stack: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    check_spans_follow_the_global_provider(stack, monkeypatch)


def test_uninstrument_stops_the_spans(stack: ModuleType) -> None:
    assert uninstrumented_trace(stack).spans == ()
