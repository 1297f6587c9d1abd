"""The OpenAI Agents SDK scenario under two instrumentation layers at once, or under Monocle.

``instrument(layers)`` switches on one of:

- ``"openinference+traceloop"``: OpenLLMetry's Agents SDK and OpenAI instrumentors (as in
  `openai_agents_traceloop`), then OpenInference's processor *beside* OpenLLMetry's
  (``exclusive_processor=False``; its default would remove the other processors). Both record every
  step, in two traces: OpenLLMetry parents every span of its own on its ``Agent Workflow`` root (its
  agent spans have no children), while the OpenAI client's spans land inside OpenInference's
  ``response`` spans;
- ``"monocle"``: monocle-apptrace, which instruments the Agents SDK too (``Runner.run``,
  ``run_single_turn``, ``FunctionTool``): each turn of an agent's loop is an ``agentic.invocation``
  span of its own;
- ``"openinference+monocle"``: both.

Monocle wraps a ``FunctionTool`` when it is built, so `run_scenario` builds the agents afresh on each run,
after `instrument`. ``explode`` is built once, at import, unwrapped: with monocle-apptrace 0.8 and
openai-agents 0.24 a wrapped tool loses the SDK's failure handler (the SDK's own bookkeeping fails, and
the run stops). Monocle alone therefore records no ``explode`` execution, only the model's request.
"""

from __future__ import annotations

import uuid
from typing import Any, Literal

from agents import RunConfig, Runner, function_tool
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan

from . import _openai_agents_scenario as _oa
from . import _recording, langgraph_monocle
from . import openai_agents_openinference as _oi
from . import openai_agents_traceloop as _tl
from ._instrumentors import switch_on
from ._scenario import EXPECTED, EXPLODE_MESSAGE, PROMPT

try:  # openai >= 3 is built on httpx2
    import httpx2 as httpx
except ImportError:  # pragma: no cover - older openai releases use httpx
    import httpx  # type: ignore[no-redef]

__all__ = ["EXPECTED", "LAYERS", "Layers", "instrument", "record_spans", "run_scenario", "uninstrument"]

Layers = Literal["openinference+traceloop", "monocle", "openinference+monocle"]
LAYERS: tuple[Layers, ...] = ("openinference+traceloop", "monocle", "openinference+monocle")

_on: set[str] = set()


def instrument(layers: Layers, tracer_provider: trace.TracerProvider | None = None) -> None:
    """Switch ``layers`` on (see the module docstring), exporting to ``tracer_provider`` (None: the
    global provider)."""
    uninstrument()
    if "traceloop" in layers:
        _tl.instrument(tracer_provider)
        _on.add("traceloop")
    if "openinference" in layers:
        options: dict[str, Any] = {"tracer_provider": tracer_provider}
        if "traceloop" in layers:
            options["exclusive_processor"] = False
        switch_on(_oi._instrumentor(), **options)
        _on.add("openinference")
    if "monocle" in layers:
        langgraph_monocle.instrument(tracer_provider)
        _on.add("monocle")


def uninstrument() -> None:
    """Switch every layer `instrument` turned on off again."""
    if "monocle" in _on:
        langgraph_monocle.uninstrument()
    if "openinference" in _on:
        _oi.uninstrument()
    if "traceloop" in _on:
        _tl.uninstrument()
    _on.clear()


def _run_config() -> RunConfig:
    """SDK tracing on only for the layers that read it; tool arguments and results recorded."""
    traced = bool({"openinference", "traceloop"} & _on)
    return RunConfig(tracing_disabled=not traced, trace_include_sensitive_data=True)


@function_tool(failure_error_function=_oi._report_failure)
def explode() -> str:
    """A tool that always fails; the failure is reported back to the model."""
    raise RuntimeError(EXPLODE_MESSAGE)


def run_scenario() -> str:
    """Run the scenario (agents built now, under the layers that are on); return the final output."""
    # unique response ids, as OpenAI's are: OpenLLMetry traces a response id it saw before (in any run
    # of the process) in the first one's context, or not at all
    client = _oa.mock_client(httpx, response_id=lambda model, index: f"resp_{uuid.uuid4().hex}", created_at=0)
    orchestrator, _ = _oa.build_agents(client, explode, _run_config)
    return str(Runner.run_sync(orchestrator, PROMPT, run_config=_run_config()).final_output)


def record_spans(layers: Layers) -> list[ReadableSpan]:
    """Run the scenario under ``layers`` on a private provider with an in-memory exporter."""
    return _recording.record_spans(lambda p: instrument(layers, p), uninstrument, run_scenario)
