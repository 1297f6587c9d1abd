"""Which invocations the checks look at, soft assertions, the accessors, and agent output on streamed runs."""

from __future__ import annotations

import sys

import pytest

import traceassert as ta
from tests.unit._invocations import fails, on
from tests.unit._scenarios import Spans, trace_of

pytest.importorskip("pydantic_ai")


# -- which invocations -------------------------------------------------------------------------------------------


def test_no_invocation_at_all() -> None:
    with fails("expected an agent invocation to check, found none in the whole trace (0 span(s)"):
        ta.TraceAsserter([]).has_succeeded()
    assert ta.TraceAsserter([]).tool_executions() == []


def test_several_top_level_invocations_add_up() -> None:
    runs = {"concierge": trace_of("parallel").spans, "forecaster": trace_of("repeated").spans}
    tools = {"concierge": ["get_weather", "get_time"], "forecaster": ["get_weather"] * 3}
    # the invocations come in the order they ran: each scenario is recorded once per process, by the first
    # test that asks for it, so (the tests running in random order) either may have run first
    first, second = sorted(runs, key=lambda agent: min(s.start_ns for s in runs[agent]))
    a = ta.TraceAsserter(runs["concierge"] + runs["forecaster"])
    a.has_tool_executed_times("get_weather", 4).has_tool_executed("get_time").has_succeeded()
    assert a.executed_tool_names() == tools[first] + tools[second]
    with fails(f"has_tool_executed_times('get_weather', 1) on 2 invocations: {first!r}, {second!r}"):
        a.has_tool_executed_times("get_weather", 1)
    a.called_agent("concierge").has_tool_executed_times("get_weather", 1)


def test_after_a_span_selector_the_outermost_invocations_in_it() -> None:
    a = on("nested")
    researcher = a.where(attribute={"gen_ai.agent.name": "researcher"})
    researcher.has_tool_executed_times("search", 2).has_own_model_call_count(3)
    with fails("on agent 'researcher'"):
        researcher.has_tool_executed("book_hotel")
    planner_spans = a.where(predicate=lambda s: True)
    with fails("including_nested()"):
        planner_spans.has_tool_executed("research")


def test_called_agent_keeps_the_nested_choice() -> None:
    a = on("nested").including_nested()
    a.called_agent("planner").has_tool_executed("search")
    on("nested").called_agent("planner").top_level_only().has_tool_executed("research")


# -- accessors ---------------------------------------------------------------------------------------------------


def test_accessors_return_plain_lists_with_failed_executions() -> None:
    a = on("retry")
    names = a.executed_tool_names()
    assert names == ["get_weather", "get_weather", "get_weather"]
    assert type(names) is list
    tools = a.tool_executions()
    assert [t.failed for t in tools] == [True, True, False]
    assert [t.arguments for t in tools] == [{"city": "München"}, {"town": "Munich"}, {"city": "Munich"}]


def test_accessors_need_the_nested_choice_even_inside_soft() -> None:
    a = on("weather")
    with (
        ta.soft(),
        fails("executed_tool_names()", "nested agent invocation(s) ('helper')", "top_level_only()"),
    ):
        a.executed_tool_names()
    assert a.top_level_only().executed_tool_names() == ["get_weather", "explode", "ask_helper"]
    assert a.including_nested().executed_tool_names() == ["get_weather", "explode", "ask_helper"]


def test_accessors_are_not_gated_by_a_failure() -> None:
    assert on("failing").executed_tool_names() == ["get_booking", "cancel_booking"]


# -- soft assertions ----------------------------------------------------------------------------------------------


def test_soft_collects_every_failure_into_one_error() -> None:
    a = on("weather").top_level_only()
    with pytest.raises(ta.TraceAssertionError) as info:
        with ta.soft():
            a.has_tool_executed("get_wether")
            a.has_tool_executed("get_weather")  # passes
            a.has_tool_executed_times("get_weather", 2)
            a.has_failed()
    text = str(info.value)
    assert text.startswith("3 checks failed:")
    assert "has_tool_executed('get_wether')" in text
    assert "has_tool_executed_times('get_weather', 2)" in text
    assert "has_failed()" in text
    assert text.count("invocation tree:") == 1


def test_soft_through_the_asserter_method() -> None:
    a = on("weather")
    with pytest.raises(ta.TraceAssertionError, match="2 checks failed") as info:
        with a.soft() as s:
            s.has_failed()
            s.top_level_only().has_tool_executed_with("get_weather", {"city": "London"})
    short = str(info.value)
    assert "has_tool_executed_with('get_weather', {'city': 'London'}) on agent 'orchestrator'" in short
    # the short message keeps each failure's first lines and the closest candidate's diff
    lines = short.splitlines()
    at = lines.index("closest candidate: get_weather(city='Paris') -> 'Sunny, 21C in Paris' ok")
    assert lines[at + 1] == "  args['city']: 'Paris' != 'London'"
    assert lines.index("--- failure 2 ---") < at < lines.index("invocation tree:")
    assert "args['city']: 'Paris' != 'London'" in info.value.full_message()


