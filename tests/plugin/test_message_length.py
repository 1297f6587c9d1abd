"""Long failures under pytest: short by default, whole under -vv, and the dump named (pytester)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

TESTS = f"""
import sys
sys.path.insert(0, {str(ROOT)!r})

from instrumentation import pydantic_ai


def test_budget(trace_asserter):
    pydantic_ai.instrument()
    try:
        for _ in range(30):
            pydantic_ai.run_scenario()
    finally:
        pydantic_ai.uninstrument()
    trace_asserter.under_token_limit(10)
"""


def _failure_text(result: pytest.RunResult) -> str:
    text = result.stdout.str()
    return text.partition("_ test_budget _")[2].partition("short test summary")[0]


def test_the_message_is_short_by_default_and_names_the_dump(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_long=TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--traceassert-dump-dir=dumps")
    result.assert_outcomes(failed=1)
    text = _failure_text(result)
    assert "under_token_limit(10): expected at most 10 tokens, used 19380" in text
    assert "... 27 more agent invocations of 'orchestrator'" in text
    dumped = sorted((pytester.path / "dumps").glob("test_long.py_test_budget-*.json"))
    assert len(dumped) == 1
    expected = f"(shortened; the whole message: err.full_message(), or pytest -vv, or the dumped trace dumps/{dumped[0].name})"
    assert expected in text
    assert text.count("agent orchestrator [succeeded]") <= 6


def test_pytest_vv_shows_the_whole_message(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_long=TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-vv")
    result.assert_outcomes(failed=1)
    text = _failure_text(result)
    assert "more agent invocations" not in text
    assert text.count("agent orchestrator [succeeded]") >= 30
