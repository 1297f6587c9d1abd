"""AutoGen AgentChat + OpenInference stack: a ``Swarm`` in which the orchestrator hands off to ``helper``,
traced by ``openinference-instrumentation-autogen-agentchat``.

Instrumentation
---------------
`instrument` calls ``AutogenAgentChatInstrumentor().instrument(tracer_provider=...)``, which wraps
``AssistantAgent.on_messages_stream``, ``BaseChatAgent.on_messages_stream``, ``BaseGroupChat.run_stream``,
``AssistantAgent._execute_tool_call`` and ``BaseOpenAIChatCompletionClient.create`` / ``create_stream``.
The spans (scope ``openinference.instrumentation.autogen_agentchat``):

- ``Swarm.run_stream``: a ``CHAIN`` span for the team run: ``input.value`` (the task), ``team_id``,
  ``participant_names``, ``output.value`` (the ``TaskResult``'s messages);
- ``<agent>.on_messages_stream``: an ``AGENT`` span per turn of an agent, with **no** ``agent.name``:
  ``graph.node.id`` = the agent's name, ``graph.node.parent_id`` = the source of the last message it was
  handed (``start`` for the user's task), ``input.value`` (the messages as JSON); no output;
- ``OpenAIChatCompletionClient.create``: an ``LLM`` span per model call with ``llm.model_name``,
  ``llm.token_count.prompt/completion/total``, ``llm.input_messages.*``, ``llm.output_messages.*`` (the
  tool calls asked for), ``output.value``. Only the OpenAI clients are wrapped: AutoGen's own test double,
  ``ReplayChatCompletionClient``, records no model span at all (so the stack runs the real client on a
  fake HTTP transport instead);
- ``<agent>.<tool>``: a ``TOOL`` span per tool call with ``tool.name``, ``input.value`` (the arguments
  JSON, absent when they are empty), ``output.value`` (the result). A tool that raises is caught by
  AutoGen (the model gets ``Error: <message>``, the run goes on): the span gets status ERROR with the
  fixed description "Tool execution failed", the message only in ``output.value``, no ``exception``
  event. The handoff tool ``transfer_to_<agent>`` gets such a span too (status OK, ``output.value``
  "Transferred to <agent>, adopting the role of <agent> immediately.").

No tool call id is recorded on tool spans.

The scenario
------------
``instrumentation/_autogen_scenario.py`` (a handoff where the others call ``ask_helper``): autogen-ext's
``OpenAIChatCompletionClient`` on an ``AsyncOpenAI`` client whose ``httpx.MockTransport`` plays the
script as chat completions (no network). The orchestrator (``max_tool_iterations=4``: its tool loop is
one turn) has ``get_weather``, ``explode`` and ``handoffs=["helper"]``; the swarm stops at the helper's
first text message.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

import httpx2 as httpx
from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.conditions import TextMessageTermination
from autogen_agentchat.messages import TextMessage
from autogen_agentchat.teams import Swarm
from autogen_core._telemetry import _genai as autogen_genai
from autogen_ext.models.openai import OpenAIChatCompletionClient
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan

from . import _recording, _scenario
from ._autogen_scenario import EXPECTED, HANDOFFS, SCRIPTS
from ._chat_completions import chat_completion
from ._instrumentors import restore_environment, set_environment, switch_off, switch_on
from ._routing import RoutingTracer, RoutingTracerProvider
from ._scenario import PROMPT

__all__ = [
    "EXPECTED",
    "HANDOFFS",
    "PROMPT",
    "instrument",
    "make_team",
    "record_spans",
    "run_scenario",
    "run_scenario_async",
    "uninstrument",
]

_MODELS = {"orchestrator": _scenario.ORCHESTRATOR_MODEL, "helper": _scenario.HELPER_MODEL}
_AGENTS = {model: agent for agent, model in _MODELS.items()}
#: AutoGen's switch for its runtime's messaging spans ("autogen create/process/publish/ack ...")
_NO_RUNTIME_SPANS = "AUTOGEN_DISABLE_RUNTIME_TRACING"


# --------------------------------------------------------------------------------------------------
# Instrumentation
# --------------------------------------------------------------------------------------------------


def _instrumentor() -> Any:
    from openinference.instrumentation.autogen_agentchat import AutogenAgentChatInstrumentor

    return AutogenAgentChatInstrumentor()


class _TraceModule:
    """``opentelemetry.trace`` as AutoGen's GenAI spans see it, with ``get_tracer`` handing out tracers
    for the provider `instrument` was given."""

    def __init__(self, provider: trace.TracerProvider | None) -> None:
        self._provider = provider

    def get_tracer(self, name: str, *args: Any, **kwargs: Any) -> trace.Tracer:
        return RoutingTracer(self._provider, name)

    def __getattr__(self, name: str) -> Any:
        return getattr(trace, name)


@dataclass
class _Saved:
    env: dict[str, str | None] = field(default_factory=dict)
    on: bool = False


_SAVED = _Saved()


def instrument(tracer_provider: trace.TracerProvider | None = None) -> None:
    """Turn on OpenInference's AutoGen AgentChat instrumentation (replacing an earlier `instrument`), and
    send AutoGen's own GenAI spans to the same provider; AutoGen's runtime messaging spans are switched off.

    Args:
        tracer_provider: where the spans go. None means the global tracer provider, looked up each time a
            span starts (so a provider installed later, e.g. by the traceassert pytest plugin, is used).
    """
    uninstrument()
    switch_on(_instrumentor(), tracer_provider=RoutingTracerProvider(tracer_provider))
    _SAVED.env = set_environment({_NO_RUNTIME_SPANS: "true"})
    autogen_genai.trace = _TraceModule(tracer_provider)  # type: ignore[attr-defined,assignment]
    _SAVED.on = True


def uninstrument() -> None:
    """Switch the instrumentation off (AutoGen's methods unwrapped, its own spans back on the global
    provider, its runtime spans as the environment had them)."""
    switch_off(_instrumentor())
    if _SAVED.on:
        autogen_genai.trace = trace  # type: ignore[attr-defined]
        restore_environment(_SAVED.env)
        _SAVED.env, _SAVED.on = {}, False


# --------------------------------------------------------------------------------------------------
# The scripted endpoint and the swarm
# --------------------------------------------------------------------------------------------------


def _completion(model: str, index: int) -> dict[str, Any]:
    turn = _scenario.turn_at(SCRIPTS[_AGENTS[model]], index)
    return chat_completion(model, index, turn, call_id=f"call_{model}_{index}")


def _respond(request: httpx.Request) -> httpx.Response:
    """The fake chat completions endpoint. A swarm's agents share one thread, so the turn of a model is
    how many of *its own* tool calls (ids ``call_<model>_N``) the request already holds."""
    body = json.loads(request.content)
    model = body["model"]
    own = {
        call["id"]
        for message in body["messages"]
        for call in message.get("tool_calls") or ()
        if str(call.get("id", "")).startswith(f"call_{model}_")
    }
    return httpx.Response(200, json=_completion(model, len(own)))


def _client(agent: str) -> OpenAIChatCompletionClient:
    return OpenAIChatCompletionClient(
        model=_MODELS[agent],
        api_key="test",
        base_url="https://scripted.invalid/v1",
        max_retries=0,
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(_respond)),  # type: ignore[call-arg]
        model_info={
            "vision": False,
            "function_calling": True,
            "json_output": False,
            "family": "unknown",
            "structured_output": False,
        },
    )


async def get_weather(city: str) -> str:
    """Current weather in a city."""
    return _scenario.get_weather(city)


async def explode() -> str:
    """A tool that always fails; the failure is reported back to the model."""
    raise RuntimeError(_scenario.EXPLODE_MESSAGE)


def make_team() -> Swarm:
    """A fresh swarm: ``orchestrator`` (tools, and a handoff to ``helper``) and ``helper``."""
    orchestrator = AssistantAgent(
        "orchestrator",
        model_client=_client("orchestrator"),
        tools=[get_weather, explode],
        handoffs=["helper"],
        system_message=_scenario.ORCHESTRATOR_INSTRUCTIONS,
        max_tool_iterations=4,
    )
    helper = AssistantAgent(
        "helper", model_client=_client("helper"), system_message=_scenario.HELPER_INSTRUCTIONS
    )
    return Swarm([orchestrator, helper], termination_condition=TextMessageTermination(source="helper"))


async def run_scenario_async() -> str:
    """Run the scenario to completion in the running event loop; return the last text message."""
    result = await make_team().run(task=PROMPT)
    texts = [m for m in result.messages if isinstance(m, TextMessage)]
    return texts[-1].content if texts else ""


def run_scenario() -> str:
    """Run the scenario to completion and return the last text message (the helper's answer)."""
    return asyncio.run(run_scenario_async())


def record_spans() -> list[ReadableSpan]:
    """Run the scenario instrumented, on a private provider with an in-memory exporter; return its spans.

    Leaves the instrumentation switched off afterwards.
    """
    return _recording.record_spans(instrument, uninstrument, run_scenario)
