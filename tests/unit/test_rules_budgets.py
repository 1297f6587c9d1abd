"""Budgets over a run (docs/properties.md): steps of every kind, tokens of every kind, the share of failed
tool calls. On the booking run on Pydantic AI and on LangGraph under OpenInference (live), on recorded
handoffs of the OpenAI Agents SDK (OpenInference and OpenLLMetry) and LangGraph, and on recordings of
producers that record the counts differently; hand-built spans for outcomes the trace does not record."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest

import traceassert as ta
from tests._stackfacts import recorded_trace
from tests._thirdparty import third_party
from tests.unit import _booking
from tests.unit._scenarios import Spans, trace_of
from traceassert._model.span import freeze_attributes

pytest.importorskip("pydantic_ai")
pytest.importorskip("langgraph")

BOOKER = "(agent 'booker')"


def first_line(check: Callable[[], object]) -> str:
    with pytest.raises(ta.TraceAssertionError) as failure:
        check()
    return str(failure.value).splitlines()[0]


@pytest.fixture(params=sorted(_booking.TRACES))
def booking(request: pytest.FixtureRequest) -> ta.TraceAsserter:
    """search_flights, book_flight (fails), book_flight, send_receipt; 5 model calls (`_booking.USAGE`)."""
    return ta.TraceAsserter(_booking.TRACES[request.param]())


def test_steps_of_every_kind(booking: ta.TraceAsserter) -> None:
    booking.under_step_limits(tools=4, model_calls=5, agent_runs=1, handoffs=0, retries=1)
    assert first_line(lambda: booking.under_step_limits(tools=3, retries=0)) == (
        "under_step_limits(tools=3, retries=0): expected at most 3 tool call(s) and at most 0 retry call(s), "
        f"found 4 tool call(s): 'search_flights' at step 1 {BOOKER}, 'book_flight' at step 2 {BOOKER}, "
        f"'book_flight' at step 3 {BOOKER}, 'send_receipt' at step 4 {BOOKER}; 1 retry call(s): 'book_flight' "
        f"at step 3 {BOOKER} after its failed call at step 2"
    )
    line = first_line(lambda: booking.under_step_limits(model_calls=4, agent_runs=0))
    assert line.startswith(
        "under_step_limits(model_calls=4, agent_runs=0): expected at most 4 model call(s) and at most 0 agent "
        "run(s), found 5 model call(s): chat scripted-booker (agent 'booker'), "
    )
    assert line.endswith("; 1 agent run(s): 'booker'")


def test_tokens_of_every_kind(booking: ta.TraceAsserter) -> None:
    # USAGE: input 700, output 70, cache read 400, reasoning 30
    booking.under_token_limits(input=700, output=70, total=770, cache_read=400, reasoning=30)
    assert [c.cache_read_tokens for c in booking.trace.model_calls] == [40, 60, 80, 100, 120]
    assert [c.reasoning_tokens for c in booking.trace.model_calls] == [4, 5, 6, 7, 8]
    assert first_line(lambda: booking.under_token_limits(cache_read=399, reasoning=29, input=700)) == (
        "under_token_limits(input=700, cache_read=399, reasoning=29): expected at most 700 input tokens and at "
        "most 399 cache-read input tokens and at most 29 reasoning tokens, used 400 cache-read input tokens in "
        "5 model call(s); 30 reasoning tokens in 5 model call(s)"
    )
    assert "used 771" not in first_line(lambda: booking.under_token_limits(total=769))
    assert first_line(lambda: booking.under_token_limits(output=69)).endswith(
        "used 70 output tokens in 5 model call(s)"
    )


def test_the_share_of_failed_calls(booking: ta.TraceAsserter) -> None:
    booking.under_tool_failure_rate(0.25).under_tool_failure_rate(1)
    assert first_line(lambda: booking.under_tool_failure_rate(0.2)) == (
        "under_tool_failure_rate(0.2): expected at most 20% of the tool calls to fail, found 1 of 4 failed "
        f"(25%): 'book_flight' at step 2 {BOOKER}"
    )
    with pytest.raises(ValueError, match="share between 0 and 1"):
        booking.under_tool_failure_rate(25)
    with pytest.raises(ValueError, match="at least one limit"):
        booking.under_step_limits()
    with pytest.raises(TypeError, match="tools must be an int"):
        booking.under_step_limits(tools=2.5)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "recording",
    ["openinference_openai_agents_handoffs_parallel", "traceloop_openai_agents_handoffs_parallel"],
)
def test_handoffs_and_agent_runs_of_recorded_handoffs(recording: str) -> None:
    desk = ta.TraceAsserter(recorded_trace(recording))
    desk.under_step_limits(handoffs=1, agent_runs=2)
    assert first_line(lambda: desk.under_step_limits(handoffs=0, agent_runs=1)) == (
        "under_step_limits(agent_runs=1, handoffs=0): expected at most 1 agent run(s) and at most 0 "
        "handoff(s), found 2 agent run(s): 'concierge', 'bookings'; 1 handoff(s): concierge -> bookings"
    )
    desk.called_agent("bookings").under_step_limits(handoffs=0, agent_runs=1)


@pytest.mark.parametrize("source", ["pydantic_ai", "openinference_langgraph"])
def test_nested_agents_count_unless_top_level_only(source: str) -> None:
    trace = trace_of("weather") if source == "pydantic_ai" else recorded_trace(source)
    check = ta.TraceAsserter(trace).called_agent("orchestrator")
    assert "found 2 agent run(s): 'orchestrator', 'helper'" in first_line(
        lambda: check.under_step_limits(agent_runs=1)
    )
    check.top_level_only().under_step_limits(agent_runs=1, model_calls=4)
    assert "found 5 model call(s)" in first_line(lambda: check.under_step_limits(model_calls=4))


@pytest.mark.parametrize(
    ("recording", "cache_read", "reasoning"),
    [
        ("openinference_openai_agents", 0, 0),  # llm.token_count.*_details.*
        (
            "traceloop_openai_agents",
            0,
            0,
        ),  # gen_ai.usage.cache_read.input_tokens, gen_ai.usage.reasoning_tokens
        ("anthropic_traceloop", 0, None),
    ],
)
def test_recorded_producers_give_the_token_details(
    recording: str, cache_read: int, reasoning: int | None
) -> None:
    calls = recorded_trace(recording).model_calls
    assert {c.cache_read_tokens for c in calls} == {cache_read}
    assert {c.reasoning_tokens for c in calls} == {reasoning}


@pytest.mark.parametrize(
    "recording",
    [
        "openinference_langgraph",  # no detail recorded at all
        "strands_latest",  # cache reads recorded on the agent spans only, not on the model calls
        "pydantic_ai_current",  # Pydantic AI writes the counts only where they are not 0
    ],
)
def test_counts_not_recorded_cannot_tell(recording: str) -> None:
    check = ta.TraceAsserter(recorded_trace(recording))
    assert first_line(lambda: check.under_token_limits(cache_read=1000, reasoning=1000)).endswith(
        "cannot tell: no model call in the selection records cache-read input tokens; no model call in the "
        "selection records reasoning tokens"
    )


def test_a_call_without_usage_cannot_tell_unless_the_limit_is_passed() -> None:
    spans = Spans()
    agent = spans.agent("a")
    spans.model(agent, tokens=(100, 10))
    spans.model(agent, tokens=None)
    check = ta.TraceAsserter(ta.Trace(spans.spans))
    assert first_line(lambda: check.under_token_limits(input=500)) == (
        "under_token_limits(input=500): expected at most 500 input tokens; cannot tell: 100 input tokens in "
        "the 1 model call(s) that record them, but 1 record no token usage (chat test-model [agent a])"
    )
    assert "used 100 input tokens" in first_line(lambda: check.under_token_limits(input=50))


def test_a_detail_missing_beside_recorded_ones_counts_zero() -> None:
    spans = Spans()
    agent = spans.agent("a")
    spans.model(agent, tokens=(100, 10))
    cached = spans.spans[-1]
    spans.spans[-1] = dataclasses.replace(
        cached,
        attributes=freeze_attributes({**cached.attributes, "gen_ai.usage.cache_read.input_tokens": 60}),
    )
    spans.model(agent, tokens=(100, 10))  # records usage, no cache read: none was read
    check = ta.TraceAsserter(ta.Trace(spans.spans))
    check.under_token_limits(cache_read=60)
    assert "used 60 cache-read input tokens in 1 model call(s)" in first_line(
        lambda: check.under_token_limits(cache_read=59)
    )


def test_no_record_at_all_cannot_tell() -> None:
    empty = ta.TraceAsserter(ta.Trace([]))
    assert "cannot tell: the selection records no tool execution" in first_line(
        lambda: empty.under_step_limits(tools=1)
    )
    assert first_line(lambda: empty.under_token_limits(total=1)).endswith(
        "cannot tell: the selection records no model call"
    )
    assert "cannot tell: the selection records no tool execution" in first_line(
        lambda: empty.under_tool_failure_rate(0.5)
    )
    spans = Spans()
    spans.model(spans.agent("a"), text="Hi")
    greeter = ta.TraceAsserter(ta.Trace(spans.spans))
    greeter.under_step_limits(tools=0, model_calls=1, retries=0)


def test_a_tool_limit_names_the_calls_of_unknown_outcome() -> None:
    """OpenInference's OpenAI client instrumentation records the model's call of lookup_order, never
    whether it ran (a trace of another project)."""
    check = ta.TraceAsserter(
        ta.load_trace(third_party("peers/traces/Grace__genai-interlingua/testdata__openinference__in.json"))
    )
    assert first_line(lambda: check.under_step_limits(tools=0, retries=0)) == (
        "under_step_limits(tools=0, retries=0): expected at most 0 tool call(s) and at most 0 retry call(s); "
        "found no more, but cannot tell: tool 'lookup_order' was requested by model call 1; this trace records "
        "neither its execution nor its result (openinference spans of scope "
        "'openinference.instrumentation.openai': a producer not known to record tool executions, with no tool "
        "span in this trace); it may have run, which would put the count above the bound. "
        "accepting_unknown_outcomes() (traceassert check --accept-unknown) accepts unknown outcomes on purpose"
    )
    check.under_step_limits(tools=1).accepting_unknown_outcomes().under_step_limits(tools=0)


def test_unknown_outcomes_cannot_tell() -> None:
    spans = Spans()
    agent = spans.agent("a")
    spans.tool("fetch", agent, {"x": 1}, error=("TimeoutError", "slow"))
    spans.tool("fetch", agent, {"x": 1}, end=None)  # still running: its outcome is unknown
    check = ta.TraceAsserter(ta.Trace(spans.spans))
    assert "cannot tell: 1 call(s) record no outcome" in first_line(
        lambda: check.under_tool_failure_rate(0.5)
    )
    check.under_step_limits(retries=1)
    assert "found 1 retry call(s)" in first_line(lambda: check.under_step_limits(retries=0))
    spans.tool("fetch", agent, {"x": 2})
    later = ta.TraceAsserter(ta.Trace(spans.spans))
    assert "may be a retry" in first_line(lambda: later.under_step_limits(retries=1))
