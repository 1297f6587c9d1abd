"""Every check marks what it examined, by mechanism (docs/coverage.md).

The first test walks every public method of ``TraceAsserter`` (introspection): each one, called so that
it has something to look at, must leave a mark. A method added later is caught here until it is given a
call below; its marks come from the places every check reads records through, not from its own code.
The others pin what a check examines: what it found, not everything it scanned.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import traceassert as ta
from tests.unit._scenarios import recorded
from traceassert._asserter.base import AsserterBase
from traceassert._checks.coverage import _examined_keys, record_key
from traceassert._model.span import freeze_attributes

pytest.importorskip("pydantic_ai")

HANDOFFS = Path(__file__).parents[1] / "data" / "openinference_openai_agents_handoffs_parallel.json"
#: the golden file ``matches_golden`` is called with (written by its test)
GOLDEN: list[Path] = []


def weather() -> ta.Trace:
    """The weather run (orchestrator -> get_weather, explode (fails), ask_helper -> helper), its root
    span carrying ``scope.customer = "acme"`` for the scope checks."""
    spans = list(recorded("weather"))
    i, root = next((i, s) for i, s in enumerate(spans) if s.parent_id is None)
    attrs = freeze_attributes({**root.attributes, "scope.customer": "acme"})
    spans[i] = dataclasses.replace(root, attributes=attrs)
    return ta.Trace(spans)


Call = Callable[[Any], Any]
NESTED: Call = lambda a: a.called_agent("orchestrator").including_nested()  # noqa: E731

#: method -> (trace, what to call it on, the call): each call has something to examine (a failing
#: call counts: the check looked)
CALLS: dict[str, tuple[str, Call | None, Call]] = {
    "called_agent": ("weather", None, lambda a: a.called_agent("helper")),
    "called_agents": ("weather", None, lambda a: a.called_agents(max_count=5)),
    "called_any_agent": ("weather", None, lambda a: a.called_any_agent(["helper"])),
    "called_any_tool": ("weather", None, lambda a: a.called_any_tool(["get_weather", "explode"])),
    "called_tool": ("weather", None, lambda a: a.called_tool("get_weather")),
    "called_tools": ("weather", None, lambda a: a.called_tools(max_count=9)),
    "calls_only_tools": (
        "weather",
        None,
        lambda a: a.calls_only_tools(["get_weather", "explode", "ask_helper"]),
    ),
    "calls_tool_after": ("weather", None, lambda a: a.calls_tool_after("explode", "get_weather")),
    "calls_tool_directly_after": (
        "weather",
        None,
        lambda a: a.calls_tool_directly_after("explode", "get_weather"),
    ),
    "calls_tool_only_after": (
        "weather",
        None,
        lambda a: a.calls_tool_only_after("ask_helper", "get_weather"),
    ),
    "check_eval": (
        "weather",
        None,
        lambda a: a.check_eval("keyword_presence", "present", eval_options={"keywords": ["jacket"]}),
    ),
    "contains_any_input": ("weather", None, lambda a: a.contains_any_input("Paris", "Rome")),
    "contains_any_output": ("weather", None, lambda a: a.contains_any_output("jacket", "coat")),
    "contains_any_scope": ("weather", None, lambda a: a.contains_any_scope("customer", "ac")),
    "contains_input": ("weather", None, lambda a: a.contains_input("Paris")),
    "contains_output": ("weather", None, lambda a: a.contains_output("jacket")),
    "contains_scope": ("weather", None, lambda a: a.contains_scope("customer", "ac")),
    "conversation": ("handoffs", None, lambda a: a.conversation(None)),
    "does_not_call_agent": ("weather", None, lambda a: a.does_not_call_agent("helper")),
    "does_not_call_any_agent": ("weather", None, lambda a: a.does_not_call_any_agent(["helper"])),
    "does_not_call_any_tool": ("weather", None, lambda a: a.does_not_call_any_tool(["explode"])),
    "does_not_call_tool": ("weather", None, lambda a: a.does_not_call_tool("explode")),
    "does_not_call_tool_after": (
        "weather",
        None,
        lambda a: a.does_not_call_tool_after("explode", "get_weather"),
    ),
    "does_not_contain_any_input": ("weather", None, lambda a: a.does_not_contain_any_input("Paris")),
    "does_not_contain_any_output": ("weather", None, lambda a: a.does_not_contain_any_output("jacket")),
    "does_not_contain_any_scope": ("weather", None, lambda a: a.does_not_contain_any_scope("customer", "ac")),
    "does_not_contain_input": ("weather", None, lambda a: a.does_not_contain_input("Paris")),
    "does_not_contain_output": ("weather", None, lambda a: a.does_not_contain_output("jacket")),
    "does_not_contain_scope": ("weather", None, lambda a: a.does_not_contain_scope("customer", "ac")),
    "does_not_hand_off": ("handoffs", None, lambda a: a.does_not_hand_off()),
    "does_not_have_any_input": ("weather", None, lambda a: a.does_not_have_any_input({"city": "Paris"})),
    "does_not_have_any_output": (
        "weather",
        None,
        lambda a: a.does_not_have_any_output("Wear a light jacket."),
    ),
    "does_not_have_any_scope": ("weather", None, lambda a: a.does_not_have_any_scope("customer", "acme")),
    "does_not_have_attribute": ("weather", None, lambda a: a.does_not_have_attribute("gen_ai.tool.name")),
    "does_not_have_failed_tool_executions": (
        "weather",
        NESTED,
        lambda a: a.does_not_have_failed_tool_executions(),
    ),
    "does_not_have_handoffs": ("handoffs", None, lambda a: a.turn(1).does_not_have_handoffs()),
    "does_not_have_input": ("weather", None, lambda a: a.does_not_have_input({"city": "Paris"})),
    "does_not_have_output": ("weather", None, lambda a: a.does_not_have_output("Wear a light jacket.")),
    "does_not_have_retrieved_sources": ("weather", NESTED, lambda a: a.does_not_have_retrieved_sources()),
    "does_not_have_scope": ("weather", None, lambda a: a.does_not_have_scope("customer")),
    "does_not_have_tool_executions": ("weather", NESTED, lambda a: a.does_not_have_tool_executions()),
    "does_not_have_unchecked_tool_executions": (
        "weather",
        NESTED,
        lambda a: a.does_not_have_unchecked_tool_executions(),
    ),
    "does_not_match": ("weather", None, lambda a: a.does_not_match({"gen_ai.tool.name": "explode"})),
    "does_not_repeat_tool_calls": ("weather", None, lambda a: a.does_not_repeat_tool_calls()),
    "does_not_repeat_tool_calls_in_a_row": (
        "weather",
        None,
        lambda a: a.does_not_repeat_tool_calls_in_a_row(),
    ),
    "ends_with_tool": ("weather", None, lambda a: a.ends_with_tool("ask_helper")),
    "executed_tool_names": ("weather", NESTED, lambda a: a.executed_tool_names()),
    "handed_off_to": ("handoffs", None, lambda a: a.handed_off_to("bookings")),
    "hands_off_only_to": ("handoffs", None, lambda a: a.hands_off_only_to(["bookings"])),
    "has_any_input": ("weather", None, lambda a: a.has_any_input({"city": "Paris"}, {"city": "Rome"})),
    "has_any_output": ("weather", None, lambda a: a.has_any_output("Wear a light jacket.", "no")),
    "has_any_scope": ("weather", None, lambda a: a.has_any_scope("customer", "acme", "other")),
    "has_attribute": ("weather", None, lambda a: a.has_attribute("gen_ai.tool.name", "explode")),
    "has_event": ("weather", None, lambda a: a.has_event("exception")),
    "has_failed": ("weather", None, lambda a: a.has_failed()),
    "has_failed_with": ("weather", None, lambda a: a.has_failed_with("RuntimeError")),
    "has_failed_with_message_containing": (
        "weather",
        None,
        lambda a: a.has_failed_with_message_containing("x"),
    ),
    "has_finish_reason": ("weather", None, lambda a: a.has_finish_reason("stop")),
    "has_handed_off_to": ("handoffs", None, lambda a: a.turn(1).has_handed_off_to("bookings")),
    "has_input": ("weather", None, lambda a: a.has_input({"city": "Paris"})),
    "has_milestones": ("weather", None, lambda a: a.has_milestones(ta.milestone("get_weather"))),
    "has_model_call_count": ("weather", NESTED, lambda a: a.has_model_call_count(5)),
    "has_model_calls": ("weather", NESTED, lambda a: a.has_model_calls(max_count=5)),
    "has_no_failed_tool_executions": ("weather", NESTED, lambda a: a.has_no_failed_tool_executions()),
    "has_no_handoffs": ("handoffs", None, lambda a: a.turn(1).has_no_handoffs()),
    "has_no_more_tool_executions": ("weather", NESTED, lambda a: a.has_no_more_tool_executions()),
    "has_no_retrieved_sources": ("weather", NESTED, lambda a: a.has_no_retrieved_sources()),
    "has_no_tool_executions": ("weather", NESTED, lambda a: a.has_no_tool_executions()),
    "has_output": ("weather", None, lambda a: a.has_output("Wear a light jacket.")),
    "has_own_model_call_count": ("weather", NESTED, lambda a: a.has_own_model_call_count(4)),
    "has_own_model_call_count_at_most": ("weather", NESTED, lambda a: a.has_own_model_call_count_at_most(4)),
    "has_own_model_calls": ("weather", NESTED, lambda a: a.has_own_model_calls(max_count=4)),
    "has_retried_failed_tools": ("weather", None, lambda a: a.has_retried_failed_tools()),
    "has_retrieved_source_containing": ("weather", NESTED, lambda a: a.has_retrieved_source_containing("x")),
    "has_scope": ("weather", None, lambda a: a.has_scope("customer", "acme")),
    "has_succeeded": ("weather", None, lambda a: a.has_succeeded()),
    "has_tool_executed": ("weather", NESTED, lambda a: a.has_tool_executed("get_weather")),
    "has_tool_executed_times": ("weather", NESTED, lambda a: a.has_tool_executed_times("get_weather", 1)),
    "has_tool_executed_with": (
        "weather",
        NESTED,
        lambda a: a.has_tool_executed_with("get_weather", {"city": "Paris"}),
    ),
    "has_tool_execution_failed": ("weather", NESTED, lambda a: a.has_tool_execution_failed("explode")),
    "has_tools_executed_exactly_in_any_order": (
        "weather",
        NESTED,
        lambda a: a.has_tools_executed_exactly_in_any_order("ask_helper", "get_weather"),
    ),
    "has_tools_executed_in_order": (
        "weather",
        NESTED,
        lambda a: a.has_tools_executed_in_order("get_weather"),
    ),
    "has_turn_count": ("handoffs", None, lambda a: a.has_turn_count(2)),
    "has_turns": ("handoffs", None, lambda a: a.has_turns(count=2)),
    "matches_golden": ("weather", None, lambda a: a.matches_golden(GOLDEN[-1])),
    "has_claim_backed_by_tool": (
        "weather",
        None,
        lambda a: a.has_claim_backed_by_tool(r"sunny in (?P<city>\w+)", "get_weather"),
    ),
    "has_output_backed_by_tool_results": ("weather", None, lambda a: a.has_output_backed_by_tool_results()),
    "has_trajectory_score": (
        "weather",
        None,
        lambda a: a.has_trajectory_score(["get_weather", "explode", "ask_helper"], min_score=0.5),
    ),
    "has_valid_tool_arguments": ("weather", None, lambda a: a.has_valid_tool_arguments()),
    "starts_with_tool": ("weather", None, lambda a: a.starts_with_tool("get_weather")),
    "trajectory_score": ("weather", None, lambda a: a.trajectory_score(["get_weather", "ask_helper"])),
    "tool_executions": ("weather", NESTED, lambda a: a.tool_executions()),
    "turn": ("handoffs", None, lambda a: a.turn(2)),
    "under_duration": ("weather", None, lambda a: a.under_duration(60)),
    "under_step_limits": ("weather", None, lambda a: a.under_step_limits(tools=10, model_calls=10)),
    "under_token_limit": ("weather", None, lambda a: a.under_token_limit(10_000)),
    "under_token_limits": ("weather", None, lambda a: a.under_token_limits(input=10_000, output=10_000)),
    "under_tool_failure_rate": ("weather", None, lambda a: a.under_tool_failure_rate(0.5)),
    "where": ("weather", None, lambda a: a.where({"gen_ai.tool.name": "explode"})),
    "where_any_scope": ("weather", None, lambda a: a.where_any_scope("customer", "acme")),
    "where_any_scope_contains": ("weather", None, lambda a: a.where_any_scope_contains("customer", "ac")),
    "where_attribute": ("weather", None, lambda a: a.where_attribute("gen_ai.tool.name", "explode")),
    "where_event": ("weather", None, lambda a: a.where_event("exception")),
    "where_scope": ("weather", None, lambda a: a.where_scope("customer", "acme")),
    "where_scope_contains": ("weather", None, lambda a: a.where_scope_contains("customer", "ac")),
}

#: the choices among the families' methods: a new asserter with another setting; they examine nothing
CHOICES = {
    "with_comparer": lambda a: a.with_comparer("exact"),
    "with_evaluation": lambda a: a.with_evaluation("builtin"),
}


def public_checks() -> list[str]:
    return sorted(
        name
        for name, member in inspect.getmembers(ta.TraceAsserter)
        if not name.startswith("_") and inspect.isfunction(member) and name not in vars(AsserterBase)
    )


def trace_named(name: str, tmp_path: Path) -> ta.Trace:
    return weather() if name == "weather" else ta.load_trace(HANDOFFS)


def examined(trace: ta.Trace, prep: Call | None, call: Call) -> set[Any]:
    """The record and span keys the call (alone, after ``prep``) examined."""
    a: Any = ta.TraceAsserter(trace)
    if prep is not None:
        a = prep(a)
    before = len(trace.ledger.examined)
    with contextlib.suppress(ta.TraceAssertionError):  # a failing check looked too
        call(a)
    keys, spans, _ = _examined_keys(trace, trace.ledger.examined[before:])
    return keys | spans


def test_every_public_check_has_a_call_here() -> None:
    assert sorted(set(public_checks()) - set(CALLS) - set(CHOICES)) == []
    assert sorted((set(CALLS) | set(CHOICES)) - set(public_checks())) == []


@pytest.mark.parametrize("name", sorted(CALLS))
def test_every_public_check_marks_what_it_examined(name: str, tmp_path: Path) -> None:
    trace_name, prep, call = CALLS[name]
    trace = trace_named(trace_name, tmp_path)
    if name == "matches_golden":
        GOLDEN.append(tmp_path / "golden.json")
        ta.dump_trace(trace, GOLDEN[-1])
    assert examined(trace, prep, call), f"{name} examined nothing it could have marked"


@pytest.mark.parametrize("name", sorted(CHOICES))
def test_a_choice_examines_nothing(name: str) -> None:
    trace = weather()
    CHOICES[name](ta.TraceAsserter(trace))
    assert trace.ledger.examined == []


# -- what a check examines: what it found ------------------------------------------------------------


def names_of(trace: ta.Trace, keys: set[Any]) -> list[str]:
    records = [*trace.all_agents(), *trace.tool_executions, *trace.model_calls]
    spans = {s.key for s in trace.spans}
    out = []
    for rec in records:
        span = rec.span
        if record_key(rec) in keys or (span is not None and span.key in keys & spans):
            out.append(f"{type(rec).__name__}:{getattr(rec, 'name', None) or rec.model}")
    return sorted(out)


@pytest.mark.parametrize(
    ("prep", "call", "expected"),
    [
        (None, lambda a: a.called_tool("get_weather"), ["ToolExecution:get_weather"]),
        (None, lambda a: a.does_not_call_tool("delete_file"), []),
        (
            None,
            lambda a: a.called_tools(max_count=5),
            ["ToolExecution:ask_helper", "ToolExecution:explode", "ToolExecution:get_weather"],
        ),
        (None, lambda a: a.called_agent("helper"), ["AgentInvocation:helper"]),
        (None, lambda a: a.has_succeeded(), ["AgentInvocation:orchestrator"]),
        (
            NESTED,
            lambda a: a.has_tool_executed("get_weather"),
            ["AgentInvocation:orchestrator", "ToolExecution:get_weather"],
        ),
        (
            None,
            lambda a: a.calls_tool_after("ask_helper", "get_weather"),
            ["ToolExecution:ask_helper", "ToolExecution:get_weather"],
        ),
        (
            None,
            lambda a: a.contains_output("light jacket"),
            [
                "AgentInvocation:helper",
                "AgentInvocation:orchestrator",
                "ModelCall:scripted-helper",
                "ModelCall:scripted-orchestrator",
                "ToolExecution:ask_helper",
            ],
        ),
    ],
    ids=[
        "selector",
        "negative-passing",
        "every-tool",
        "agent-selector",
        "gate",
        "invocation-check",
        "order",
        "output",
    ],
)
def test_a_check_examines_what_it_found_not_what_it_scanned(
    prep: Call | None, call: Call, expected: list[str]
) -> None:
    trace = weather()
    assert names_of(trace, examined(trace, prep, call)) == expected
