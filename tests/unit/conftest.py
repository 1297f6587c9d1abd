"""Fixtures shared by the unit tests."""

from __future__ import annotations

import pytest

import traceassert as ta
from instrumentation import pydantic_ai as stack


@pytest.fixture(scope="session")
def scenario_trace() -> ta.Trace:
    """One live run of the Pydantic AI scenario (its real built-in instrumentation), captured."""
    stack.instrument()
    try:
        with ta.capture() as cap:
            stack.run_scenario()
    finally:
        stack.uninstrument()
    return cap.trace()
