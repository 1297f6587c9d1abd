"""Failure messages: cause first, at most 60 lines and 8 KB, the whole text on request."""

from __future__ import annotations

import pytest

import traceassert as ta
from instrumentation import pydantic_ai as stack
from traceassert._checks.messages import MAX_BYTES, MAX_LINES, shorten

from .spanbuilder import SpanBuilder


def _short_and_full(check: object) -> tuple[str, str]:
    with pytest.raises(ta.TraceAssertionError) as info:
        check()  # type: ignore[operator]
    return str(info.value), info.value.full_message()


def _within_limits(text: str) -> None:
    assert len(text.splitlines()) <= MAX_LINES, len(text.splitlines())
    assert len(text.encode("utf-8")) <= MAX_BYTES


@pytest.fixture(scope="module")
def two_hundred_runs() -> ta.Trace:
    """200 runs of the real Pydantic AI scenario in one capture (2,000 spans)."""
    stack.instrument()
    try:
        with ta.capture() as cap:
            for _ in range(200):
                stack.run_scenario()
    finally:
        stack.uninstrument()
    return cap.trace()


def test_a_budget_failure_on_200_runs_is_short_and_cause_first(two_hundred_runs: ta.Trace) -> None:
    short, full = _short_and_full(lambda: ta.assert_trace(two_hundred_runs).under_token_limit(10))
    _within_limits(short)
    assert short.splitlines()[0].startswith("under_token_limit(10): expected at most 10 tokens, used 129200")
    # alike siblings are folded with a count; the first runs stay, in full
    assert "... 197 more agent invocations of 'orchestrator'" in short
    assert "├─ tool ask_helper(question='What should I wear?')" in short
    assert short.splitlines()[-1] == "(shortened; the whole message: err.full_message(), or pytest -vv)"
    # the whole story is still there
    assert len(full.splitlines()) > 2000
    assert full.count("agent orchestrator [succeeded]") == 200


def test_a_selector_failure_lists_a_few_tools_and_counts_the_rest(two_hundred_runs: ta.Trace) -> None:
    short, full = _short_and_full(
        lambda: ta.assert_trace(two_hundred_runs).called_agent("helper").called_tool("book_flight")
    )
    _within_limits(short)
    assert short.startswith("called_tool('book_flight'): expected at least 1 call(s) of tool 'book_flight'")
    assert "  10. get_weather(city='Paris')" in short
    assert "  ... 590 more" in short
    # the whole text shows every execution in the whole tree, and lists none above it
    assert full.count("tool ask_helper(") == 200 and "tool executions (" not in full


def test_the_tree_keeps_the_lines_the_check_names_among_many() -> None:
    b = SpanBuilder()
    root = b.agent("researcher")
    for i in range(3000):
        b.tool("search", root, args={"q": f"query {i}"}, result="ok")
    b.tool("summarise", root, args={"n": 3}, status="ERROR", description="boom")
    trace = b.trace()
    short, full = _short_and_full(
        lambda: ta.assert_trace(trace).including_nested().has_no_failed_tool_executions()
    )
    _within_limits(short)
    assert "summarise" in short.partition("invocation tree:")[2]
    assert "more tool executions of 'search'" in short
    assert full.count("tool search(") == 3000


def test_long_error_texts_and_values_are_cut() -> None:
    b = SpanBuilder()
    root = b.agent("a")
    b.tool("t", root, args={"text": "x" * 5000}, status="ERROR", description="E" * 5000)
    trace = b.trace()
    rendered = trace.render()
    assert max(len(line) for line in rendered.splitlines()) < 600
    assert "EEEE…" in rendered
    assert max(len(line) for line in trace.render(max_value_chars=40).splitlines()) < 200
    short, _ = _short_and_full(lambda: ta.assert_trace(trace).called_tool("nothing"))
    _within_limits(short)


def test_shorten_caps_lines_and_bytes_of_any_input() -> None:
    head = ["check: problem", "\n".join(f"detail {i} " + "y" * 250 for i in range(500))]
    tree = "\n".join(f"agent a{i} [succeeded]" for i in range(5000))
    text = shorten(head, tree)
    _within_limits(text)
    assert text.startswith("check: problem")
    assert shorten(["a: b"], "agent x [succeeded]") == "a: b\ninvocation tree:\nagent x [succeeded]"


def test_soft_failures_are_short_together_and_whole_on_request(two_hundred_runs: ta.Trace) -> None:
    asserter = ta.assert_trace(two_hundred_runs)
    with pytest.raises(ta.TraceAssertionError) as info, ta.soft():
        asserter.under_token_limit(10)
        asserter.called_tool("book_flight")
    short, full = str(info.value), info.value.full_message()
    _within_limits(short)
    assert short.startswith("2 checks failed:")
    assert "--- failure 2 ---\ncalled_tool('book_flight')" in short
    assert full.count("agent orchestrator [succeeded]") == 200
