"""``ta.coverage``: what no check looked at, and the checks that passed vacuously (docs/coverage.md).

On a real multi-agent run (the Pydantic AI support desk: ``support`` calls ``ask_archivist``, whose
nested agent ``archivist`` lists and deletes a file), recorded once for the module; edge cases on
hand-built spans.
"""

from __future__ import annotations

import pytest

import traceassert as ta
from tests.unit.spanbuilder import SpanBuilder

pytest.importorskip("pydantic_ai")


@pytest.fixture(scope="module")
def spans() -> tuple[ta.Span, ...]:
    from instrumentation import pydantic_ai_support

    return tuple(ta.Span.from_readable(s) for s in pydantic_ai_support.record_spans("Please refund order 17"))


@pytest.fixture
def run(spans: tuple[ta.Span, ...]) -> ta.Trace:
    return ta.Trace(spans)  # a fresh ledger for each test


def test_a_nested_agents_delete_file_that_no_check_saw_is_reported(run: ta.Trace) -> None:
    a = ta.assert_trace(run)
    support = a.called_agent("support").top_level_only()
    support.has_succeeded()
    support.has_tools_executed_in_order("lookup_order", "refund", "ask_archivist")
    coverage = a.coverage()
    missed = coverage.not_examined()
    assert ("agent", "'archivist' (inside 'support') [succeeded]") in missed
    assert (
        "tool execution",
        "delete_file(path='/tmp/orders/17.txt') -> 'deleted /tmp/orders/17.txt' ok [agent archivist]",
    ) in missed
    assert [t.name for t in coverage.tool_executions] == ["list_files", "delete_file"]
    assert coverage.totals["tool executions"] == (3, 5)
    assert coverage.totals["agents"] == (1, 2)
    assert coverage.strict_problems() == ["agent not examined: 'archivist' (inside 'support') [succeeded]"]
    assert not coverage.complete


def test_checks_add_up_across_asserters_and_the_run_is_then_covered(run: ta.Trace) -> None:
    support = ta.assert_trace(run).called_agent("support").top_level_only().has_succeeded()
    support.has_tools_executed_in_order("lookup_order", "refund", "ask_archivist")
    support.has_no_more_tool_executions()
    archivist = ta.assert_trace(run).called_agent("archivist")  # another asserter, the same ledger
    archivist.has_succeeded().has_tools_executed_in_order(
        "list_files", ("delete_file", {"path": "/tmp/orders/17.txt"})
    )
    archivist.has_model_calls(max_count=3)
    ta.assert_trace(run).called_agent("support").top_level_only().has_model_calls(max_count=4)
    coverage = ta.coverage(run)
    assert coverage.not_examined() == []
    assert coverage.vacuous == ()
    assert coverage.complete
    assert coverage.summary() == (
        "14 of 14 records examined by 10 check(s) (agents 2/2, tool executions 5/5, model calls 7/7)"
    )


def test_a_negative_check_that_top_level_only_blinded_is_vacuous(run: ta.Trace) -> None:
    a = ta.assert_trace(run)
    a.called_agent("support").top_level_only().does_not_call_tool("delete_*")  # passes: the archivist did it
    [vacuous] = ta.coverage(run).vacuous
    assert vacuous.check == "top_level_only().does_not_call_tool('delete_*')"
    assert vacuous.where.startswith("test_coverage.py:")
    assert vacuous.why == (
        "it passes only because top_level_only() left out 1 record(s) of nested agent(s) 'archivist' that "
        "no check examined ('delete_file'); with including_nested(): does_not_call_tool('delete_*'): "
        "expected no call of 'delete_*', found 1: 'delete_file' was called once, by nested agent 'archivist' "
        "inside 'support'; use top_level_only() or agent_name= to check support's own calls"
    )
    # the rerun left nothing behind: no failure raised, nothing kept but the check itself
    assert [e.check for e in run.ledger.examined] == ["called_agent('support')", vacuous.check]
    # once a check looks at what was left out, nothing is hidden any more
    with pytest.raises(ta.TraceAssertionError):
        a.does_not_call_tool("delete_*")
    assert ta.coverage(run).vacuous == ()


def test_a_positive_check_scoped_by_top_level_only_is_not_vacuous(run: ta.Trace) -> None:
    support = ta.assert_trace(run).called_agent("support").top_level_only()
    support.has_tools_executed_in_order("lookup_order", "ask_archivist").called_tools(min_count=3)
    assert ta.coverage(run).vacuous == ()


