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
The orchestrator is ``create_react_agent`` (LangGraph's prebuilt ReAct agent) on a scripted chat model
(``GenericFakeChatModel`` subclass that answers with tool calls and reports ``usage_metadata``).
``explode`` raises ``ToolException``; the agent's ``ToolNode(handle_tool_errors=True)`` turns the error
into a tool message for the model, and the run goes on. ``ask_helper`` runs a second ReAct agent,
``helper``, inside the tool.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from . import ScenarioFacts

if TYPE_CHECKING:
    from langchain_core.messages import AIMessage

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


@contextmanager
def _env(name: str, value: str) -> Iterator[None]:
    old = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = old


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
        with _env("MONOCLE_EXPORTER", "memory"):
            setup_monocle_telemetry(
                workflow_name=workflow_name, span_processors=[_Discard()], span_obfuscators=[]
            )
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
        instrumentor.uninstrument()
        # Monocle keeps the wrapped methods in a class-level list that uninstrument does not empty.
        instrumentor.instrumented_method_list.clear()
    _restore_to_json()


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
# The framework is imported when the agents are first built, so ``EXPECTED`` can be read (e.g. by the
# tests of the recorded trace) where LangGraph and Monocle are not installed.

PROMPT = "What is the weather in Paris, and what should I wear?"
_HELPER_ANSWER = "Wear a light jacket."
_FINAL_OUTPUT = "It is sunny in Paris; wear a light jacket."
_EXPLODE_MESSAGE = "explode failed: the detonator is broken"


@dataclass(frozen=True)
class _Turn:
    """One scripted model response: a call to ``tool`` with ``args``, or the final ``text``; and its usage."""

    input_tokens: int
    output_tokens: int
    tool: str | None = None
    args: Mapping[str, Any] = field(default_factory=dict)
    text: str = ""

    def message(self, index: int, model_name: str) -> AIMessage:
        from langchain_core.messages import AIMessage

        usage = {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "total_tokens": self.input_tokens + self.output_tokens,
        }
        metadata = {"model_name": model_name, "finish_reason": "tool_calls" if self.tool else "stop"}
        calls = []
        if self.tool is not None:
            calls = [{"name": self.tool, "args": dict(self.args), "id": f"call_{index}_{self.tool}"}]
        return AIMessage(
            content=self.text, tool_calls=calls, usage_metadata=usage, response_metadata=metadata
        )


_ORCHESTRATOR_TURNS = (
    _Turn(101, 11, tool="get_weather", args={"city": "Paris"}),
    _Turn(123, 13, tool="explode"),
    _Turn(147, 17, tool="ask_helper", args={"question": "What should I wear?"}),
    _Turn(171, 19, text=_FINAL_OUTPUT),
)
_HELPER_TURNS = (_Turn(37, 7, text=_HELPER_ANSWER),)


@cache
def scripted_chat_model() -> type[Any]:
    """The scripted chat model class: LangChain's ``GenericFakeChatModel`` with tool calls and usage.

    The turn is read off the conversation (how many AI messages it holds), so every run replays the
    script. ``bind_tools`` returns the model itself: the script decides which tools are called.
    """
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, BaseMessage
    from langchain_core.outputs import ChatGeneration, ChatResult

    class ScriptedChatModel(GenericFakeChatModel):
        turns: Sequence[_Turn]
        model_name: str
        messages: Iterator[AIMessage | str] = iter(())

        def bind_tools(self, tools: Any, *, tool_choice: str | None = None, **kwargs: Any) -> Any:
            return self

        def _generate(
            self,
            messages: list[BaseMessage],
            stop: list[str] | None = None,
            run_manager: Any = None,
            **kwargs: Any,
        ) -> ChatResult:
            index = sum(isinstance(message, AIMessage) for message in messages)
            if index >= len(self.turns):
                raise RuntimeError(f"the script has only {len(self.turns)} model calls")
            message = self.turns[index].message(index, self.model_name)
            return ChatResult(generations=[ChatGeneration(message=message)])

    return ScriptedChatModel


def get_weather(city: str) -> str:
    """Current weather in a city."""
    return f"Sunny, 21C in {city}"


def explode() -> str:
    """A tool that always fails; the failure is reported back to the model."""
    from langchain_core.tools import ToolException

    raise ToolException(_EXPLODE_MESSAGE)


def _ask_helper(question: str) -> str:
    """Ask the helper agent for advice."""
    _, helper = agents()
    result = helper.invoke({"messages": [{"role": "user", "content": question}]})
    return str(result["messages"][-1].content)


async def _ask_helper_async(question: str) -> str:
    """Ask the helper agent for advice."""
    _, helper = agents()
    result = await helper.ainvoke({"messages": [{"role": "user", "content": question}]})
    return str(result["messages"][-1].content)


def _react_agent(turns: Sequence[_Turn], model_name: str, tools: Sequence[Any], name: str) -> Any:
    from langchain_core.tools import StructuredTool
    from langgraph.prebuilt import ToolNode, create_react_agent

    model = scripted_chat_model()(turns=turns, model_name=model_name)
    node = ToolNode([StructuredTool.from_function(**spec) for spec in tools], handle_tool_errors=True)
    with warnings.catch_warnings():
        # LangGraph 1.x points to langchain.agents.create_agent; the prebuilt agent still works.
        warnings.simplefilter("ignore", DeprecationWarning)
        return create_react_agent(model, tools=node, name=name)


@cache
def agents() -> tuple[Any, Any]:
    """The two compiled LangGraph agents ``(orchestrator, helper)``, built once."""
    helper = _react_agent(_HELPER_TURNS, "scripted-helper", [], "helper")
    orchestrator = _react_agent(
        _ORCHESTRATOR_TURNS,
        "scripted-orchestrator",
        [
            {"func": get_weather},
            {"func": explode},
            {
                "func": _ask_helper,
                "coroutine": _ask_helper_async,
                "name": "ask_helper",
                "description": "Ask the helper agent for advice.",
            },
        ],
        "orchestrator",
    )
    return orchestrator, helper


#: ground truth, written from the script above (the conformance tests check the spans against it)
EXPECTED = ScenarioFacts(
    agents=("orchestrator",),
    nested={"orchestrator": ("helper",)},
    tools_in_order=("get_weather", "explode", "ask_helper"),
    tool_arguments=({"city": "Paris"}, {}, {"question": "What should I wear?"}),
    failed_tools=("explode",),
    model_calls=5,
    own_model_calls={"orchestrator": 4, "helper": 1},
    input_tokens=101 + 123 + 147 + 171 + 37,
    output_tokens=11 + 13 + 17 + 19 + 7,
    total_tokens=(101 + 123 + 147 + 171 + 37) + (11 + 13 + 17 + 19 + 7),
    final_output=_FINAL_OUTPUT,
)


def _inputs() -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": PROMPT}]}


def run_scenario() -> str:
    """Run the scenario to completion and return the orchestrator's output."""
    orchestrator, _ = agents()
    result = orchestrator.invoke(_inputs())
    return str(result["messages"][-1].content)


async def run_scenario_async() -> str:
    """Like `run_scenario`, in the running event loop."""
    orchestrator, _ = agents()
    result = await orchestrator.ainvoke(_inputs())
    return str(result["messages"][-1].content)


def record_spans() -> list[ReadableSpan]:
    """Run the scenario instrumented, on a private provider with an in-memory exporter; return its spans.

    Leaves the instrumentation switched off afterwards.
    """
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    instrument(provider)
    try:
        run_scenario()
    finally:
        uninstrument()
        provider.shutdown()
    return list(exporter.get_finished_spans())
