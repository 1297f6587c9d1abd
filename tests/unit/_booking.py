"""A booking run on two real stacks, for the rules on arguments, budgets, scores and claims.

The agent ``booker`` searches flights, books ``AF11`` with ``seat=14`` (a number where its schema wants a
string: the framework's own validation rejects the call, which fails), books again with ``seat="14C"``,
sends the receipt and answers `ANSWER`, which cites ``420`` (the search result says ``420.0``), ``2``
(no tool result says it) and the receipt's text in quotes. Each model call reports its usage with
cache-read and reasoning tokens (`USAGE`).

- Pydantic AI (its own instrumentation): a ``FunctionModel``; tool definitions recorded on each chat
  span (``gen_ai.tool.definitions``, ``model_request_parameters``); the counts as
  ``gen_ai.usage.cache_read.input_tokens`` and ``gen_ai.usage.details.reasoning_tokens``.
- LangGraph under OpenInference (``create_react_agent``): a scripted LangChain chat model whose
  ``bind_tools`` binds the tools' OpenAI definitions, which OpenInference records as
  ``llm.tools.N.tool.json_schema``; the counts from ``usage_metadata`` as
  ``llm.token_count.prompt_details.cache_read`` and ``completion_details.reasoning``.

Each is recorded once per process on a private provider.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any

import traceassert as ta

#: the booker's tool calls, in order
CALLS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("search_flights", {"origin": "PAR", "destination": "NYC"}),
    ("book_flight", {"flight": "AF11", "seat": 14}),
    ("book_flight", {"flight": "AF11", "seat": "14C"}),
    ("send_receipt", {"booking": "B-1"}),
)
ANSWER = 'Booked flight AF11, seat 14C, for 420 EUR with 2 bags: booking B-1, "receipt for B-1 sent".'
#: per model call: input, output, cache-read and reasoning tokens
USAGE = ((100, 10, 40, 4), (120, 12, 60, 5), (140, 14, 80, 6), (160, 16, 100, 7), (180, 18, 120, 8))
PROMPT = "Book me a flight from Paris to New York."


def search_flights(origin: str, destination: str) -> str:
    """Flights between two airports, with their prices."""
    return "AF11 420.0 EUR; DL45 515.5 EUR"


def book_flight(flight: str, seat: str) -> str:
    """Book a seat on a flight; the booking's reference."""
    return "B-1"


def send_receipt(booking: str) -> str:
    """Mail the receipt of a booking."""
    return f"receipt for {booking} sent"


TOOLS = (search_flights, book_flight, send_receipt)


def pydantic_ai_trace() -> ta.Trace:
    """The booker on Pydantic AI (a fresh Trace of the spans recorded once)."""
    return ta.Trace(_pydantic_ai_spans())


def langgraph_trace() -> ta.Trace:
    """The booker on LangGraph under OpenInference (a fresh Trace of the spans recorded once)."""
    return ta.Trace(_langgraph_spans())


TRACES = {"pydantic_ai": pydantic_ai_trace, "langgraph": langgraph_trace}


def run_pydantic_ai() -> None:
    """Run the booker on Pydantic AI (instrumented by whoever calls it)."""
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import FunctionModel
    from pydantic_ai.usage import RequestUsage

    def respond(messages: list[Any], info: Any) -> ModelResponse:
        turn = sum(isinstance(m, ModelResponse) for m in messages)
        tokens_in, tokens_out, cached, reasoning = USAGE[turn]
        usage = RequestUsage(
            input_tokens=tokens_in,
            output_tokens=tokens_out,
            cache_read_tokens=cached,
            details={"reasoning_tokens": reasoning},
        )
        if turn < len(CALLS):
            part = ToolCallPart(*CALLS[turn], tool_call_id=f"call_{turn}")
            return ModelResponse(parts=[part], usage=usage)
        return ModelResponse(parts=[TextPart(ANSWER)], usage=usage)

    booker: Agent[None, str] = Agent(FunctionModel(respond, model_name="scripted-booker"), name="booker")
    for tool in TOOLS:
        booker.tool_plain(tool)
    assert booker.run_sync(PROMPT).output == ANSWER


@functools.cache
def _pydantic_ai_spans() -> tuple[ta.Span, ...]:
    from instrumentation import _recording
    from instrumentation import pydantic_ai as stack

    spans = _recording.record_spans(stack.instrument, stack.uninstrument, run_pydantic_ai)
    return tuple(ta.Span.from_readable(s) for s in spans)


@functools.cache
def _langgraph_spans() -> tuple[ta.Span, ...]:
    from langchain_core.messages import AIMessage, BaseMessage
    from langchain_core.outputs import ChatGeneration, ChatResult
    from langchain_core.tools import StructuredTool
    from langchain_core.utils.function_calling import convert_to_openai_tool
    from langgraph.prebuilt import ToolNode, create_react_agent

    from instrumentation import _recording
    from instrumentation import langgraph_openinference as stack
    from instrumentation._langgraph_scenario import ScriptedChatModel, answer, prompt_input
    from instrumentation._scenario import Turn

    class Booker(ScriptedChatModel):
        """Binds the tools' definitions (so that the instrumentation records them) and reports cache-read
        and reasoning tokens."""

        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self.bind(tools=[convert_to_openai_tool(t) for t in tools])

        def _generate(
            self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
        ) -> ChatResult:
            turn = sum(isinstance(m, AIMessage) for m in messages)
            tokens_in, tokens_out, cached, reasoning = USAGE[turn]
            calls = []
            if turn < len(CALLS):
                name, args = CALLS[turn]
                calls = [{"name": name, "args": dict(args), "id": f"call_{turn}"}]
            usage = {
                "input_tokens": tokens_in,
                "output_tokens": tokens_out,
                "total_tokens": tokens_in + tokens_out,
                "input_token_details": {"cache_read": cached},
                "output_token_details": {"reasoning": reasoning},
            }
            text = "" if calls else ANSWER
            message = AIMessage(content=text, tool_calls=calls, usage_metadata=usage)  # type: ignore[arg-type]
            return ChatResult(generations=[ChatGeneration(message=message)])

    model = Booker(turns=(Turn(0, 0),), model_name="scripted-booker")
    tools = [StructuredTool.from_function(t) for t in TOOLS]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the prebuilt agent of LangGraph 1.x
        booker = create_react_agent(model, tools=ToolNode(tools, handle_tool_errors=True), name="booker")

    def run() -> None:
        assert answer(booker.invoke(prompt_input(PROMPT))) == ANSWER

    spans = _recording.record_spans(stack.instrument, stack.uninstrument, run)
    return tuple(ta.Span.from_readable(s) for s in spans)
