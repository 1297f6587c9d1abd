"""The failure messages of the rules over a run (docs/properties.md), as pytest shows them: one pinned
message per property, from real Pydantic AI runs (pytester) and a recorded OpenAI Agents SDK handoff."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("pydantic_ai")

from tests.plugin._pydantic_app import ROOT, instrumented_module

HANDOFFS = ROOT / "tests" / "data" / "openinference_openai_agents_handoffs_parallel.json"

TESTS = instrumented_module(
    """

def test_pattern(trace_asserter):
    pydantic_ai.run_scenario()
    trace_asserter.called_tool("*e*", count=2)


def test_after(trace_asserter):
    pydantic_ai.run_scenario()
    trace_asserter.calls_tool_after("get_weather", "explode")


def test_directly_after(trace_asserter):
    pydantic_ai.run_scenario()
    trace_asserter.calls_tool_directly_after("ask_helper", "get_weather")


def test_never_after(trace_asserter):
    pydantic_ai.run_scenario()
    trace_asserter.does_not_call_tool_after("ask_*", "explode")


def test_only_after(trace_asserter):
    more.run_nested()
    trace_asserter.calls_tool_only_after("search", "book_hotel")


def test_starts_with(trace_asserter):
    pydantic_ai.run_scenario()
    trace_asserter.starts_with_tool("explode")


def test_ends_with(trace_asserter):
    more.run_nested()
    trace_asserter.ends_with_tool("submit")


def test_retried(trace_asserter):
    pydantic_ai.run_scenario()
    trace_asserter.has_retried_failed_tools()


def test_loops(trace_asserter):
    more.run_repeated()
    trace_asserter.does_not_repeat_tool_calls()


def poll(messages, info):
    # a scripted model: it asks for the status of job 7 twice in a row, then answers
    asked = sum(isinstance(m, ModelResponse) for m in messages)
    if asked < 2:
        return ModelResponse(parts=[ToolCallPart("job_status", {"job": 7}, tool_call_id=f"c{asked}")])
    return ModelResponse(parts=[TextPart("Job 7 is done.")])


poller = Agent(FunctionModel(poll, model_name="scripted-poller"), name="poller")


@poller.tool_plain
def job_status(job: int) -> str:
    return "done"


def test_in_a_row(trace_asserter):
    more.run_nested()
    trace_asserter.does_not_repeat_tool_calls_in_a_row()
    poller.run_sync("Is job 7 done?")
    trace_asserter.called_agent("poller").does_not_repeat_tool_calls_in_a_row()


def test_milestones(trace_asserter):
    more.run_nested()
    trace_asserter.has_milestones(
        ta.milestone("search", id="any search"),
        ta.milestone("search", args={"query": "best hotels Paris"}, id="best hotels"),
        ta.milestone("book_hotel", args={"nights": 3}, after=["any search", "best hotels"]),
    )


def test_minefield(trace_asserter):
    pydantic_ai.run_scenario()
    trace_asserter.has_milestones(ta.milestone("get_weather"), minefields=[re.compile("ex.*")])


def test_allowed(trace_asserter):
    more.run_nested()
    trace_asserter.calls_only_tools(["research", "book_*"])


def test_denied(trace_asserter):
    pydantic_ai.run_scenario()
    trace_asserter.calls_only_tools("*", "orchestrator", denied=["explode"])


def test_handoffs():
    desk = ta.TraceAsserter(ta.load_trace(HANDOFFS_PATH))
    desk.hands_off_only_to("weather")


def test_passes(trace_asserter):
    more.run_retry()
    trace_asserter.has_retried_failed_tools(changed_arguments=True).starts_with_tool("get_weather")
    trace_asserter.has_milestones(ta.milestone("get_weather", args={"city": "Munich"}))
""",
    imports="""
import re
import traceassert as ta
from pydantic_ai import Agent
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import FunctionModel
""",
).replace("HANDOFFS_PATH", repr(str(HANDOFFS)))

_SECTIONS: dict[str, str] = {}


@pytest.fixture
def sections(pytester: pytest.Pytester) -> dict[str, str]:
    """The failure section of every test in TESTS, from one pytester run shared by this module's tests."""
    if not _SECTIONS:
        pytester.makepyfile(test_rules=TESTS)
        result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
        result.assert_outcomes(failed=15, passed=1)
        parts = re.split(r"^_{3,} (test_\w+) _{3,}$", result.stdout.str(), flags=re.M)
        _SECTIONS.update({parts[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)})
    return _SECTIONS


def first(section: str) -> str:
    """The first line of the failure message pytest prints (``E   ...``)."""
    line = next(line[1:].strip() for line in section.splitlines() if line.startswith("E "))
    return re.sub(r"^[\w.]*TraceAssertionError: ", "", line)


ORCH = "(agent 'orchestrator')"

