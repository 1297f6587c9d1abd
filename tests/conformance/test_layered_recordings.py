"""Recorded traces of one run seen by two instrumentation layers, and Monocle's older file shapes.

Every file in ``tests/data`` used here was recorded from the scenario of ``instrumentation/_scenario.py``
(ground truth: ``EXPECTED``), by the real frameworks and instrumentations:

- ``openai_agents_openinference_traceloop.json``, ``openai_agents_monocle.json``,
  ``openai_agents_openinference_monocle.json``: ``instrumentation/openai_agents_layers.py`` (main env);
- ``adk_monocle_schema1.json``, ``adk_monocle_schema2.json``: ``instrumentation/google_adk_monocle.py``
  (google-adk 2.13 and monocle-apptrace 0.8.15, ``tests/envs/adk``);
- ``monocle_0_5_langgraph.json``, ``monocle_0_5_openai_agents.json``, ``monocle_0_7_crewai.json``: files
  written by monocle-apptrace's own file exporter, releases 0.5.3 (LangGraph on ``ChatOpenAI``, the
  OpenAI Agents SDK 0.2.9) and 0.7.0 (CrewAI 1.6.1 on litellm), each on a scripted HTTP transport; see
  ``instrumentation/_monocle_legacy.py``.

Record the main-env files again with ``python -m tests.conformance.test_layered_recordings``.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

import traceassert as ta
from instrumentation._scenario import EXPECTED
from tests._stackfacts import (
    DATA,
    check_facts,
    check_model_calls,
    check_tokens,
    nesting,
    recorded_trace,
)


def _dialects(trace: ta.Trace) -> set[str]:
    return {op.dialect for s in trace.spans if (op := trace.operation(s)) is not None}


# --------------------------------------------------------------------------------------------------
# Two layers
# --------------------------------------------------------------------------------------------------


def test_openinference_and_openllmetry_agents_sdk_recording() -> None:
    """OpenLLMetry's spans sit on its own root, outside its (childless) agent spans, in another trace:
    paired with OpenInference's across agents and traces, and no "outside any agent" invocation is left."""
    trace = recorded_trace("openai_agents_openinference_traceloop")
    assert len(trace.trace_ids) == 2
    assert {"openinference", "traceloop"} <= _dialects(trace)
    check_facts(trace, EXPECTED, agent_output=False)
    (orchestrator,) = trace.agents
    assert len(orchestrator.spans) == 2  # one span per layer
    assert all(len(call.spans) >= 2 for call in trace.model_calls)


@pytest.mark.parametrize("schema", [1, 2])
def test_adk_and_monocle_recording(schema: int) -> None:
    trace = recorded_trace(f"adk_monocle_schema{schema}")
    assert {"adk", "monocle"} <= _dialects(trace)
    check_facts(trace, EXPECTED, agent_output=False)


def _split_by_layer(trace: ta.Trace, scope: str) -> list[ta.Span]:
    """The spans of ``trace`` as two exporters of their own would have written them: the spans of
    instrumentation scope ``scope`` in a trace of their own, every span parented on its nearest ancestor
    of the same layer (times and attributes unchanged)."""
    out = []
    for span in trace.spans:
        mine = span.scope_name == scope
        parent = trace.parent(span)
        while parent is not None and (parent.scope_name == scope) != mine:
            parent = trace.parent(parent)
        out.append(
            dataclasses.replace(
                span,
                trace_id=("f" * 32) if mine else span.trace_id,
                parent_id=parent.span_id if parent is not None else None,
            )
        )
    return out


@pytest.mark.parametrize("schema", [1, 2])
def test_adk_and_monocle_exported_apart(schema: int) -> None:
    """The same two layers when nothing nests them in each other (each exported on its own): paired by
    time, name, model and tokens. Without the pairing the tokens were counted twice."""
    trace = ta.Trace(_split_by_layer(recorded_trace(f"adk_monocle_schema{schema}"), "monocle_apptrace"))
    assert len(trace.trace_ids) == 2
    check_facts(trace, EXPECTED, agent_output=False)
    ta.TraceAsserter(trace).under_token_limit(EXPECTED.total_tokens)


@pytest.mark.parametrize("schema", [1, 2])
def test_adk_and_monocle_model_calls_outside_any_agent(schema: int) -> None:
    """Monocle's model-call spans alone, in a trace of their own under Monocle's ``workflow`` root (as
    when only its google-genai instrumentation applies): the calls sit outside any agent, in the
    implicit invocation, and are still ADK's calls recorded again. Without pairing across invocations
    every token was counted twice."""
    spans = _split_by_layer(recorded_trace(f"adk_monocle_schema{schema}"), "monocle_apptrace")
    kept = {"workflow", "inference"}
    trace = ta.Trace(
        [s for s in spans if s.scope_name != "monocle_apptrace" or s.attributes.get("span.type") in kept]
    )
    assert sum(s.attributes.get("span.type") == "inference" for s in trace.spans) == EXPECTED.model_calls
    check_facts(trace, EXPECTED, agent_output=False)


def test_openinference_and_openllmetry_exported_apart() -> None:
    scope = "openinference.instrumentation.openai_agents"
    trace = ta.Trace(_split_by_layer(recorded_trace("openai_agents_openinference_traceloop"), scope))
    check_facts(trace, EXPECTED, agent_output=False)


# --------------------------------------------------------------------------------------------------
# Monocle on the OpenAI Agents SDK: one span per turn of the agent loop
# --------------------------------------------------------------------------------------------------


