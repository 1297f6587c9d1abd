"""Handoff checks: ``handed_off_to`` / ``does_not_hand_off`` (Monocle-style) and ``has_handed_off_to`` /
``has_no_handoffs`` (invocation family).

Real runs: the handoff app on the OpenAI Agents SDK (instrumentation/openai_agents_handoffs.py) under
OpenInference: ``concierge`` hands off to ``bookings``, which calls ``book_table``; in the parallel
variant the model also asks for ``transfer_to_weather``, which the SDK never carries out. Edge cases
(a handoff made by a nested agent, a handoff whose target's run is not in the trace) use hand-built
OpenInference spans.
"""

from __future__ import annotations

import functools
import re

import pytest

import traceassert as ta
from tests.unit._scenarios import Spans

pytest.importorskip("agents")
pytest.importorskip("openinference.instrumentation.openai_agents")


@functools.cache
def _recorded(parallel: bool) -> tuple[ta.Span, ...]:
    from instrumentation import openai_agents_handoffs as app

    return tuple(ta.Span.from_readable(s) for s in app.record_spans(parallel=parallel))


def handoff_run(parallel: bool = False) -> ta.TraceAsserter:
    return ta.TraceAsserter(ta.Trace(_recorded(parallel)))


def fails(text: str) -> pytest.RaisesContext[ta.TraceAssertionError]:
    return pytest.raises(ta.TraceAssertionError, match=r"\A" + re.escape(text))


def test_the_recording_holds_one_handoff_and_no_tool_execution_for_it() -> None:
    trace = handoff_run().trace
    assert [str(h) for h in trace.handoffs] == ["concierge -> bookings"]
    assert [t.name for t in trace.tool_executions] == ["book_table"]


def test_handed_off_to_selects_the_agent_handed_to() -> None:
    a = handoff_run()
    bookings = a.handed_off_to("bookings")
    assert [inv.name for inv in bookings.selected_agents()] == ["bookings"]
    bookings.called_tool("book_table", count=1).has_input({"restaurant": "Luigi's", "guests": 2})
    bookings.has_succeeded().has_tool_executed("book_table").under_token_limit(92)
    a.called_agent("concierge").handed_off_to("bookings")  # made inside the selection
    a.handed_off_to(["weather", "bookings"])
    with fails("handed_off_to('weather'): expected a handoff to agent 'weather', found none"):
        a.handed_off_to("weather")
    with fails("handed_off_to('concierge'): expected a handoff to agent 'concierge', found none"):
        a.called_agent("bookings").handed_off_to("concierge")


def test_does_not_hand_off() -> None:
    a = handoff_run()
    a.does_not_hand_off("weather").does_not_hand_off(["weather", "billing"])
    a.called_agent("bookings").does_not_hand_off()
    with fails("does_not_hand_off(): expected no handoff, found 1: concierge -> bookings"):
        a.does_not_hand_off()
    with fails("does_not_hand_off('bookings'): expected no handoff to agent 'bookings', found 1"):
        a.called_agent("concierge").does_not_hand_off("bookings")
    with pytest.raises(ValueError, match="needs at least one agent name"):
        a.does_not_hand_off([])


def test_invocation_family() -> None:
    a = handoff_run(parallel=True)
    concierge = a.called_agent("concierge")
    concierge.has_handed_off_to("bookings")
    a.called_agent("bookings").has_no_handoffs()
    with fails(
        "has_handed_off_to('weather') on agent 'concierge': expected a handoff to 'weather', found handoffs to "
        "others only: concierge -> bookings (the model asked for 'transfer_to_weather' 1 time(s); never "
        "carried out)"
    ):
        concierge.has_handed_off_to("weather")
    with fails("has_no_handoffs() on agent 'concierge': expected no handoff, found 1: concierge -> bookings"):
        concierge.has_no_handoffs()
    with fails(
        "has_handed_off_to('concierge') on agent 'bookings': expected a handoff to 'concierge', found no handoff"
    ):
        a.called_agent("bookings").has_handed_off_to("concierge")
    with pytest.raises(TypeError, match="agent_name must be a non-empty str"):
        concierge.has_handed_off_to("")


# -- hand-built edge cases ---------------------------------------------------------------------------


def _front_desk() -> ta.Trace:
    """front_desk runs router (nested), which hands off to bookings; bookings calls book_table."""
    s = Spans()

    def agent(name: str, parent: ta.Span | None = None) -> ta.Span:
        return s.add(f"agent {name}", parent, {"openinference.span.kind": "AGENT", "agent.name": name})

    root = agent("front_desk")
    router = agent("router", root)
    s.add(
        "handoff to bookings",
        router,
        {"openinference.span.kind": "TOOL", "input.value": "router", "output.value": "bookings"},
    )
    bookings = agent("bookings", root)
    s.add(
        "book_table",
        bookings,
        {"openinference.span.kind": "TOOL", "tool.name": "book_table", "input.value": "{}"},
    )
    return s.trace()


def test_a_nested_agents_handoff_counts_unless_top_level_only() -> None:
    a = ta.TraceAsserter(_front_desk())
    a.handed_off_to("bookings").called_tool("book_table")
    a.top_level_only().does_not_hand_off()
    with fails(
        "handed_off_to('bookings'): expected a handoff to agent 'bookings', found none\nnesting: "
        "top_level_only() left out: handoff router -> bookings was made once, by nested agent 'router' inside "
        "'front_desk'"
    ):
        a.top_level_only().handed_off_to("bookings")
    with fails(
        "does_not_hand_off('bookings'): expected no handoff to agent 'bookings', found 1: router -> bookings\n"
        "nesting: of these, handoff router -> bookings was made once, by nested agent 'router' inside "
        "'front_desk'"
    ):
        a.does_not_hand_off("bookings")
    with fails(
        "has_handed_off_to('bookings') on agent 'front_desk': agent 'front_desk' started nested agent"
    ):
        a.has_handed_off_to("bookings")
    a.including_nested().has_handed_off_to("bookings")
    a.top_level_only().has_no_handoffs()
    a.called_agent("router").has_handed_off_to("bookings")


def test_a_handoff_whose_target_run_is_not_recorded_cannot_be_selected() -> None:
    trace = _front_desk()
    handoff = trace.handoffs[0]
    handoff.to_invocation = None  # as when the trace holds the handoff but not the bookings run
    a = ta.TraceAsserter(trace)
    a.called_agent("router").has_handed_off_to("bookings")  # the handoff itself is recorded
    with fails(
        "handed_off_to('bookings'): found 1 handoff(s) to agent 'bookings' (router -> bookings), but the trace "
        "does not record the run of the agent handed to, so there is nothing to select"
    ):
        a.handed_off_to("bookings")
