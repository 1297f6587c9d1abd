"""The handoff scenario on the OpenAI Agents SDK, under either of its stacks' instrumentations.

The app
-------
``concierge`` has ``handoffs=[bookings, weather]``; the SDK offers its model the tools
``transfer_to_bookings`` and ``transfer_to_weather``. ``bookings`` has the function tool ``book_table``,
``weather`` has ``get_weather``. The models are ``OpenAIResponsesModel`` on an ``AsyncOpenAI`` client
whose ``MockTransport`` answers ``POST /responses`` with the script of ``_handoff_scenario`` (the step is
read off the request: how many calls of that model its input already holds), usage included.

When the concierge's model asks for both handoffs at once (the parallel variant), the SDK carries out
the first and ignores the second: ``transfer_to_weather`` is a request nothing executed. Control does
not come back: the agent handed to gives the final answer.

What the instrumentations record
--------------------------------
- OpenInference: a ``TOOL`` span ``handoff to <agent>`` inside the concierge's agent span, its
  ``input.value`` the agent handing off and ``output.value`` the agent taking over (ERROR, "Multiple
  handoffs requested", when the model asked for two);
- OpenLLMetry: ``<from> → unknown.handoff`` (``traceloop.span.kind=handoff``,
  ``gen_ai.handoff.from_agent``; the target is not recorded);
- both: the agent handed to is a *sibling* of the concierge under the workflow root, not nested in it;
  the model's ``transfer_to_*`` calls are in the concierge's response.
"""

from __future__ import annotations

import json
import uuid
from importlib import import_module
from typing import Any

from agents import Agent, OpenAIResponsesModel, RunConfig, Runner, function_tool
from openai import AsyncOpenAI
from opentelemetry.sdk.trace import ReadableSpan

from . import _handoff_scenario as hs
from . import _recording
from ._handoff_scenario import PROMPT, Step

try:  # openai >= 3 is built on httpx2
    import httpx2 as httpx
except ImportError:  # pragma: no cover - older openai releases use httpx
    import httpx  # type: ignore[no-redef]

__all__ = ["EXPECTED", "PROMPT", "STACKS", "build_agents", "record_spans", "run_scenario"]

#: (parallel) -> the ground truth of a run
EXPECTED = {parallel: hs.expected("openai_agents", parallel) for parallel in (False, True)}
#: the stack modules whose instrumentation can record the app
STACKS = ("instrumentation.openai_agents_openinference", "instrumentation.openai_agents_traceloop")
_AGENTS = {model: agent for agent, model in hs.MODELS.items()}


def _output(step: Step, model: str, index: int) -> list[dict[str, Any]]:
    if not step.calls:
        content = [{"type": "output_text", "text": step.text, "annotations": []}]
        return [
            {
                "type": "message",
                "id": f"msg_{model}_{index}",
                "role": "assistant",
                "status": "completed",
                "content": content,
            }
        ]
    return [
        {
            "type": "function_call",
            "id": f"fc_{model}_{index}_{position}",
            "call_id": step.call_id(model, index, position),
            "name": name,
            "arguments": json.dumps(dict(args)),
            "status": "completed",
        }
        for position, (name, args) in enumerate(step.calls)
    ]


def _respond(parallel: bool) -> Any:
    def respond(request: Any) -> Any:
        body = json.loads(request.content)
        model = body.get("model")
        agent = _AGENTS.get(model) if isinstance(model, str) else None
        if request.method != "POST" or not request.url.path.endswith("/responses") or agent is None:
            return httpx.Response(404, json={"error": {"message": f"not scripted: {request.url.path}"}})
        items = body.get("input") if isinstance(body.get("input"), list) else []
        mine = {
            str(item.get("call_id", "")).rsplit("_", 1)[0]
            for item in items
            if isinstance(item, dict) and item.get("type") == "function_call"
        }
        index = sum(1 for prefix in mine if prefix.startswith(f"call_{model}_"))
        steps = hs.SCRIPTS[parallel][agent]
        step = steps[min(index, len(steps) - 1)]
        usage = {
            "input_tokens": step.input_tokens,
            "output_tokens": step.output_tokens,
            "total_tokens": step.input_tokens + step.output_tokens,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        }
        reply = {
            # unique, as OpenAI's are: OpenLLMetry traces a response id it saw before in the first's context
            "id": f"resp_{uuid.uuid4().hex}",
            "object": "response",
            "created_at": 1_700_000_000,
            "model": model,
            "status": "completed",
            "output": _output(step, model, index),
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "usage": usage,
        }
        return httpx.Response(200, json=reply)

    return respond


def build_agents(parallel: bool = False) -> Agent[Any]:
    """The ``concierge`` agent (with its handoffs) on a client that plays the script."""
    http_client: Any = httpx.AsyncClient(transport=httpx.MockTransport(_respond(parallel)))
    client = AsyncOpenAI(
        api_key="test", base_url="http://scripted.invalid/v1", http_client=http_client, max_retries=0
    )

    def model(agent: str) -> OpenAIResponsesModel:
        return OpenAIResponsesModel(hs.MODELS[agent], client)

    bookings: Agent[Any] = Agent(
        name="bookings",
        instructions="Book tables.",
        model=model("bookings"),
        tools=[function_tool(hs.book_table)],
    )
    weather: Agent[Any] = Agent(
        name="weather",
        instructions="Report the weather.",
        model=model("weather"),
        tools=[function_tool(hs.get_weather)],
    )
    return Agent(
        name="concierge",
        instructions="Route requests.",
        model=model("concierge"),
        handoffs=[bookings, weather],
    )


def run_scenario(*, parallel: bool = False, traced: bool = True) -> str:
    """Run the scenario; the final answer. ``traced=False`` switches the SDK's tracing off (while no
    instrumentation is on, the SDK's own processor would export to OpenAI)."""
    config = RunConfig(tracing_disabled=not traced, trace_include_sensitive_data=True)
    return str(Runner.run_sync(build_agents(parallel), PROMPT, run_config=config).final_output)


def record_spans(stack: str = STACKS[0], *, parallel: bool = False) -> list[ReadableSpan]:
    """Run the scenario under the instrumentation of ``stack`` (a module of `STACKS`) on a private
    provider with an in-memory exporter; return its spans (instrumentation off afterwards)."""
    module = import_module(stack)
    return _recording.record_spans(
        module.instrument, module.uninstrument, lambda: run_scenario(parallel=parallel)
    )
