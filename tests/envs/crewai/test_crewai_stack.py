"""CrewAI, live: a real crew (two agents, one task the orchestrator delegates) on CrewAI's native
OpenAI provider over a fake HTTP transport, traced by ``openinference-instrumentation-crewai``.

Runs in the CrewAI environment (crewai pins openai<3 and pydantic<2.13); skipped where CrewAI is not
installed. See ``docs/frameworks/crewai.md``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest

pytest.importorskip("crewai")
pytest.importorskip("openinference.instrumentation.crewai")

from opentelemetry.sdk.trace import ReadableSpan

import traceassert as ta
from instrumentation import _crewai_scenario as scenario
from instrumentation import crewai_openinference as stack
from tests._stackfacts import (
    check_facts,
    check_spans_follow_the_global_provider,
    check_with_asserter,
    live_trace,
)

EXPECTED = stack.EXPECTED


def _attrs(span: ReadableSpan) -> dict[str, object]:
    return dict(span.attributes or {})


@pytest.fixture(autouse=True)
def _switched_off() -> Iterator[None]:
    yield
    stack.uninstrument()


def test_the_six_facts_live_under_a_capture() -> None:
    trace = live_trace(stack)
    check_facts(trace, EXPECTED, dialect="openinference", operation="chat")
    tree = check_with_asserter(trace, EXPECTED)
    tree.has_tool_executed_with(scenario.DELEGATE, dict(scenario.DELEGATE_ARGS))
    (helper,) = trace.agents[0].nested
    assert helper.via_tool is not None and helper.via_tool.name == scenario.DELEGATE
    assert helper.output == "Wear a light jacket."


def test_the_six_facts_from_a_private_provider() -> None:
    trace = ta.Trace([ta.Span.from_readable(s) for s in stack.record_spans()])
    check_facts(trace, EXPECTED, dialect="openinference")
    assert {s.scope_name for s in trace.spans} == {"openinference.instrumentation.crewai._event_listener"}


def test_async_kickoff() -> None:
    stack.instrument()
    with ta.capture() as cap:
        assert asyncio.run(stack.run_scenario_async()) == EXPECTED.final_output
    check_facts(cap.trace(), EXPECTED)


def test_spans_follow_the_global_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    check_spans_follow_the_global_provider(stack, monkeypatch)


def test_uninstrument_stops_the_spans() -> None:
    stack.instrument()
    stack.uninstrument()
    with ta.capture() as cap:
        assert stack.run_scenario() == EXPECTED.final_output
    assert cap.trace().spans == ()


def test_raw_spans() -> None:
    """What the module docstring says the instrumentation records."""
    spans = stack.record_spans()
    kinds = [(_attrs(s)["openinference.span.kind"], s.name.rpartition(".")[2]) for s in spans]
    assert sorted(kinds) == sorted(
        [("CHAIN", "kickoff")]
        + [("AGENT", "execute")] * 2
        + [("LLM", "llm_call")] * 5
        + [("TOOL", "run")] * 3
    )
    agents = [s for s in spans if _attrs(s)["openinference.span.kind"] == "AGENT"]
    # no agent.name: the role is graph.node.id, the delegating agent's graph.node.parent_id
    assert not any("agent.name" in _attrs(s) for s in agents)
    assert sorted((_attrs(s)["graph.node.id"], _attrs(s).get("graph.node.parent_id")) for s in agents) == [
        ("helper", "orchestrator"),
        ("orchestrator", None),
    ]
    tools = {_attrs(s)["tool.name"]: s for s in spans if _attrs(s)["openinference.span.kind"] == "TOOL"}
    assert list(tools) == ["get_weather", "explode", scenario.DELEGATE]
    assert json.loads(str(_attrs(tools[scenario.DELEGATE])["input.value"])) == dict(scenario.DELEGATE_ARGS)
    # the failure: status ERROR with the message, no exception event; the agent's span stays OK
    assert tools["explode"].status.description == "explode failed: the detonator is broken"
    assert tools["explode"].events == ()
    assert all(s.status.is_ok for s in agents)
    # the model's tool calls are in output.value only (JSON), not in llm.output_messages
    calls = [s for s in spans if _attrs(s)["openinference.span.kind"] == "LLM"]
    first = json.loads(str(_attrs(calls[0])["output.value"]))
    assert first[0]["function"]["name"] == "get_weather"
    assert not any(k.startswith("llm.output_messages.") for k in _attrs(calls[0]))
    # the crew span sums the run's tokens under the model-call key (it is a CHAIN: not counted again)
    (crew,) = (s for s in spans if s.name == "crew.kickoff")
    assert _attrs(crew)["llm.token_count.total"] == EXPECTED.total_tokens


# --------------------------------------------------------------------------------------------------
# OpenLLMetry: opentelemetry-instrumentation-crewai + opentelemetry-instrumentation-openai
# --------------------------------------------------------------------------------------------------


def test_openllmetry_live_under_a_capture() -> None:
    from instrumentation import crewai_traceloop
    from tests._crewfacts import check_traceloop_crew

    trace = live_trace(crewai_traceloop)
    requested = tuple(zip(EXPECTED.tools_in_order, (dict(a) for a in EXPECTED.tool_arguments), strict=True))
    check_traceloop_crew(trace, EXPECTED, requested)
    # uninstrumented again: no spans
    with ta.capture() as cap:
        crewai_traceloop.run_scenario()
    assert cap.trace().spans == ()


def test_openllmetry_spans_follow_the_global_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    from instrumentation import crewai_traceloop

    check_spans_follow_the_global_provider(crewai_traceloop, monkeypatch)
