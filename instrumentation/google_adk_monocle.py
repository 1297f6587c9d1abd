"""Google ADK traced twice: ADK's own spans and monocle-apptrace's, on one run.

Monocle instruments ADK (``BaseAgent.run_async``, ``FunctionTool.run_async``, ``Runner.run_async``) and
the ``google-genai`` client (``AsyncModels.generate_content``), not ADK's model classes, so the
scenario's models here are ADK's real ``Gemini`` class on a ``google.genai.Client`` whose HTTP transport
plays the script as Gemini API replies (usage included). ADK's spans come from `google_adk`'s
instrumentation (either telemetry schema); Monocle's from `langgraph_monocle.instrument`, which
switches all of Monocle's instrumentation on. Every step is then recorded by both layers: ADK's
``invoke_agent`` and Monocle's ``agentic.invocation``, ``execute_tool`` and ``agentic.tool.invocation``,
``generate_content`` (and ``call_llm``) and Monocle's ``inference``, with the same token usage.

Runs where ADK is installed (``tests/envs/adk``).
"""

from __future__ import annotations

import json
from typing import Any

import httpx
from google.adk.agents import LlmAgent
from google.adk.models.google_llm import Gemini
from google.adk.tools.agent_tool import AgentTool
from google.adk.tools.tool_context import ToolContext
from google.genai import Client, types
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan

from . import _recording, _scenario, google_adk, langgraph_monocle
from ._scenario import EXPECTED, Turn

__all__ = ["EXPECTED", "instrument", "record_spans", "run_scenario", "uninstrument"]


def instrument(tracer_provider: trace.TracerProvider | None = None, *, schema: google_adk.Schema = 2) -> None:
    """ADK's telemetry (format ``schema``) and Monocle, both to ``tracer_provider`` (None: global)."""
    google_adk.instrument(tracer_provider, schema=schema)
    langgraph_monocle.instrument(tracer_provider)


def uninstrument() -> None:
    langgraph_monocle.uninstrument()
    google_adk.uninstrument()


def _reply(turn: Turn, index: int, model: str) -> dict[str, Any]:
    if turn.tool is None:
        part: dict[str, Any] = {"text": turn.text}
    else:
        part = {"functionCall": {"id": turn.call_id(index), "name": turn.tool, "args": dict(turn.args)}}
    return {
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {
            "promptTokenCount": turn.input_tokens,
            "candidatesTokenCount": turn.output_tokens,
            "totalTokenCount": turn.total_tokens,
        },
        "modelVersion": model,
    }


def _gemini(turns: tuple[Turn, ...], model: str) -> Gemini:
    """ADK's ``Gemini`` model on a client that answers from the script (the turn is read off the request:
    how many tool responses it already holds)."""

    def respond(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        index = sum(
            1
            for content in body.get("contents", ())
            for part in content.get("parts", ())
            if "functionResponse" in part
        )
        return httpx.Response(200, json=_reply(_scenario.turn_at(turns, index), index, model))

    options = types.HttpOptions(
        base_url="https://scripted.invalid/",
        httpx_async_client=httpx.AsyncClient(transport=httpx.MockTransport(respond)),
    )
    return Gemini(model=model, client=Client(api_key="test-key", http_options=options))


def _agents() -> LlmAgent:
    helper = LlmAgent(
        name="helper",
        model=_gemini(_scenario.HELPER_TURNS, _scenario.HELPER_MODEL),
        instruction=_scenario.HELPER_INSTRUCTIONS,
        description="Gives clothing advice.",
    )

    async def ask_helper(question: str, tool_context: ToolContext) -> str:
        """Ask the helper agent for advice."""
        answer = await AgentTool(helper).run_async(args={"request": question}, tool_context=tool_context)
        return str(answer)

    return LlmAgent(
        name="orchestrator",
        model=_gemini(_scenario.ORCHESTRATOR_TURNS, _scenario.ORCHESTRATOR_MODEL),
        instruction=_scenario.ORCHESTRATOR_INSTRUCTIONS,
        description="Answers weather questions.",
        tools=[_scenario.get_weather, google_adk.explode, ask_helper],
        on_tool_error_callback=google_adk._report_tool_error,
    )


def run_scenario() -> str:
    """Run the scenario (agents and clients built for this run's event loop); return the final answer."""
    saved = google_adk.orchestrator
    google_adk.orchestrator = _agents()
    try:
        return google_adk.run_scenario()
    finally:
        google_adk.orchestrator = saved


def record_spans(*, schema: google_adk.Schema = 2) -> list[ReadableSpan]:
    """Run the scenario under both layers on a private provider; return the finished spans."""
    return _recording.record_spans(lambda p: instrument(p, schema=schema), uninstrument, run_scenario)
