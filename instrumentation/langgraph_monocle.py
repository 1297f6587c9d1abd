"""LangGraph + Monocle stack: a LangGraph ReAct agent instrumented by ``monocle-apptrace``, and the scenario.

Instrumentation
---------------
Monocle wraps framework methods (``CompiledStateGraph.invoke``, ``BaseChatModel.invoke``,
``StructuredTool._run``, ...) and records each call as a span whose ``span.type`` says what it is:
``workflow`` (the root Monocle adds to every trace), ``agentic.turn`` (the request sent to the top-level
graph), ``agentic.invocation`` (an agent run), ``agentic.tool.invocation`` (a tool),
``inference.framework`` (a LangChain chat model call). Names are in ``entity.N.name`` / ``entity.N.type``
attributes; inputs, outputs and token usage in the span events ``data.input``, ``data.output`` and
``metadata``.

Where the spans go
------------------
Monocle's documented entry point, ``setup_monocle_telemetry(workflow_name=..., span_processors=[...])``,
never takes a tracer provider: it adds its processors to the *global* SDK ``TracerProvider`` when one is
set, and otherwise installs a provider of its own as the global one. Either way the spans end up on the
global SDK provider, which is the one ``ta.capture()`` (and the traceassert pytest plugin) listens on, so
an app that calls ``setup_monocle_telemetry`` itself needs nothing more. `instrument` with no provider
does exactly that, with an in-process processor that discards spans (Monocle's own exporters would write
files or call out) and Monocle's payload obfuscation off. Two quirks are worked around: Monocle builds
its configured exporters even when it is given processors (the default, the file exporter, creates
``./.monocle/``), so `instrument` sets ``MONOCLE_EXPORTER=memory`` while it runs; and
``setup_monocle_telemetry`` patches ``ReadableSpan.to_json`` process-wide to drop the ``0x`` of ids
(`uninstrument` restores it).

`instrument` with an explicit provider skips ``setup_monocle_telemetry`` and hands the provider to
Monocle's instrumentor (``MonocleInstrumentor.instrument(tracer_provider=...)``), which binds Monocle's
tracer to it: nothing global changes.

The scenario
------------
``instrumentation/_langgraph_scenario.py``: two ``create_react_agent`` graphs on a scripted LangChain chat
model that reports its name and the finish reason in its messages' response metadata. LangGraph is
imported when the agents are first built, so this module (and ``EXPECTED``) can be imported where
LangGraph and Monocle are not installed.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor

from . import _recording
from ._instrumentors import restore_environment, set_environment
from ._scenario import EXPECTED, PROMPT

__all__ = [
    "EXPECTED",
    "PROMPT",
    "WORKFLOW_NAME",
    "agents",
    "instrument",
    "record_spans",
    "run_scenario",
    "run_scenario_async",
    "scripted_chat_model",
    "uninstrument",
]

#: the Monocle workflow name (``workflow.name`` on every span, ``entity.1.name`` of the workflow span)
WORKFLOW_NAME = "traceassert-scenario"

# --------------------------------------------------------------------------------------------------
# Instrumentation
# --------------------------------------------------------------------------------------------------


class _Discard(SpanProcessor):
    """The processor handed to Monocle: spans are read by traceassert's own processor, not here."""


def instrument(
    tracer_provider: trace.TracerProvider | None = None, *, workflow_name: str = WORKFLOW_NAME
) -> None:
    """Turn Monocle on for LangChain / LangGraph (replacing an earlier `instrument`).

    Args:
        tracer_provider: where the spans go. None means Monocle's own setup (``setup_monocle_telemetry``),
            which puts them on the global SDK provider (installing one when there is none).
        workflow_name: Monocle's workflow name.
    """
    from monocle_apptrace.instrumentation.common.instrumentor import (
        MonocleInstrumentor,
        set_monocle_instrumentor,
        setup_monocle_telemetry,
    )
    from monocle_apptrace.instrumentation.common.utils import set_workflow_name

    uninstrument()
    if tracer_provider is None:
        saved = set_environment({"MONOCLE_EXPORTER": "memory"})
        try:
            setup_monocle_telemetry(
                workflow_name=workflow_name, span_processors=[_Discard()], span_obfuscators=[]
            )
        finally:
            restore_environment(saved)
        return
    set_workflow_name(workflow_name)
    instrumentor = MonocleInstrumentor(handlers=None, user_wrapper_methods=[], exporters=[])
    instrumentor.instrument(tracer_provider=tracer_provider)
    set_monocle_instrumentor(instrumentor)


