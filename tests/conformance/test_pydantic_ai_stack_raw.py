"""The Pydantic AI stack, checked on its raw spans: what the real instrumentation emits for the scripted
scenario agrees with the ground truth (``EXPECTED``) written from the script.

These tests read span names and attributes directly, without traceassert, so they pin down the dialect
traceassert has to understand, for every instrumentation format version pydantic-ai offers.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import SpanKind, StatusCode

pytest.importorskip("pydantic_ai")

from instrumentation import pydantic_ai as stack
from tests._stackfacts import SpanRecorder, check_spans_follow_the_global_provider

EXPECTED = stack.EXPECTED


def _run(recorder: SpanRecorder, version: stack.Version | None = None) -> list[ReadableSpan]:
    stack.instrument(recorder.provider, version=version)
    assert stack.run_scenario() == EXPECTED.final_output
    return recorder.spans()


@pytest.fixture
def recorder() -> Iterator[SpanRecorder]:
    recorder = SpanRecorder()
    try:
        yield recorder
    finally:
        stack.uninstrument()
        recorder.provider.shutdown()


@pytest.fixture(params=[None, *stack.VERSIONS], ids=lambda v: "default" if v is None else f"v{v}")
def version(request: pytest.FixtureRequest) -> stack.Version | None:
    version: stack.Version | None = request.param
    return version


@pytest.fixture
def spans(recorder: SpanRecorder, version: stack.Version | None) -> list[ReadableSpan]:
    return _run(recorder, version)


# --------------------------------------------------------------------------------------------------
# Reading the raw spans
# --------------------------------------------------------------------------------------------------


def _attr(span: ReadableSpan, key: str) -> Any:
    return (span.attributes or {}).get(key)


def _operation(spans: list[ReadableSpan], operation: str) -> list[ReadableSpan]:
    return [span for span in spans if _attr(span, "gen_ai.operation.name") == operation]


def _legacy(version: stack.Version | None) -> bool:
    return version == 2


def _tool_arguments_key(version: stack.Version | None) -> str:
    return "tool_arguments" if _legacy(version) else "gen_ai.tool.call.arguments"


def _tool_result_key(version: stack.Version | None) -> str:
    return "tool_response" if _legacy(version) else "gen_ai.tool.call.result"


def _ancestors(span: ReadableSpan, spans: list[ReadableSpan]) -> Iterator[ReadableSpan]:
    by_id = {s.context.span_id: s for s in spans if s.context is not None}
    parent = span.parent
    while parent is not None and parent.span_id in by_id:
        ancestor = by_id[parent.span_id]
        yield ancestor
        parent = ancestor.parent


def _owning_agent(span: ReadableSpan, spans: list[ReadableSpan]) -> str | None:
    """The name of the nearest agent span above ``span``."""
    for ancestor in _ancestors(span, spans):
        if _attr(ancestor, "gen_ai.operation.name") == "invoke_agent":
            name: str | None = _attr(ancestor, "gen_ai.agent.name")
            return name
    return None


# --------------------------------------------------------------------------------------------------
# Ground truth, every format version
# --------------------------------------------------------------------------------------------------


def test_all_spans_come_from_pydantic_ai_and_form_one_trace(spans: list[ReadableSpan]) -> None:
    assert {span.instrumentation_scope.name for span in spans if span.instrumentation_scope} == {
        "pydantic-ai"
    }
    assert len({span.context.trace_id for span in spans if span.context}) == 1
    assert [span.name for span in spans if span.parent is None] == [
        span.name for span in _operation(spans, "invoke_agent") if _owning_agent(span, spans) is None
    ]


def test_tool_spans_follow_the_script_in_order(
    spans: list[ReadableSpan], version: stack.Version | None
) -> None:
    tools = _operation(spans, "execute_tool")
    assert tuple(_attr(span, "gen_ai.tool.name") for span in tools) == EXPECTED.tools_in_order
    expected_names = [
        "running tool" if _legacy(version) else f"execute_tool {name}" for name in EXPECTED.tools_in_order
    ]
    assert [span.name for span in tools] == expected_names
    arguments = tuple(json.loads(_attr(span, _tool_arguments_key(version))) for span in tools)
    assert arguments == EXPECTED.tool_arguments
    assert all(_attr(span, "gen_ai.tool.call.id") for span in tools)
    assert {_owning_agent(span, spans) for span in tools} == {"orchestrator"}


def test_tool_results_are_recorded(spans: list[ReadableSpan], version: stack.Version | None) -> None:
    results = {
        _attr(span, "gen_ai.tool.name"): _attr(span, _tool_result_key(version))
        for span in _operation(spans, "execute_tool")
    }
    assert results == {
        "get_weather": "Sunny, 21C in Paris",
        "explode": "explode failed: the detonator is broken",
        "ask_helper": "Wear a light jacket.",
    }


def test_only_the_failed_tool_span_has_an_error_signal(spans: list[ReadableSpan]) -> None:
    tools = _operation(spans, "execute_tool")
    failed = tuple(
        _attr(span, "gen_ai.tool.name") for span in tools if span.status.status_code is StatusCode.ERROR
    )
    assert failed == EXPECTED.failed_tools
    with_events = tuple(_attr(span, "gen_ai.tool.name") for span in tools if span.events)
    assert with_events == EXPECTED.failed_tools

    (explode,) = (span for span in tools if _attr(span, "gen_ai.tool.name") == "explode")
    (event,) = explode.events
    assert event.name == "exception"
    assert dict(event.attributes or {})["exception.type"] == "pydantic_ai.exceptions.ToolRetryError"
    assert dict(event.attributes or {})["exception.message"] == "explode failed: the detonator is broken"
    # ModelRetry asks the model to try again; pydantic-ai records that retry on the tool span.
    assert _attr(explode, "pydantic_ai.tool.retry.cause") == "model_retry"
    assert _attr(explode, "pydantic_ai.tool.retry.attempt") == 1


def test_the_run_survives_the_tool_failure(spans: list[ReadableSpan]) -> None:
    agents = _operation(spans, "invoke_agent")
    assert all(span.status.status_code is StatusCode.UNSET for span in agents)
    (top,) = (span for span in agents if span.parent is None)
    assert _attr(top, "final_result") == EXPECTED.final_output


def test_agent_spans_and_nesting(spans: list[ReadableSpan], version: stack.Version | None) -> None:
    agents = _operation(spans, "invoke_agent")
    top_level = tuple(
        _attr(span, "gen_ai.agent.name") for span in agents if _owning_agent(span, spans) is None
    )
    assert top_level == EXPECTED.agents

    nested: dict[str, list[str]] = {}
    for span in agents:
        owner = _owning_agent(span, spans)
        if owner is not None:
            nested.setdefault(owner, []).append(_attr(span, "gen_ai.agent.name"))
    assert {owner: tuple(names) for owner, names in nested.items()} == dict(EXPECTED.nested)

    for span in agents:
        name = _attr(span, "gen_ai.agent.name")
        assert span.name == ("agent run" if _legacy(version) else f"invoke_agent {name}")
        assert _attr(span, "agent_name") == name


def test_nested_agent_runs_inside_the_tool_that_started_it(spans: list[ReadableSpan]) -> None:
    (helper,) = (
        span for span in _operation(spans, "invoke_agent") if _attr(span, "gen_ai.agent.name") == "helper"
    )
    parent = next(_ancestors(helper, spans))
    assert _attr(parent, "gen_ai.operation.name") == "execute_tool"
    assert _attr(parent, "gen_ai.tool.name") == "ask_helper"
    assert _owning_agent(helper, spans) == "orchestrator"


def test_model_calls(spans: list[ReadableSpan]) -> None:
    chats = _operation(spans, "chat")
    assert len(chats) == EXPECTED.model_calls
    assert all(span.kind is SpanKind.CLIENT for span in chats)
    own: dict[str, int] = {}
    for span in chats:
        agent = _owning_agent(span, spans)
        assert agent is not None
        own[agent] = own.get(agent, 0) + 1
        assert span.name == f"chat scripted-{agent}"
        assert _attr(span, "gen_ai.request.model") == f"scripted-{agent}"
        assert _attr(span, "gen_ai.agent.name") == agent
    assert own == dict(EXPECTED.own_model_calls)
    finish = [tuple(_attr(span, "gen_ai.response.finish_reasons")) for span in chats]
    assert finish.count(("stop",)) == 2  # the helper's answer and the final answer
    assert finish.count(("tool_call",)) == len(EXPECTED.tools_in_order)


def test_token_usage_sums_to_the_script(spans: list[ReadableSpan]) -> None:
    chats = _operation(spans, "chat")
    input_tokens = sum(_attr(span, "gen_ai.usage.input_tokens") for span in chats)
    output_tokens = sum(_attr(span, "gen_ai.usage.output_tokens") for span in chats)
    assert (input_tokens, output_tokens) == (EXPECTED.input_tokens, EXPECTED.output_tokens)
    assert input_tokens + output_tokens == EXPECTED.total_tokens
    # Every call has its own, distinct usage.
    assert len({_attr(span, "gen_ai.usage.input_tokens") for span in chats}) == EXPECTED.model_calls


def test_agent_spans_carry_their_own_usage_only(spans: list[ReadableSpan]) -> None:
    """``gen_ai.aggregated_usage.*`` on an agent span is that run's own calls, not its nested agents'."""
    agents = _operation(spans, "invoke_agent")
    chats = _operation(spans, "chat")
    for span in agents:
        name = _attr(span, "gen_ai.agent.name")
        own = [chat for chat in chats if _owning_agent(chat, spans) == name]
        assert _attr(span, "gen_ai.aggregated_usage.input_tokens") == sum(
            _attr(chat, "gen_ai.usage.input_tokens") for chat in own
        )
        assert _attr(span, "gen_ai.aggregated_usage.output_tokens") == sum(
            _attr(chat, "gen_ai.usage.output_tokens") for chat in own
        )
        assert _attr(span, "gen_ai.usage.input_tokens") is None
    total = sum(_attr(span, "gen_ai.aggregated_usage.input_tokens") for span in agents)
    assert total == EXPECTED.input_tokens


# --------------------------------------------------------------------------------------------------
# The stack module itself
# --------------------------------------------------------------------------------------------------


def test_async_run_records_the_same_spans(recorder: SpanRecorder) -> None:
    stack.instrument(recorder.provider)
    # A private loop, not asyncio.run(): that would unset the thread's loop, which run_sync() keeps for reuse.
    loop = asyncio.new_event_loop()
    try:
        assert loop.run_until_complete(stack.run_scenario_async()) == EXPECTED.final_output
    finally:
        loop.close()
    tools = _operation(recorder.spans(), "execute_tool")
    assert tuple(_attr(span, "gen_ai.tool.name") for span in tools) == EXPECTED.tools_in_order


def test_uninstrument_stops_the_spans(recorder: SpanRecorder) -> None:
    stack.instrument(recorder.provider)
    stack.uninstrument()
    assert stack.run_scenario() == EXPECTED.final_output
    assert recorder.spans() == []


def test_without_a_provider_the_global_one_is_looked_up_per_span(monkeypatch: pytest.MonkeyPatch) -> None:
    check_spans_follow_the_global_provider(stack, monkeypatch)


def test_record_spans_leaves_instrumentation_off(recorder: SpanRecorder) -> None:
    recorded = stack.record_spans()
    assert len(_operation(recorded, "chat")) == EXPECTED.model_calls
    stack.run_scenario()
    assert recorder.spans() == []


def test_version_1_does_not_exist() -> None:
    with pytest.raises(ValueError, match="must be one of"):
        stack.instrument(version=1)  # type: ignore[arg-type]
