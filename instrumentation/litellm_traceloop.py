"""LiteLLM + OpenLLMetry, read through the generic path: a home-grown tool loop on ``litellm.completion``
traced by ``opentelemetry-instrumentation-litellm`` (the OpenTelemetry GenAI conventions).

Instrumentation
---------------
`instrument` calls ``LiteLLMInstrumentor().instrument(tracer_provider=...)``, which wraps
``litellm.completion`` / ``acompletion`` / ``embedding``. One span per call, ``litellm.chat``:
``gen_ai.operation.name=chat``, ``gen_ai.request.model`` / ``gen_ai.response.model``,
``gen_ai.provider.name``, ``gen_ai.usage.*``, ``gen_ai.response.finish_reasons``, the messages as
``gen_ai.input.messages`` / ``gen_ai.output.messages`` (parts: ``text``, ``tool_call`` with id and
arguments; the loop's tool results as ``tool`` messages with ``tool_call_response`` parts) and
``gen_ai.tool.definitions``.

What it does not record: agents and tool executions (the loop is the app's own, and LiteLLM has none);
the tools' outcomes appear only as the tool messages the next call sends.

The scenario
------------
LiteLLM's own ``mock_response`` (no network) answers each call with a scripted ``ModelResponse`` of
`_generic_scenario.TURNS`; the loop runs ``get_weather`` and ``explode`` and sends each result (or the
error) back as a ``tool`` message.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan

from . import _generic_scenario as _gs
from . import _recording
from ._instrumentors import switch_off, switch_on
from ._routing import RoutingTracerProvider

# LiteLLM would fetch a price list at import: the bundled one is used instead
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import litellm  # type: ignore[import-untyped]

__all__ = [
    "EXPECTED",
    "RECORDING",
    "TOOLS",
    "instrument",
    "record_spans",
    "run_scenario",
    "run_scenario_async",
    "uninstrument",
]

RECORDING = "litellm_generic"

#: ground truth from the script (`_generic_scenario`)
EXPECTED = _gs.expected()

MODEL = f"openai/{_gs.MODEL}"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather in a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "explode",
            "description": "Always fails.",
            "parameters": {"type": "object", "properties": {}},
        },
    },
]


def _instrumentor() -> Any:
    from opentelemetry.instrumentation.litellm import LiteLLMInstrumentor

    return LiteLLMInstrumentor()


def instrument(tracer_provider: trace.TracerProvider | None = None) -> None:
    """Turn on OpenLLMetry's LiteLLM instrumentation (None: the global provider, looked up per span)."""
    switch_on(_instrumentor(), tracer_provider=RoutingTracerProvider(tracer_provider))


def uninstrument() -> None:
    """Switch the instrumentation off."""
    switch_off(_instrumentor())


def _response(index: int) -> Any:
    turn = _gs.TURNS[index]
    message: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
    if turn.tool:
        call = {"id": turn.call_id(index), "type": "function"}
        call["function"] = {"name": turn.tool, "arguments": turn.arguments_json()}  # type: ignore[assignment]
        message["tool_calls"] = [call]
    return litellm.ModelResponse(
        model=_gs.MODEL,
        choices=[{"index": 0, "message": message, "finish_reason": "tool_calls" if turn.tool else "stop"}],
        usage={
            "prompt_tokens": turn.input_tokens,
            "completion_tokens": turn.output_tokens,
            "total_tokens": turn.total_tokens,
        },
    )


def _run_tool(name: str, arguments: dict[str, Any]) -> str:
    if name == "get_weather":
        return _gs.get_weather(**arguments)
    raise RuntimeError(_gs.EXPLODE_MESSAGE)


def run_scenario() -> str:
    """The loop: call the model, run the tools it asks for, send their results back, until it answers."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": _gs.PROMPT}]
    for index in range(len(_gs.TURNS)):
        reply = litellm.completion(
            model=MODEL, messages=messages, tools=TOOLS, mock_response=_response(index)
        )
        message = reply.choices[0].message
        if not message.tool_calls:
            return str(message.content)
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            try:
                result = _run_tool(call.function.name, json.loads(call.function.arguments or "{}"))
            except RuntimeError as error:
                result = f"Error: {error}"
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
    raise RuntimeError("the script ended without an answer")


async def run_scenario_async() -> str:
    """`run_scenario` from a coroutine (in a worker thread)."""
    return await asyncio.to_thread(run_scenario)


def record_spans() -> list[ReadableSpan]:
    """The scenario's spans on a private provider (the instrumentation switched off afterwards)."""
    return _recording.record_spans(instrument, uninstrument, run_scenario)


if __name__ == "__main__":
    print(_gs.save(RECORDING, record_spans))
