"""The failure messages of the invocation checks, as pytest shows them (pytester, real Pydantic AI runs)."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("pydantic_ai")

from tests.plugin._pydantic_app import instrumented_module

TESTS = instrumented_module(
    """

def test_arguments(trace_asserter):
    pydantic_ai.run_scenario()
    trace_asserter.top_level_only().has_tool_executed_with("get_weather", {"city": "London"})


def test_nested_choice(trace_asserter):
    pydantic_ai.run_scenario()
    trace_asserter.has_tool_executed("get_weather")


def test_gated(trace_asserter):
    more.run_failing()
    trace_asserter.has_tool_executed("get_booking")


def test_no_more(trace_asserter):
    more.run_parallel()
    trace_asserter.has_tool_executed("get_weather")
    trace_asserter.has_no_more_tool_executions()


def test_soft(trace_asserter):
    more.run_repeated()
    with trace_asserter.soft() as s:
        s.has_tool_executed_times("get_weather", 2)
        s.has_tools_executed_in_order("get_time")


def test_order(trace_asserter):
    more.run_parallel()
    trace_asserter.has_tools_executed_in_order("get_time", "get_weather")


def test_passes(trace_asserter):
    more.run_failing()
    trace_asserter.has_failed_with(RuntimeError).has_tool_executed("get_booking")
    assert trace_asserter.executed_tool_names() == ["get_booking", "cancel_booking"]
""",
)


_SECTIONS: dict[str, str] = {}


@pytest.fixture
def sections(pytester: pytest.Pytester) -> dict[str, str]:
    """The failure section of every test in TESTS, from one pytester run shared by this module's tests
    (a subprocess run takes seconds)."""
    if not _SECTIONS:
        pytester.makepyfile(test_msgs=TESTS)
        result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
        result.assert_outcomes(failed=6, passed=1)
        parts = re.split(r"^_{3,} (test_\w+) _{3,}$", result.stdout.str(), flags=re.M)
        _SECTIONS.update({parts[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)})
    return _SECTIONS


def lines(section: str) -> list[str]:
    """The failure message lines pytest prints (``E   ...``), without the prefix."""
    out = [line[1:].strip() for line in section.splitlines() if line.startswith("E ")]
    if out:
        out[0] = re.sub(r"^[\w.]*TraceAssertionError: ", "", out[0])
    return out


def test_library_frames_are_hidden(sections: dict[str, str]) -> None:
    for name, section in sections.items():
        assert "src/traceassert" not in section, name
        assert "_checks_invocations" not in section, name


def test_argument_mismatch_message(sections: dict[str, str]) -> None:
    section = sections["test_arguments"]
    assert (
        'trace_asserter.top_level_only().has_tool_executed_with("get_weather", {"city": "London"})' in section
    )
    e = lines(section)
    assert e[0] == (
        "has_tool_executed_with('get_weather', {'city': 'London'}) on agent "
        "'orchestrator': expected a successful execution of 'get_weather' with matching arguments, found 1 "
        "successful execution(s), none matching"
    )
    assert "closest candidate: get_weather(city='Paris') -> 'Sunny, 21C in Paris' ok" in e
    assert "args['city']: 'Paris' != 'London'" in e
    # it ends with the rendered tree, which shows every tool execution once (name, arguments, result or
    # error, ok/FAILED, under its agent): no listing above it says the same again
    tree = e.index("invocation tree:")
    assert e[tree + 2] == "agent orchestrator [succeeded] tokens=646"
    assert e[tree + 4] == "├─ tool get_weather(city='Paris') -> 'Sunny, 21C in Paris' ok"
    assert e[tree + 6] == (
        "├─ tool explode() FAILED: pydantic_ai.exceptions.ToolRetryError: explode failed: the detonator is broken"
    )
    assert sum("explode()" in line for line in e) == 1
    assert not any(line.startswith("tool executions") for line in e)
    assert e[-1] == "└─ model chat scripted-orchestrator tokens in=171 out=19 finish=stop"


def test_nested_choice_message(sections: dict[str, str]) -> None:
    assert lines(sections["test_nested_choice"])[0] == (
        "has_tool_executed('get_weather') on agent 'orchestrator': agent "
        "'orchestrator' started nested agent invocation(s) ('helper'): say what to check first, "
        "including_nested() for the whole tree (their tool executions, model calls and sources add up) or "
        "top_level_only() for what the invocation did itself"
    )


def test_gating_message(sections: dict[str, str]) -> None:
    e = lines(sections["test_gated"])
    assert e[0] == (
        "has_tool_executed('get_booking') on agent 'booking': agent 'booking' "
        "failed (booking: RuntimeError: cancellation of MS-777 failed). Check the failure first with "
        "has_failed_with(...), has_failed_with_message_containing(...) or has_failed(); after that, the checks "
        "look at what happened before the failure"
    )
    assert "agent booking [failed] RuntimeError: cancellation of MS-777 failed tokens=110" in e


def test_no_more_message(sections: dict[str, str]) -> None:
    e = lines(sections["test_no_more"])
    assert e[0] == (
        "has_no_more_tool_executions() on agent 'concierge': expected every "
        "tool execution to have been checked before, found 1 of 2 unchecked"
    )
    assert e[e.index("unchecked executions:") + 1] == (
        "2. get_time(city='Paris', utc_offset=1) -> '14:00 in Paris (UTC+1)' ok [agent concierge]"
    )


def test_soft_message(sections: dict[str, str]) -> None:
    e = lines(sections["test_soft"])
    assert e[0] == "2 checks failed:"
    assert e[1] == "--- failure 1 ---"
    assert e[2].startswith(
        "has_tool_executed_times('get_weather', 2) on agent 'forecaster': expected 2 successful"
    )
    assert "--- failure 2 ---" in e
    assert any(line.startswith("has_tools_executed_in_order('get_time') on agent 'forecaster'") for line in e)
    assert e.count("invocation tree:") == 1


def test_order_message(sections: dict[str, str]) -> None:
    e = lines(sections["test_order"])
    assert e[0] == (
        "has_tools_executed_in_order('get_time', 'get_weather') on agent "
        "'concierge': expected successful executions in the order 'get_time', 'get_weather'; matched "
        "'get_time' (successful execution(s) 2), but found no successful 'get_weather' after 'get_time' "
        "(execution 2); it ran before, as successful execution(s) 1"
    )
