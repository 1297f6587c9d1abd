"""A failed check as pytest prints it (pytester, a real Pydantic AI run): each tool execution listed
once; the short summary and ``-vv``/CI give the headline once, under the public name of the error; on a
colour terminal the tree is coloured by outcome (also under pytest-xdist), and plain without colour."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("pydantic_ai")

from tests.plugin._pydantic_app import instrumented_module

TESTS = instrumented_module(
    """

def test_books(trace_asserter):
    pydantic_ai.run_scenario()
    trace_asserter.called_agent("orchestrator").called_tool("book_flight")
""",
)

HEADLINE = "called_tool('book_flight'): expected at least 1 call(s) of tool 'book_flight', found 0"
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _run(pytester: pytest.Pytester, *args: str) -> str:
    pytester.makepyfile(test_books=TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:randomly", *args, timeout=300)
    result.assert_outcomes(failed=1)
    return "\n".join(result.outlines)


def test_each_tool_execution_is_listed_once_and_the_summary_keeps_the_words(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("COLUMNS", "200")
    out = _run(pytester)
    message = [line[1:].strip() for line in out.splitlines() if line.startswith("E ")]
    assert message[0] == f"traceassert.TraceAssertionError: {HEADLINE}"
    for call in ("get_weather(city='Paris')", "explode()", "ask_helper(question='What should I wear?')"):
        assert sum(call in line for line in message) == 1, (call, message)
    assert len(message) == 15, message  # the check, what it looked at, the tools' names, the tree
    summary = out.splitlines()[-2]
    assert summary.startswith(
        f"FAILED test_books.py::test_books - traceassert.TraceAssertionError: {HEADLINE}"
    )


@pytest.mark.parametrize("mode", ["-vv", "CI"])
def test_the_verbose_and_ci_summaries_do_not_repeat_the_message(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    if mode == "CI":
        monkeypatch.setenv("CI", "true")  # pytest prints whole summary lines on CI
    else:
        monkeypatch.delenv("CI", raising=False)
    out = _run(pytester, *([mode] if mode.startswith("-") else []))
    assert out.count(HEADLINE) == 2  # the message, and the summary's one line
    assert out.count("tool explode() FAILED") == 1
    assert (
        out.splitlines()[-2]
        == f"FAILED test_books.py::test_books - traceassert.TraceAssertionError: {HEADLINE}"
    )


@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_on_a_colour_terminal_failed_lines_are_red_and_ok_lines_dim(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    out = _run(pytester, "--color=yes", *workers)
    lines = {
        _ANSI.sub("", line).strip(): line for line in out.splitlines() if _ANSI.sub("", line).startswith("E ")
    }

    def styled(text: str) -> str:
        return next(raw for plain, raw in lines.items() if text in plain)

    assert "\x1b[31m" in styled("tool explode() FAILED")  # red
    assert "\x1b[2m" in styled("tool get_weather(city='Paris') -> 'Sunny, 21C in Paris' ok")  # dim
    assert "\x1b[2m" in styled("model chat scripted-orchestrator tokens in=101")
    agent = styled("agent orchestrator [succeeded] tokens=646")
    assert "\x1b[2m" not in agent and agent.count("\x1b[1m") == 1  # plain: only its E marker is bold
    assert "\x1b[1m" in styled(HEADLINE)  # the headline stays bold red


def test_without_colour_the_message_is_plain(pytester: pytest.Pytester) -> None:
    out = _run(pytester, "--color=no")
    assert "\x1b[" not in out
    assert f"E       traceassert.TraceAssertionError: {HEADLINE}" in out
