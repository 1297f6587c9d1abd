"""The invocation checks where planted bugs survived the other tests (tests/mutants/catalogue_checks.py):
an execution that records no outcome is neither a success nor a failure (on a real recording:
OpenTelemetry's OpenAI instrumentation records the model calls only, so get_weather, explode, which
failed, and ask_helper are read from the conversation, with no outcome); after a span selector, the
outermost invocations are the targets (Pydantic AI's nested run); a "not recorded" hint only where the
fact is missing (a recorded LangGraph trace, one span edited)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest

import traceassert as ta
from tests._stackfacts import recorded_trace
from tests.unit._scenarios import trace_of
from traceassert._model.span import freeze_attributes

pytest.importorskip("pydantic_ai")


def first_line(check: Callable[[], object]) -> str:
    with pytest.raises(ta.TraceAssertionError) as failure:
        check()
    return str(failure.value).splitlines()[0]


@pytest.fixture(scope="module")
def chat_only() -> ta.Trace:
    trace = recorded_trace("openai_v2_chat_only")
    assert [(t.name, t.failed) for t in trace.tool_executions] == [
        ("get_weather", None),
        ("explode", None),
        ("ask_helper", None),
    ]
    return trace


def test_an_execution_of_unknown_outcome_is_not_a_success_with_those_arguments(chat_only: ta.Trace) -> None:
    run = ta.TraceAsserter(chat_only)
    assert first_line(lambda: run.has_tool_executed_with("get_weather", {"city": "Paris"})) == (
        "has_tool_executed_with('get_weather', {'city': 'Paris'}) on the work outside any agent: expected a "
        "successful execution of 'get_weather' with matching arguments, found 1 execution(s), none "
        "successful: 1 whose outcome the producer did not record"
    )


def test_an_execution_of_unknown_outcome_is_not_a_failure(chat_only: ta.Trace) -> None:
    run = ta.TraceAsserter(chat_only)
    assert first_line(lambda: run.has_tool_execution_failed("explode")) == (
        "has_tool_execution_failed('explode') on the work outside any agent: expected a failed execution of "
        "'explode', found 0 successful execution(s) and 1 whose outcome the producer did not record"
    )


def test_after_a_span_selector_nested_invocations_are_not_targets_beside_their_parent() -> None:
    """Every span of the nested run: the planner is the one target; its researcher is nested in it."""
    everything = ta.TraceAsserter(trace_of("nested")).where(predicate=lambda s: True).top_level_only()
    everything.has_tool_executed_times("research", 1).has_tool_executed_times("search", 0)
    assert first_line(lambda: everything.has_tool_executed("book_*", count=2)).startswith(
        "has_tool_executed('book_*', count=2) on agent 'planner': "
    )


def test_a_failed_tool_whose_result_is_recorded_gets_no_hint() -> None:
    """LangGraph's instrumentations never record a failed tool's result; where one is recorded anyway
    (here written into the recorded explode span), no hint says it is not."""
    trace = recorded_trace("openinference_langgraph")
    spans = [
        dataclasses.replace(s, attributes=freeze_attributes({**s.attributes, "output.value": "partial"}))
        if s.attributes.get("tool.name") == "explode"
        else s
        for s in trace.spans
    ]
    edited = ta.Trace(spans)
    (explode,) = [t for t in edited.tool_executions if t.name == "explode"]
    assert explode.failed and explode.result == "partial"
    with pytest.raises(ta.TraceAssertionError) as failure:
        ta.assert_trace(edited).called_tool("explode").contains_output("detonator")
    assert "not recorded" not in str(failure.value)
    # the recording as it is: the hint
    with pytest.raises(ta.TraceAssertionError) as failure:
        ta.assert_trace(trace).called_tool("explode").contains_output("detonator")
    assert "does not record the result of a failed tool" in str(failure.value)
