"""The failure messages about nested agents, as pytest shows them (pytester; the real support-triage app
on Pydantic AI: ``support_triage`` -> tool ``delegate_to_refunds`` -> nested agent ``refunds`` ->
``issue_refund``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("pydantic_ai")

ROOT = Path(__file__).resolve().parents[2]

TESTS = f"""
import sys
sys.path.insert(0, {str(ROOT)!r})

import pytest
from pydantic_ai import Agent
from tests.unit._support_app import PROMPT, support_triage


@pytest.fixture(autouse=True)
def run_the_app():
    Agent.instrument_all()
    support_triage.run_sync(PROMPT)
    yield
    Agent.instrument_all(False)


def test_nested_call(trace_asserter):
    trace_asserter.called_agent("support_triage").does_not_call_tool("issue_refund")


def test_left_out(trace_asserter):
    trace_asserter.top_level_only().called_tool("issue_refund")


def test_agent_name(trace_asserter):
    trace_asserter.called_tool("issue_refund", agent_name="support_triage")


def test_too_many(trace_asserter):
    trace_asserter.called_tool(["lookup_order", "issue_refund"], count=1)


def test_tokens(trace_asserter):
    trace_asserter.called_agent("support_triage").under_token_limit(500)


def test_not_a_handoff(trace_asserter):
    trace_asserter.called_agent("support_triage").top_level_only().has_handed_off_to("refunds")


def test_handed_off_to(trace_asserter):
    trace_asserter.handed_off_to("refunds")


def test_passes(trace_asserter):
    trace_asserter.top_level_only().called_agent("support_triage").does_not_call_tool("issue_refund")
    trace_asserter.called_tool("delegate_to_refunds").called_tool("issue_refund", count=1)
    trace_asserter.called_tool(["lookup_order", "issue_refund"], count=2).called_tools(count=2)
    trace_asserter.called_tools(count=3).called_agents(count=2).does_not_hand_off()
"""

_SECTIONS: dict[str, str] = {}


@pytest.fixture
def sections(pytester: pytest.Pytester) -> dict[str, str]:
    """The failure section of every test in TESTS, from one pytester run (a subprocess run takes
    seconds)."""
    if not _SECTIONS:
        pytester.makepyfile(test_nesting_msgs=TESTS)
        result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:randomly")
        result.assert_outcomes(failed=7, passed=1)
        parts = re.split(r"^_{3,} (test_\w+) _{3,}$", result.stdout.str(), flags=re.M)
        _SECTIONS.update({parts[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)})
    return _SECTIONS


def head(section: str, n: int = 1) -> str:
    """The first ``n`` lines of the failure message pytest prints (``E   ...``)."""
    lines = [line[1:].strip() for line in section.splitlines() if line.startswith("E ")][:n]
    lines[0] = re.sub(r"^[\w.]*TraceAssertionError: ", "", lines[0])
    return "\n".join(lines)


def test_a_call_by_a_nested_agent_names_the_agent_and_the_fix(sections: dict[str, str]) -> None:
    assert head(sections["test_nested_call"]) == (
        "does_not_call_tool('issue_refund'): expected no call of 'issue_refund', found 1: 'issue_refund' was "
        "called once, by nested agent 'refunds' inside 'support_triage'; use top_level_only() or agent_name= "
        "to check support_triage's own calls"
    )


def test_what_top_level_only_left_out(sections: dict[str, str]) -> None:
    assert head(sections["test_left_out"], 2) == (
        "called_tool('issue_refund'): expected at least 1 call(s) of tool 'issue_refund', found 0\n"
        "nesting: top_level_only() left out: 'issue_refund' was called once, by nested agent 'refunds' inside "
        "'support_triage' (without top_level_only(), nested agents' calls count)"
    )


def test_agent_name_is_the_agent_that_made_the_call(sections: dict[str, str]) -> None:
    assert head(sections["test_agent_name"], 2) == (
        "called_tool('issue_refund', 'support_triage'): expected at least 1 call(s) of tool 'issue_refund' by "
        "agent 'support_triage', found 0\nnesting: 'issue_refund' was called once, by nested agent 'refunds' inside "
        "'support_triage'; agent_name= counts the calls 'support_triage' made itself: "
        "called_agent('support_triage').called_tool(...) finds calls anywhere inside it"
    )


def test_a_count_a_nested_agent_pushed_over(sections: dict[str, str]) -> None:
    assert head(sections["test_too_many"], 2) == (
        "called_tool(['lookup_order', 'issue_refund'], count=1): expected exactly 1 call(s) of any of the "
        "tools 'lookup_order', 'issue_refund', found 2\nnesting: of these, 'issue_refund' was called once, by nested "
        "agent 'refunds' inside 'support_triage'; use top_level_only() or agent_name= to count "
        "support_triage's own calls"
    )


def test_tokens_of_nested_agents(sections: dict[str, str]) -> None:
    assert head(sections["test_tokens"], 2) == (
        "under_token_limit(500): expected at most 500 tokens, used 521 in 5 model call(s)\nnesting: 114 of "
        "them by nested agent 'refunds' inside 'support_triage'; use top_level_only() to count support_triage's own "
        "model calls only"
    )


def test_a_delegation_through_a_tool_is_not_a_handoff(sections: dict[str, str]) -> None:
    assert head(sections["test_not_a_handoff"]) == (
        "has_handed_off_to('refunds') on agent 'support_triage': expected a handoff to 'refunds', found no "
        "handoff"
    )
    assert head(sections["test_handed_off_to"]) == (
        "handed_off_to('refunds'): expected a handoff to agent 'refunds', found none"
    )
    assert "handoffs in the selection: none" in sections["test_handed_off_to"]


def test_library_frames_are_hidden(sections: dict[str, str]) -> None:
    for name, section in sections.items():
        assert "src/traceassert" not in section, name
