"""The real app the browser tests report on: a Pydantic AI weather assistant with scripted
``FunctionModel``s (no network), written into pytester projects as ``weather_app.py``."""

from __future__ import annotations

#: planted in a tool argument and in a span attribute; the report must never show it
SECRET = "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"

APP = f'''
"""A weather assistant on Pydantic AI; scripted models stand in for the LLM."""

from opentelemetry import trace
from pydantic_ai import Agent, ModelRetry, RunContext
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import FunctionModel
from pydantic_ai.usage import RequestUsage

SECRET = {SECRET!r}


def scripted(model_name, *turns):
    def respond(messages, info):
        reply, tokens_in, tokens_out = turns[sum(isinstance(m, ModelResponse) for m in messages)]
        final = isinstance(reply, str)
        return ModelResponse(
            parts=[TextPart(reply) if final else ToolCallPart(*reply)],
            usage=RequestUsage(input_tokens=tokens_in, output_tokens=tokens_out),
            finish_reason="stop" if final else "tool_call",
        )

    return FunctionModel(respond, model_name=model_name)


helper = Agent(
    scripted(
        "scripted-helper",
        (("look_in_wardrobe", {{"season": "spring"}}), 31, 5),
        ("Wear a light jacket.", 37, 7),
    ),
    name="helper",
)
orchestrator = Agent(
    scripted(
        "scripted-orchestrator",
        (("get_weather", {{"city": "Paris", "api_key": SECRET}}), 101, 11),
        (("explode", {{}}), 123, 13),
        (("ask_helper", {{"question": "What should I wear?"}}), 147, 17),
        ("It is sunny in Paris; wear a light jacket.", 171, 19),
    ),
    name="orchestrator",
)


@helper.tool_plain
def look_in_wardrobe(season: str) -> str:
    return f"a light jacket for {{season}}"


@orchestrator.tool_plain
def get_weather(city: str, api_key: str) -> str:
    trace.get_current_span().set_attribute("weather.service.api_key", api_key)
    return f"Sunny, 21C in {{city}}"


@orchestrator.tool_plain
def explode() -> str:
    raise ModelRetry("explode failed: the detonator is broken")


@orchestrator.tool
async def ask_helper(ctx: RunContext, question: str) -> str:
    result = await helper.run(question, usage=ctx.usage)
    return result.output


def ask(question="What is the weather in Paris, and what should I wear?"):
    return orchestrator.run_sync(question).output
'''

CONFTEST = """
import pytest
from pydantic_ai import Agent


@pytest.fixture(autouse=True)
def instrumented():
    Agent.instrument_all()
    yield
    Agent.instrument_all(False)
"""

#: one failing and one passing test of the app (the failing one first in the file: it must not need to
#: be, the report puts failures first whatever the order)
TESTS = """
import weather_app


def test_weather_passes(trace_asserter):
    weather_app.ask()
    trace_asserter.called_agent("orchestrator").called_tool("get_weather")
    trace_asserter.called_agent("helper").called_tool("look_in_wardrobe")


def test_weather_books_a_flight(trace_asserter):
    weather_app.ask()
    trace_asserter.called_agent("orchestrator").called_tool("book_flight")
"""
