"""No vacuous verdicts: a tool call the model asked for, with no execution and no result in the trace,
made where the producer is not known to record executions, has an unknown outcome. Every check such a
call could change fails with "cannot tell" and names the calls; ``accepting_unknown_outcomes()`` (and
``traceassert check --accept-unknown``) accepts them on purpose.

Hand-built spans (a GenAI producer of scope ``tests`` that writes agent and chat spans, no tool span)
for each check; a real capture and other projects' files at the end.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import traceassert as ta
from tests._thirdparty import third_party
from tests.unit.spanbuilder import SpanBuilder
from traceassert._dialects import records_tool_executions
from traceassert.cli import main

WHY = "(genai spans of scope 'tests': a producer not known to record tool executions, with no tool span in this trace)"
ACCEPT = (
    "accepting_unknown_outcomes() (traceassert check --accept-unknown) accepts unknown outcomes on purpose"
)
EXPLODE = (
    "cannot tell: tool 'explode' was requested by model call 2 (agent 'planner'); this trace records "
    f"neither its execution nor its result {WHY}"
)


def _asks(*calls: tuple[str, dict[str, Any], str]) -> str:
    parts = [{"type": "tool_call", "name": n, "arguments": a, "id": i} for n, a, i in calls]
    return json.dumps([{"role": "assistant", "parts": parts}])


def _planner(b: SpanBuilder) -> ta.Span:
    """planner asks for get_weather (model call 1) and explode (2), runs helper, which asks for lookup
    (3), and answers (4); no span shows any tool run."""
    planner = b.agent("planner")
    b.chat(planner, **{"gen_ai.output.messages": _asks(("get_weather", {"city": "Rome"}, "c1"))})
    b.chat(planner, **{"gen_ai.output.messages": _asks(("explode", {}, "c2"))})
    helper = b.agent("helper", planner)
    b.chat(helper, **{"gen_ai.output.messages": _asks(("lookup", {"q": "a"}, "c3"))})
    b.chat(planner)
    return planner


def _unknown() -> ta.Trace:
    b = SpanBuilder()
    _planner(b)
    return b.trace()


def _failure(check: Callable[[], object]) -> str:
    with pytest.raises(ta.TraceAssertionError) as failure:
        check()
    return str(failure.value).splitlines()[0]


def test_the_tree_says_no_execution_recorded() -> None:
    trace = _unknown()
    assert [(r.name, r.outcome_unknown, r.executions_recorded) for r in trace.tool_requests] == [
        ("get_weather", True, False),
        ("explode", True, False),
        ("lookup", True, False),
    ]
    rendered = trace.render()
    assert "3 tool request(s) with no execution recorded" in rendered
    assert "│  └─ tool explode() (requested, no execution recorded)" in rendered
    assert "not executed" not in rendered
    assert repr(trace.tool_requests[1]) == "ToolRequest('explode', arguments={}, no execution recorded)"


def test_the_html_report_says_no_execution_recorded() -> None:
    from traceassert._report import trace_view

    (planner,) = [n for n in trace_view(_unknown())["tree"] if n["k"] == "agent"]
    model = [n for n in planner["c"] if n["k"] == "model"][1]
    assert [c["t"] for c in model["c"]] == ["explode() requested, no execution recorded"]


def test_does_not_call_tool_cannot_tell() -> None:
    a = ta.TraceAsserter(_unknown())
    assert _failure(lambda: a.does_not_call_tool("explode")) == (
        f"does_not_call_tool('explode'): expected no call of 'explode', found none, but {EXPLODE}; it may "
        f"have run. {ACCEPT}"
    )
    assert _failure(lambda: a.does_not_call_any_tool(["explode", "delete"])).startswith(
        "does_not_call_any_tool(['explode', 'delete']): expected no call of 'explode', 'delete', found none, "
        f"but {EXPLODE}"
    )
    assert EXPLODE in _failure(lambda: a.does_not_call_tool("explode", "planner"))
    # a tool nobody asked for, and a call another agent asked for, change nothing
    a.does_not_call_tool("delete").does_not_call_tool("explode", "helper")


def test_only_requests_inside_the_selection_count() -> None:
    a = ta.TraceAsserter(_unknown())
    lookup = "cannot tell: tool 'lookup' was requested by model call 3 (agent 'helper')"
    # nested agents' calls count by default, not after top_level_only()
    assert lookup in _failure(lambda: a.does_not_call_tool("lookup"))
    a.top_level_only().does_not_call_tool("lookup")
    a.called_agent("helper").does_not_call_tool("explode")
    assert lookup in _failure(lambda: a.called_agent("helper").does_not_call_tool("lookup"))
    # the invocation checks: the nesting choice decides whether helper's call is in scope
    text = _failure(lambda: a.called_agent("planner").top_level_only().has_no_tool_executions())
    assert "'explode' was requested by model call 2" in text and "lookup" not in text
    text = _failure(lambda: a.called_agent("helper").has_no_failed_tool_executions())
    assert lookup in text and "explode" not in text


def test_no_failed_and_no_more_executions_cannot_tell() -> None:
    a = ta.TraceAsserter(_unknown()).including_nested()
    assert _failure(a.has_no_failed_tool_executions) == (
        "has_no_failed_tool_executions() on agent 'planner': found no failed tool execution, but cannot "
        "tell: tool 'get_weather' was requested by model call 1 (agent 'planner'); tool 'explode' was "
        "requested by model call 2 (agent 'planner'); tool 'lookup' was requested by model call 3 (agent "
        "'helper'); this trace records neither their execution nor their result "
        f"{WHY}; they may have run, and failed. {ACCEPT}"
    )
    assert _failure(a.does_not_have_failed_tool_executions).startswith(
        "does_not_have_failed_tool_executions() on agent 'planner': found no failed tool execution, but "
        "cannot tell: tool 'get_weather'"
    )
    assert _failure(a.has_no_more_tool_executions).startswith(
        "has_no_more_tool_executions() on agent 'planner': found all 0 tool execution(s) checked, but cannot "
        "tell: tool 'get_weather' was requested by model call 1"
    )
    assert "they may have run, unchecked" in _failure(a.does_not_have_unchecked_tool_executions)
    assert _failure(a.has_no_tool_executions).startswith(
        "has_no_tool_executions() on agent 'planner': found no tool execution, but cannot tell: tool "
        "'get_weather'"
    )
    assert "cannot tell" in _failure(a.does_not_have_tool_executions)
    assert _failure(lambda: a.has_tools_executed_exactly_in_any_order()).startswith(
        "has_tools_executed_exactly_in_any_order() on agent 'planner': expected exactly no tool to run "
        "successfully and no other tool, found just that, but cannot tell: tool 'get_weather'"
    )


def test_counts_with_an_upper_bound_cannot_tell() -> None:
    a = ta.TraceAsserter(_unknown())
    assert _failure(lambda: a.called_tool("explode", max_count=0)) == (
        "called_tool('explode', max_count=0): expected at most 0 call(s) of tool 'explode', found 0, but "
        f"{EXPLODE}; it may have run, which would put the count above the bound. {ACCEPT}"
    )
    assert EXPLODE in _failure(lambda: a.called_any_tool(["explode", "x"], count=0))
    assert "found 0, but cannot tell" in _failure(lambda: a.called_tools(max_count=0))
    assert "found 0, but cannot tell" in _failure(lambda: a.called_tools(count=0))
    planner = a.including_nested()
    assert _failure(lambda: planner.has_tool_executed("explode", max_count=0)) == (
        "has_tool_executed('explode', max_count=0) on agent 'planner': expected at most 0 successful "
        f"execution(s) of 'explode', found 0, but {EXPLODE}; it may have run, which would put the count "
        f"above the bound. {ACCEPT}"
    )
    assert EXPLODE in _failure(lambda: planner.has_tool_executed("explode", count=0))
    assert EXPLODE in _failure(lambda: planner.has_tool_executed_times("explode", 0))
    # a count that fails anyway says what it could not see
    assert _failure(lambda: planner.has_tool_executed("explode", count=2)).endswith(
        "expected 2 successful execution(s) of 'explode', found 0 (1 more requested by the model with no "
        "execution recorded)"
    )
    assert _failure(lambda: a.called_tool("explode", count=2)).endswith(
        "expected exactly 2 call(s) of tool 'explode', found 0 (1 more requested by the model with no "
        "execution recorded)"
    )
    # a bound the unknown calls cannot pass, and a lower bound alone, are told
    a.called_tools(max_count=3).called_tools(min_count=0).called_tool("explode", min_count=0)
    planner.has_tool_executed("explode", min_count=0)
    assert "1 more requested by the model with no execution recorded" in _failure(
        lambda: a.called_tool("explode")
    )
    assert "it was requested by the model (1 request(s)) with no execution recorded" in _failure(
        lambda: planner.has_tool_executed("explode")
    )


def test_accepting_unknown_outcomes() -> None:
    """The one way to accept them on purpose: a choice, kept by every selector after it."""
    plain = ta.TraceAsserter(_unknown())
    a = plain.accepting_unknown_outcomes()
    assert type(a) is type(plain) and a is not plain
    a.does_not_call_tool("explode").does_not_call_any_tool(["explode", "lookup"])
    a.called_tool("explode", max_count=0).called_tools(max_count=0)
    nested = a.including_nested()
    nested.has_no_failed_tool_executions().has_no_more_tool_executions().has_no_tool_executions()
    nested.has_tool_executed_times("explode", 0)
    a.called_agent("helper").does_not_call_tool("lookup").has_no_failed_tool_executions()
    # the choice is the asserter's: the plain one still cannot tell
    assert "cannot tell" in _failure(lambda: plain.does_not_call_tool("explode"))
    # calls that did run still count
    with pytest.raises(ta.TraceAssertionError, match="no execution recorded"):
        a.called_tool("explode")


def _rescoped(spans: list[ta.Span], scope: str) -> list[ta.Span]:
    return [dataclasses.replace(s, scope_name=scope) for s in spans]


def test_where_the_producer_records_executions_a_request_is_not_executed() -> None:
    """A producer whose tool spans this trace holds records executions: a request none answers was not
    carried out, and the checks pass as before."""
    b = SpanBuilder()
    planner = _planner(b)
    b.tool("get_weather", planner, '{"city": "Rome"}')
    trace = b.trace()
    assert [(r.name, r.executed, r.outcome_unknown) for r in trace.tool_requests] == [
        ("get_weather", True, False),
        ("explode", False, False),
        ("lookup", False, False),
    ]
    assert "│  └─ tool explode() (requested, not executed)" in trace.render()
    a = ta.TraceAsserter(trace)
    a.does_not_call_tool("explode").called_tool("get_weather", count=1).called_tools(max_count=1)
    a.including_nested().has_no_failed_tool_executions().has_tool_executed("get_weather", count=1)


def test_the_tool_spans_of_another_producer_do_not_tell() -> None:
    """A tool span written by another producer (another scope) says nothing of this one's calls."""
    b = SpanBuilder()
    _planner(b)
    clerk = b.agent("clerk")
    b.tool("file", clerk)
    spans = b.spans[:-2] + _rescoped(b.spans[-2:], "tests.clerk")
    trace = ta.Trace(spans)
    assert [r.name for r in trace.tool_requests if r.outcome_unknown] == ["get_weather", "explode", "lookup"]
    assert "cannot tell: tool 'explode'" in _failure(
        lambda: ta.TraceAsserter(trace).does_not_call_tool("explode")
    )


