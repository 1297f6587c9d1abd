"""Fixtures shared by the unit tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import settings

import traceassert as ta
from instrumentation import pydantic_ai as stack
from traceassert._common.redact import set_redacting
from traceassert._loaders import split

# CI must not fail at random: every property test draws the same examples on every run (a test may still
# ask for more examples; long random fuzzing lives in benchmarks/fuzz_*.py)
settings.register_profile("traceassert", derandomize=True, database=None)
settings.load_profile("traceassert")


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


@pytest.fixture(params=["accelerated", "stdlib"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both OTLP converters: the typed one (the optional msgspec accelerator) and the stdlib-only one."""
    if request.param == "stdlib":
        monkeypatch.setattr(split, "_msgspec", None)
    elif split._msgspec is None:
        pytest.skip("msgspec is not installed")
    return str(request.param)


@pytest.fixture
def no_redaction() -> Iterator[None]:
    """Redaction off for the test (the module-wide switch), restored after it."""
    old = set_redacting(False)
    try:
        yield
    finally:
        set_redacting(old)
