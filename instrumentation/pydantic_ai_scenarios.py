"""More scripted Pydantic AI scenarios: a failing run, retries, parallel and repeated calls, a nested agent
with tools of its own.

Like ``instrumentation.pydantic_ai`` (whose ``instrument()`` / ``uninstrument()`` switch the real
instrumentation on and off), every agent runs on Pydantic AI's ``FunctionModel``: the model's responses
are scripted, the tools are real Python functions, nothing leaves the process. Each scenario has a
``run_*`` function and a ``ScenarioFacts`` written from its script.

What Pydantic AI records (and what the invocation checks rely on):

- a tool raising ``ModelRetry`` or getting invalid arguments: the tool span has status ERROR and an
  ``exception`` event (``pydantic_ai.exceptions.ToolRetryError`` / ``pydantic_core...ValidationError``);
  the run goes on;
- a tool raising any other exception ends the run: the tool span and the ``invoke_agent`` span get
  status ERROR and an ``exception`` event with the outermost exception's type and message; chained
  causes (``raise ... from ...``) are only in ``exception.stacktrace``;
- parallel tool calls (several ``ToolCallPart``s in one response) start in the order the model listed
  them; the ``chat`` span's ``gen_ai.output.messages`` lists them in that order;
- a run cancelled from outside (``asyncio.Task.cancel()``) ends its spans with status UNSET and no
  exception event: a cancelled run cannot be told from a finished one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic_ai.agent import Agent
from pydantic_ai.exceptions import ModelRetry
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import FunctionModel
from pydantic_ai.tools import RunContext
from pydantic_ai.usage import RequestUsage

from ._scenario import scenario_facts
from .pydantic_ai import script_function

__all__ = [
    "FAILING",
    "NESTED",
    "PARALLEL",
    "REPEATED",
    "RETRY",
    "run_failing",
    "run_nested",
    "run_parallel",
    "run_repeated",
    "run_retry",
]


@dataclass(frozen=True)
class _Reply:
    """One scripted model response: tool calls ``(name, args)`` (several = parallel calls) or ``text``."""

    input_tokens: int
    output_tokens: int
    calls: Sequence[tuple[str, Mapping[str, Any]]] = ()
    text: str = ""

    def response(self, index: int) -> ModelResponse:
        usage = RequestUsage(input_tokens=self.input_tokens, output_tokens=self.output_tokens)
        if not self.calls:
            return ModelResponse(parts=[TextPart(self.text)], usage=usage, finish_reason="stop")
        parts = [
            ToolCallPart(name, dict(args), tool_call_id=f"call_{index}_{k}_{name}")
            for k, (name, args) in enumerate(self.calls)
        ]
        return ModelResponse(parts=parts, usage=usage, finish_reason="tool_call")


# -- failing run: a tool raises a plain exception, which ends the run -----------------------------------

_BOOKING_REPLIES = (
    _Reply(40, 4, calls=[("get_booking", {"booking_number": "MS-777"})]),
    _Reply(60, 6, calls=[("cancel_booking", {"booking_number": "MS-777"})]),
)

booking_agent: Agent[None, str] = Agent(
    FunctionModel(script_function(_BOOKING_REPLIES, _Reply.response), model_name="scripted-booking"),
    name="booking",
)


class PaymentGatewayError(ConnectionError):
    """The payment service could not be reached."""


@booking_agent.tool_plain
def get_booking(booking_number: str) -> str:
    """Look a booking up."""
    return f"Booking {booking_number}: 2 nights in Paris, paid"


@booking_agent.tool_plain
def cancel_booking(booking_number: str) -> str:
    """Cancel a booking (the refund step always fails in this scenario)."""
    try:
        raise PaymentGatewayError("payment gateway unreachable")
    except PaymentGatewayError as err:
        raise RuntimeError(f"cancellation of {booking_number} failed") from err


FAILING = scenario_facts(
    {"booking": _BOOKING_REPLIES},
    agents=("booking",),
    nested={},
    tools=[("get_booking", {"booking_number": "MS-777"}), ("cancel_booking", {"booking_number": "MS-777"})],
    failed=("cancel_booking",),
    output="",
)


def run_failing() -> BaseException:
    """Run the booking agent; it fails in ``cancel_booking``. Returns the exception the run raised."""
    try:
        booking_agent.run_sync("Cancel my booking MS-777")
    except RuntimeError as err:
        return err
    raise AssertionError("the failing scenario did not fail")


# -- retries: a tool asks for a retry, then gets invalid arguments, then succeeds ----------------------

_RETRY_OUTPUT = "Munich: 12C and cloudy."
_RETRY_REPLIES = (
    _Reply(30, 3, calls=[("get_weather", {"city": "München"})]),
    _Reply(45, 4, calls=[("get_weather", {"town": "Munich"})]),
    _Reply(60, 5, calls=[("get_weather", {"city": "Munich"})]),
    _Reply(75, 9, text=_RETRY_OUTPUT),
)

retry_agent: Agent[None, str] = Agent(
    FunctionModel(script_function(_RETRY_REPLIES, _Reply.response), model_name="scripted-retry"),
    name="weather",
    retries=3,
)


@retry_agent.tool_plain(name="get_weather")
def get_weather_english(city: str) -> str:
    """Weather in a city; only English city names are known."""
    if city != "Munich":
        raise ModelRetry(f"unknown city {city!r}: use the English name")
    return "12C, cloudy"


RETRY = scenario_facts(
    {"weather": _RETRY_REPLIES},
    agents=("weather",),
    nested={},
    tools=[
        ("get_weather", {"city": "München"}),
        ("get_weather", {"town": "Munich"}),
        ("get_weather", {"city": "Munich"}),
    ],
    failed=("get_weather", "get_weather"),
    output=_RETRY_OUTPUT,
)


def run_retry() -> str:
    """Run the weather agent: a retry requested by the tool, invalid arguments, then success."""
    return retry_agent.run_sync("Weather in Munich?").output


# -- parallel calls: two tools asked for in one response ------------------------------------------------

_PARALLEL_OUTPUT = "Sunny, 21C, and it is 14:00 in Paris."
_PARALLEL_REPLIES = (
    _Reply(
        50, 8, calls=[("get_weather", {"city": "Paris"}), ("get_time", {"city": "Paris", "utc_offset": 1})]
    ),
    _Reply(90, 12, text=_PARALLEL_OUTPUT),
)

parallel_agent: Agent[None, str] = Agent(
    FunctionModel(script_function(_PARALLEL_REPLIES, _Reply.response), model_name="scripted-parallel"),
    name="concierge",
)


@parallel_agent.tool_plain(name="get_weather")
async def get_weather_slow(city: str) -> str:
    """Weather in a city (slower than get_time, so it ends last)."""
    await asyncio.sleep(0.01)
    return f"Sunny, 21C in {city}"


@parallel_agent.tool_plain
def get_time(city: str, utc_offset: int) -> str:
    """Local time in a city."""
    return f"14:00 in {city} (UTC+{utc_offset})"


PARALLEL = scenario_facts(
    {"concierge": _PARALLEL_REPLIES},
    agents=("concierge",),
    nested={},
    tools=[("get_weather", {"city": "Paris"}), ("get_time", {"city": "Paris", "utc_offset": 1})],
    failed=(),
    output=_PARALLEL_OUTPUT,
)


def run_parallel() -> str:
    """Run the concierge: the model asks for get_weather and get_time in one response."""
    return parallel_agent.run_sync("Weather and time in Paris?").output


# -- repeated calls: the same tool several times, with different and equal arguments --------------------

_REPEATED_OUTPUT = "Paris 21C, London 15C."
_REPEATED_REPLIES = (
    _Reply(20, 2, calls=[("get_weather", {"city": "Paris"})]),
    _Reply(30, 2, calls=[("get_weather", {"city": "London", "units": {"temp": "C", "wind": "km/h"}})]),
    _Reply(40, 2, calls=[("get_weather", {"city": "Paris"})]),
    _Reply(50, 6, text=_REPEATED_OUTPUT),
)

repeated_agent: Agent[None, str] = Agent(
    FunctionModel(script_function(_REPEATED_REPLIES, _Reply.response), model_name="scripted-repeated"),
    name="forecaster",
)


@repeated_agent.tool_plain(name="get_weather")
def get_weather_units(city: str, units: dict[str, str] | None = None) -> str:
    """Weather in a city, in the units asked for."""
    return {"Paris": "21C", "London": "15C"}.get(city, "unknown")


REPEATED = scenario_facts(
    {"forecaster": _REPEATED_REPLIES},
    agents=("forecaster",),
    nested={},
    tools=[
        ("get_weather", {"city": "Paris"}),
        ("get_weather", {"city": "London", "units": {"temp": "C", "wind": "km/h"}}),
        ("get_weather", {"city": "Paris"}),
    ],
    failed=(),
    output=_REPEATED_OUTPUT,
)


def run_repeated() -> str:
    """Run the forecaster: get_weather for Paris, London, then Paris again."""
    return repeated_agent.run_sync("Weather in Paris and London?").output


# -- nested agent with tools of its own -----------------------------------------------------------------

_NESTED_OUTPUT = "Booked Hotel Lumière, the best-rated hotel in Paris."
_PLANNER_REPLIES = (
    _Reply(100, 10, calls=[("research", {"topic": "hotels in Paris"})]),
    _Reply(120, 10, calls=[("book_hotel", {"name": "Hotel Lumière", "nights": 2})]),
    _Reply(140, 14, text=_NESTED_OUTPUT),
)
_RESEARCHER_REPLIES = (
    _Reply(30, 5, calls=[("search", {"query": "best hotels Paris"})]),
    _Reply(35, 5, calls=[("search", {"query": "Hotel Lumière reviews"})]),
    _Reply(40, 8, text="Hotel Lumière is the best rated."),
)

researcher: Agent[None, str] = Agent(
    FunctionModel(script_function(_RESEARCHER_REPLIES, _Reply.response), model_name="scripted-researcher"),
    name="researcher",
)
planner: Agent[None, str] = Agent(
    FunctionModel(script_function(_PLANNER_REPLIES, _Reply.response), model_name="scripted-planner"),
    name="planner",
)


@researcher.tool_plain
def search(query: str) -> list[str]:
    """Web search (canned results)."""
    return [f"result for {query}"]


@planner.tool
async def research(ctx: RunContext[None], topic: str) -> str:
    """Let the researcher agent look a topic up."""
    result = await researcher.run(f"Research: {topic}", usage=ctx.usage)
    return result.output


@planner.tool_plain
def book_hotel(name: str, nights: int) -> str:
    """Book a hotel."""
    return f"booked {name} for {nights} nights"


NESTED = scenario_facts(
    {"planner": _PLANNER_REPLIES, "researcher": _RESEARCHER_REPLIES},
    agents=("planner",),
    nested={"planner": ("researcher",)},
    tools=[
        ("research", {"topic": "hotels in Paris"}),
        ("search", {"query": "best hotels Paris"}),
        ("search", {"query": "Hotel Lumière reviews"}),
        ("book_hotel", {"name": "Hotel Lumière", "nights": 2}),
    ],
    failed=(),
    output=_NESTED_OUTPUT,
)


def run_nested() -> str:
    """Run the planner, whose research tool runs the researcher agent (which searches twice)."""
    return planner.run_sync("Find and book a good hotel in Paris for 2 nights.").output