def test_monocle_agents_sdk_turns_are_one_run() -> None:
    trace = recorded_trace("openai_agents_monocle")
    assert sum(s.attributes.get("span.type") == "agentic.invocation" for s in trace.spans) == 5
    assert [a.name for a in trace.agents] == ["orchestrator"]
    assert nesting(trace) == dict(EXPECTED.nested)
    check_model_calls(trace, EXPECTED)
    check_tokens(trace, EXPECTED)
    assert [t.name for t in trace.tool_executions] == ["get_weather", "ask_helper"]
    assert [r.name for r in trace.unexecuted_tool_requests] == ["explode"]


def test_openinference_and_monocle_agents_sdk_recording() -> None:
    trace = recorded_trace("openai_agents_openinference_monocle")
    assert {"openinference", "monocle"} <= _dialects(trace)
    check_facts(trace, EXPECTED, agent_output=False)


# --------------------------------------------------------------------------------------------------
# Monocle's older files
# --------------------------------------------------------------------------------------------------


def test_monocle_0_5_langgraph_file() -> None:
    """monocle-apptrace 0.5: a tool's input is the list of its argument values (``["Paris"]``), named
    from the model's request by value; the OpenAI client's ``inference.modelapi`` span inside
    LangChain's ``inference.framework`` one is the same call (tokens once)."""
    trace = recorded_trace("monocle_0_5_langgraph")
    types = {s.attributes.get("span.type") for s in trace.spans}
    assert {"inference.framework", "inference.modelapi"} <= types
    raw = [s for s in trace.spans if s.attributes.get("span.type") == "agentic.tool.invocation"]
    assert raw[0].event("data.input").attributes["input"] == ("Paris",)  # type: ignore[union-attr]
    check_facts(trace, EXPECTED)
    asserter = ta.TraceAsserter(trace)
    asserter.called_tool("get_weather", count=1).has_input({"city": "Paris"})
    asserter.called_agent("orchestrator").top_level_only().has_tool_executed_with(
        "ask_helper", {"question": "What should I wear?"}
    )


def test_monocle_0_5_file_with_every_span_twice(tmp_path: Path) -> None:
    """A file holding each span twice (the same span id): one of each kept, nothing counted twice."""
    spans = json.loads((DATA / "monocle_0_5_langgraph.json").read_text(encoding="utf-8"))
    doubled = tmp_path / "doubled.json"
    doubled.write_text(json.dumps(spans + spans), encoding="utf-8")
    trace = ta.load_trace(doubled)
    assert len(trace.spans) == len(spans)
    assert trace.summary() == recorded_trace("monocle_0_5_langgraph").summary()
    check_facts(trace, EXPECTED)


def test_monocle_0_5_agents_sdk_file() -> None:
    """monocle-apptrace 0.5 on the OpenAI Agents SDK: ``agentic.request`` spans (the run), one
    ``agentic.invocation`` per turn (four for the orchestrator), tool inputs as a list holding the JSON
    arguments. ``explode``'s failure is handled inside the tool function Monocle wraps, so Monocle
    records it as a success whose result is the message the model was sent."""
    trace = recorded_trace("monocle_0_5_openai_agents")
    assert sum(s.attributes.get("span.type") == "agentic.request" for s in trace.spans) == 2
    assert [a.name for a in trace.agents] == ["orchestrator"]
    assert nesting(trace) == dict(EXPECTED.nested)
    check_model_calls(trace, EXPECTED)
    check_tokens(trace, EXPECTED)
    tools = trace.tool_executions
    assert [(t.name, t.arguments) for t in tools] == [
        (name, dict(args))
        for name, args in zip(EXPECTED.tools_in_order, EXPECTED.tool_arguments, strict=True)
    ]
    assert [t.failed for t in tools] == [False, False, False]
    assert tools[1].result == "Error: explode failed: the detonator is broken"


def test_monocle_0_7_crewai_file() -> None:
    """monocle-apptrace 0.7 on CrewAI: tool input ``["input: {'city': 'Paris', 'security_context':
    {...}}"]`` (the argument dict's repr, with CrewAI's own entry); ``Task.execute_sync`` and a crew run
    inside a tool recorded as ``agentic.invocation`` (named ``Task``, ``crew``): not agents. CrewAI
    itself tried the failing tool three times."""
    trace = recorded_trace("monocle_0_7_crewai")
    assert [a.name for a in trace.agents] == ["orchestrator"]
    assert nesting(trace) == dict(EXPECTED.nested)
    check_model_calls(trace, EXPECTED)
    check_tokens(trace, EXPECTED)
    tools = trace.tool_executions
    assert [(t.name, t.arguments, t.failed) for t in tools] == [
        ("get_weather", {"city": "Paris"}, False),
        ("explode", {}, True),
        ("explode", {}, True),
        ("explode", {}, True),
        ("ask_helper", {"question": "What should I wear?"}, False),
    ]
    ta.TraceAsserter(trace).called_agent("orchestrator").called_tool("explode", count=3)


if __name__ == "__main__":  # record the main-env files again
    from instrumentation import openai_agents_layers as layers
    from traceassert._model.span import Span

    for which, name in [
        ("openinference+traceloop", "openai_agents_openinference_traceloop"),
        ("monocle", "openai_agents_monocle"),
        ("openinference+monocle", "openai_agents_openinference_monocle"),
    ]:
        spans = [Span.from_readable(s) for s in layers.record_spans(which)]  # type: ignore[arg-type]
        ta.dump_trace(ta.Trace(spans), DATA / f"{name}.json")
