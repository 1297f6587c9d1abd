"""What the conformance tests of the stacks run over and over: the live-or-recorded ``case`` fixture, and the
live runs (async, uninstrumented, through ``record_spans``) that a stack's tests make of its scenario.
"""

from __future__ import annotations

import asyncio
from types import ModuleType
from typing import Any

import pytest

import traceassert as ta
from instrumentation import ScenarioFacts
from tests._stackfacts import cached_live_trace, load_recording, stack_module

#: the OpenLLMetry (Traceloop) stacks: stack -> its module
TRACELOOP_STACKS = {
    "openai_agents": "instrumentation.openai_agents_traceloop",
    "langgraph": "instrumentation.langgraph_traceloop",
}

#: the two sources of a trace a ``case`` fixture is parametrised over
SOURCES = ("live", "recorded")


def live_or_recorded(source: str, stack: str, recording: str) -> tuple[ta.Trace, ScenarioFacts]:
    """The trace and the ground truth of the recorded trace ``recording`` (``source="recorded"``), or of the
    stack module ``stack`` run live (``"live"``; a skip when its framework is not installed)."""
    if source == "recorded":
        return load_recording(recording)
    module = stack_module(stack)
    return cached_live_trace(module), module.EXPECTED


def live_and_recorded(stack: str, recording: str) -> Any:
    """The fixture ``case``: `live_or_recorded` of ``stack`` and ``recording``, once from each source.

    In a test module: ``case = live_and_recorded(STACK, RECORDING)``.
    """

    @pytest.fixture(name="case", params=SOURCES)
    def case(request: pytest.FixtureRequest) -> tuple[ta.Trace, ScenarioFacts]:
        return live_or_recorded(request.param, stack, recording)

    return case


def live_async_trace(stack: ModuleType) -> ta.Trace:
    """The scenario run in a new event loop (``run_scenario_async``) under ``ta.capture()``, ``stack``
    instrumented with no explicit provider; the run must return the scripted final output."""
    stack.instrument()
    try:
        with ta.capture() as cap:
            output = asyncio.run(stack.run_scenario_async())
    finally:
        stack.uninstrument()
    assert output == stack.EXPECTED.final_output
    return cap.trace()


def uninstrumented_trace(stack: ModuleType) -> ta.Trace:
    """What ``ta.capture()`` holds of a run of the scenario after ``stack`` was instrumented and switched
    off again; the run must still return the scripted final output."""
    stack.instrument()
    stack.uninstrument()
    with ta.capture() as cap:
        assert stack.run_scenario() == stack.EXPECTED.final_output
    return cap.trace()


def recorded_spans_trace(stack: ModuleType, **options: Any) -> ta.Trace:
    """The trace of ``stack.record_spans(**options)`` (the scenario on a private provider)."""
    return ta.Trace([ta.Span.from_readable(span) for span in stack.record_spans(**options)])
