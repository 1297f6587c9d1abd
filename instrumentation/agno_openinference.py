"""Agno + OpenInference stack: an Agno ``Team`` whose leader delegates to its member agent ``helper``,
traced by ``openinference-instrumentation-agno``.

Instrumentation
---------------
`instrument` calls ``AgnoInstrumentor().instrument(tracer_provider=...)``, which wraps the module-level
run functions of ``agno.agent._run`` and ``agno.team._run`` (``_run``, ``_arun``, the streaming and
continue-run variants), ``invoke`` / ``ainvoke`` (and the streaming ones) of every model class under
``agno.models``, and ``FunctionCall.execute`` / ``aexecute``. The spans (scope
``openinference.instrumentation.agno``):

- ``<Team name>.run`` / ``<Agent name>.run`` (``.arun`` when async): ``openinference.span.kind=AGENT``,
  ``agent.name``, ``input.value`` (the prompt, or the task a member was handed), ``output.value`` (the
  answer), ``session.id``, ``graph.node.id`` / ``graph.node.parent_id`` (a member's parent is its team);
- ``<ModelClass>.invoke`` (``OpenAIChat.invoke``): an ``LLM`` span per model call with
  ``llm.model_name``, ``llm.provider``, ``llm.token_count.prompt/completion/total``,
  ``llm.input_messages.*`` and ``llm.output_messages.*`` (the tool calls asked for);
- ``<tool name>``: a ``TOOL`` span per function call with ``tool.name``, ``tool.description``,
  ``input.value`` (the arguments JSON), ``output.value`` (the result). A tool that raises is caught by
  Agno (``FunctionCall.execute`` returns ``status="failure"``; the model gets the error text and the run
  goes on): the span gets status ERROR with the error text as its description and ``output.value``,
  and no ``exception`` event (the exception's type is not recorded).

Upstream gap: a sync ``Team.run`` leaves its ended ``<team>.run`` span attached as the current span
after it returns, so the next span the thread starts (another run, another framework's) becomes its
child; `run_scenario` runs the team in a context of its own.

Delegation: the team leader's model calls Agno's built-in ``delegate_task_to_member(member_id, task)``
tool; its TOOL span holds the member's ``helper.run`` AGENT span. That is "a tool that runs a nested
agent", as ``ask_helper`` is in the other stacks: `EXPECTED` is the shared script with the tool
``delegate_task_to_member(member_id="helper", task="What should I wear?")`` where the others have
``ask_helper(question=...)``. No tool call id is recorded on tool spans.

The scenario
------------
Agno's own ``OpenAIChat`` model on an ``openai.OpenAI`` / ``AsyncOpenAI`` client (``client=`` /
``async_client=``) whose ``httpx.MockTransport`` plays the script as chat completions (no network);
Agno's telemetry is off.
"""

from __future__ import annotations

import contextvars
import json
from collections.abc import Mapping
from typing import Any

import httpx2 as httpx
from agno.agent import Agent
from agno.models.openai import OpenAIChat
from agno.team import Team
from openai import AsyncOpenAI, OpenAI
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan

from . import _recording, _scenario
from ._chat_completions import chat_completion
from ._instrumentors import switch_off, switch_on
from ._routing import RoutingTracerProvider
from ._scenario import HELPER_MODEL, HELPER_QUESTION, ORCHESTRATOR_MODEL, PROMPT, Turn

__all__ = [
    "DELEGATE",
    "EXPECTED",
    "PROMPT",
    "instrument",
    "make_team",
    "record_spans",
    "run_scenario",
    "run_scenario_async",
    "uninstrument",
]

#: Agno's built-in tool through which a team leader hands a member a task
DELEGATE = "delegate_task_to_member"
_DELEGATION: Mapping[str, Any] = {"member_id": "helper", "task": HELPER_QUESTION}


def _call(turn: Turn) -> tuple[str | None, Mapping[str, Any]]:
    """The tool call ``turn`` makes in Agno: ``ask_helper`` is the team's delegation to ``helper``."""
    if turn.tool == "ask_helper":
        return DELEGATE, _DELEGATION
    return turn.tool, turn.args


