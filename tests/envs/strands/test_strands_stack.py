"""Strands, live: real Strands agents on a scripted ``Model``, traced by Strands' built-in telemetry.

Runs in the Strands environment (strands-agents pins its own OpenTelemetry versions); skipped where
Strands is not installed. See ``docs/frameworks/strands.md``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from opentelemetry.sdk.trace import ReadableSpan
from strands.telemetry import tracer as strands_tracer

import traceassert as ta
from instrumentation import strands as stack
from tests._stackfacts import check_facts, live_trace
from traceassert._model.span import Span

EXPECTED = stack.EXPECTED


def _trace(spans: list[ReadableSpan]) -> ta.Trace:
    return ta.Trace([Span.from_readable(s) for s in spans])


def _attrs(span: ReadableSpan) -> dict[str, object]:
    return dict(span.attributes or {})


@pytest.fixture(autouse=True)
def _switched_off() -> Iterator[None]:
    yield
    stack.uninstrument()


@pytest.mark.parametrize("flavour", stack.FLAVOURS)
def test_ground_truth_from_a_private_provider(flavour: stack.Flavour) -> None:
    trace = _trace(stack.record_spans(flavour=flavour))
    check_facts(trace, EXPECTED)
    assert {s.scope_name for s in trace.spans} == {"strands.telemetry.tracer"}


@pytest.mark.parametrize("flavour", stack.FLAVOURS)
def test_ground_truth_live_under_a_capture(flavour: stack.Flavour) -> None:
    trace = live_trace(stack, flavour=flavour)
    check_facts(trace, EXPECTED)
    asserter = ta.TraceAsserter(trace)
    asserter.called_agent("orchestrator").called_tool("ask_helper", count=1)
    asserter.called_agent("helper").does_not_call_tool("explode")
    asserter.under_token_limit(EXPECTED.total_tokens)
    with pytest.raises(ta.TraceAssertionError):
        asserter.under_token_limit(EXPECTED.total_tokens - 1)


def test_async_run() -> None:
    stack.instrument()
    with ta.capture() as cap:
        assert asyncio.run(stack.run_scenario_async()) == EXPECTED.final_output
    check_facts(cap.trace(), EXPECTED)


def test_raw_spans_repeat_usage_on_the_agent_span() -> None:
    spans = stack.record_spans()
    chats = [s for s in spans if s.name == "chat"]
    agents = {_attrs(s)["gen_ai.agent.name"]: s for s in spans if s.name.startswith("invoke_agent ")}
    assert len(chats) == EXPECTED.model_calls
    assert sum(_attrs(s)["gen_ai.usage.input_tokens"] for s in chats) == EXPECTED.input_tokens  # type: ignore[misc]
    # the orchestrator's span holds the sum of its own calls (not the helper's) under the same keys
    assert _attrs(agents["orchestrator"])["gen_ai.usage.input_tokens"] == 101 + 123 + 147 + 171
    assert _attrs(agents["helper"])["gen_ai.usage.input_tokens"] == 37


def test_raw_spans_of_the_failed_tool() -> None:
    spans = stack.record_spans()
    (explode,) = (s for s in spans if s.name == "execute_tool explode")
    assert _attrs(explode)["gen_ai.tool.status"] == "error"
    assert explode.status.description == "explode failed: the detonator is broken"
    assert [e.name for e in explode.events] == ["gen_ai.tool.message", "gen_ai.choice", "exception"]
    agents = [s for s in spans if s.name.startswith("invoke_agent ")]
    assert all(s.status.is_ok for s in agents)


def test_default_flavour_keeps_content_in_events_only() -> None:
    spans = stack.record_spans(flavour="events")
    for span in spans:
        assert "gen_ai.input.messages" not in _attrs(span)
        assert "gen_ai.tool.call.arguments" not in _attrs(span)
    spans = stack.record_spans(flavour="attributes")
    tools = [s for s in spans if s.name.startswith("execute_tool ")]
    assert [_attrs(s)["gen_ai.tool.call.arguments"] for s in tools] == [
        '{"city": "Paris"}',
        "{}",
        '{"question": "What should I wear?"}',
    ]


def test_uninstrument_restores_the_tracer() -> None:
    shared = strands_tracer.get_tracer()
    before = (shared.tracer, shared.use_latest_genai_conventions, shared._span_attributes_only)
    stack.instrument(flavour="attributes")
    assert shared.tracer is not before[0]
    assert shared.use_latest_genai_conventions is True
    stack.uninstrument()
    assert (shared.tracer, shared.use_latest_genai_conventions, shared._span_attributes_only) == before
