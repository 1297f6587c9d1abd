"""The rules over a run and the name patterns, where planted bugs survived the other tests
(tests/mutants/catalogue_rules.py): a call both names of an order rule match, calls of unknown outcome
(asked for by a producer that records no execution, or an execution that records no outcome) that must
give "cannot tell", never a pass; arguments in another key order; the JSON-schema subset at its
boundaries; a check with no agent or model call recorded; case and whole-name matching of patterns.

Real runs where the rule reads a real run (the shared scenario and the poller on Pydantic AI); hand-built
spans for what no recorded producer shows (a chat-only producer beside another's tool spans, a tool span
still open, a token count that is not a number)."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable
from typing import Any

import pytest

import traceassert as ta
from tests.unit import _poller
from tests.unit._scenarios import Spans, trace_of
from tests.unit.spanbuilder import SpanBuilder
from traceassert._checks.rules.schema_subset import validate
from traceassert._model.span import freeze_attributes

pytest.importorskip("pydantic_ai")

ORCH = "(agent 'orchestrator')"


def first_line(check: Callable[[], object]) -> str:
    with pytest.raises(ta.TraceAssertionError) as failure:
        check()
    return str(failure.value).splitlines()[0]


@pytest.fixture(scope="module")
def weather() -> ta.TraceAsserter:
    """get_weather (step 1), explode (step 2, fails), ask_helper (step 3, runs the nested helper)."""
    return ta.TraceAsserter(trace_of("weather"))


def _asking(asked: list[str], clerk: list[tuple[str, bool]]) -> ta.TraceAsserter:
    """planner's model asks for ``asked`` (a producer that records no execution: their outcome is
    unknown); clerk's tool spans (name, failed) come from another producer (another scope), so they say
    nothing of the planner's calls."""
    b = SpanBuilder()
    planner = b.agent("planner")
    parts = [{"type": "tool_call", "name": n, "arguments": {}, "id": f"c{i}"} for i, n in enumerate(asked)]
    b.chat(planner, **{"gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": parts}])})
    mine = len(b.spans)
    agent = b.agent("clerk")
    for name, failed in clerk:
        b.tool(name, agent, '{"q": "x"}', "ok", status="ERROR" if failed else "UNSET")
    spans = b.spans[:mine] + [dataclasses.replace(s, scope_name="tests.clerk") for s in b.spans[mine:]]
    return ta.TraceAsserter(ta.Trace(spans))


def _open(*steps: tuple[str, str]) -> ta.TraceAsserter:
    """One agent's tool calls (name, "ok" / "failed" / "open"); an open span records no outcome."""
    spans = Spans()
    agent = spans.agent("a")
    for name, how in steps:
        error = ("RuntimeError", "boom") if how == "failed" else None
        spans.tool(name, agent, {"x": 1}, "done", error=error, end=None if how == "open" else 10**9)
    trace = ta.Trace(spans.spans)
    assert [t.failed for t in trace.tool_executions] == [
        {"ok": False, "failed": True, "open": None}[h] for _, h in steps
    ]
    return ta.TraceAsserter(trace)


# -- order ----------------------------------------------------------------------------------------------


def test_a_call_is_never_after_itself(weather: ta.TraceAsserter) -> None:
    """get_weather is the only call 'get_*' matches: no call of get_weather comes after one of get_*."""
    weather.calls_tool_after("*", "*").calls_tool_after("ask_helper", "*")
    assert first_line(lambda: weather.calls_tool_after("get_weather", "get_*")) == (
        "calls_tool_after('get_weather', 'get_*'): expected a call of 'get_weather' after a call of 'get_*', "
        f"found 'get_weather' at step 1 {ORCH}, but every call of 'get_*' came later: 'get_weather' at step 1 "
        f"{ORCH}"
    )


