"""OpenAI SDK + ``opentelemetry-instrumentation-openai-v2``: a home-grown tool loop on a scripted endpoint.

Live tests (need ``openai``, the instrumentation and ``opentelemetry-util-genai``) and tests on the
recorded traces in ``tests/data/openai_v2_*.json`` (need nothing). Record again with
``python -m tests._stackfacts openai_v2_span_only openai_v2_chat_only``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

import traceassert as ta
from instrumentation import ScenarioFacts
from tests._stackfacts import (
    check_facts,
    live_trace,
    load_recording,
    recorded_requests,
    requests_only_facts,
)
from traceassert._model.span import Span

# -- recorded (no framework needed) ------------------------------------------------------------------


def test_recorded_with_agent_spans() -> None:
    trace, facts = load_recording("openai_v2_span_only")
    check_facts(trace, facts)
    assert {c.provider for c in trace.model_calls} == {"openai"}
    assert [t.call_id for t in trace.tool_executions] == [
        "call_0_get_weather",
        "call_1_explode",
        "call_2_ask_helper",
    ]
    (explode,) = (t for t in trace.tool_executions if t.failed)
    assert explode.error is not None
    assert (explode.error.type, explode.error.message) == (
        "RuntimeError",
        "explode failed: the detonator is broken",
    )


def _check_chat_only(trace: ta.Trace, facts: ScenarioFacts, requested: tuple[tuple[str, Any], ...]) -> None:
    """Only ``chat`` spans: no tool span, but each later chat input holds the results of the calls the
    model asked for (``tool_call_response`` parts): every request is an execution from the conversation,
    with the request's name and arguments and the result the model was sent."""
    tools = trace.tool_executions
    assert tuple((t.name, t.arguments) for t in tools) == requested
    assert all(t.source == "conversation" and t.span is None for t in tools)
    assert [t.result for t in tools] == [
        "Sunny, 21C in Paris",
        "Error: explode failed: the detonator is broken",
        "Wear a light jacket.",
    ]
    # a tool_call_response part has no failure field: whether each call failed is unknown (explode's
    # did, but only its text says so), never read as a success
    assert [t.failed for t in tools] == [None, None, None]
    assert trace.unexecuted_tool_requests == ()
    requests = trace.tool_requests
    # every request is reachable from the model call that made it, is the only one it made, and is
    # carried out by its execution
    assert [r.model_call.requested_tools for r in requests if r.model_call] == [(r,) for r in requests]
    assert [r.execution for r in requests] == list(tools)
    assert all(t.request is r and r.executed for t, r in zip(tools, requests, strict=True))
    assert len(trace.model_calls) == facts.model_calls
    assert sum(c.total_tokens or 0 for c in trace.model_calls) == facts.total_tokens
    # each chat span is its own trace, outside any agent: one implicit invocation holds them all
    (implicit,) = trace.agents
    assert implicit.implicit
    assert implicit.tool_executions == tools
    assert len(trace.trace_ids) == facts.model_calls
    rendered = trace.render()
    assert "(requested, not executed)" not in rendered
    assert rendered.count("(from conversation)") == len(requested)
    assert (
        "tool get_weather(city='Paris') -> 'Sunny, 21C in Paris' (status unknown) (from conversation)"
        in rendered
    )
    assert "3 tool execution(s) (0 failed)" in rendered


def test_recorded_chat_spans_only() -> None:
    trace, facts = load_recording("openai_v2_chat_only")
    _check_chat_only(trace, facts, recorded_requests("openai_v2_chat_only"))
    asserter = ta.TraceAsserter(trace)
    asserter.under_token_limit(facts.total_tokens)
    asserter.called_tool("get_weather", count=1).has_input({"city": "Paris"})
    asserter.called_tool("ask_helper").has_input({"question": "What should I wear?"})
    with pytest.raises(ta.TraceAssertionError, match=r"get_weather\(city='Paris'\) .* \(from conversation\)"):
        asserter.does_not_call_tool("get_weather")
    # whether a call succeeded or failed lives only in its result's text, which no producer field marks
    with pytest.raises(ta.TraceAssertionError, match="whose outcome the producer did not record"):
        asserter.has_tool_executed("get_weather")
    with pytest.raises(ta.TraceAssertionError, match="whose outcome the producer did not record"):
        asserter.has_tool_execution_failed("explode")


