"""The whole text of a failure is made only when asked for; the short text is built from only the
parts it shows (no whole tree rendered, no full tool listing made, to then be cut)."""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import traceassert as ta
from traceassert import _render
from traceassert._checks import fail
from traceassert._checks.invocation import records
from traceassert._checks.messages import MAX_BYTES, MAX_LINES

from .spanbuilder import SpanBuilder

N_TOOLS = 3000
NAMES = [f"tool_{i}" for i in range(7)]  # alternating names: no run of alike siblings to fold


@pytest.fixture(scope="module")
def many_tools() -> ta.Trace:
    b = SpanBuilder()
    root = b.agent("orchestrator")
    for i in range(N_TOOLS):
        b.tool(NAMES[i % len(NAMES)], root, args={"item": i}, result=f"result {i}")
    return b.trace()


@pytest.fixture
def described(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Counts the tool executions described (every module that describes one), and fails on any
    rendering of the whole tree."""
    calls = [0]
    real = _render.describe_tool

    def counting(*args: Any, **kwargs: Any) -> str:
        calls[0] += 1
        return real(*args, **kwargs)

    for module in (_render, fail, records):
        monkeypatch.setattr(module, "describe_tool", counting)

    def no_whole_tree(*args: Any, **kwargs: Any) -> str:
        raise AssertionError("the whole tree was rendered for a short message")

    monkeypatch.setattr(_render, "render_trace", no_whole_tree)
    yield calls
    monkeypatch.undo()


def _error(check: Callable[[], object]) -> ta.TraceAssertionError:
    with pytest.raises(ta.TraceAssertionError) as info:
        check()
    return info.value


CHECKS = {
    "monocle-style": lambda t: ta.assert_trace(t).called_tool("no_such_tool"),
    "invocation": lambda t: ta.assert_trace(t).has_no_more_tool_executions(),
}


@pytest.mark.parametrize("kind", sorted(CHECKS))
def test_the_short_message_describes_only_the_tools_it_shows(
    many_tools: ta.Trace, described: list[int], kind: str
) -> None:
    err = _error(lambda: CHECKS[kind](many_tools))
    short = str(err)
    assert len(short.splitlines()) <= MAX_LINES
    assert len(short.encode("utf-8")) <= MAX_BYTES
    # at most a line's worth of descriptions per shown line, never one per execution
    assert described[0] <= 2 * MAX_LINES, described[0]
    assert f"tool executions ({N_TOOLS}):" in short
    assert f"  ... {N_TOOLS - 10} more" in short
    # the tree's lines: only those shown had their text made
    tree = err._tree  # type: ignore[attr-defined]
    assert len(tree) > N_TOOLS
    assert sum(1 for line in tree if line.kind == "tool" and line.made) <= MAX_LINES


def test_the_whole_message_is_made_on_request_and_once(
    many_tools: ta.Trace, described: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    err = _error(lambda: ta.assert_trace(many_tools).called_tool("no_such_tool"))
    before = described[0]
    monkeypatch.undo()  # the whole text may render the whole tree
    full = err.full_message()
    # every execution is in the whole tree, once: the listing above a part of the tree is for the short text
    last = f"tool_{(N_TOOLS - 1) % 7}(item={N_TOOLS - 1}) -> 'result {N_TOOLS - 1}' ok"
    assert f"tool {last}" in full and full.count(last) == 1
    assert "tool executions (" not in full
    assert full.startswith("called_tool('no_such_tool'): expected at least 1 call(s)")
    assert full is err.full_message()  # made once, kept
    assert before <= 2 * MAX_LINES


def test_the_whole_message_is_what_pytest_vv_shows(many_tools: ta.Trace) -> None:
    from traceassert._errors import FULL_MESSAGES

    err = _error(lambda: ta.assert_trace(many_tools).called_tool("no_such_tool"))
    token = FULL_MESSAGES.set(True)
    try:
        assert str(err) == err.full_message()
    finally:
        FULL_MESSAGES.reset(token)
    assert str(err) != err.full_message()


def test_a_lazy_error_pickles_with_its_whole_message(many_tools: ta.Trace) -> None:
    err = _error(lambda: ta.assert_trace(many_tools).called_tool("no_such_tool"))
    copy = pickle.loads(pickle.dumps(err))
    assert str(copy) == str(err)
    assert copy.full_message() == err.full_message()


def test_soft_combines_without_making_the_whole_messages(many_tools: ta.Trace, described: list[int]) -> None:
    a = ta.assert_trace(many_tools)
    with pytest.raises(ta.TraceAssertionError) as info, ta.soft():
        a.called_tool("no_such_tool")
        a.has_no_more_tool_executions()
    short = str(info.value)
    assert short.startswith("2 checks failed:")
    assert len(short.splitlines()) <= MAX_LINES
    assert described[0] <= 4 * MAX_LINES
