"""Handoffs in a LangGraph supervisor (``instrumentation/langgraph_handoffs.py``) under OpenInference,
OpenLLMetry and Monocle: live, and from the recorded traces ``tests/data/*_langgraph_handoffs*.json``.

The concierge hands off with ``transfer_to_<agent>`` tools that return ``Command(graph=Command.PARENT)``;
LangGraph raises ``ParentCommand`` to route it. In the parallel variant the concierge asks for two
handoffs at once and both workers run. Every handoff is a `ta.Handoff` (never a tool execution), linked
to the worker's invocation, which is a sibling of the concierge's.
"""

from __future__ import annotations

import pytest

import traceassert as ta
from instrumentation._handoff_scenario import FINAL_OUTPUT, expected
from tests._handofffacts import check_handoffs, live_app_trace
from tests._stackfacts import recorded_trace, stack_module

STACKS = {
    "openinference": "instrumentation.langgraph_openinference",
    "traceloop": "instrumentation.langgraph_traceloop",
    "monocle": "instrumentation.langgraph_monocle",
}
RECORDED = [
    ("openinference", True),
    ("openinference", False),
    ("traceloop", True),
    ("monocle", True),
]


@pytest.mark.parametrize(("name", "parallel"), RECORDED)
def test_recorded(name: str, parallel: bool) -> None:
    trace = recorded_trace(f"{name}_langgraph_handoffs{'_parallel' if parallel else ''}")
    check_handoffs(trace, expected("langgraph", parallel), any_order=parallel)
    _check_supervisor(trace, name, parallel)


@pytest.mark.parametrize("parallel", [False, True], ids=["one", "parallel"])
@pytest.mark.parametrize("name", list(STACKS))
def test_live(name: str, parallel: bool) -> None:
    stack = stack_module(STACKS[name])
    if name == "monocle":
        pytest.importorskip("monocle_apptrace")
    app = stack_module("instrumentation.langgraph_handoffs")
    trace, output = live_app_trace(stack, app, parallel=parallel)
    assert output == FINAL_OUTPUT
    check_handoffs(trace, expected("langgraph", parallel), any_order=parallel)
    _check_supervisor(trace, name, parallel)


def _check_supervisor(trace: ta.Trace, name: str, parallel: bool) -> None:
    shown = "\n" + trace.render()
    concierges = [a for a in trace.all_agents() if a.name == "concierge"]
    assert len(concierges) == 2, shown  # it hands off, and answers when the workers are done
    first, last = concierges
    assert last.via_handoff is None and last.handoffs == (), shown  # a worker going back is no handoff
    for handoff in first.handoffs:
        assert handoff.to_invocation not in first.nested, shown  # linked, a sibling: not nested
    requests = first.model_calls[0].requested_tools
    handed = [h for h in first.handoffs if h.request is not None]
    if name == "monocle":
        # Monocle records only the first call of a response, and no span for the handoff tool: the
        # first handoff is read from the model's call, the second from where the worker says it came from
        assert [r.name for r in requests] == ["transfer_to_bookings"], shown
        assert [h.span for h in handed] == [None], shown
    else:
        want = ["transfer_to_bookings", "transfer_to_weather"] if parallel else ["transfer_to_bookings"]
        assert [r.name for r in requests] == want, shown
        assert len(handed) == len(want) and all(h.span is not None for h in handed), shown
        assert {h.call_id for h in handed} == {r.call_id for r in requests}, shown
    if name == "traceloop":
        # OpenLLMetry marks the concierge's spans ERROR with the ParentCommand LangGraph routes with
        errors = [s for s in first.spans if s.status.code == "ERROR"]
        assert errors and "Command(graph=" in (errors[0].status.description or ""), shown
    assert first.status == "succeeded" and first.error is None, shown
    asserter = ta.TraceAsserter(trace)
    asserter.does_not_call_tool(["transfer_to_bookings", "transfer_to_weather"])
    asserter.called_agent("bookings").called_tool("book_table", count=1)