#: ground truth from the script, with the delegation in place of ``ask_helper`` (see the docstring)
EXPECTED = _scenario.expected_facts(_scenario.delegating(DELEGATE, _DELEGATION))


# --------------------------------------------------------------------------------------------------
# Instrumentation
# --------------------------------------------------------------------------------------------------


def _instrumentor() -> Any:
    from openinference.instrumentation.agno import AgnoInstrumentor

    return AgnoInstrumentor()


def instrument(tracer_provider: trace.TracerProvider | None = None) -> None:
    """Turn on OpenInference's Agno instrumentation (replacing an earlier `instrument`).

    Args:
        tracer_provider: where the spans go. None means the global tracer provider, looked up each time a
            span starts (so a provider installed later, e.g. by the traceassert pytest plugin, is used).
    """
    switch_on(_instrumentor(), tracer_provider=RoutingTracerProvider(tracer_provider))


def uninstrument() -> None:
    """Switch the instrumentation off (Agno's functions unwrapped)."""
    switch_off(_instrumentor())


# --------------------------------------------------------------------------------------------------
# The scripted endpoint and the team
# --------------------------------------------------------------------------------------------------


def _completion(model: str, index: int) -> dict[str, Any]:
    turn = _scenario.turn_at(_scenario.SCRIPTS[model], index)
    name, args = _call(turn)
    return chat_completion(model, index, turn, tool=name, arguments=args)


def _respond(request: httpx.Request) -> httpx.Response:
    """The fake chat completions endpoint: the turn is how many tool results the request holds."""
    body = json.loads(request.content)
    index = sum(1 for message in body["messages"] if message.get("role") == "tool")
    return httpx.Response(200, json=_completion(body["model"], index))


def _model(model_id: str) -> OpenAIChat:
    options: dict[str, Any] = {"api_key": "test", "base_url": "https://scripted.invalid/v1", "max_retries": 0}
    transport = httpx.MockTransport(_respond)
    return OpenAIChat(
        id=model_id,
        client=OpenAI(http_client=httpx.Client(transport=transport), **options),
        async_client=AsyncOpenAI(http_client=httpx.AsyncClient(transport=transport), **options),
    )


def get_weather(city: str) -> str:
    """Current weather in a city.

    Args:
        city: the city
    """
    return _scenario.get_weather(city)


def explode() -> str:
    """A tool that always fails; the failure is reported back to the model."""
    raise RuntimeError(_scenario.EXPLODE_MESSAGE)


def make_team() -> Team:
    """The team ``orchestrator`` (its leader has the tools) with the member agent ``helper``."""
    helper = Agent(
        name="helper",
        model=_model(HELPER_MODEL),
        instructions=_scenario.HELPER_INSTRUCTIONS,
        role="Gives clothing advice.",
        telemetry=False,
    )
    return Team(
        name="orchestrator",
        model=_model(ORCHESTRATOR_MODEL),
        members=[helper],
        tools=[get_weather, explode],
        instructions=_scenario.ORCHESTRATOR_INSTRUCTIONS,
        telemetry=False,
    )


def run_scenario() -> str:
    """Run the scenario to completion and return the team's answer.

    The run gets a context of its own: instrumented, a sync ``Team.run`` leaves its (ended) span as the
    current span after it returns (openinference-instrumentation-agno 1.0.15), which would make it the
    parent of whatever the caller traces next.
    """
    return contextvars.copy_context().run(lambda: str(make_team().run(PROMPT).content))


async def run_scenario_async() -> str:
    """Like `run_scenario`, in the running event loop (``Team.arun``)."""
    result = await make_team().arun(PROMPT)
    return str(result.content)


def record_spans() -> list[ReadableSpan]:
    """Run the scenario instrumented, on a private provider with an in-memory exporter; return its spans.

    Leaves the instrumentation switched off afterwards.
    """
    return _recording.record_spans(instrument, uninstrument, run_scenario)
