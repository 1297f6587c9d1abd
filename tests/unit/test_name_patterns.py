"""Name patterns everywhere a name is taken: exact names, globs, compiled regexes, ``ta.exact`` and
``ta.glob``, on real runs of several stacks (Pydantic AI live, LangGraph and the OpenAI Agents SDK under
OpenInference, Google ADK recorded)."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

import traceassert as ta
from tests._stackfacts import recorded_trace
from tests.unit._scenarios import Spans, trace_of
from tests.unit.spanbuilder import SpanBuilder
from traceassert._golden.generate import generate_test

pytest.importorskip("pydantic_ai")

RECORDED = ("openinference_langgraph", "openinference_openai_agents", "adk_schema2")


@pytest.fixture(params=("pydantic_ai", *RECORDED))
def run(request: pytest.FixtureRequest) -> ta.TraceAsserter:
    """The shared scenario (get_weather, explode fails, ask_helper runs the nested helper) on each stack."""
    trace = trace_of("weather") if request.param == "pydantic_ai" else recorded_trace(request.param)
    return ta.TraceAsserter(trace)


def names(selection: ta.ToolSelection) -> list[str]:
    return [t.name for t in selection.tool_executions()]


def test_a_glob_selects_every_matching_tool(run: ta.TraceAsserter) -> None:
    assert names(run.called_tool("*e*", count=3)) == ["get_weather", "explode", "ask_helper"]
    assert names(run.called_tool("get_*")) == ["get_weather"]
    assert names(run.called_tool(["ex*", "ask_?elper"], count=2)) == ["explode", "ask_helper"]
    run.does_not_call_tool("delete_*").called_agent("h*").does_not_call_tool("*")


def test_a_regex_matches_the_whole_name(run: ta.TraceAsserter) -> None:
    assert names(run.called_tool(re.compile(r"get_\w+"))) == ["get_weather"]
    run.does_not_call_tool(re.compile("weather"))  # a part of the name: not a match
    assert names(run.called_tool(re.compile(".*weather.*"))) == ["get_weather"]


def test_agents_and_agent_name_take_patterns(run: ta.TraceAsserter) -> None:
    run.called_agent("*", count=2).called_agent(re.compile("orch.*"), count=1)
    run.called_tool("explode", agent_name="orch*").does_not_call_agent(["planner", "x*"])
    run.does_not_call_tool("get_weather", agent_name=re.compile("help.*"))


def test_failures_say_which_names_matched(run: ta.TraceAsserter) -> None:
    with pytest.raises(ta.TraceAssertionError) as err:
        run.called_tool("*e*", count=2)
    first = str(err.value).splitlines()[0]
    assert first == (
        "called_tool('*e*', count=2): expected exactly 2 call(s) of a tool matching '*e*', found 3; names "
        "matched: 'get_weather', 'explode', 'ask_helper'"
    )
    with pytest.raises(ta.TraceAssertionError) as err:
        run.does_not_call_tool(["ex*", re.compile("ask_.*")])
    assert str(err.value).splitlines()[0] == (
        "does_not_call_tool(['ex*', re.compile('ask_.*')]): expected no call of 'ex*', re.compile('ask_.*'), "
        "found 2: 'explode', 'ask_helper' (matching 'ex*', re.compile('ask_.*'))"
    )
    with pytest.raises(ta.TraceAssertionError) as err:
        run.called_tool("search_*")
    assert str(err.value).splitlines()[0] == (
        "called_tool('search_*'): expected at least 1 call(s) of a tool matching 'search_*', found 0; no "
        "recorded name matches 'search_*'"
    )


def test_invocation_checks_take_patterns() -> None:
    a = ta.TraceAsserter(trace_of("weather")).including_nested()
    a.has_tool_executed("get_*").has_tool_executed(re.compile(".*_helper")).has_tool_execution_failed("ex*")
    a.has_tool_executed_with("get_*", {"city": "Paris"}).has_tools_executed_in_order("get_*", "ask_*")
    parallel = ta.TraceAsserter(trace_of("parallel"))
    parallel.has_tools_executed_exactly_in_any_order(("get_*", {"utc_offset": 1}), "get_*")
    with pytest.raises(ta.TraceAssertionError) as err:
        a.has_tool_executed("*", count=1)
    assert "expected 1 successful execution(s) of '*', found 2" in str(err.value)


def test_a_name_with_glob_characters_still_finds_itself() -> None:
    spans = Spans()
    agent = spans.agent("bot")
    for name in ("lookup[v2]", "lookupv", "a*b", "axb"):
        spans.tool(name, parent=agent)
    a = ta.TraceAsserter(spans.trace())
    # a plain string: the name written exactly, and the glob
    assert names(a.called_tool("a*b", count=2)) == ["a*b", "axb"]
    assert names(a.called_tool("lookup[v2]", count=2)) == ["lookup[v2]", "lookupv"]
    # ta.exact: that name only; ta.glob: the glob only
    assert names(a.called_tool(ta.exact("a*b"), count=1)) == ["a*b"]
    assert names(a.called_tool(ta.glob("lookup[v2]"), count=1)) == ["lookupv"]
    with pytest.raises(ta.TraceAssertionError, match=r"called_tool\(ta.exact\('a\*b'\), count=2\)"):
        a.called_tool(ta.exact("a*b"), count=2)


def test_plain_names_match_exactly_as_before(run: ta.TraceAsserter) -> None:
    run.does_not_call_tool(["get", "weather", "Get_weather"]).called_tool("get_weather", count=1)


def test_wrong_names_are_type_errors() -> None:
    a = ta.TraceAsserter(trace_of("weather"))
    with pytest.raises(TypeError, match="a tool name must be a str, got 3"):
        a.called_tool([3])  # type: ignore[list-item]
    with pytest.raises(TypeError, match=r"ta\.exact takes a non-empty str"):
        ta.exact("")
    with pytest.raises(TypeError, match="must be a str pattern"):
        a.called_tool(re.compile(b"x"))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="needs at least one tool name"):
        a.called_any_tool([])


def test_generated_tests_write_names_with_glob_characters_as_exact(tmp_path: Path) -> None:
    """``called_tool('a*b', count=1)`` would count 'axb' too: the generated test says ta.exact('a*b')."""
    b = SpanBuilder()
    job = b.span("job")
    for name in ("a*b", "axb"):
        b.tool(name, job, '{"x": 1}', "ok")
    trace = b.trace()
    test = generate_test(trace, name="test_globs")
    assert 'a.called_tool(ta.exact("a*b"), count=1)' in test.source
    assert 'a.called_tool("axb", count=1)' in test.source
    ta.slim_trace(trace).write(tmp_path / test.golden_name)
    module = tmp_path / "test_globs.py"
    module.write_text(test.source)
    runpy.run_path(str(module))["test_globs"]()


@pytest.mark.parametrize(
    "recording", ["openinference_openai_agents_handoffs_parallel", "monocle_langgraph_handoffs_parallel"]
)
def test_handoff_checks_take_patterns(recording: str) -> None:
    desk = ta.TraceAsserter(recorded_trace(recording))  # concierge hands off to bookings
    desk.handed_off_to("book*").called_tool("book_*")
    desk.handed_off_to(re.compile("b.*s")).does_not_hand_off()
    desk.does_not_hand_off(to=["billing", "refund*"])
    with pytest.raises(ta.TraceAssertionError) as err:
        desk.does_not_hand_off(to="book*")
    assert (
        str(err.value)
        .splitlines()[0]
        .startswith(
            "does_not_hand_off('book*'): expected no handoff to an agent matching 'book*', found 1: concierge -> bookings"
        )
    )
    desk.called_agent("concierge").top_level_only().has_handed_off_to("book*")
