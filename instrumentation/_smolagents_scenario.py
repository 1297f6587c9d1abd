"""The shared script as smolagents plays it: a ``ToolCallingAgent`` with a managed agent.

smolagents has no "agent as a tool" wrapper to write: a managed agent is offered to the manager's model
as a tool named after the agent (inputs ``task`` and ``additional_args``), and the manager runs it when
the model calls that tool. Every answer is a call to the built-in ``final_answer`` tool (a
``ToolCallingAgent`` has no plain-text answer). So the script's turns become:

- orchestrator: ``get_weather(city="Paris")``, ``explode()``, ``helper(task="What should I wear?")``
  (the managed agent, where the other stacks call ``ask_helper``), ``final_answer(answer=FINAL_OUTPUT)``;
- helper: ``final_answer(answer=HELPER_ANSWER)``.

`expected` is the ground truth of that shape, from the script: the tool executions are ``get_weather``,
``explode`` (failed) and each agent's ``final_answer`` (smolagents runs it as a ``Tool`` like any
other); the call to ``helper`` is the nested agent ``helper``, not a tool execution.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import ScenarioFacts, _scenario
from ._chat_completions import chat_completion
from ._scenario import (
    FINAL_OUTPUT,
    HELPER_QUESTION,
    HELPER_TURNS,
    ORCHESTRATOR_TURNS,
    Turn,
)

__all__ = ["FINAL_ANSWER", "SCRIPTS", "completion", "expected", "tool_call"]

#: smolagents' built-in answer tool
FINAL_ANSWER = "final_answer"


def tool_call(turn: Turn) -> tuple[str, dict[str, Any]]:
    """The tool call ``(name, arguments)`` a ``ToolCallingAgent``'s model makes for ``turn``."""
    if turn.tool is None:
        return FINAL_ANSWER, {"answer": turn.text}
    if turn.tool == "ask_helper":  # the managed agent is the tool
        return "helper", {"task": HELPER_QUESTION}
    return turn.tool, dict(turn.args)


#: model name -> its turns
SCRIPTS: Mapping[str, tuple[Turn, ...]] = _scenario.SCRIPTS


def completion(model: str, index: int) -> dict[str, Any]:
    """The OpenAI chat completion (JSON) the scripted endpoint answers ``model``'s ``index``-th call with."""
    turn = _scenario.turn_at(SCRIPTS[model], index)
    name, arguments = tool_call(turn)
    return chat_completion(
        model, index, turn, tool=name, arguments=arguments, call_id=f"call_{model}_{index}"
    )


def expected() -> ScenarioFacts:
    """The ground truth of the smolagents run (see the module docstring), from the script."""
    tools: list[tuple[str, Mapping[str, Any]]] = []
    for turn in ORCHESTRATOR_TURNS:
        name, arguments = tool_call(turn)
        if name == "helper":  # the managed agent runs: its own answer comes first
            tools += [tool_call(t) for t in HELPER_TURNS]
        else:
            tools.append((name, arguments))
    return _scenario.scenario_facts(
        {"orchestrator": ORCHESTRATOR_TURNS, "helper": HELPER_TURNS},
        agents=("orchestrator",),
        nested={"orchestrator": ("helper",)},
        tools=tools,
        failed=("explode",),
        output=FINAL_OUTPUT,
    )
