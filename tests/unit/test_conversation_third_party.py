"""Executions from the conversation on trace files other projects recorded
(``../shared/third_party_traces``, read in place; see its README).

Their producers write tool spans, and their model calls' inputs hold the tools' results too. Without the
tool spans (as an instrumentation that writes none records the same run) the conversation alone gives
the same executions: names, arguments, results, the agents a tool ran nested under it, and the checks
see them.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

import traceassert as ta
from tests._thirdparty import third_party
from traceassert._golden import slim_trace


def _load(name: str) -> ta.Trace:
    return ta.load_trace(third_party(name))


def _without_tool_spans(trace: ta.Trace) -> ta.Trace:
    """``trace`` with every span that records a tool execution left out (their children moved up)."""
    dropped: dict[str, str | None] = {}
    for span in trace.spans:
        op = trace.operation(span)
        if op is not None and op.kind == "tool":
            dropped[span.span_id] = span.parent_id

    def parent(span_id: str | None) -> str | None:
        while span_id in dropped:
            span_id = dropped[span_id]
        return span_id

    kept = [
        dataclasses.replace(s, parent_id=parent(s.parent_id)) for s in trace.spans if s.span_id not in dropped
    ]
    return ta.Trace(kept)


def _facts(trace: ta.Trace) -> list[tuple[Any, ...]]:
    return [(t.name, t.arguments, t.result, t.agent and t.agent.name) for t in trace.tool_executions]


def _same_outcomes_or_unknown(stripped: ta.Trace, recorded: ta.Trace) -> bool:
    """From the conversation an outcome is the span's, or unknown where the message cannot mark a
    failure: never the opposite of what the span recorded."""
    pairs = zip(stripped.tool_executions, recorded.tool_executions, strict=True)
    return all(s.failed is None or s.failed == r.failed for s, r in pairs)


def _nesting(trace: ta.Trace) -> list[tuple[str, str | None]]:
    return [(a.name, a.via_tool.name if a.via_tool else None) for a in trace.all_agents()]


AGENTS_AS_TOOLS = [
    "corpus3/traces/strands-agents__evals/openai_agents_openinference_live_spans.json",
    "corpus3/traces/strands-agents__evals/openai_agents_genai_live_spans.json",
]
SAME = [
    *AGENTS_AS_TOOLS,
    "corpus3/traces/strands-agents__evals/pydantic_ai_live_spans.json",
    "corpus3/traces/mozilla-ai__any-agent/openinference_sdkjson__evaluation_sample_OPENAI.json",
    "peers/traces/agentevals-dev__agentevals/samples__helm.json",
    "peers/traces/agentevals-dev__agentevals/tests__fixtures__otlp__hand__mcp_tool_call.json",
]


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("name", SAME)
def test_without_tool_spans_the_conversation_gives_the_same_executions(name: str) -> None:
    recorded = _load(name)
    assert recorded.tool_executions and all(t.source == "span" for t in recorded.tool_executions)
    stripped = _without_tool_spans(recorded)
    assert all(t.source == "conversation" and t.span is None for t in stripped.tool_executions)
    assert _facts(stripped) == _facts(recorded)
    assert _same_outcomes_or_unknown(stripped, recorded)
    assert _nesting(stripped) == _nesting(recorded)
    assert stripped.unexecuted_tool_requests == recorded.unexecuted_tool_requests == ()
    rendered = stripped.render()
    assert rendered.count("(from conversation)") == len(recorded.tool_executions)
    asserter = ta.TraceAsserter(stripped)
    for tool in {t.name for t in stripped.tool_executions}:
        asserter.called_tool(tool)
    if all(t.failed is False for t in stripped.tool_executions):
        asserter.including_nested().has_no_failed_tool_executions()
    else:  # the messages do not say whether they failed: no pass on what the trace cannot show
        with pytest.raises(ta.TraceAssertionError, match="the producer did not record whether"):
            asserter.including_nested().has_no_failed_tool_executions()
    # a slim golden of either keeps where each execution is known from
    for trace in (recorded, stripped):
        slim = ta.Trace(slim_trace(trace, redact=False).spans)
        assert [t.source for t in slim.tool_executions] == [t.source for t in trace.tool_executions]
        assert _facts(slim) == _facts(trace)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("name", AGENTS_AS_TOOLS)
def test_an_agent_run_as_a_tool_nests_under_the_execution_from_the_conversation(name: str) -> None:
    stripped = _without_tool_spans(_load(name))
    nested = [a for a in stripped.all_agents() if a.parent is not None]
    assert nested and all(a.via_tool is not None and a.via_tool.source == "conversation" for a in nested)
    for agent in nested:
        tool = agent.via_tool
        assert tool is not None and tool.name == f"ask_{agent.name}"
        ta.TraceAsserter(stripped).called_agent("coordinator").top_level_only().has_tool_executed(tool.name)


@pytest.mark.filterwarnings("ignore")
def test_a_handoff_the_framework_refused_stays_a_request() -> None:
    """The OpenAI Agents SDK answers a second handoff in one response with "Multiple handoffs detected,
    ignoring this one." (in the next agent's input): that is no execution; the tool span the file leaves
    out comes back from the conversation."""
    trace = _load("corpus3/traces/strands-agents__evals/openai_agents_openinference_adot_spans.json")
    assert [r.name for r in trace.unexecuted_tool_requests] == ["transfer_to_research_specialist"]
    stripped = _without_tool_spans(trace)
    assert (
        _facts(stripped)
        == _facts(trace)
        == [("multiply_numbers", {"a": 42, "b": 7}, "294.0", "math_specialist")]
    )
    assert [r.name for r in stripped.unexecuted_tool_requests] == ["transfer_to_research_specialist"]
    math = ta.TraceAsserter(stripped).called_agent("math_specialist")
    math.called_tool("multiply_numbers", count=1)
    with pytest.raises(ta.TraceAssertionError, match="whose outcome the producer did not record"):
        math.has_tool_executed_with("multiply_numbers", {"a": 42, "b": 7})  # a tool message: ran, but ok?


@pytest.mark.filterwarnings("ignore")
def test_a_failure_only_the_tool_span_marks_is_not_in_the_conversation() -> None:
    """An OpenAI chat tool message has no error flag: the failed ``add_spans_to_dataset`` (status ERROR on
    its tool span) is, from the conversation alone, an execution of unknown outcome whose result tells the
    error: no check says it succeeded."""
    trace = _load("peers/experiments/pxi_turn_trace_hexids.json")
    (failed,) = (t for t in trace.tool_executions if t.failed)
    stripped = _without_tool_spans(trace)
    (shown,) = (t for t in stripped.tool_executions if t.call_id == failed.call_id)
    assert shown.source == "conversation" and shown.failed is None
    assert shown.arguments == failed.arguments and shown.result == failed.result
    assert len(stripped.tool_executions) == len(trace.tool_executions)
    assert shown.name == failed.name == "add_spans_to_dataset"
    ta.TraceAsserter(trace).including_nested().has_tool_execution_failed("add_spans_to_dataset")
    with pytest.raises(ta.TraceAssertionError, match="whose outcome the producer did not record"):
        ta.TraceAsserter(stripped).including_nested().has_tool_execution_failed("add_spans_to_dataset")
    with pytest.raises(ta.TraceAssertionError, match="the producer did not record whether"):
        ta.TraceAsserter(stripped).including_nested().has_no_failed_tool_executions()
