"""The start of a pytester test module that runs the repository's Pydantic AI scenarios under Pydantic
AI's own instrumentation: the repository on the path (for ``instrumentation``) and an autouse fixture
that instruments every agent for each test and undoes it after."""

from __future__ import annotations

from pathlib import Path

__all__ = ["ROOT", "instrumented_module"]

ROOT = Path(__file__).resolve().parents[2]

_PRELUDE = f"""
import sys
sys.path.insert(0, {str(ROOT)!r})

import pytest
from instrumentation import pydantic_ai, pydantic_ai_scenarios as more

"""

_FIXTURE = """

@pytest.fixture(autouse=True)
def instrumented():
    pydantic_ai.instrument()
    yield
    pydantic_ai.uninstrument()

"""


def instrumented_module(tests: str, imports: str = "") -> str:
    """A test module: the prelude, ``imports`` (more import lines), the fixture, then ``tests``."""
    return _PRELUDE + imports.strip("\n") + _FIXTURE + tests