def test_never_after_counts_from_the_first_call() -> None:
    """job_status, job_status, fetch_report (fails), fetch_report: the second status call comes after
    the first."""
    poller = ta.TraceAsserter(_poller.pydantic_ai_trace())
    assert first_line(lambda: poller.does_not_call_tool_after("job_status", "job_status")) == (
        "does_not_call_tool_after('job_status', 'job_status'): expected no call of 'job_status' after a call "
        "of 'job_status', found 'job_status' at step 2 (agent 'poller'), after 'job_status' at step 1 (agent "
        "'poller')"
    )
    poller.does_not_call_tool_after("job_status", "fetch_*")


ORDER_CHECKS: tuple[Callable[[ta.TraceAsserter], object], ...] = (
    lambda a: a.calls_tool_after("search", "lookup"),
    lambda a: a.calls_tool_directly_after("search", "lookup"),
    lambda a: a.calls_tool_only_after("search", "lookup"),
    lambda a: a.starts_with_tool("lookup"),
)


@pytest.mark.parametrize("check", ORDER_CHECKS)
def test_order_rules_cannot_tell_past_calls_of_unknown_outcome(
    check: Callable[[ta.TraceAsserter], object],
) -> None:
    """clerk looks up, then searches; planner asked for delete, which may have run anywhere."""
    run = _asking(["delete"], [("lookup", False), ("search", False)])
    with pytest.raises(ta.TraceAssertionError) as failure:
        check(run)
    assert (
        "found just that in 2 recorded step(s), but cannot tell: tool 'delete' was requested"
        in str(failure.value).splitlines()[0]
    )
    check(run.accepting_unknown_outcomes())


def test_only_after_an_earlier_call_that_records_no_outcome_cannot_tell() -> None:
    run = _open(("consent", "open"), ("confirm", "ok"))
    assert first_line(lambda: run.calls_tool_only_after("confirm", "consent")).endswith(
        "found 'confirm' at step 2 (agent 'a') after 'consent' at step 1 (agent 'a'), whose outcome is not "
        "recorded: cannot tell whether it succeeded (accepting_unknown_outcomes() accepts it)"
    )
    _open(("consent", "ok"), ("confirm", "ok")).calls_tool_only_after("confirm", "consent")


def test_accepted_calls_of_unknown_outcome_are_not_called_failed() -> None:
    """accepting_unknown_outcomes() takes them as not known to succeed: the checks that need a success
    still fail, and say what the calls recorded."""
    run = _open(("consent", "open"), ("confirm", "ok")).accepting_unknown_outcomes()
    assert first_line(lambda: run.calls_tool_only_after("confirm", "consent")).endswith(
        "found 'confirm' at step 2 (agent 'a') after only calls of it that failed or record no outcome: "
        "'consent' at step 1 (agent 'a')"
    )
    assert first_line(lambda: run.has_milestones(ta.milestone("consent"))).endswith(
        "not reached: 'consent': no successful call: 'consent' at step 1 (agent 'a') record no outcome"
    )


# -- retries and repeats ----------------------------------------------------------------------------------


def test_a_retry_that_records_no_outcome_cannot_tell() -> None:
    run = _open(("fetch", "failed"), ("fetch", "open"))
    assert first_line(run.has_retried_failed_tools).endswith(
        "found 'fetch' at step 1 (agent 'a') failed; cannot tell whether its retry succeeded: 'fetch' at step "
        "2 (agent 'a') record no outcome (accepting_unknown_outcomes() accepts it)"
    )
    _open(("fetch", "failed"), ("fetch", "ok")).has_retried_failed_tools()


def test_a_call_that_records_no_outcome_is_accepted_on_purpose() -> None:
    run = _open(("fetch", "open"), ("report", "ok"))
    assert "found 'fetch' at step 1 (agent 'a'), which records no outcome" in first_line(
        run.has_retried_failed_tools
    )
    run.accepting_unknown_outcomes().has_retried_failed_tools()
    _open(("fetch", "open"), ("fetch", "ok")).has_retried_failed_tools()


