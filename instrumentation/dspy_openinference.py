"""DSPy + OpenInference, read through the generic path: a ``dspy.ReAct`` module traced by
``openinference-instrumentation-dspy``.

Instrumentation
---------------
`instrument` calls ``DSPyInstrumentor().instrument(tracer_provider=...)``, which wraps ``LM.__call__``,
``Predict.forward``, ``Module.__call__`` (every module's ``forward``), the adapters and ``Tool.__call__``.
The spans (scope ``openinference.instrumentation.dspy``):

- ``ReAct.forward``, ``ChainOfThought.forward``, ``Predict(...).forward``, ``ChatAdapter.__call__``:
  ``CHAIN`` spans. **No agent is marked** (no AGENT span);
- ``<LM class>.__call__``: an ``LLM`` span per model call: ``llm.model_name``, the prompt as
  ``llm.input_messages.*``, the completion text in ``output.value``. **No token counts**; ReAct's tool
  choice is text fields of the completion (``next_tool_name``, ``next_tool_args``), not tool calls;
- ``<tool>.__call__``: a ``TOOL`` span per call, **no** ``tool.name`` (only the span name),
  ``input.value`` = ``{"kwargs": {...}}``, ``output.value``; a tool that raises ends its span with status
  ERROR and an ``exception`` event. ReAct's own ``finish`` tool is one too.

The scenario
------------
DSPy's own test model ``DummyLM`` (no network) plays the ReAct steps of `_generic_scenario.TURNS`;
its model name is ``dummy``.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan

from . import _generic_scenario as _gs
from . import _recording
from ._instrumentors import switch_off, switch_on
from ._routing import RoutingTracerProvider

# LiteLLM (under DSPy) would fetch a price list at import: the bundled one is used instead
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import dspy  # type: ignore[import-untyped]
from dspy.utils import DummyLM  # type: ignore[import-untyped]

__all__ = [
    "EXPECTED",
    "RECORDING",
    "instrument",
    "record_spans",
    "run_scenario",
    "run_scenario_async",
    "uninstrument",
]

RECORDING = "dspy_generic"

#: ground truth from the script (`_generic_scenario`)
EXPECTED = _gs.expected(extra_tools=("finish",), model_calls=4, usage=False)


def _instrumentor() -> Any:
    from openinference.instrumentation.dspy import DSPyInstrumentor

    return DSPyInstrumentor()


def instrument(tracer_provider: trace.TracerProvider | None = None) -> None:
    """Turn on OpenInference's DSPy instrumentation (None: the global provider, looked up per span)."""
    switch_on(_instrumentor(), tracer_provider=RoutingTracerProvider(tracer_provider))


def uninstrument() -> None:
    """Switch the instrumentation off."""
    switch_off(_instrumentor())


def get_weather(city: str) -> str:
    """Current weather in a city."""
    return _gs.get_weather(city)


def explode() -> str:
    """A tool that always fails; the failure is reported back to the model."""
    raise RuntimeError(_gs.EXPLODE_MESSAGE)


def _answers() -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = [
        {"next_thought": f"call {t.tool}", "next_tool_name": t.tool, "next_tool_args": dict(t.args)}
        for t in _gs.TURNS
        if t.tool
    ]
    steps.append({"next_thought": "done", "next_tool_name": "finish", "next_tool_args": {}})
    steps.append({"reasoning": "the weather is known", "answer": _gs.FINAL_OUTPUT})
    return steps


def run_scenario() -> str:
    """Run the ReAct module once and return its answer."""
    react = dspy.ReAct("question -> answer", tools=[get_weather, explode], max_iters=5)
    with dspy.context(lm=DummyLM(_answers())):
        return str(react(question=_gs.PROMPT).answer)


async def run_scenario_async() -> str:
    """`run_scenario` from a coroutine (in a worker thread)."""
    return await asyncio.to_thread(run_scenario)


def record_spans() -> list[ReadableSpan]:
    """The scenario's spans on a private provider (the instrumentation switched off afterwards)."""
    return _recording.record_spans(instrument, uninstrument, run_scenario)


if __name__ == "__main__":
    print(_gs.save(RECORDING, record_spans))
