"""Failure messages never show a secret the trace holds, wherever the check lists it: the inputs and
outputs of the selection, attribute values, the tool listing and the tree. On a real Pydantic AI run
whose tool takes an API key and sets it as a span attribute, and whose prompt carries a bearer token."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from opentelemetry import trace as otel_trace
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

import traceassert as ta
from traceassert._common.redact import set_redacting

KEY = "sk-live-7d1c9e2b4a6f8e0d2c4b6a8f"
TOKEN = "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"
PROMPT = f"Weather in Paris? My session is {TOKEN}"


def _model() -> FunctionModel:
    turns: list[Any] = [("get_weather", {"city": "Paris", "api_key": KEY}), "Sunny in Paris."]

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        reply = turns[sum(isinstance(m, ModelResponse) for m in messages)]
        part = TextPart(reply) if isinstance(reply, str) else ToolCallPart(*reply)
        return ModelResponse(parts=[part], usage=RequestUsage(input_tokens=20, output_tokens=5))

    return FunctionModel(respond, model_name="scripted")


@pytest.fixture(scope="module")
def run() -> ta.Trace:
    agent = Agent(_model(), name="weather")

    @agent.tool_plain
    def get_weather(city: str, api_key: str) -> str:
        otel_trace.get_current_span().set_attribute("weather.api_key", api_key)
        return f"Sunny in {city}"

    Agent.instrument_all()
    try:
        with ta.capture() as cap:
            agent.run_sync(PROMPT)
    finally:
        Agent.instrument_all(False)
    return cap.trace()


def _message(check: Callable[[ta.TraceAsserter], object], trace: ta.Trace) -> str:
    with pytest.raises(ta.TraceAssertionError) as info:
        check(ta.TraceAsserter(trace))
    return info.value.full_message()


CHECKS: dict[str, Callable[[ta.TraceAsserter], object]] = {
    # lists the inputs of the selection (the prompt; the tool's arguments)
    "has_input": lambda a: a.has_input("no such input"),
    "tool inputs": lambda a: a.called_tool("get_weather").has_input("no such input"),
    # lists the values of the attribute in the selection
    "has_attribute": lambda a: a.has_attribute("weather.api_key", "another"),
    # lists the spans that carry it, with their values
    "does_not_have_attribute": lambda a: a.does_not_have_attribute("weather.api_key"),
    # the tool listing and the tree
    "called_tool": lambda a: a.called_tool("missing"),
}


@pytest.mark.parametrize("name", list(CHECKS))
def test_a_failure_message_shows_no_secret_of_the_trace(run: ta.Trace, name: str) -> None:
    message = _message(CHECKS[name], run)
    assert KEY not in message, message
    assert "eyJzdWIiOiIxIn0" not in message, message
    assert "[REDACTED]" in message, message


@pytest.mark.parametrize("name", list(CHECKS))
def test_without_redaction_the_message_shows_the_values(run: ta.Trace, name: str, no_redaction: None) -> None:
    # the same listings show the real values: the checks above are not passing on empty listings
    assert KEY in _message(CHECKS[name], run) or "eyJzdWIiOiIxIn0" in _message(CHECKS[name], run)


def test_what_the_user_wrote_in_the_check_is_kept(run: ta.Trace) -> None:
    message = _message(lambda a: a.has_attribute("weather.api_key", "another"), run)
    assert message.startswith("has_attribute('weather.api_key', 'another'): no span has attribute")
    assert "values of 'weather.api_key' in the selection: '[REDACTED]'" in message


def test_expect_shows_the_value_it_found_redacted(run: ta.Trace, no_redaction: None) -> None:
    output = f"{run.agents[0].output} (key {KEY})"
    set_redacting(True)
    with pytest.raises(ta.TraceAssertionError) as info:
        ta.expect(output).to_equal("Sunny in Paris.")
    assert KEY not in str(info.value) and "Sunny in Paris. (key [REDACTED])" in str(info.value)
    set_redacting(False)
    with pytest.raises(ta.TraceAssertionError) as info:
        ta.expect(output).to_equal("Sunny in Paris.")
    assert KEY in str(info.value)
