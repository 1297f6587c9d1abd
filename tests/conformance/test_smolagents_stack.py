"""smolagents + ``openinference-instrumentation-smolagents``: a ``ToolCallingAgent`` with a managed agent.

Live tests need smolagents and the instrumentation; the recorded trace
(``tests/data/openinference_smolagents.json``) needs neither. Record again with
``python -m tests._stackfacts openinference_smolagents``. The shape (answers are ``final_answer``
calls; the managed agent is called as the tool ``helper``) is `instrumentation/_smolagents_scenario.py`.
"""

from __future__ import annotations

import pytest

import traceassert as ta
from instrumentation import ScenarioFacts
from tests._stackcases import live_and_recorded, live_async_trace, uninstrumented_trace
from tests._stackfacts import check_facts, check_with_asserter, recorded_facts, stack_module

RECORDING = "openinference_smolagents"
STACK = "instrumentation.smolagents_openinference"


case = live_and_recorded(STACK, RECORDING)


def test_six_facts(case: tuple[ta.Trace, ScenarioFacts]) -> None:
    check_facts(*case, dialect="openinference", operation="chat")


def test_the_asserter_agrees(case: tuple[ta.Trace, ScenarioFacts]) -> None:
    check_with_asserter(*case)


def test_the_managed_agent_is_a_nested_agent_not_a_tool(case: tuple[ta.Trace, ScenarioFacts]) -> None:
    """The manager's model calls the tool ``helper``; smolagents runs the agent with no tool span: the
    request is carried out by the nested invocation, not left "requested, not executed"."""
    trace, _ = case
    (helper,) = (a for a in trace.all_agents() if a.name == "helper")
    (request,) = (r for c in trace.model_calls for r in c.requested_tools if r.name == "helper")
    assert request.agent is helper and request.execution is None and request.executed
    assert request.arguments == {"task": "What should I wear?"}
    assert trace.unexecuted_tool_requests == ()
    assert "helper" not in {t.name for t in trace.tool_executions}
    assert "not executed" not in trace.render()
    assert trace.summary()["totals"]["unexecuted_tool_requests"] == 0


def test_tool_arguments_are_the_call_kwargs(case: tuple[ta.Trace, ScenarioFacts]) -> None:
    """The tool span's ``input.value`` is ``Tool.__call__``'s bound arguments; the tool's own are its
    ``kwargs``."""
    trace, _ = case
    weather = trace.tool_executions[0]
    assert weather.name == "get_weather" and weather.arguments == {"city": "Paris"}
    assert weather.span is not None
    raw = weather.span.attributes["input.value"]
    assert raw == '{"args": [], "sanitize_inputs_outputs": true, "kwargs": {"city": "Paris"}}'
    assert weather.call_id == "call_scripted-orchestrator_0"  # from the model's request


def test_the_failed_tool_and_the_run_goes_on(case: tuple[ta.Trace, ScenarioFacts]) -> None:
    trace, facts = case
    (explode,) = (t for t in trace.tool_executions if t.failed)
    assert explode.error is not None
    assert (explode.error.type, explode.error.message) == (
        "RuntimeError",
        "explode failed: the detonator is broken",
    )
    (top,) = trace.agents
    assert top.status == "succeeded" and top.output == facts.final_output
    with pytest.raises(ta.TraceAssertionError, match="explode"):
        ta.TraceAsserter(trace).including_nested().has_no_failed_tool_executions()


def test_agent_spans_repeat_usage_but_tokens_count_once(case: tuple[ta.Trace, ScenarioFacts]) -> None:
    """``orchestrator.run`` carries its own calls' usage under the model-call keys: counted once."""
    trace, facts = case
    (top,) = trace.agents
    assert top.spans[0].attributes["llm.token_count.prompt"] == 101 + 123 + 147 + 171
    assert sum(c.input_tokens or 0 for c in trace.model_calls) == facts.input_tokens
    assert {c.provider for c in trace.model_calls} == {"openai"}


def test_the_recorded_facts_are_the_script() -> None:
    assert stack_module(STACK).EXPECTED.to_json() == recorded_facts(RECORDING).to_json()


def test_async_run_records_the_same_facts() -> None:
    stack = stack_module(STACK)
    trace = live_async_trace(stack)
    check_facts(trace, stack.EXPECTED, dialect="openinference")


def test_uninstrumented_runs_record_nothing() -> None:
    assert uninstrumented_trace(stack_module(STACK)).spans == ()


def test_agent_inputs_are_the_tasks(case: tuple[ta.Trace, ScenarioFacts]) -> None:
    """The run span's ``input.value`` is ``run``'s arguments as JSON: the input is its ``task`` (the
    managed agent's is smolagents' prompt around the manager's question)."""
    trace, _ = case
    (top,) = trace.agents
    (helper,) = top.nested
    assert top.input == "What is the weather in Paris, and what should I wear?"
    assert isinstance(helper.input, str) and "What should I wear?" in helper.input
