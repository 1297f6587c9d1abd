"""Failures on facts a producer never records name the gap and where the fact lives instead.

The gaps are the dialects' ``NOT_RECORDED`` data (the support matrix's "What a producer does not
record"); the traces are the recorded ones in tests/data.
"""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import pytest

import traceassert as ta
from traceassert._checks.unrecorded import gap
from traceassert._dialects import DIALECTS
from traceassert._dialects._base import Fact, NotRecorded

DATA = Path(__file__).resolve().parents[1] / "data"


def _load(name: str) -> ta.Trace:
    return ta.load_trace(DATA / name)


def _message(check: object) -> str:
    with pytest.raises(ta.TraceAssertionError) as info:
        check()  # type: ignore[operator]
    return str(info.value)


def _hints(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("not recorded: ")]


AGENT_OUTPUT = (
    "not recorded: agent 'orchestrator': {producer} does not record agent output; the final answer is "
    "on the agent's last model call: 'It is sunny in Paris; wear a light jacket.' (check it with "
    "trace.model_calls[4].output, or with contains_output(...) on the whole trace, which reads the "
    "model calls' outputs)"
)
AGENT_INPUT = (
    "not recorded: agent 'helper': {producer} does not record agent input; the input is on the "
    "agent's first model call: 'What should I wear?' (check it with "
    "trace.operation(trace.model_calls[3].span).input, or with has_input(...) on the whole trace, "
    "which reads the model calls' inputs)"
)
PRODUCERS = {
    "openinference_openai_agents.json": "the OpenAI Agents SDK's instrumentation (OpenInference)",
    "traceloop_openai_agents.json": "the OpenAI Agents SDK's instrumentation (OpenLLMetry)",
    "adk_schema2.json": "Google ADK's instrumentation",
}


@pytest.mark.parametrize("name", sorted(PRODUCERS))
def test_agent_output_check_names_the_gap_and_the_last_model_call(name: str) -> None:
    trace = _load(name)
    text = _message(lambda: ta.assert_trace(trace).called_agent("orchestrator").contains_output("umbrella"))
    assert text.startswith(
        "contains_output('umbrella'): no output is recorded in the selection, so nothing can match\n"
    )
    assert _hints(text) == [AGENT_OUTPUT.format(producer=PRODUCERS[name])]
    # what the hint says holds: the answer is there, and the whole-trace form reads it
    assert trace.model_calls[4].output == "It is sunny in Paris; wear a light jacket."
    ta.assert_trace(trace).contains_output("light jacket")


@pytest.mark.parametrize("name", sorted(PRODUCERS))
def test_agent_input_check_names_the_gap_and_the_first_model_call(name: str) -> None:
    trace = _load(name)
    text = _message(lambda: ta.assert_trace(trace).called_agent("helper").has_input("What to wear?"))
    assert _hints(text) == [AGENT_INPUT.format(producer=PRODUCERS[name])]
    span = trace.model_calls[3].span
    assert span is not None
    op = trace.operation(span)
    assert op is not None
    assert op.input == "What should I wear?"
    ta.assert_trace(trace).has_input("What should I wear?")


def test_every_output_family_check_gets_the_hint() -> None:
    trace = _load("openinference_openai_agents.json")
    orchestrator = ta.assert_trace(trace).called_agent("orchestrator")
    for check in (
        lambda: orchestrator.has_output("It is sunny in Paris; wear a light jacket."),
        lambda: orchestrator.has_any_output("a", "b"),
        lambda: orchestrator.contains_any_output("sunny", "jacket"),
    ):
        hints = _hints(_message(check))
        assert len(hints) == 1
        assert "does not record agent output" in hints[0]


@pytest.mark.parametrize("name", ["openinference_langgraph.json", "monocle_langgraph.json"])
def test_a_recorded_agent_output_that_differs_gets_no_hint(name: str) -> None:
    trace = _load(name)
    text = _message(lambda: ta.assert_trace(trace).called_agent("orchestrator").contains_output("umbrella"))
    assert text.startswith(
        "contains_output('umbrella'): expected an output containing 'umbrella', found none"
    )
    assert "not recorded" not in text


def test_a_layer_that_records_the_output_has_the_last_word() -> None:
    # OpenInference on the OpenAI Agents SDK records no agent output, Monocle's layer does
    trace = _load("openai_agents_openinference_monocle.json")
    orchestrator = next(a for a in trace.all_agents() if a.name == "orchestrator")
    assert orchestrator.output is not None
    assert gap(trace, orchestrator, "agent.output") is None
    text = _message(lambda: ta.assert_trace(trace).called_agent("orchestrator").contains_output("umbrella"))
    assert "not recorded" not in text