@pytest.mark.parametrize(
    ("check", "why"),
    [
        (
            lambda a: a.does_not_call_tool("rm_rf"),
            "no model call was offered a tool matching 'rm_rf', and none was called (offered: 'ask_archivist', "
            "'delete_account', 'delete_file', 'escalate', 'list_files', 'lookup_order', 'refund')",
        ),
        (
            lambda a: a.including_nested().has_tool_executed_with("lookup_order", {}),
            "the expected arguments {} match the arguments of any call",
        ),
        (lambda a: a.contains_output(""), "the expected text '' is contained in every text"),
        (
            lambda a: a.called_tool("escalate", count=0).called_tools(count=0),
            "it checked an empty selection: no tool execution was selected",
        ),
    ],
    ids=["never-offered", "empty-arguments", "empty-text", "empty-selection"],
)
def test_a_vacuous_check_passes_as_before_and_is_flagged(run: ta.Trace, check: object, why: str) -> None:
    a = ta.assert_trace(run)
    check(a)  # type: ignore[operator]  # the verdict is the one it always was: passed
    assert why in [v.why for v in ta.coverage(run).vacuous]


def test_a_failing_check_is_never_called_vacuous(run: ta.Trace) -> None:
    with pytest.raises(ta.TraceAssertionError):
        ta.assert_trace(run).called_tool("rm_rf")
    assert ta.coverage(run).vacuous == ()


def test_an_offered_tool_name_is_no_vacuous_check(run: ta.Trace) -> None:
    ta.assert_trace(run).does_not_call_tool("delete_account")  # offered to support, never called
    assert ta.coverage(run).vacuous == ()


def test_without_recorded_tool_definitions_an_unknown_name_is_no_vacuous_check() -> None:
    b = SpanBuilder()
    agent = b.agent("solo")
    b.chat(agent)
    b.tool("search", agent, args='{"q": "x"}', result="found")
    trace = b.trace()
    ta.assert_trace(trace).does_not_call_tool("rm_rf")
    coverage = ta.coverage(trace)
    assert coverage.vacuous == ()
    assert (
        coverage.summary()
        == "0 of 3 records examined by 1 check(s) (agents 0/1, tool executions 0/1, model calls 0/1)"
    )


def test_a_check_on_a_trace_without_spans_is_vacuous() -> None:
    trace = ta.Trace([])
    ta.assert_trace(trace).does_not_call_tool("delete_file")
    [vacuous] = ta.coverage(trace).vacuous
    assert vacuous.why == "it checked a trace without spans (is the instrumentation on?)"


def test_coverage_takes_a_trace_a_capture_or_an_asserter(run: ta.Trace) -> None:
    ta.assert_trace(run).called_tool("refund")
    assert ta.coverage(run).totals == ta.coverage(ta.assert_trace(run)).totals
    with ta.capture() as cap:
        pass
    assert ta.coverage(cap).checks == 0
    with pytest.raises(TypeError, match="coverage takes a Trace, a Capture or an asserter, not list"):
        ta.coverage([])  # type: ignore[arg-type]


def test_on_a_trace_another_project_recorded_a_subagents_bash_calls_are_found() -> None:
    """Phoenix's fixture of a turn whose subagent ran ``bash`` 13 times (ids are names, not hex)."""
    import warnings

    from tests._thirdparty import third_party

    path = third_party(
        "peers/traces/Arize-ai__phoenix/tests__unit__pxi__evals__online_evals__fixtures__pxi_turn_subagent_trace.json"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ta.TraceAssertWarning)
        trace = ta.load_trace(path)
    turn = ta.assert_trace(trace).called_agent("pxi.turn").top_level_only()
    turn.has_succeeded().has_tools_executed_in_order("call_subagent").does_not_call_tool("bash")
    coverage = ta.coverage(trace)
    assert [a.name for a in coverage.agents] == ["ServerAgent.iter"]
    assert coverage.totals["tool executions"] == (1, 18)
    [vacuous] = coverage.vacuous
    assert vacuous.check == "top_level_only().does_not_call_tool('bash')"
    assert vacuous.why.startswith(
        "it passes only because top_level_only() left out 13 record(s) of nested agent(s) 'ServerAgent.iter' "
        "that no check examined ('bash')"
    )