def test_identical_arguments_in_another_key_order_are_the_same_call() -> None:
    b = SpanBuilder()
    agent = b.agent("bot")
    b.tool("search", agent, '{"q": "paris", "limit": 5}', "[]")
    b.tool("search", agent, '{"limit": 5, "q": "paris"}', "[]")
    run = ta.TraceAsserter(b.trace())
    assert first_line(run.does_not_repeat_tool_calls_in_a_row) == (
        "does_not_repeat_tool_calls_in_a_row(): expected no step to repeat the call (name and arguments) of "
        "the step before it, found search(limit=5, q='paris') at steps 1 and 2 (agent 'bot')"
    )
    assert "found search(q='paris', limit=5) 2 times, at steps 1, 2" in first_line(
        run.does_not_repeat_tool_calls
    )


# -- milestones -------------------------------------------------------------------------------------------


def test_a_milestone_reached_only_by_a_call_of_unknown_outcome_cannot_tell() -> None:
    run = _open(("search", "ok"), ("book", "open"))
    assert first_line(lambda: run.has_milestones(ta.milestone("search"), ta.milestone("book"))).endswith(
        "reached 1 of 2: 'search' at step 1; not reached: 'book': cannot tell: 'book' at step 2 (agent 'a') "
        "record no outcome"
    )


def test_the_milestones_given_first_take_the_steps() -> None:
    """Three searches, two search steps (the nested researcher's): the third given is the one not
    reached, whatever other assignment reaches as many."""
    nested = ta.TraceAsserter(trace_of("nested"))
    searches = [ta.milestone("search", id=name) for name in ("first", "second", "third")]
    assert first_line(lambda: nested.has_milestones(*searches)).endswith(
        "reached 2 of 3: 'first' at step 2, 'second' at step 3; not reached: 'third': its fitting call(s) "
        "('search' at step 2 (agent 'researcher'), 'search' at step 3 (agent 'researcher')) are each matched "
        "to another milestone: 'first', 'second'"
    )


def test_a_minefield_requested_with_an_unknown_outcome_cannot_tell() -> None:
    run = _asking(["delete"], [("search", False)])
    line = first_line(lambda: run.has_milestones(ta.milestone("search"), minefields=["delete"]))
    assert "no step on 1 minefield(s), found none, but cannot tell: tool 'delete' was requested" in line
    run.has_milestones(ta.milestone("search"), minefields=["drop"])
    run.accepting_unknown_outcomes().has_milestones(ta.milestone("search"), minefields=["delete"])


# -- least privilege --------------------------------------------------------------------------------------


def test_allow_lists_cannot_tell_for_calls_of_unknown_outcome() -> None:
    run = _asking(["delete"], [("search", False)])
    line = first_line(lambda: run.calls_only_tools(["search"]))
    assert line.startswith(
        "calls_only_tools(['search']): expected only calls of 'search', found just that, but cannot tell: "
        "tool 'delete' was requested by model call 1 (agent 'planner')"
    )
    run.calls_only_tools(["search", "delete"])  # allowed whatever it did
    run.accepting_unknown_outcomes().calls_only_tools(["search"])


def test_a_handoff_asked_for_with_an_unknown_outcome_cannot_tell() -> None:
    run = _asking(["transfer_to_billing"], [("search", False)])
    line = first_line(lambda: run.hands_off_only_to("support"))
    assert line.startswith(
        "hands_off_only_to('support'): expected handoffs only to 'support', found none other, but cannot "
        "tell: tool 'transfer_to_billing' was requested"
    )
    run.hands_off_only_to(["support", "billing"])


def _no_agent() -> ta.TraceAsserter:
    """A job span and two tool spans: no agent invocation, no model call."""
    b = SpanBuilder()
    job = b.span("job")
    b.tool("search", job, '{"q": "x"}', "ok")
    b.tool("book", job, '{"id": 1}', "ok")
    return ta.TraceAsserter(b.trace())