FAILED_TOOL = {
    "openinference_langgraph.json": (
        "not recorded: tool 'explode': LangGraph's instrumentation (OpenInference) does not record the "
        "result of a failed tool; the failure and its message are recorded: 'langchain_core.tools.base."
        "ToolException: explode failed: the detonator is broken' (check it with "
        "has_tool_execution_failed('explode'), or read ToolExecution.error)"
    ),
    "monocle_langgraph.json": (
        "not recorded: tool 'explode': LangGraph's instrumentation (Monocle) does not record the result "
        "of a failed tool; the failure and its message are recorded: 'explode failed: the detonator is "
        "broken' (check it with has_tool_execution_failed('explode'), or read ToolExecution.error)"
    ),
}


@pytest.mark.parametrize("name", sorted(FAILED_TOOL))
def test_result_check_on_a_failed_langgraph_tool_names_the_gap(name: str) -> None:
    trace = _load(name)
    text = _message(lambda: ta.assert_trace(trace).called_tool("explode").contains_output("detonator"))
    assert _hints(text) == [FAILED_TOOL[name]]


@pytest.mark.parametrize("name", sorted(FAILED_TOOL))
def test_result_check_on_a_succeeded_tool_gets_no_hint(name: str) -> None:
    trace = _load(name)
    text = _message(lambda: ta.assert_trace(trace).called_tool("get_weather").contains_output("Rain"))
    assert "not recorded" not in text


def test_a_failed_tool_whose_producer_records_its_result_gets_no_hint() -> None:
    # the OpenAI Agents SDK records the message its failure handler sent to the model as the result
    trace = _load("openinference_openai_agents.json")
    explode = next(t for t in trace.tool_executions if t.name == "explode")
    assert explode.failed and explode.result is not None
    assert gap(trace, explode, "tool.result_when_failed") is None
    text = _message(lambda: ta.assert_trace(trace).called_tool("explode").contains_output("umbrella"))
    assert "not recorded" not in text


def test_the_hint_survives_soft() -> None:
    trace = _load("adk_schema2.json")
    a = ta.assert_trace(trace)
    with pytest.raises(ta.TraceAssertionError) as info, ta.soft():
        a.called_agent("orchestrator").contains_output("umbrella")
        a.called_tool("get_weather").contains_output("Rain")
    assert "not recorded: agent 'orchestrator': Google ADK's instrumentation" in str(info.value)


def test_every_dialect_declares_its_gaps_as_data() -> None:
    facts = set(get_args(Fact))
    declared = {d.NAME: getattr(d, "NOT_RECORDED", ()) for d in DIALECTS}
    for name, entries in declared.items():
        for entry in entries:
            assert isinstance(entry, NotRecorded), name
            assert entry.fact in facts, (name, entry)
            assert entry.producer and entry.missing and entry.instead
    # the support matrix's rows
    assert {e.fact for e in declared["openinference"]} >= {
        "agent.input",
        "agent.output",
        "tool.result_when_failed",
    }
    assert {e.fact for e in declared["traceloop"]} >= {"agent.input", "agent.output"}
    assert {e.fact for e in declared["adk"]} >= {"agent.input", "agent.output", "content"}
    assert {e.fact for e in declared["monocle"]} >= {
        "tool.result_when_failed",
        "error.type",
        "model.streamed",
    }
    assert {e.fact for e in declared["genai"]} >= {"tool.executions", "content"}


def test_an_entry_applies_by_scope_and_attribute() -> None:
    by_scope = NotRecorded("agent.output", "p", "m", "i", scope="openinference.instrumentation.openai_agents")
    assert by_scope.applies_to("openinference.instrumentation.openai_agents", {})
    assert not by_scope.applies_to("openinference.instrumentation.langchain", {})
    assert not by_scope.applies_to(None, {})
    by_attr = NotRecorded(
        "tool.result_when_failed", "p", "m", "i", attribute=("entity.*.type", "*.langgraph")
    )
    assert by_attr.applies_to("monocle_apptrace", {"entity.1.type": "tool.langgraph"})
    assert not by_attr.applies_to("monocle_apptrace", {"entity.1.type": "tool.openai_agents"})
    assert not by_attr.applies_to("monocle_apptrace", {"span.type": "x.langgraph"})
