"""The handoff scenario, written once and free of any framework.

A ``concierge`` agent is asked `PROMPT`. Its model hands off to the ``bookings`` agent
(``transfer_to_bookings``), which books with ``book_table(restaurant="Luigi's", guests=2)`` and answers.
In the *parallel* variant the concierge's model asks for two handoffs in one response,
``transfer_to_bookings`` and ``transfer_to_weather``; the ``weather`` agent looks up
``get_weather(city="Rome")``.

What happens next is the framework's: a LangGraph supervisor runs every agent handed to and then gives
control back to the concierge, which answers (`FINAL_OUTPUT`); the OpenAI Agents SDK carries out the
first handoff only (the second request is never executed) and the agent handed to answers.

`expected` gives the ground truth of each framework and variant (`HandoffFacts`), from this script and
the frameworks' documented behaviour, never from spans.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "BOOKED",
    "FINAL_OUTPUT",
    "MODELS",
    "PROMPT",
    "SCRIPTS",
    "Framework",
    "HandoffFacts",
    "Step",
    "book_table",
    "expected",
    "get_weather",
    "script",
]

PROMPT = "Book a table for two at Luigi's tonight, and tell me the weather in Rome."
BOOKED = "Booked a table for two at Luigi's at 19:00."
WEATHER = "Sunny, 24C in Rome."
FINAL_OUTPUT = "Your table at Luigi's is booked; Rome is sunny."
BOOKING_ARGS: Mapping[str, Any] = {"restaurant": "Luigi's", "guests": 2}
WEATHER_ARGS: Mapping[str, Any] = {"city": "Rome"}

#: agent name -> the model name its scripted model reports
MODELS: Mapping[str, str] = {
    "concierge": "scripted-concierge",
    "bookings": "scripted-bookings",
    "weather": "scripted-weather",
}

Framework = Literal["langgraph", "openai_agents"]


@dataclass(frozen=True)
class Step:
    """One scripted model response: tool calls ``(name, arguments)`` (several: parallel calls), or the
    final ``text``; and its token usage."""

    input_tokens: int
    output_tokens: int
    calls: tuple[tuple[str, Mapping[str, Any]], ...] = ()
    text: str = ""

    def call_id(self, model: str, index: int, position: int) -> str:
        """The id of the ``position``-th call of the ``index``-th response of ``model``."""
        return f"call_{model}_{index}_{position}"


def script(parallel: bool) -> dict[str, tuple[Step, ...]]:
    """Agent name -> its model's responses, in order."""
    handoffs: tuple[tuple[str, Mapping[str, Any]], ...] = (("transfer_to_bookings", {}),)
    if parallel:
        handoffs += (("transfer_to_weather", {}),)
    return {
        "concierge": (Step(40, 6, calls=handoffs), Step(90, 12, text=FINAL_OUTPUT)),
        "bookings": (Step(30, 8, calls=(("book_table", BOOKING_ARGS),)), Step(45, 9, text=BOOKED)),
        "weather": (Step(20, 5, calls=(("get_weather", WEATHER_ARGS),)), Step(35, 7, text=WEATHER)),
    }


#: (parallel) -> the script
SCRIPTS: Mapping[bool, Mapping[str, tuple[Step, ...]]] = {False: script(False), True: script(True)}


def book_table(restaurant: str, guests: int) -> str:
    """Book a table at a restaurant."""
    return f"Booked {restaurant} for {guests}"


def get_weather(city: str) -> str:
    """Current weather in a city."""
    return f"Sunny, 24C in {city}"


@dataclass(frozen=True)
class HandoffFacts:
    """Ground truth about one run of the handoff scenario."""

    #: every handoff ``(from agent, to agent)``, in order; each was taken up by a run of its target
    handoffs: tuple[tuple[str, str], ...]
    #: every tool execution ``(name, arguments)`` in order; none failed; no handoff is among them
    tools: tuple[tuple[str, Mapping[str, Any]], ...]
    #: the tool calls a model asked for that nothing carried out, in order
    unexecuted: tuple[str, ...]
    #: the names of the agents that ran (each once, whatever order), none failed
    agents: frozenset[str]
    #: the last answer of the run
    final_output: str
    #: every model call's (input, output) tokens summed
    total_tokens: int = field(default=0)


def expected(framework: Framework, parallel: bool) -> HandoffFacts:
    """What a run of the scenario on ``framework`` does (see the module docstring)."""
    steps = SCRIPTS[parallel]
    if framework == "langgraph":
        helpers = ("bookings", "weather") if parallel else ("bookings",)
        used = {"concierge": steps["concierge"], **{h: steps[h] for h in helpers}}
        tools = tuple(steps[h][0].calls[0] for h in helpers)
        return HandoffFacts(
            handoffs=tuple(("concierge", h) for h in helpers),
            tools=tools,
            unexecuted=(),
            agents=frozenset(used),
            final_output=FINAL_OUTPUT,
            total_tokens=_tokens(used),
        )
    # the OpenAI Agents SDK hands off once: the first handoff the model asked for
    used = {"concierge": steps["concierge"][:1], "bookings": steps["bookings"]}
    return HandoffFacts(
        handoffs=(("concierge", "bookings"),),
        tools=(steps["bookings"][0].calls[0],),
        unexecuted=("transfer_to_weather",) if parallel else (),
        agents=frozenset(used),
        final_output=BOOKED,
        total_tokens=_tokens(used),
    )


def _tokens(used: Mapping[str, tuple[Step, ...]]) -> int:
    return sum(step.input_tokens + step.output_tokens for steps in used.values() for step in steps)
