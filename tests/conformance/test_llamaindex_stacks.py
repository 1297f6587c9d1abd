"""LlamaIndex agent workflows (``FunctionAgent``) through traceassert: what it reconstructs agrees with
the scenario's ground truth, live under ``ta.capture()`` (needs LlamaIndex and the instrumentation) and
from the recorded trace in ``tests/data`` (needs neither). Then what the instrumentation records.

Stacks: ``instrumentation/llamaindex_openinference.py`` (``openinference-instrumentation-llama-index``)
and ``instrumentation/llamaindex_traceloop.py`` (OpenLLMetry's ``opentelemetry-instrumentation-llamaindex``).
"""

from __future__ import annotations

import json
from types import ModuleType

import pytest
from opentelemetry.sdk.trace import ReadableSpan

import traceassert as ta
from instrumentation import ScenarioFacts
from tests._stackcases import SOURCES, live_async_trace, live_or_recorded, uninstrumented_trace
from tests._stackfacts import (
    cached_live_trace,
    check_facts,
    check_spans_follow_the_global_provider,
    check_with_asserter,
    recorded_facts,
    stack_module,
)

#: recording -> stack module
STACKS = {
    "openinference_llamaindex": "instrumentation.llamaindex_openinference",
    "traceloop_llamaindex": "instrumentation.llamaindex_traceloop",
}
#: recording -> the dialect that reads it
DIALECTS = {"openinference_llamaindex": "openinference", "traceloop_llamaindex": "traceloop"}


def _stack(recording: str) -> ModuleType:
    return stack_module(STACKS[recording])


@pytest.fixture(params=[(r, source) for r in STACKS for source in SOURCES], ids="-".join)
def case(request: pytest.FixtureRequest) -> tuple[ta.Trace, ScenarioFacts, str]:
    recording, source = request.param
    return (*live_or_recorded(source, STACKS[recording], recording), DIALECTS[recording])


def _attrs(span: ReadableSpan) -> dict[str, object]:
    return dict(span.attributes or {})


# --------------------------------------------------------------------------------------------------
# The ground truth
# --------------------------------------------------------------------------------------------------


def test_the_six_facts(case: tuple[ta.Trace, ScenarioFacts, str]) -> None:
    # the agents' output is not recorded (no span has it whole): it is the last model call's
    trace, facts, dialect = case
    check_facts(trace, facts, agent_output=False, dialect=dialect, operation="chat")
    assert trace.model_calls[-1].output == facts.final_output


def test_the_asserter_agrees(case: tuple[ta.Trace, ScenarioFacts, str]) -> None:
    tree = check_with_asserter(*case[:2])
    tree.has_tool_executed_with("get_weather", {"city": "Paris"})
    with pytest.raises(ta.TraceAssertionError, match="explode"):
        tree.has_tool_executed("explode")  # it ran, and failed


def test_the_failed_tool_and_its_error(case: tuple[ta.Trace, ScenarioFacts, str]) -> None:
    trace, _, dialect = case
    (explode,) = (t for t in trace.tool_executions if t.failed)
    assert explode.error is not None
    # OpenLLMetry records the error text only (as the tool's output), not the exception type
    kind = "RuntimeError" if dialect == "openinference" else None
    assert (explode.error.type, explode.error.message) == (kind, "explode failed: the detonator is broken")
    (helper,) = trace.agents[0].nested
    assert helper.via_tool is not None and helper.via_tool.name == "ask_helper"
    # OpenLLMetry sets ask_helper's output after its span ended: not recorded
    assert helper.via_tool.result == ("Wear a light jacket." if dialect == "openinference" else None)


@pytest.mark.parametrize("recording", list(STACKS))
def test_the_recorded_facts_are_the_script(recording: str) -> None:
    assert _stack(recording).EXPECTED.to_json() == recorded_facts(recording).to_json()


# --------------------------------------------------------------------------------------------------
# The stack module
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("recording", list(STACKS))
def test_async_run_records_the_same_facts(recording: str) -> None:
    stack = _stack(recording)
    check_facts(live_async_trace(stack), stack.EXPECTED, agent_output=False)


@pytest.mark.parametrize("recording", list(STACKS))
def test_spans_follow_the_global_provider(recording: str, monkeypatch: pytest.MonkeyPatch) -> None:
    check_spans_follow_the_global_provider(_stack(recording), monkeypatch)


