"""A check on a fact the producer never records, as pytest shows its failure (pytester; the recorded
OpenAI Agents SDK trace under OpenInference, and LangGraph under Monocle)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data"

TESTS = f"""
import traceassert as ta


def test_agent_output():
    trace = ta.load_trace({str(DATA / "openinference_openai_agents.json")!r})
    ta.assert_trace(trace).called_agent("orchestrator").contains_output("umbrella")


def test_failed_tool_result():
    trace = ta.load_trace({str(DATA / "monocle_langgraph.json")!r})
    ta.assert_trace(trace).called_tool("explode").contains_output("detonator")
"""


def _sections(result: pytest.RunResult) -> dict[str, str]:
    parts = re.split(r"^_{3,} (test_\w+) _{3,}$", result.stdout.str(), flags=re.M)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def _error_lines(section: str) -> list[str]:
    """The lines of the error as pytest prints them (``E       ...``), without the ``E`` column."""
    return [line[8:] for line in section.splitlines() if line.startswith("E ")]


def test_the_failures_say_what_the_producer_does_not_record(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_gaps=TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=2)
    sections = _sections(result)

    output = _error_lines(sections["test_agent_output"])
    assert output[0] == (
        "traceassert.TraceAssertionError: contains_output('umbrella'): no output is recorded in "
        "the selection, so nothing can match"
    )
    assert output[1] == (
        "not recorded: agent 'orchestrator': the OpenAI Agents SDK's instrumentation (OpenInference) does "
        "not record agent output; the final answer is on the agent's last model call: 'It is sunny in "
        "Paris; wear a light jacket.' (check it with trace.model_calls[4].output, or with "
        "contains_output(...) on the whole trace, which reads the model calls' outputs)"
    )
    assert output[2] == "checked: the selected agent invocation(s) orchestrator"

    tool = _error_lines(sections["test_failed_tool_result"])
    assert tool[1] == (
        "not recorded: tool 'explode': LangGraph's instrumentation (Monocle) does not record the result "
        "of a failed tool; the failure and its message are recorded: 'explode failed: the detonator is "
        "broken' (check it with has_tool_execution_failed('explode'), or read ToolExecution.error)"
    )