def test_recorded_chat_spans_only_cannot_tell() -> None:
    """explode ran and failed, but this producer wrote chat spans only: no check that its execution
    could change passes (the issue's vacuous verdicts). The conversation shows that it ran (so the
    negative checks fail on the call), not whether it failed (so the failure checks cannot tell)."""
    trace, _ = load_recording("openai_v2_chat_only")
    asserter = ta.TraceAsserter(trace)
    for check in (
        lambda a: a.does_not_call_tool("explode"),
        lambda a: a.does_not_call_any_tool(["explode", "delete_everything"]),
        lambda a: a.has_no_failed_tool_executions(),
        lambda a: a.does_not_have_failed_tool_executions(),
        lambda a: a.has_no_more_tool_executions(),
        lambda a: a.has_no_tool_executions(),
        lambda a: a.called_tools(max_count=0),
    ):
        with pytest.raises(ta.TraceAssertionError):
            check(asserter)
    with pytest.raises(ta.TraceAssertionError, match="expected no call of 'explode', found 1"):
        asserter.does_not_call_tool("explode")
    with pytest.raises(ta.TraceAssertionError, match=r"did not record whether 3 execution\(s\) failed"):
        asserter.has_no_failed_tool_executions()
    # accepting unknown outcomes accepts unrecorded requests, not what the conversation does show
    with pytest.raises(ta.TraceAssertionError, match="expected no call of 'explode', found 1"):
        asserter.accepting_unknown_outcomes().does_not_call_tool("explode")


# -- live ----------------------------------------------------------------------------------------------


def _requested() -> tuple[tuple[str, dict[str, Any]], ...]:
    """The script's tool calls, each a request only when no execution is recorded."""
    from instrumentation import openai_v2

    facts = requests_only_facts(openai_v2.EXPECTED)
    return tuple((r["name"], r["arguments"]) for r in facts["requested_tools"])


@pytest.fixture
def stack() -> Iterator[object]:
    pytest.importorskip("openai")
    pytest.importorskip("opentelemetry.instrumentation.openai_v2")
    from instrumentation import openai_v2

    try:
        yield openai_v2
    finally:
        openai_v2.uninstrument()


def _trace(spans: list[object]) -> ta.Trace:
    return ta.Trace([Span.from_readable(s) for s in spans])  # type: ignore[arg-type]


def test_live_under_a_capture(stack: object) -> None:
    from instrumentation import openai_v2

    trace = live_trace(openai_v2)
    check_facts(trace, openai_v2.EXPECTED)
    asserter = ta.TraceAsserter(trace)
    asserter.called_agent("orchestrator").called_tool("get_weather", count=1)
    asserter.called_agent("helper").does_not_call_tool("explode")


@pytest.mark.parametrize("content", ["event_only", "no_content"])
def test_without_content_on_spans_arguments_are_not_recorded(stack: object, content: str) -> None:
    """A fact the producer does not record: without span content, tool arguments and messages are absent."""
    from instrumentation import openai_v2

    trace = _trace(openai_v2.record_spans(content=content))  # type: ignore[arg-type]
    facts = openai_v2.EXPECTED
    tools = trace.tool_executions
    assert tuple(t.name for t in tools) == facts.tools_in_order
    assert [t.raw_arguments for t in tools] == [None, None, None]
    assert tuple(t.name for t in tools if t.failed) == facts.failed_tools
    assert sum(c.total_tokens or 0 for c in trace.model_calls) == facts.total_tokens
    assert all("gen_ai.input.messages" not in s.attributes for s in trace.spans)


def test_live_chat_spans_only(stack: object) -> None:
    from instrumentation import openai_v2

    trace = _trace(openai_v2.record_spans(agent_spans=False))  # type: ignore[arg-type]
    _check_chat_only(trace, ScenarioFacts.from_json(requests_only_facts(openai_v2.EXPECTED)), _requested())


def test_raw_chat_spans(stack: object) -> None:
    from instrumentation import openai_v2

    spans = openai_v2.record_spans()
    chats = [s for s in spans if (s.attributes or {}).get("gen_ai.operation.name") == "chat"]
    assert len(chats) == openai_v2.EXPECTED.model_calls
    for span in chats:
        attrs = dict(span.attributes or {})
        assert span.name == f"chat {attrs['gen_ai.request.model']}"
        assert span.kind.name == "CLIENT"
        assert attrs["gen_ai.provider.name"] == "openai"
        assert "gen_ai.output.messages" in attrs


def test_instrument_sets_and_uninstrument_restores_the_content_variable(stack: object) -> None:
    from instrumentation import openai_v2

    key = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
    before = os.environ.get(key)
    openai_v2.instrument(content="event_only")
    assert os.environ[key] == "event_only"
    openai_v2.uninstrument()
    assert os.environ.get(key) == before