@pytest.mark.parametrize("recording", list(STACKS))
def test_uninstrument_stops_the_spans(recording: str) -> None:
    assert uninstrumented_trace(_stack(recording)).spans == ()


# --------------------------------------------------------------------------------------------------
# What the OpenInference instrumentation records (the module docstring)
# --------------------------------------------------------------------------------------------------


def test_openinference_raw_spans() -> None:
    spans = _stack("openinference_llamaindex").record_spans()
    by_kind: dict[object, list[ReadableSpan]] = {}
    for span in spans:
        by_kind.setdefault(_attrs(span)["openinference.span.kind"], []).append(span)
    # the agent runs are CHAIN spans; nothing is an AGENT span, and no span names the agent in an attribute
    assert [s.name for s in by_kind["CHAIN"] if s.name.endswith(".run")] == ["FunctionAgent.run"] * 2
    assert "AGENT" not in by_kind
    assert not any(key.startswith(("agent.", "graph.")) for s in spans for key in _attrs(s))
    # every LLM method is an LLM span: the model calls, and the preparations beside them (no tokens)
    llm = sorted(s.name for s in by_kind["LLM"])
    assert llm == ["ScriptedLLM._prepare_chat_with_tools"] * 5 + ["ScriptedLLM.astream_chat"] * 5
    prepared = [s for s in by_kind["LLM"] if s.name.endswith("_prepare_chat_with_tools")]
    assert not any(key.startswith("llm.token_count.") for s in prepared for key in _attrs(s))
    # tools: arguments under "kwargs", the result inside the ToolOutput; the failure only on the tool span
    tools = {_attrs(s)["tool.name"]: s for s in by_kind["TOOL"]}
    assert json.loads(str(_attrs(tools["get_weather"])["input.value"])) == {"kwargs": {"city": "Paris"}}
    assert (
        json.loads(str(_attrs(tools["get_weather"])["output.value"]))["raw_output"] == "Sunny, 21C in Paris"
    )
    assert tools["explode"].status.description == "RuntimeError: explode failed: the detonator is broken"
    assert "output.value" not in _attrs(tools["explode"])
    assert all(s.status.is_ok for s in by_kind["CHAIN"])


def test_openllmetry_raw_spans() -> None:
    spans = _stack("traceloop_llamaindex").record_spans()
    names = sorted({s.name for s in spans})
    assert names == [
        "BaseWorkflowAgent.task",
        "FunctionAgent.workflow",
        "FunctionTool.task",
        "ScriptedLLM.task",
        "run.task",
    ]
    # nothing has an error status; the failure is only in the call_tool step's output
    assert all(s.status.status_code.name == "UNSET" for s in spans)
    steps = {_attrs(s)["tool.name"]: s for s in spans if "tool.name" in _attrs(s)}
    assert list(steps) == ["get_weather", "explode", "ask_helper"]
    explode = json.loads(str(_attrs(steps["explode"])["traceloop.entity.output"]))
    assert explode["tool_output"]["is_error"] is True
    # a FunctionTool span for every tool but the one that raised
    tools = [s for s in spans if s.name == "FunctionTool.task"]
    assert [json.loads(str(_attrs(s)["traceloop.entity.input"])) for s in tools] == [
        {"kwargs": {"city": "Paris"}},
        {"kwargs": {"question": "What should I wear?"}},
    ]
    assert "traceloop.entity.output" not in _attrs(steps["ask_helper"])
    assert "explode" not in {_attrs(s).get("tool.name") for s in tools}
    # no span names an agent
    assert not any(
        key.startswith(("gen_ai.agent.", "traceloop.workflow.")) for s in spans for key in _attrs(s)
    )


def test_openllmetry_never_ends_the_span_of_the_tool_that_raised() -> None:
    """Live, the capture holds the failed tool's ``FunctionTool.task`` span unfinished (so no exporter,
    and no file, has it); what traceassert rebuilds is the same with it and without it."""
    stack = _stack("traceloop_llamaindex")
    live = cached_live_trace(stack)
    (unfinished,) = (s for s in live.spans if s.end_ns is None)
    assert (unfinished.name, unfinished.attributes["traceloop.entity.input"]) == ("FunctionTool.task", "{}")
    assert live.summary()["unfinished_spans"] == 1
    finished = ta.Trace([s for s in live.spans if s.end_ns is not None])
    assert {**live.summary(), "unfinished_spans": 0} == finished.summary()
