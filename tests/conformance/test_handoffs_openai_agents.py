"""Handoffs on the OpenAI Agents SDK (``instrumentation/openai_agents_handoffs.py``), under OpenInference
and OpenLLMetry: live, and from the recorded traces ``tests/data/*_openai_agents_handoffs_parallel.json``.

The concierge's model asks for ``transfer_to_bookings``; in the parallel variant also for
``transfer_to_weather``, which the SDK ignores (it hands off once). A handoff is a `ta.Handoff`, never a
tool execution; the ignored call is a request nothing executed.
"""

from __future__ import annotations

import pytest

import traceassert as ta
from instrumentation._handoff_scenario import BOOKED, expected
from tests._handofffacts import check_handoffs, live_app_trace
from tests._stackfacts import recorded_trace, stack_module

STACKS = {
    "openinference": "instrumentation.openai_agents_openinference",
    "traceloop": "instrumentation.openai_agents_traceloop",
}


@pytest.mark.parametrize("name", list(STACKS))
def test_recorded(name: str) -> None:
    trace = recorded_trace(f"{name}_openai_agents_handoffs_parallel")
    check_handoffs(trace, expected("openai_agents", parallel=True))
    _check_sdk_shape(trace, name)


@pytest.mark.parametrize("parallel", [False, True], ids=["one", "parallel"])
@pytest.mark.parametrize("name", list(STACKS))
def test_live(name: str, parallel: bool) -> None:
    stack = stack_module(STACKS[name])
    app = stack_module("instrumentation.openai_agents_handoffs")
    trace, output = live_app_trace(stack, app, parallel=parallel)
    assert output == BOOKED
    check_handoffs(trace, expected("openai_agents", parallel))
    _check_sdk_shape(trace, name)


def _check_sdk_shape(trace: ta.Trace, name: str) -> None:
    """What only the SDK's handoffs show: the agent handed to is a sibling (linked, not nested), the
    handoff is matched to the model's ``transfer_to_bookings`` call, and an ignored second handoff call
    is a request under the model call that made it."""
    shown = "\n" + trace.render()
    concierge, bookings = trace.agents
    assert concierge.nested == () and trace.parent(bookings.span) is trace.parent(concierge.span), shown
    (handoff,) = concierge.handoffs
    assert handoff.to_invocation is bookings and handoff.span is not None, shown
    request = handoff.request
    assert request is not None and request.name == "transfer_to_bookings" and request.handoff is handoff
    assert handoff.call_id == request.call_id == "call_scripted-concierge_0_0"
    (call,) = concierge.model_calls
    assert call.requested_tools[0] is request
    if name == "traceloop":
        # OpenLLMetry names no target on its handoff span: it comes from the model's call
        assert "gen_ai.handoff.to_agent" not in handoff.span.attributes
    for extra in trace.unexecuted_tool_requests:
        assert extra.model_call is call and extra.handoff is None and extra.execution is None
        assert f"tool {extra.name}() (requested, not executed)" in shown
    asserter = ta.TraceAsserter(trace)
    asserter.does_not_call_tool("transfer_to_bookings")
    asserter.called_agent("bookings").called_tool("book_table", count=1)