def test_soft_keeps_a_bounded_diff_of_each_failure() -> None:
    from traceassert._checks.messages import MAX_LINES, SOFT_WHY

    a = on("weather").top_level_only()
    wrong = {f"key_{i:02}": i for i in range(20)}
    with pytest.raises(ta.TraceAssertionError) as info:
        with ta.soft():
            a.has_tool_executed_with("get_weather", {"city": "London"})
            a.has_tool_executed_with("get_weather", wrong)
    short = str(info.value)
    assert len(short.splitlines()) <= MAX_LINES
    first, second = short.split("--- failure 2 ---")
    assert "  args['city']: 'Paris' != 'London'" in first.splitlines()
    diffs = [line for line in second.splitlines() if line.startswith("  args[")]
    # the first of the 20 differences, as many as the summary keeps; the rest are counted
    assert diffs[:2] == ["  args['key_00']: missing (expected 0)", "  args['key_01']: missing (expected 1)"]
    assert len(diffs) == SOFT_WHY  # the candidate line is among the first lines
    assert any(line.startswith("  ... ") and line.endswith(" more lines") for line in second.splitlines())
    assert "args['key_19']: missing (expected 19)" in info.value.full_message()


def test_soft_with_one_failure_raises_it_unchanged() -> None:
    with pytest.raises(ta.TraceAssertionError, match=r"^has_failed\(\) on agent 'orchestrator'"):
        with ta.soft():
            on("weather").has_failed()


def test_soft_without_failures_passes() -> None:
    with ta.soft():
        on("weather").has_succeeded().top_level_only().has_tool_executed("get_weather")


def test_soft_gating_failures_are_collected_too() -> None:
    a = on("failing")
    with pytest.raises(ta.TraceAssertionError, match="2 checks failed") as info:
        with ta.soft():
            a.has_tool_executed("get_booking")
            a.has_own_model_call_count(2)
    assert str(info.value).count("Check the failure first") == 2


def test_nested_soft_blocks_raise_once_at_the_outer_end() -> None:
    with pytest.raises(ta.TraceAssertionError, match="2 checks failed") as info:
        with ta.soft():
            with ta.soft():
                on("weather").has_failed()
            on("weather").has_finish_reason("length")
    assert "has_failed()" in str(info.value)


@pytest.mark.skipif(sys.version_info < (3, 11), reason="exception notes need Python 3.11")
def test_soft_keeps_its_failures_when_another_exception_ends_the_block() -> None:
    with pytest.raises(KeyError) as info:
        with ta.soft():
            on("weather").has_failed()
            raise KeyError("boom")
    notes = getattr(info.value, "__notes__", [])
    assert any("has_failed() on agent 'orchestrator'" in n for n in notes)


# -- output of streamed runs (AgentPrism) -------------------------------------------------------------------------


def _agent_output_trace(output: str | None, streamed: str | None) -> ta.Trace:
    b = Spans()
    agent = b.agent("streamer")
    b.model(agent, text=None)
    trace = b.trace()
    (inv,) = trace.agents
    # no producer traceassert reads fills AgentInvocation.streamed_output yet: set the records directly
    inv.output = output
    inv.streamed_output = streamed
    return trace


def test_output_checks_read_the_final_message_when_there_is_one() -> None:
    a = ta.TraceAsserter(_agent_output_trace("It is sunny today.", "It is sunny today.")).called_agent(
        "streamer"
    )
    a.has_output("It is sunny today.").contains_output("sunny")
    a.does_not_contain_output("today.It is")  # final message and chunks are never both read
    with pytest.raises(ta.TraceAssertionError):
        a.has_output("It is sunny today.It is sunny today.")


def test_output_checks_read_the_chunks_of_a_streamed_run_without_a_final_message() -> None:
    a = ta.TraceAsserter(_agent_output_trace(None, "It is sunny today.")).called_agent("streamer")
    a.has_output("It is sunny today.").contains_output("SUNNY")
    with pytest.raises(ta.TraceAssertionError, match="expected an output containing 'rain'"):
        a.contains_output("rain")


def test_output_of_a_real_streamed_pydantic_ai_run() -> None:
    import asyncio

    from pydantic_ai import Agent
    from pydantic_ai.models.function import FunctionModel

    from instrumentation import pydantic_ai

    async def chunks(messages: object, info: object):  # type: ignore[no-untyped-def]
        for chunk in ("It is ", "sunny ", "today."):
            yield chunk

    agent = Agent(FunctionModel(stream_function=chunks), name="streamer")

    async def run() -> str:
        async with agent.run_stream("weather?") as result:
            return await result.get_output()

    pydantic_ai.instrument()
    try:
        with ta.capture() as cap:
            assert asyncio.run(run()) == "It is sunny today."
    finally:
        pydantic_ai.uninstrument()
    a = ta.TraceAsserter(cap)
    a.has_succeeded().has_own_model_call_count(1).has_no_tool_executions()
    # Pydantic AI records the assembled text on the chat span: read once, not once per chunk
    a.contains_output("It is sunny today.").does_not_contain_output("It is sunny today.It is")