def test_each_dialect_declares_it() -> None:
    assert records_tool_executions("monocle", None)
    assert records_tool_executions("pydantic_ai", "pydantic-ai")
    assert records_tool_executions("openinference", "openinference.instrumentation.langchain")
    assert records_tool_executions("traceloop", "opentelemetry.instrumentation.openai_agents")
    # the model clients' instrumentations write the model calls only
    assert not records_tool_executions("openinference", "openinference.instrumentation.openai")
    assert not records_tool_executions("traceloop", "opentelemetry.instrumentation.openai.v1")
    assert not records_tool_executions("genai", "opentelemetry.util.genai.handler")
    assert not records_tool_executions("genai", None)
    assert not records_tool_executions(None, None)


def test_a_recorded_trace_of_a_producer_that_records_executions() -> None:
    """The OpenAI Agents SDK under Monocle: a request nothing ran is "not executed", as before."""
    trace = ta.load_trace(Path(__file__).resolve().parents[1] / "data" / "openai_agents_monocle.json")
    (request,) = trace.unexecuted_tool_requests
    assert request.executions_recorded and not request.outcome_unknown
    assert "(requested, not executed)" in trace.render()
    ta.TraceAsserter(trace).does_not_call_tool(request.name)


# -- the command line -----------------------------------------------------------------------------------


