"""Google ADK, live: the real ADK runner on a scripted ``BaseLlm``, traced by ADK's own telemetry.

Runs in the ADK environment (google-adk pins its own OpenTelemetry versions); skipped where ADK is not
installed. See ``docs/frameworks/google-adk.md``.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator

import pytest
from google.adk.telemetry import tracing as adk_tracing
from opentelemetry.sdk.trace import ReadableSpan

import traceassert as ta
from instrumentation import google_adk as stack
from tests._stackfacts import check_facts, live_trace
from traceassert._model.span import Span

EXPECTED = stack.EXPECTED


def _trace(spans: list[ReadableSpan]) -> ta.Trace:
    return ta.Trace([Span.from_readable(s) for s in spans])


@pytest.fixture(autouse=True)
def _switched_off() -> Iterator[None]:
    yield
    stack.uninstrument()


@pytest.mark.parametrize("schema", stack.SCHEMAS)
def test_ground_truth_from_a_private_provider(schema: stack.Schema) -> None:
    trace = _trace(stack.record_spans(schema=schema))
    check_facts(trace, EXPECTED, agent_output=False)
    assert {s.scope_name for s in trace.spans} == {"gcp.vertex.agent"}


@pytest.mark.parametrize("schema", stack.SCHEMAS)
def test_ground_truth_live_under_a_capture(schema: stack.Schema) -> None:
    trace = live_trace(stack, schema=schema)
    check_facts(trace, EXPECTED, agent_output=False)
    asserter = ta.TraceAsserter(trace)
    asserter.called_agent("orchestrator").called_tool("explode", count=1)
    asserter.called_agent("helper").does_not_call_tool("get_weather")
    asserter.under_token_limit(EXPECTED.total_tokens)


def test_async_run_in_a_running_loop() -> None:
    stack.instrument()
    with ta.capture() as cap:
        assert asyncio.run(stack.run_scenario_async()) == EXPECTED.final_output
    check_facts(cap.trace(), EXPECTED, agent_output=False)


def test_raw_spans_of_the_current_format() -> None:
    spans = stack.record_spans(schema=2)
    names = [s.name for s in spans]
    assert names.count("generate_content scripted-orchestrator") == 4
    assert "call_llm" not in names
    (explode,) = (s for s in spans if s.name == "execute_tool explode")
    attrs = dict(explode.attributes or {})
    # the failure went back to the model as the tool's response; ADK flags the response, not an exception
    assert attrs["error.type"] == "TOOL_ERROR"
    assert explode.status.description == "TOOL_ERROR"
    assert not explode.events
    assert (
        attrs["gen_ai.tool.call.result"]
        == '{"error": "RuntimeError: explode failed: the detonator is broken"}'
    )
    assert "gen_ai.usage.input_tokens" not in dict(
        next(s for s in spans if s.name.startswith("invoke_agent")).attributes or {}
    )


def test_raw_spans_of_the_legacy_format() -> None:
    spans = stack.record_spans(schema=1)
    call_llm = [s for s in spans if s.name == "call_llm"]
    assert len(call_llm) == EXPECTED.model_calls
    for span in call_llm:
        attrs = dict(span.attributes or {})
        assert attrs["gen_ai.system"] == "gcp.vertex.agent"
        assert attrs["gcp.vertex.agent.llm_request"].startswith("{")
        assert "usage_metadata" in attrs["gcp.vertex.agent.llm_response"]
    tools = [s for s in spans if s.name.startswith("execute_tool ")]
    assert [dict(s.attributes or {})["gcp.vertex.agent.tool_call_args"] for s in tools] == [
        '{"city": "Paris"}',
        "{}",
        '{"question": "What should I wear?"}',
    ]


def test_without_content_capture_arguments_are_not_recorded() -> None:
    """A fact ADK does not record: with content capture off, neither tool arguments nor messages."""
    trace = _trace(stack.record_spans(schema=2, capture_content=False))
    tools = trace.tool_executions
    assert tuple(t.name for t in tools) == EXPECTED.tools_in_order
    assert [t.raw_arguments for t in tools] == [None, None, None]
    assert [t.arguments for t in tools] == [{}, {}, {}]
    # ...and, as nothing reports the error text, the failure is known from the span status alone
    assert tuple(t.name for t in tools if t.failed) == EXPECTED.failed_tools
    assert sum(c.total_tokens or 0 for c in trace.model_calls) == EXPECTED.total_tokens


def test_uninstrument_restores_adk_and_the_environment() -> None:
    original = adk_tracing.tracer
    before = os.environ.get("ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN")
    stack.instrument(schema=1)
    assert adk_tracing.tracer is not original
    assert os.environ["ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN"] == "1"
    stack.uninstrument()
    assert adk_tracing.tracer is original
    assert os.environ.get("ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN") == before
