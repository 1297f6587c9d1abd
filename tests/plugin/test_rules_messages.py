"""The failure messages of the rules over a run (docs/properties.md), as pytest shows them: one pinned
message per property, from real Pydantic AI runs (pytester) and a recorded OpenAI Agents SDK handoff; and
the trajectory scores in the report of the same run, for each run of a repeated test."""

from __future__ import annotations

import json
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


def test_arguments_schema(trace_asserter):
    _booking.run_pydantic_ai()
    trace_asserter.has_valid_tool_arguments()


def test_step_limits(trace_asserter):
    _booking.run_pydantic_ai()
    trace_asserter.under_step_limits(tools=4, retries=0)


def test_token_limits(trace_asserter):
    _booking.run_pydantic_ai()
    trace_asserter.under_token_limits(total=800, cache_read=300)


def test_failure_rate(trace_asserter):
    _booking.run_pydantic_ai()
    trace_asserter.under_tool_failure_rate(0.2)


def test_trajectory_score(trace_asserter):
    _booking.run_pydantic_ai()
    expected = ["search_flights", ("book_flight", {"seat": "14C", "flight": "AF12"}), "pay"]
    trace_asserter.has_trajectory_score(expected, metric="arguments", min_score=0.8)


def test_claim(trace_asserter):
    _booking.run_pydantic_ai()
    trace_asserter.has_claim_backed_by_tool(r"flight (?P<flight>[A-Z]{2}\\d+)", "book_flight", {"seat": "12A"})


def test_citations(trace_asserter):
    _booking.run_pydantic_ai()
    trace_asserter.has_output_backed_by_tool_results()


@pytest.mark.traceassert_repeat(2)
def test_scores_are_recorded(trace_asserter):
    _booking.run_pydantic_ai()
    trace_asserter.has_trajectory_score(["search_flights", "book_flight", "send_receipt"], min_score=0.5)
""",
    imports="""
import re
import traceassert as ta
from tests.unit import _booking
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
        result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--traceassert-report=report.jsonl")
        result.assert_outcomes(failed=22, passed=2)
        _SECTIONS["report.jsonl"] = (pytester.path / "report.jsonl").read_text()
        parts = re.split(r"^_{3,} (test_\w+) _{3,}$", result.stdout.str(), flags=re.M)
        _SECTIONS.update({parts[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)})
    return _SECTIONS


def first(section: str) -> str:
    """The first line of the failure message pytest prints (``E   ...``)."""
    line = next(line[1:].strip() for line in section.splitlines() if line.startswith("E "))
    return re.sub(r"^[\w.]*TraceAssertionError: ", "", line)


ORCH = "(agent 'orchestrator')"
BOOKER = "(agent 'booker')"

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
    "test_arguments_schema": (
        "has_valid_tool_arguments(): expected the arguments of every tool call to fit the JSON schema of its "
        f"tool, found 1 call(s) that do not: book_flight(flight='AF11', seat=14) at step 2 {BOOKER}: "
        "args['seat']: type: expected string, found 14 (integer)"
    ),
    "test_step_limits": (
        "under_step_limits(tools=4, retries=0): expected at most 4 tool call(s) and at most 0 retry call(s), "
        f"found 1 retry call(s): 'book_flight' at step 3 {BOOKER} after its failed call at step 2"
    ),
    "test_token_limits": (
        "under_token_limits(total=800, cache_read=300): expected at most 800 tokens and at most 300 "
        "cache-read input tokens, used 400 cache-read input tokens in 5 model call(s)"
    ),
    "test_failure_rate": (
        "under_tool_failure_rate(0.2): expected at most 20% of the tool calls to fail, found 1 of 4 failed "
        f"(25%): 'book_flight' at step 2 {BOOKER}"
    ),
    "test_trajectory_score": (
        "has_trajectory_score(['search_flights', ('book_flight', {'seat': '14C', 'flight': 'AF12'}), 'pay'], "
        "metric='arguments', min_score=0.8): expected a trajectory arguments score of at least 0.8, found "
        "0.429; expected 3 step(s), the run made 4; matched 2, argument credit 1.5, in order 2"
    ),
    "test_claim": (
        "has_claim_backed_by_tool('flight (?P<flight>[A-Z]{2}\\\\d+)', 'book_flight', {'seat': '12A'}): "
        "expected every claim matching /flight (?P<flight>[A-Z]{2}\\d+)/ in the final output to be backed by "
        "a successful call of 'book_flight', found 1 claim(s) that are not: 'flight AF11' (flight='AF11'): "
        "closest: book_flight(flight='AF11', seat='14C') at step 3: args['seat']: '14C' != '12A'"
    ),
    "test_citations": (
        "has_output_backed_by_tool_results(): expected every number and quotation in the final output to "
        "appear in a tool result, found 1 that do not: number '2' (in '…at 14C, for 420 EUR with 2 bags: "
        "booking B-1, \"rece…') (searched 3 result(s))"
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


def test_trajectory_scores_reach_the_report_and_each_repeated_run(sections: dict[str, str]) -> None:
    lines = [json.loads(line) for line in sections["report.jsonl"].splitlines()]
    repeated = next(r for r in lines if r.get("nodeid", "").endswith("test_scores_are_recorded"))
    assert repeated["repeat"]["outcomes"] == ["passed", "passed"]
    f1 = [s for s in repeated["scores"] if s["name"] == "trajectory:f1"]
    # each run recorded its scores: 3 of 4 steps matched, 3 of 3 expected: f1 = 6/7
    assert [s["value"] for s in f1] == [pytest.approx(6 / 7)] * 2 and {s["passed"] for s in f1} == {True}
    assert f1[0]["details"]["extra"] == [3]  # 'book_flight' matched the first call of it, step 2
    summary = lines[-1]
    assert summary["type"] == "summary" and "trajectory:f1" in json.dumps(summary)
