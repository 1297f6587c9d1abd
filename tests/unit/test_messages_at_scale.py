"""A failure message keeps its content at scale: many invocations are counted by name, not listed, and
the byte budget cuts a long line instead of dropping every line after it."""

from __future__ import annotations

import pytest

import traceassert as ta
from traceassert._checks.messages import MAX_BYTES, shorten

from .spanbuilder import SpanBuilder

N = 520


@pytest.fixture(scope="module")
def many_runs() -> ta.Trace:
    b = SpanBuilder()
    for i in range(N):
        root = b.agent("orchestrator")
        b.tool("search", root, args={"q": f"query {i}"}, result=f"result {i}")
    b.agent("reviewer")  # another name among them
    return b.trace()


def test_many_invocations_are_counted_by_name(many_runs: ta.Trace) -> None:
    with pytest.raises(ta.TraceAssertionError) as info:
        ta.assert_trace(ta.Trace(many_runs.spans)).has_no_more_tool_executions()
    text = str(info.value)
    first = text.splitlines()[0]
    assert f"{N + 1} invocations: {N} of 'orchestrator', 1 of 'reviewer'" in first
    assert len(first) < 300
    assert len(text.encode("utf-8")) <= MAX_BYTES
    # what was found and the unchecked executions are shown, not only "... N more lines"
    assert f"found {N} of {N} unchecked" in text
    assert f"invocation(s) checked: {N} x agent 'orchestrator' [succeeded]; agent 'reviewer'" in text
    assert "search(q='query 0')" in text
    assert "invocation tree:" in text


def test_one_name_is_one_count(many_runs: ta.Trace) -> None:
    trace = ta.Trace([s for s in many_runs.spans if "reviewer" not in s.name])
    with pytest.raises(ta.TraceAssertionError, match=rf"on {N} invocations of 'orchestrator'"):
        ta.assert_trace(trace).has_no_more_tool_executions()


def test_the_byte_budget_cuts_a_long_line_and_keeps_the_next() -> None:
    long = "expected something, found: " + ", ".join(repr(f"name-{i}") for i in range(2000))
    text = shorten([long, "second line", "third line"], "")
    assert len(text.encode("utf-8")) <= MAX_BYTES
    lines = text.splitlines()
    assert lines[0].startswith("expected something, found: 'name-0'")
    assert lines[0].endswith(f"({len(long)} chars)")
    assert lines[1:3] == ["second line", "third line"]
