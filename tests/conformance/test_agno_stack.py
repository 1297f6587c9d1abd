"""Agno + ``openinference-instrumentation-agno``: a ``Team`` whose leader delegates to its member agent.

Live tests need Agno and the instrumentation; the recorded trace (``tests/data/openinference_agno.json``)
needs neither. Record again with ``python -m tests._stackfacts openinference_agno``. The team leader's
``delegate_task_to_member`` tool runs the member ``helper`` (where the other stacks call ``ask_helper``):
see ``instrumentation/agno_openinference.py``.
"""

from __future__ import annotations

import traceassert as ta
from instrumentation import ScenarioFacts
from tests._stackcases import live_and_recorded, live_async_trace
from tests._stackfacts import check_facts, check_with_asserter, recorded_facts, stack_module

RECORDING = "openinference_agno"
STACK = "instrumentation.agno_openinference"


case = live_and_recorded(STACK, RECORDING)


def test_six_facts(case: tuple[ta.Trace, ScenarioFacts]) -> None:
    check_facts(*case, dialect="openinference", operation="chat")


def test_the_asserter_agrees(case: tuple[ta.Trace, ScenarioFacts]) -> None:
    tree = check_with_asserter(*case)
    tree.has_tool_executed_with(
        "delegate_task_to_member", {"member_id": "helper", "task": "What should I wear?"}
    )


def test_the_delegation_runs_the_member(case: tuple[ta.Trace, ScenarioFacts]) -> None:
    """The leader's ``delegate_task_to_member`` is a tool execution; the member's run is a nested agent
    of the team (its span a sibling of the tool span: Agno runs the member while the tool's result
    generator is read)."""
    trace, _ = case
    (team,) = trace.agents
    (helper,) = team.nested
    (delegate,) = (t for t in trace.tool_executions if t.name == "delegate_task_to_member")
    assert delegate.result == helper.output == "Wear a light jacket."
    assert delegate.start_ns <= helper.start_ns
    assert helper.input == "What should I wear?"
    assert trace.unexecuted_tool_requests == ()
    assert [t.call_id for t in trace.tool_executions] == [
        "call_0_get_weather",
        "call_1_explode",
        "call_2_ask_helper",
    ]


def test_the_failed_tool_has_its_message_but_no_type(case: tuple[ta.Trace, ScenarioFacts]) -> None:
    """Agno catches the exception: status ERROR with the message, no ``exception`` event."""
    trace, facts = case
    (explode,) = (t for t in trace.tool_executions if t.failed)
    assert explode.error is not None
    assert (explode.error.type, explode.error.message) == (None, "explode failed: the detonator is broken")
    (top,) = trace.agents
    assert top.status == "succeeded" and top.output == facts.final_output


def test_the_recorded_facts_are_the_script() -> None:
    assert stack_module(STACK).EXPECTED.to_json() == recorded_facts(RECORDING).to_json()


def test_async_run_records_the_same_facts() -> None:
    stack = stack_module(STACK)
    trace = live_async_trace(stack)
    check_facts(trace, stack.EXPECTED, dialect="openinference")
    assert {s.name for s in trace.spans if s.name.endswith(".arun")} == {
        "orchestrator.arun",
        "helper.arun",
    }


def test_a_sync_team_run_leaves_its_span_current() -> None:
    """Upstream gap, pinned (openinference-instrumentation-agno 1.0.15): after a sync ``Team.run`` the
    team's ended span is still the current span; `run_scenario` keeps it inside a context of its own."""
    import contextvars

    from opentelemetry import trace

    stack = stack_module(STACK)

    def run() -> str:
        stack.make_team().run(stack.PROMPT)
        return str(getattr(trace.get_current_span(), "name", None))

    stack.instrument()
    try:
        with ta.capture():
            assert contextvars.copy_context().run(run) == "orchestrator.run"
            stack.run_scenario()
            assert not trace.get_current_span().get_span_context().is_valid
    finally:
        stack.uninstrument()