def test_cli_no_failed_tools_and_does_not_call_tool(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "run.json"
    ta.dump_trace(_unknown(), path)
    assert main(["check", str(path), "--no-failed-tools", "--does-not-call-tool", "explode"]) == 1
    out = capsys.readouterr().out
    assert f"does_not_call_tool('explode'): expected no call of 'explode', found none, but {EXPLODE}" in out
    assert (
        "--no-failed-tools: expected no failed tool execution, found none, but cannot tell: tool "
        "'get_weather' was requested by model call 1 (agent 'planner')" in out
    )
    assert "0 passed, 1 failed" in out
    assert (
        main(["check", str(path), "--no-failed-tools", "--does-not-call-tool", "explode", "--accept-unknown"])
        == 0
    )
    assert "1 passed, 0 failed" in capsys.readouterr().out


# -- files other projects recorded --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "relative",
    [
        "peers/traces/Grace__genai-interlingua/testdata__openinference__in.json",
        "peers/traces/Grace__genai-interlingua/testdata__openllmetry__in.json",
    ],
)
def test_a_model_client_capture_cannot_tell(relative: str) -> None:
    """OpenInference's and OpenLLMetry's OpenAI client instrumentations record the model's call of
    lookup_order, never whether it ran."""
    trace = ta.load_trace(third_party(relative))
    assert trace.tool_executions == ()
    (request,) = trace.tool_requests
    assert request.name == "lookup_order" and request.outcome_unknown
    assert "lookup_order(" in trace.render() and "(requested, no execution recorded)" in trace.render()
    a = ta.TraceAsserter(trace)
    text = _failure(lambda: a.does_not_call_tool("lookup_order"))
    assert (
        "cannot tell: tool 'lookup_order' was requested by model call 1; this trace records neither" in text
    )
    assert "a producer not known to record tool executions" in text
    assert "cannot tell" in _failure(lambda: a.called_tools(max_count=0))
    a.accepting_unknown_outcomes().does_not_call_tool("lookup_order")
