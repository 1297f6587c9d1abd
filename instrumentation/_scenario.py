"""The scenario every stack runs, written once and free of any framework.

The script: an ``orchestrator`` agent is asked `PROMPT`; its model calls ``get_weather(city="Paris")``,
then ``explode()`` (which fails; the failure goes back to the model and the run goes on), then
``ask_helper(question="What should I wear?")``, which runs a nested ``helper`` agent whose model answers
`HELPER_ANSWER` at once; the orchestrator's model then answers `FINAL_OUTPUT`. Every model call reports
fixed, distinct token usage (`ORCHESTRATOR_TURNS`, `HELPER_TURNS`).

A stack module turns each `Turn` into its framework's model response, registers the tools with its
framework (`get_weather` as is; ``explode`` raising the framework's error with `EXPLODE_MESSAGE`), and
exports `EXPECTED`, the ground truth built from this script by `expected_facts`.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from . import ScenarioFacts

__all__ = [
    "EXPECTED",
    "EXPLODE_MESSAGE",
    "FINAL_OUTPUT",
    "HELPER_ANSWER",
    "HELPER_INSTRUCTIONS",
    "HELPER_MODEL",
    "HELPER_QUESTION",
    "HELPER_TURNS",
    "ORCHESTRATOR_INSTRUCTIONS",
    "ORCHESTRATOR_MODEL",
    "ORCHESTRATOR_TURNS",
    "PROMPT",
    "SCRIPTS",
    "Turn",
    "delegating",
    "expected_facts",
    "get_weather",
    "scenario_facts",
    "turn_at",
]

PROMPT = "What is the weather in Paris, and what should I wear?"
HELPER_QUESTION = "What should I wear?"
HELPER_ANSWER = "Wear a light jacket."
FINAL_OUTPUT = "It is sunny in Paris; wear a light jacket."
EXPLODE_MESSAGE = "explode failed: the detonator is broken"
ORCHESTRATOR_INSTRUCTIONS = "Answer weather questions; ask the helper for clothing advice."
HELPER_INSTRUCTIONS = "Give clothing advice."
#: the model names the scripted models report
ORCHESTRATOR_MODEL = "scripted-orchestrator"
HELPER_MODEL = "scripted-helper"


@dataclass(frozen=True)
class Turn:
    """One scripted model response: a call to ``tool`` with ``args``, or the final ``text``; and its usage."""

    input_tokens: int
    output_tokens: int
    tool: str | None = None
    args: Mapping[str, Any] = field(default_factory=dict)
    text: str = ""

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def call_id(self, index: int) -> str:
        """The id of the tool call this turn asks for (``index``: the turn's place in its script)."""
        return f"call_{index}_{self.tool}"

    def arguments_json(self) -> str:
        """The tool call's arguments as the JSON string OpenAI-style APIs carry."""
        return json.dumps(dict(self.args))


ORCHESTRATOR_TURNS = (
    Turn(101, 11, tool="get_weather", args={"city": "Paris"}),
    Turn(123, 13, tool="explode"),
    Turn(147, 17, tool="ask_helper", args={"question": HELPER_QUESTION}),
    Turn(171, 19, text=FINAL_OUTPUT),
)
HELPER_TURNS = (Turn(37, 7, text=HELPER_ANSWER),)

#: model name -> the turns that model plays
SCRIPTS: Mapping[str, tuple[Turn, ...]] = {ORCHESTRATOR_MODEL: ORCHESTRATOR_TURNS, HELPER_MODEL: HELPER_TURNS}


def delegating(tool: str, args: Mapping[str, Any]) -> tuple[Turn, ...]:
    """`ORCHESTRATOR_TURNS` with the call of ``ask_helper`` replaced by ``tool(**args)``: the script of a
    framework whose own tool runs the helper agent (usage and the other turns unchanged)."""
    return tuple(
        dataclasses.replace(turn, tool=tool, args=args) if turn.tool == "ask_helper" else turn
        for turn in ORCHESTRATOR_TURNS
    )


_T = TypeVar("_T")


def turn_at(turns: Sequence[_T], index: int) -> _T:
    """The turn a scripted model plays for its ``index``-th call of a run (scripts replay on every run)."""
    if index >= len(turns):
        raise RuntimeError(f"the script has only {len(turns)} model calls")
    return turns[index]


def get_weather(city: str) -> str:
    """Current weather in a city."""
    return f"Sunny, 21C in {city}"


class _Usage(Protocol):
    @property
    def input_tokens(self) -> int: ...

    @property
    def output_tokens(self) -> int: ...


def scenario_facts(
    replies: Mapping[str, Sequence[_Usage]],
    *,
    agents: tuple[str, ...],
    nested: Mapping[str, tuple[str, ...]],
    tools: Sequence[tuple[str, Mapping[str, Any]]],
    failed: tuple[str, ...],
    output: str,
) -> ScenarioFacts:
    """The `ScenarioFacts` of a script: ``replies`` maps each agent to its model responses (their usage),
    ``tools`` lists every tool execution ``(name, arguments)`` in order."""
    input_tokens = sum(r.input_tokens for rs in replies.values() for r in rs)
    output_tokens = sum(r.output_tokens for rs in replies.values() for r in rs)
    return ScenarioFacts(
        agents=agents,
        nested=nested,
        tools_in_order=tuple(name for name, _ in tools),
        tool_arguments=tuple(arguments for _, arguments in tools),
        failed_tools=failed,
        model_calls=sum(len(rs) for rs in replies.values()),
        own_model_calls={name: len(rs) for name, rs in replies.items()},
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        total_tokens=input_tokens + output_tokens,
        final_output=output,
    )


def expected_facts(orchestrator: Sequence[Turn] = ORCHESTRATOR_TURNS) -> ScenarioFacts:
    """The ground truth of the scenario, from the script above (never from spans); ``orchestrator``: the
    orchestrator's turns as a stack plays them (e.g. `delegating`)."""
    return scenario_facts(
        {"orchestrator": orchestrator, "helper": HELPER_TURNS},
        agents=("orchestrator",),
        nested={"orchestrator": ("helper",)},
        tools=[(turn.tool, turn.args) for turn in orchestrator if turn.tool is not None],
        failed=("explode",),
        output=FINAL_OUTPUT,
    )


#: ground truth, written from the script above (the conformance tests check the spans against it)
EXPECTED = expected_facts()