PINNED = {
    "test_pattern": (
        "called_tool('*e*', count=2): expected exactly 2 call(s) of a tool matching '*e*', found 3; names "
        "matched: 'get_weather', 'explode', 'ask_helper'"
    ),
    "test_after": (
        "calls_tool_after('get_weather', 'explode'): expected a call of 'get_weather' after a call of "
        f"'explode', found 'get_weather' at step 1 {ORCH}, but every call of 'explode' came later: 'explode' "
        f"at step 2 {ORCH}"
    ),
    "test_directly_after": (
        "calls_tool_directly_after('ask_helper', 'get_weather'): expected a call of 'ask_helper' as the step "
        "directly after a call of 'get_weather', found 1 call(s) of 'get_weather', none followed by it: after "
        f"step 1 came 'explode' at step 2 {ORCH}"
    ),
    "test_never_after": (
        "does_not_call_tool_after('ask_*', 'explode'): expected no call of 'ask_*' after a call of 'explode', "
        f"found 'ask_helper' at step 3 {ORCH}, after 'explode' at step 2 {ORCH}"
    ),
    "test_only_after": (
        "calls_tool_only_after('search', 'book_hotel'): expected every call of 'search' to come after a "
        "successful call of 'book_hotel', found 'search' at step 2 (agent 'researcher'), 'search' at step 3 "
        "(agent 'researcher') with none before it (the first successful one is step 4)"
    ),
    "test_starts_with": (
        "starts_with_tool('explode'): expected the first step to be a call of 'explode', found 'get_weather' "
        f"at step 1 {ORCH}; 'explode' at step 2 {ORCH}"
    ),
    "test_ends_with": (
        "ends_with_tool('submit'): expected the last step to be a call of 'submit', found 'book_hotel' at "
        "step 4 (agent 'planner'); 'submit' was never called"
    ),
    "test_retried": (
        "has_retried_failed_tools(): expected every failed call to be retried until it succeeds, or the run "
        f"to stop there, found 'explode' at step 2 {ORCH} failed, and was not retried: the run went on with "
        f"'ask_helper' at step 3 {ORCH}"
    ),
    "test_loops": (
        "does_not_repeat_tool_calls(): expected no identical call (name and arguments) more than 1 time(s), "
        "found get_weather(city='Paris') 2 times, at steps 1, 3 (agent 'forecaster')"
    ),
    "test_milestones": (
        "has_milestones(milestone('search', id='any search'), milestone('search', args={'query': 'best hotels "
        "Paris'}, id='best hotels'), milestone('book_hotel', args={'nights': 3}, after=['any search', 'best "
        "hotels'])): expected 3 milestone(s) reached in order, reached 2 of 3: 'any search' at step 3, 'best "
        "hotels' at step 2; not reached: 'book_hotel' with {'nights': 3}: no successful call with fitting "
        "arguments; closest: book_hotel(name='Hotel Lumière', nights=2) at step 4: args['nights']: 2 != 3"
    ),
    "test_minefield": (
        "has_milestones(milestone('get_weather'), minefields=[milestone(re.compile('ex.*'))]): expected 1 "
        "milestone(s) reached in order and no step on 1 minefield(s), found a step on a minefield: "
        f"re.compile('ex.*'): 'explode' at step 2 {ORCH}"
    ),
    "test_allowed": (
        "calls_only_tools(['research', 'book_*']): expected only calls of 'research', 'book_*', found 2 other "
        "call(s) ('search'): not allowed: 'search' at step 2 (agent 'researcher'); not allowed: 'search' at "
        "step 3 (agent 'researcher')"
    ),
    "test_denied": (
        "calls_only_tools('*', 'orchestrator', denied=['explode']): expected only calls of '*' and none of "
        f"'explode' by agent 'orchestrator', found 1 other call(s) ('explode'): denied: 'explode' at step 2 {ORCH}"
    ),
    "test_in_a_row": (
        "does_not_repeat_tool_calls_in_a_row(): expected no step to repeat the call (name and arguments) of "
        "the step before it, found job_status(job=7) at steps 1 and 2 (agent 'poller')"
    ),
    "test_handoffs": (
        "hands_off_only_to('weather'): expected handoffs only to 'weather', found 1 to another agent: "
        "concierge -> bookings"
    ),
}


@pytest.mark.parametrize("test", sorted(PINNED))
def test_the_first_line_of_each_failure(sections: dict[str, str], test: str) -> None:
    assert first(sections[test]) == PINNED[test]


def test_library_frames_are_hidden(sections: dict[str, str]) -> None:
    for name, section in sections.items():
        assert "src/traceassert" not in section, name


def test_a_failure_lists_the_steps_checked(sections: dict[str, str]) -> None:
    lines = [line[1:].strip() for line in sections["test_allowed"].splitlines() if line.startswith("E ")]
    # the whole run's steps are the trace's tool executions: shown once, by the tree, in start order
    step = "research(topic='hotels in Paris') -> 'Hotel Lumière is the best rated.' ok"
    assert f"├─ tool {step}" in lines
    assert sum(step in line for line in lines) == 1
    assert not any(line.startswith("steps in the selection") for line in lines)
