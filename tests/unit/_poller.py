"""A run with repeats and a retry, on two real stacks: a poller agent asks for ``job_status(job=7)`` twice in
a row, then ``fetch_report(job=7, format="pdf")``, which fails, then ``fetch_report(job=7, format="csv")``,
which succeeds, and answers. LangGraph (a ``create_react_agent`` graph on the scripted LangChain model of
``instrumentation._langgraph_scenario``, OpenInference's instrumentation) and Pydantic AI (a
``FunctionModel``, Pydantic AI's own instrumentation); each recorded once per process on a private
provider.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any

import traceassert as ta

#: the poller's tool calls, in order
CALLS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("job_status", {"job": 7}),
    ("job_status", {"job": 7}),
    ("fetch_report", {"job": 7, "format": "pdf"}),
    ("fetch_report", {"job": 7, "format": "csv"}),
)
ANSWER = "Job 7 is done; the report is a CSV."


def job_status(job: int) -> str:
    """The status of a job."""
    return "done"


def langgraph_trace() -> ta.Trace:
    """The poller on LangGraph under OpenInference (a fresh Trace of the spans recorded once)."""
    return ta.Trace(_langgraph_spans())


def pydantic_ai_trace() -> ta.Trace:
    """The poller on Pydantic AI (a fresh Trace of the spans recorded once)."""
    return ta.Trace(_pydantic_ai_spans())


@functools.cache
def _langgraph_spans() -> tuple[ta.Span, ...]:
    from langchain_core.tools import StructuredTool, ToolException
    from langgraph.prebuilt import ToolNode, create_react_agent

    from instrumentation import _recording
    from instrumentation import langgraph_openinference as stack
    from instrumentation._langgraph_scenario import ScriptedChatModel, answer, prompt_input
    from instrumentation._scenario import Turn

    def fetch_report(job: int, format: str) -> str:
        """A job's report in a format; only CSV exists."""
        if format != "csv":
            raise ToolException(f"no {format} report")
        return "a,b"

    turns = tuple(Turn(20 + 5 * i, 2, tool=name, args=args) for i, (name, args) in enumerate(CALLS))
    model = ScriptedChatModel(turns=(*turns, Turn(40, 6, text=ANSWER)), model_name="scripted-poller")
    tools = [StructuredTool.from_function(job_status), StructuredTool.from_function(fetch_report)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the prebuilt agent of LangGraph 1.x
        poller = create_react_agent(model, tools=ToolNode(tools, handle_tool_errors=True), name="poller")

    def run() -> None:
        assert answer(poller.invoke(prompt_input("Is job 7 done?"))) == ANSWER

    spans = _recording.record_spans(stack.instrument, stack.uninstrument, run)
    return tuple(ta.Span.from_readable(s) for s in spans)


@functools.cache
def _pydantic_ai_spans() -> tuple[ta.Span, ...]:
    from pydantic_ai import Agent, ModelRetry
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import FunctionModel

    from instrumentation import _recording
    from instrumentation import pydantic_ai as stack

    def respond(messages: list[Any], info: Any) -> ModelResponse:
        turn = sum(isinstance(m, ModelResponse) for m in messages)
        if turn < len(CALLS):
            return ModelResponse(parts=[ToolCallPart(*CALLS[turn], tool_call_id=f"call_{turn}")])
        return ModelResponse(parts=[TextPart(ANSWER)])

    poller: Agent[None, str] = Agent(FunctionModel(respond, model_name="scripted-poller"), name="poller")
    poller.tool_plain(job_status)

    @poller.tool_plain
    def fetch_report(job: int, format: str) -> str:
        """A job's report in a format; only CSV exists."""
        if format != "csv":
            raise ModelRetry(f"no {format} report")
        return "a,b"

    def run() -> None:
        assert poller.run_sync("Is job 7 done?").output == ANSWER

    spans = _recording.record_spans(stack.instrument, stack.uninstrument, run)
    return tuple(ta.Span.from_readable(s) for s in spans)
