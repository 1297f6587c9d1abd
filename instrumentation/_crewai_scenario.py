"""The scenario as a CrewAI crew, shared by the CrewAI stacks.

A crew of two agents, ``orchestrator`` and ``helper``, and one task (`_scenario.PROMPT`) assigned to the
orchestrator, which may delegate (``allow_delegation=True``). A crew's agents do not call each other
through tools of their own making: CrewAI gives a delegating agent its "Delegate work to coworker" tool
(``delegate_work_to_coworker(task, context, coworker)`` to the model), which runs the coworker on the
delegated task. So the script's third step is that tool, where the shared script calls ``ask_helper``:
the orchestrator's model calls ``get_weather(city="Paris")``, then ``explode()`` (which fails; CrewAI
sends the error back to the model and the run goes on), then delegates `HELPER_QUESTION` to ``helper``,
whose model answers at once; the orchestrator's model then answers. Turns, usage and texts are those of
``_scenario.py``; `EXPECTED` is built from this script (`expected`), never from spans.

The models are CrewAI's native OpenAI provider (``LLM(model="openai/<name>")``) on an
``httpx.MockTransport`` that plays the script as Chat Completions (no network, no key): the turn is read
off the request (how many tool results it holds), per model. CrewAI's own telemetry and tracing are
switched off through their environment variables before CrewAI is imported.

CrewAI's event bus runs synchronous handlers on a thread pool, and emits ``CrewKickoffCompletedEvent``
after its last flush: ``kickoff()`` can return before a listener that ends a span on that event (as
OpenInference's event listener does for the crew's span) has run. The scenario flushes the bus
(``crewai_event_bus.flush()``) before it returns, as a test must before it reads the spans.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

# CrewAI's anonymous telemetry and its own tracing: off, before crewai is imported
os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("CREWAI_TRACING_ENABLED", "false")

import httpx
from crewai import LLM, Agent, Crew, Process, Task
from crewai.events import crewai_event_bus
from crewai.tools import tool
from openai import AsyncOpenAI, OpenAI

from . import ScenarioFacts, _scenario
from ._chat_completions import scripted_reply
from ._scenario import HELPER_QUESTION, PROMPT, Turn

__all__ = [
    "DELEGATE",
    "DELEGATE_ARGS",
    "EXPECTED",
    "ORCHESTRATOR_TURNS",
    "PROMPT",
    "SCRIPTS",
    "expected",
    "make_crew",
    "run_scenario",
    "run_scenario_async",
]

#: the name CrewAI gives its "Delegate work to coworker" tool in the model's tool list
DELEGATE = "delegate_work_to_coworker"
DELEGATE_ARGS: Mapping[str, Any] = {
    "task": HELPER_QUESTION,
    "context": "The user is in Paris, where it is sunny and 21C.",
    "coworker": "helper",
}
#: the orchestrator's script: `_scenario.ORCHESTRATOR_TURNS` with the delegation for ``ask_helper``
ORCHESTRATOR_TURNS: tuple[Turn, ...] = _scenario.delegating(DELEGATE, DELEGATE_ARGS)
_BASE_URL = "https://scripted.invalid/v1"
SCRIPTS: Mapping[str, tuple[Turn, ...]] = {
    _scenario.ORCHESTRATOR_MODEL: ORCHESTRATOR_TURNS,
    _scenario.HELPER_MODEL: _scenario.HELPER_TURNS,
}


def expected() -> ScenarioFacts:
    """The ground truth of the crew's run, from the script: the delegation is a tool execution whose
    work is the helper's run, nested in the orchestrator."""
    return _scenario.expected_facts(ORCHESTRATOR_TURNS)


EXPECTED = expected()


# --------------------------------------------------------------------------------------------------
# The scripted OpenAI endpoint
# --------------------------------------------------------------------------------------------------


def _respond(request: httpx.Request) -> httpx.Response:
    status, body = scripted_reply(SCRIPTS, json.loads(request.content))
    return httpx.Response(status, json=body)


def _llm(model: str) -> LLM:
    """CrewAI's native OpenAI provider for ``model``, its OpenAI clients answered by the script.

    CrewAI hands ``client_params`` to both its sync and its async client, and an httpx client is one or
    the other: the provider's two clients are replaced once it is built."""
    llm = LLM(model=f"openai/{model}", api_key="test", base_url=_BASE_URL, max_retries=0)
    transport = httpx.MockTransport(_respond)
    llm._client = OpenAI(  # type: ignore[attr-defined]
        api_key="test", base_url=_BASE_URL, max_retries=0, http_client=httpx.Client(transport=transport)
    )
    llm._async_client = AsyncOpenAI(  # type: ignore[attr-defined]
        api_key="test", base_url=_BASE_URL, max_retries=0, http_client=httpx.AsyncClient(transport=transport)
    )
    return llm


# --------------------------------------------------------------------------------------------------
# The crew
# --------------------------------------------------------------------------------------------------


@tool("get_weather")
def get_weather(city: str) -> str:
    """Current weather in a city."""
    return _scenario.get_weather(city)


@tool("explode")
def explode() -> str:
    """A tool that always fails; the failure is reported back to the model."""
    raise RuntimeError(_scenario.EXPLODE_MESSAGE)


def make_crew() -> Crew:
    """A fresh crew: the orchestrator (who may delegate) and the helper, and the one task."""
    orchestrator = Agent(
        role="orchestrator",
        goal=_scenario.ORCHESTRATOR_INSTRUCTIONS,
        backstory="You answer travellers' questions.",
        llm=_llm(_scenario.ORCHESTRATOR_MODEL),
        tools=[get_weather, explode],
        allow_delegation=True,
        verbose=False,
    )
    helper = Agent(
        role="helper",
        goal=_scenario.HELPER_INSTRUCTIONS,
        backstory="You know what to wear in any weather.",
        llm=_llm(_scenario.HELPER_MODEL),
        allow_delegation=False,
        verbose=False,
    )
    task = Task(description=PROMPT, expected_output="A short answer.", agent=orchestrator)
    return Crew(agents=[orchestrator, helper], tasks=[task], process=Process.sequential, verbose=False)


def run_scenario() -> str:
    """Run the crew to completion and return its final output (once every event handler has run)."""
    output = make_crew().kickoff().raw.strip()
    crewai_event_bus.flush()
    return output


async def run_scenario_async() -> str:
    """Run the crew in the running event loop (``kickoff_async``); return its final output."""
    result = await make_crew().kickoff_async()
    crewai_event_bus.flush()
    return result.raw.strip()