def uninstrument() -> None:
    """Remove Monocle's method wrappers (processors it added to a provider stay: OTel cannot remove them)."""
    from monocle_apptrace.instrumentation.common.instrumentor import get_monocle_instrumentor

    instrumentor = get_monocle_instrumentor()
    if instrumentor is not None:
        targets = [
            (m.get("package"), m.get("object"), m.get("method"))
            for m in instrumentor.instrumented_method_list
        ]
        instrumentor.uninstrument()
        # Monocle keeps the wrapped methods in a class-level list that uninstrument does not empty.
        instrumentor.instrumented_method_list.clear()
        _remove_inherited_copies(targets)
    _restore_to_json()


def _remove_inherited_copies(targets: list[tuple[Any, Any, Any]]) -> None:
    """Monocle wraps methods a class inherits (``CompiledStateGraph.stream`` is ``Pregel.stream``) and
    its unwrap leaves the base's function set on the subclass, which hides any later wrapper of the
    base method (OpenLLMetry's on ``Pregel.stream``, say). Remove those copies."""
    import importlib

    for package, obj, method in targets:
        if not (isinstance(package, str) and isinstance(obj, str) and isinstance(method, str)):
            continue
        try:
            cls = getattr(importlib.import_module(package), obj)
        except (ImportError, AttributeError):
            continue
        own = vars(cls).get(method) if isinstance(cls, type) else None
        if own is None:
            continue
        if any(vars(base).get(method) is own for base in cls.__mro__[1:]):
            delattr(cls, method)


def _restore_to_json() -> None:
    """Undo the process-wide ``ReadableSpan.to_json`` patch of ``setup_monocle_telemetry``."""
    from monocle_apptrace.instrumentation.common import utils as monocle_utils
    from opentelemetry.sdk.trace import ReadableSpan

    original = getattr(monocle_utils, "_original_to_json", None)
    if original is not None:
        ReadableSpan.to_json = original  # type: ignore[method-assign]
        monocle_utils._original_to_json = None


# --------------------------------------------------------------------------------------------------
# The scripted scenario
# --------------------------------------------------------------------------------------------------


@cache
def scripted_chat_model() -> type[Any]:
    """The scripted chat model class (``_langgraph_scenario.ScriptedChatModel``), reporting the model name
    and the finish reason in its messages' response metadata, where Monocle reads them."""
    from langchain_core.outputs import ChatGeneration

    from . import _langgraph_scenario as _lg

    class ScriptedChatModel(_lg.ScriptedChatModel):
        def generation(self, turn: Any, index: int) -> ChatGeneration:
            metadata = {"model_name": self.model_name, "finish_reason": _lg.finish_reason(turn)}
            return ChatGeneration(message=_lg.ai_message(turn, index, **metadata))

    return ScriptedChatModel


@cache
def agents() -> tuple[Any, Any]:
    """The two compiled LangGraph agents ``(orchestrator, helper)``, built once."""
    from . import _langgraph_scenario as _lg

    # Monocle records a user message's text only when it is written as a dict
    return _lg.build_agents(scripted_chat_model(), form="dict")


def run_scenario() -> str:
    """Run the scenario to completion and return the orchestrator's output."""
    from . import _langgraph_scenario as _lg

    return _lg.run(agents()[0], "dict")


async def run_scenario_async() -> str:
    """Like `run_scenario`, in the running event loop."""
    from . import _langgraph_scenario as _lg

    return await _lg.run_async(agents()[0], "dict")


def record_spans() -> list[ReadableSpan]:
    """Run the scenario instrumented, on a private provider with an in-memory exporter; return its spans.

    Leaves the instrumentation switched off afterwards.
    """
    return _recording.record_spans(instrument, uninstrument, run_scenario)