def test_with_no_agent_run_handoff_rules_cannot_tell() -> None:
    run = _no_agent()
    assert first_line(lambda: run.hands_off_only_to("support")).endswith(
        "cannot tell: the selection holds no agent invocation, so the trace does not show whether control "
        "passed between agents"
    )
    assert first_line(lambda: run.under_step_limits(handoffs=0)).endswith(
        "found no more, but cannot tell: the selection records no agent run"
    )


# -- budgets ------------------------------------------------------------------------------------------------


def test_step_limits_cannot_tell_what_the_trace_does_not_record() -> None:
    assert first_line(lambda: _no_agent().under_step_limits(tools=2, model_calls=3)).endswith(
        "expected at most 2 tool call(s) and at most 3 model call(s); found no more, but cannot tell: the "
        "selection records no model call"
    )
    _no_agent().under_step_limits(tools=2)
    # one step, and a call of unknown outcome that would be a second
    run = _asking(["delete"], [("search", False)])
    assert "cannot tell: tool 'delete' was requested" in first_line(lambda: run.under_step_limits(tools=1))
    run.under_step_limits(tools=2)


def test_the_failure_rate_counts_calls_of_unknown_outcome_among_the_calls() -> None:
    """1 of 2 recorded calls failed, and delete may have run: 1 of 3 (33%) at best, 2 of 3 at worst."""
    run = _asking(["delete"], [("search", True), ("lookup", False)])
    line = first_line(lambda: run.under_tool_failure_rate(0.4))
    assert line.startswith(
        "under_tool_failure_rate(0.4): expected at most 40% of the tool calls to fail, found 1 of 2 failed "
        "(50%): 'search' at step 1 (agent 'clerk'); but cannot tell: tool 'delete' was requested"
    )
    assert "found 1 of 2 failed (50%)" in first_line(lambda: run.under_tool_failure_rate(0.3))


def test_a_token_count_that_is_not_a_number_cannot_tell() -> None:
    b = SpanBuilder()
    agent = b.agent("a")
    b.chat(agent, inp=10, out=5)
    b.chat(agent, inp="NaN", out=5)
    run = ta.TraceAsserter(b.trace())
    assert first_line(lambda: run.under_token_limits(output=100)).endswith(
        "cannot tell: a model call in the selection records a token count that is not a finite number (NaN or "
        "infinity)"
    )


# -- the schema subset -------------------------------------------------------------------------------------


def _errors(value: Any, schema: Any) -> list[str]:
    verdict = validate(value, schema)
    assert not verdict.unknown, verdict.unknown
    return [str(e) for e in verdict.errors]


def _unknown(value: Any, schema: Any) -> list[str]:
    verdict = validate(value, schema)
    assert not verdict.errors, verdict.errors
    return [str(e) for e in verdict.unknown]


def test_limits_hold_their_own_value() -> None:
    assert _errors(1, {"minimum": 1, "maximum": 1}) == []
    assert _errors("abcde", {"minLength": 5, "maxLength": 5}) == []
    assert _errors([1, 2], {"minItems": 2, "maxItems": 2}) == []
    assert _errors(5, {"minimum": 5, "exclusiveMinimum": True}) == [  # draft 4
        "args: minimum: expected above 5, found 5"
    ]
    assert _errors(6, {"minimum": 5, "exclusiveMinimum": True}) == []


def test_pattern_properties_are_parameters() -> None:
    schema = {"properties": {"a": {}}, "patternProperties": {"^x_": {"type": "integer"}}}
    closed = {**schema, "additionalProperties": False}
    assert _errors({"a": 1, "x_1": 2}, closed) == []
    assert _errors({"a": 1, "y": 2}, closed) == [
        "args: additionalProperties: 'y' is not a parameter (parameters: 'a')"
    ]


