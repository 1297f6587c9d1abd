"""The order of a run's steps (docs/properties.md): after, directly after, never after, only after,
starts and ends with, retries and repeated calls. On real runs: the shared scenario on Pydantic AI
(live) and on LangGraph, the OpenAI Agents SDK and Google ADK (recorded); Pydantic AI's retry, repeated
and nested scenarios; hand-built spans only for calls of unknown outcome."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest

import traceassert as ta
from tests._stackfacts import recorded_trace
from tests.unit import _poller
from tests.unit._scenarios import trace_of
from tests.unit.spanbuilder import SpanBuilder

pytest.importorskip("pydantic_ai")

RECORDED = ("openinference_langgraph", "openinference_openai_agents", "adk_schema2")
ORCH = "(agent 'orchestrator')"


@pytest.fixture(params=("pydantic_ai", *RECORDED))
def run(request: pytest.FixtureRequest) -> ta.TraceAsserter:
    """get_weather (step 1), explode (step 2, fails), ask_helper (step 3, runs the nested helper)."""
    trace = trace_of("weather") if request.param == "pydantic_ai" else recorded_trace(request.param)
    return ta.TraceAsserter(trace)


def first_line(check: Callable[[], object]) -> str:
    with pytest.raises(ta.TraceAssertionError) as failure:
        check()
    return str(failure.value).splitlines()[0]


def test_after_and_directly_after(run: ta.TraceAsserter) -> None:
    run.calls_tool_after("ask_helper", "get_weather").calls_tool_after("ask_*", "explode")
    run.calls_tool_directly_after("explode", "get_weather").calls_tool_directly_after("ask_helper", "ex*")
    assert first_line(lambda: run.calls_tool_after("get_weather", "explode")) == (
        "calls_tool_after('get_weather', 'explode'): expected a call of 'get_weather' after a call of "
        f"'explode', found 'get_weather' at step 1 {ORCH}, but every call of 'explode' came later: 'explode' "
        f"at step 2 {ORCH}"
    )
    assert first_line(lambda: run.calls_tool_directly_after("ask_helper", "get_weather")) == (
        "calls_tool_directly_after('ask_helper', 'get_weather'): expected a call of 'ask_helper' as the step "
        "directly after a call of 'get_weather', found 1 call(s) of 'get_weather', none followed by it: "
        f"after step 1 came 'explode' at step 2 {ORCH}"
    )
    assert "found no call of 'search'" in first_line(lambda: run.calls_tool_after("get_weather", "search"))
    assert "step 3 was the last" in first_line(lambda: run.calls_tool_directly_after("x", "ask_helper"))


def test_never_after_and_only_after(run: ta.TraceAsserter) -> None:
    run.does_not_call_tool_after("get_weather", "explode").does_not_call_tool_after("delete_*", "get_*")
    run.calls_tool_only_after("ask_helper", "get_weather").calls_tool_only_after("confirm_booking", "consent")
    assert first_line(lambda: run.does_not_call_tool_after("ask_helper", "explode")) == (
        "does_not_call_tool_after('ask_helper', 'explode'): expected no call of 'ask_helper' after a call of "
        f"'explode', found 'ask_helper' at step 3 {ORCH}, after 'explode' at step 2 {ORCH}"
    )
    # a failed call does not open the way
    assert first_line(lambda: run.calls_tool_only_after("ask_helper", "explode")) == (
        "calls_tool_only_after('ask_helper', 'explode'): expected every call of 'ask_helper' to come after a "
        f"successful call of 'explode', found 'ask_helper' at step 3 {ORCH} after only failed calls of it: "
        f"'explode' at step 2 {ORCH}"
    )
    assert "with none before it" in first_line(lambda: run.calls_tool_only_after("get_weather", "ask_helper"))


def test_starts_and_ends_with(run: ta.TraceAsserter) -> None:
    run.starts_with_tool("get_weather").ends_with_tool("ask_helper").ends_with_tool("ask_*")
    assert first_line(lambda: run.ends_with_tool("explode")) == (
        "ends_with_tool('explode'): expected the last step to be a call of 'explode', found 'ask_helper' at "
        f"step 3 {ORCH}; 'explode' at step 2 {ORCH}"
    )
    assert first_line(lambda: run.starts_with_tool("submit")).endswith("; 'submit' was never called")


def test_a_failed_call_must_be_retried_or_end_the_run(run: ta.TraceAsserter) -> None:
    assert first_line(lambda: run.has_retried_failed_tools()) == (
        "has_retried_failed_tools(): expected every failed call to be retried until it succeeds, or the run "
        f"to stop there, found 'explode' at step 2 {ORCH} failed, and was not retried: the run went on with "
        f"'ask_helper' at step 3 {ORCH}"
    )
    run.has_retried_failed_tools("get_weather")  # never failed: nothing to retry


def test_retries_with_changed_arguments() -> None:
    retry = ta.TraceAsserter(trace_of("retry"))  # get_weather fails twice, then succeeds with other arguments
    retry.has_retried_failed_tools().has_retried_failed_tools("get_*", changed_arguments=True)
    assert first_line(lambda: retry.has_retried_failed_tools(changed_arguments=False)) == (
        "has_retried_failed_tools(changed_arguments=False): expected every failed call to be retried until it "
        "succeeds with the same arguments, or the run to stop there, found 'get_weather' at step 1 (agent "
        "'weather') failed; its successful retries have other arguments: 'get_weather' at step 3 (agent "
        "'weather')"
    )
    # a run that stops at its failure is fine: the booking agent's last step fails
    ta.TraceAsserter(trace_of("failing")).has_failed().has_retried_failed_tools()


def test_a_call_that_records_no_outcome_may_have_needed_a_retry() -> None:
    """OpenTelemetry's OpenAI instrumentation records the model calls only: get_weather, explode (which
    failed) and ask_helper are read from the conversation, and none says whether it failed."""
    chat_only = ta.TraceAsserter(recorded_trace("openai_v2_chat_only"))
    assert [t.failed for t in chat_only.trace.tool_executions] == [None, None, None]
    assert first_line(lambda: chat_only.has_retried_failed_tools("explode")) == (
        "has_retried_failed_tools('explode'): expected every failed call of 'explode' to be retried until it "
        "succeeds, or the run to stop there, found 'explode' at step 2 (outside any agent), which records no "
        "outcome, and no later call of it is known to have succeeded: cannot tell whether it failed and "
        "needed a retry (accepting_unknown_outcomes() accepts it)"
    )
    chat_only.has_retried_failed_tools("ask_*")  # the last step: the run stopped there
    chat_only.accepting_unknown_outcomes().has_retried_failed_tools()


def test_repeated_calls() -> None:
    repeated = ta.TraceAsserter(trace_of("repeated"))  # get_weather Paris, London, Paris
    repeated.does_not_repeat_tool_calls(max_count=2).does_not_repeat_tool_calls_in_a_row()
    assert first_line(lambda: repeated.does_not_repeat_tool_calls()) == (
        "does_not_repeat_tool_calls(): expected no identical call (name and arguments) more than 1 time(s), "
        "found get_weather(city='Paris') 2 times, at steps 1, 3 (agent 'forecaster')"
    )
    ta.TraceAsserter(trace_of("retry")).does_not_repeat_tool_calls().does_not_repeat_tool_calls_in_a_row()


def test_identical_calls_in_a_row() -> None:
    nested = ta.TraceAsserter(trace_of("nested"))  # research -> researcher: search, search; book_hotel
    nested.does_not_repeat_tool_calls_in_a_row()  # the two searches differ
    b = SpanBuilder()
    agent = b.agent("poller")
    for _ in range(3):
        b.tool("status", agent, args='{"job": 7}', result="pending")
    poller = ta.TraceAsserter(b.trace())
    assert first_line(lambda: poller.does_not_repeat_tool_calls_in_a_row()) == (
        "does_not_repeat_tool_calls_in_a_row(): expected no step to repeat the call (name and arguments) of "
        "the step before it, found status(job=7) at steps 1 and 2 (agent 'poller') (2 repeats in all)"
    )
    assert "status(job=7) 3 times" in first_line(lambda: poller.does_not_repeat_tool_calls(max_count=2))


def test_the_nesting_choice_decides_the_steps() -> None:
    nested = ta.TraceAsserter(trace_of("nested"))
    # with the nested researcher's searches: research, search, search, book_hotel
    nested.calls_tool_directly_after("search", "research").calls_tool_after("book_hotel", "search")
    assert "after step 1 came 'search' at step 2 (agent 'researcher')" in first_line(
        lambda: nested.calls_tool_directly_after("book_hotel", "research")
    )
    top = nested.top_level_only()
    top.calls_tool_directly_after("book_hotel", "research").does_not_call_tool_after("search", "research")
    planner = nested.called_agent("researcher")
    planner.starts_with_tool("search").ends_with_tool("search")
    with pytest.raises(ta.TraceAssertionError) as failure:
        top.calls_tool_after("book_hotel", "search")
    assert "steps in the selection (2) (top level only):" in str(failure.value)


def test_no_steps_cannot_tell(run: ta.TraceAsserter) -> None:
    helper = run.called_agent("helper")  # the helper calls no tool
    for check in (
        lambda: helper.does_not_call_tool_after("a", "b"),
        lambda: helper.calls_tool_only_after("a", "b"),
        lambda: helper.does_not_repeat_tool_calls(),
        lambda: helper.has_retried_failed_tools(),
    ):
        assert "cannot tell: the selection records no tool execution" in first_line(check)


def test_calls_of_unknown_outcome_cannot_tell() -> None:
    """A chat-only producer asks for ``delete``; the only tool span is another producer's (its own scope),
    so whether ``delete`` ran, and where in the sequence, is unknown."""
    b = SpanBuilder()
    planner = b.agent("planner")
    asks = '[{"role": "assistant", "parts": [{"type": "tool_call", "name": "delete", "arguments": {}, "id": "c1"}]}]'
    b.chat(planner, **{"gen_ai.output.messages": asks})
    clerk = b.agent("clerk")
    b.tool("search", clerk, '{"q": "x"}', "ok")
    spans = b.spans[:-2] + [dataclasses.replace(s, scope_name="tests.clerk") for s in b.spans[-2:]]
    a = ta.TraceAsserter(ta.Trace(spans))
    line = first_line(lambda: a.does_not_call_tool_after("delete", "search"))
    assert "found just that in 1 recorded step(s), but cannot tell: tool 'delete' was requested" in line
    assert "cannot tell" in first_line(lambda: a.ends_with_tool("search"))
    a.accepting_unknown_outcomes().does_not_call_tool_after("delete", "search").ends_with_tool("search")


@pytest.fixture(params=("pydantic_ai", "langgraph"))
def poller(request: pytest.FixtureRequest) -> ta.TraceAsserter:
    """job_status(job=7) twice in a row, fetch_report(pdf) fails, fetch_report(csv) succeeds."""
    if request.param == "langgraph":
        pytest.importorskip("langgraph")
        return ta.TraceAsserter(_poller.langgraph_trace())
    return ta.TraceAsserter(_poller.pydantic_ai_trace())


def test_repeats_and_retries_on_two_stacks(poller: ta.TraceAsserter) -> None:
    poller.has_retried_failed_tools().has_retried_failed_tools("fetch_*", changed_arguments=True)
    poller.calls_tool_directly_after("fetch_report", "job_status").ends_with_tool("fetch_report")
    poller.does_not_repeat_tool_calls(max_count=2)
    assert first_line(lambda: poller.does_not_repeat_tool_calls_in_a_row()) == (
        "does_not_repeat_tool_calls_in_a_row(): expected no step to repeat the call (name and arguments) of "
        "the step before it, found job_status(job=7) at steps 1 and 2 (agent 'poller')"
    )
    assert first_line(lambda: poller.does_not_repeat_tool_calls()) == (
        "does_not_repeat_tool_calls(): expected no identical call (name and arguments) more than 1 time(s), "
        "found job_status(job=7) 2 times, at steps 1, 2 (agent 'poller')"
    )
    assert first_line(lambda: poller.has_retried_failed_tools(changed_arguments=False)) == (
        "has_retried_failed_tools(changed_arguments=False): expected every failed call to be retried until it "
        "succeeds with the same arguments, or the run to stop there, found 'fetch_report' at step 3 (agent "
        "'poller') failed; its successful retries have other arguments: 'fetch_report' at step 4 (agent "
        "'poller')"
    )


def test_a_run_without_repeats(run: ta.TraceAsserter) -> None:
    run.does_not_repeat_tool_calls().does_not_repeat_tool_calls_in_a_row()


def test_wrong_arguments_are_errors(run: ta.TraceAsserter) -> None:
    with pytest.raises(TypeError, match="a tool name must be a str, got 3"):
        run.calls_tool_after(3, "get_weather")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="must not be empty"):
        run.starts_with_tool("")
    with pytest.raises(TypeError, match="changed_arguments must be True, False or None"):
        run.has_retried_failed_tools(changed_arguments="yes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_count must be >= 1"):
        run.does_not_repeat_tool_calls(max_count=0)
    with pytest.raises(TypeError, match="max_count must be an int"):
        run.does_not_repeat_tool_calls(max_count=True)


def test_soft_collects_the_rules(run: ta.TraceAsserter) -> None:
    with pytest.raises(ta.TraceAssertionError) as failure:
        with run.soft() as s:
            s.ends_with_tool("explode").starts_with_tool("get_weather")
            s.has_retried_failed_tools()
            s.calls_only_tools("get_*")
    text = str(failure.value)
    assert text.startswith("3 checks failed:")
    assert "ends_with_tool('explode')" in text and "calls_only_tools('get_*')" in text


def test_secrets_in_arguments_are_redacted() -> None:
    b = SpanBuilder()
    agent = b.agent("bot")
    for _ in range(2):
        b.tool("login", agent, '{"user": "ann", "api_key": "sk-live-0123456789abcdef"}', "ok")
    text = first_line(lambda: ta.TraceAsserter(b.trace()).does_not_repeat_tool_calls_in_a_row())
    assert "login(user='ann', api_key=" in text and "0123456789abcdef" not in text


def test_a_nesting_line_when_nested_agents_steps_decide() -> None:
    nested = ta.TraceAsserter(trace_of("nested"))  # planner: research (researcher: search x2), book_hotel
    with pytest.raises(ta.TraceAssertionError) as failure:
        nested.calls_tool_directly_after("book_hotel", "research")
    assert str(failure.value).splitlines()[1] == (
        "nesting: 'search' was called once, by nested agent 'researcher' inside 'planner'; top_level_only() "
        "checks planner's own steps only"
    )
    with pytest.raises(ta.TraceAssertionError) as failure:
        nested.top_level_only().calls_tool_directly_after("research", "book_hotel")
    assert "nesting:" not in str(failure.value)