def test_undecided_subschemas_cannot_tell() -> None:
    undecided = {"type": "string", "dependentRequired": {}}  # a keyword outside the subset
    assert _unknown(["a", 1], {"contains": undecided}) == ["args: contains: cannot tell whether an item fits"]
    assert _unknown(3, {"not": {"dependentRequired": {}}}) == [
        "args: not: cannot tell whether it fits the schema it must not"
    ]
    assert _unknown(3, {"oneOf": [{"type": "integer"}, {"dependentRequired": {}}]}) == [
        "args: oneOf: cannot tell whether it fits exactly one alternative"
    ]
    assert _unknown(1, {"allOf": [{"$ref": "#/$defs/list/2"}], "$defs": {"list": [{}, {}]}}) == [
        "args: $ref: '#/$defs/list/2' does not resolve inside the schema"
    ]


def test_a_value_below_a_secret_key_is_redacted() -> None:
    schema = {"properties": {"credentials": {"properties": {"pin": {"type": "integer"}}}}}
    (finding,) = _errors({"credentials": {"pin": "4711-hunter2"}}, schema)
    assert finding == "args['credentials']['pin']: type: expected integer, found '[REDACTED]' (string)"


def _offering(spans: Spans, agent: ta.Span, definitions: str, **more: Any) -> None:
    spans.model(agent, **more)
    model = spans.spans[-1]
    attributes = {**model.attributes, "gen_ai.tool.definitions": definitions}
    spans.spans[-1] = dataclasses.replace(model, attributes=freeze_attributes(attributes))


def _book(seat_type: str, extra: str = "") -> str:
    return json.dumps(
        [
            {
                "name": "book",
                "parameters": {
                    "type": "object",
                    "properties": {"seat": json.loads(f'{{"type": "{seat_type}"{extra}}}')},
                },
            }
        ]
    )


def test_an_execution_no_request_records_is_checked_against_the_latest_definitions() -> None:
    """The model was offered book(seat: integer), then book(seat: string); the book span that follows
    has no recorded request: the definitions offered last before it are its schema."""
    spans = Spans()
    agent = spans.agent("planner")
    _offering(spans, agent, _book("integer"))
    _offering(spans, agent, _book("string"))
    spans.tool("book", agent, {"seat": 14}, "B-1")
    run = ta.TraceAsserter(ta.Trace(spans.spans))
    assert first_line(run.has_valid_tool_arguments).endswith(
        "found 1 call(s) that do not: book(seat=14) at step 1 (agent 'planner'): args['seat']: type: expected "
        "string, found 14 (integer)"
    )


def test_a_schema_the_subset_cannot_decide_cannot_tell() -> None:
    spans = Spans()
    agent = spans.agent("planner")
    _offering(spans, agent, _book("string", ', "if": {}'), tool_calls=[("book", {"seat": "14C"}, "c1")])
    run = ta.TraceAsserter(ta.Trace(spans.spans))
    assert first_line(run.has_valid_tool_arguments).endswith(
        "0 of 1 call(s) fit, but cannot tell for 1: 'book' requested by agent 'planner' (its execution is not "
        "recorded): args['seat']: if: this keyword is not in the subset traceassert checks"
    )


# -- name patterns -----------------------------------------------------------------------------------------


def test_globs_are_case_sensitive_and_regexes_match_whole_names(weather: ta.TraceAsserter) -> None:
    weather.does_not_call_tool("GET_*").does_not_call_tool("Ask_?elper").called_tool("get_*", count=1)
    weather.does_not_call_tool(re.compile("get")).does_not_call_tool(re.compile("ask_"))
    weather.called_tool(re.compile("get.*"), count=1)
    weather.calls_only_tools(["get_weather", "explode", re.compile("ask_helper")])
    assert "not allowed: 'ask_helper'" in first_line(
        lambda: weather.calls_only_tools(["get_weather", "explode", re.compile("ask")])
    )
