"""An app's own ``invoke_agent`` span, made with ``opentelemetry-util-genai`` (for the stacks whose
instrumentation records the model calls only)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from opentelemetry.util.genai.handler import TelemetryHandler
from opentelemetry.util.genai.types import InputMessage, OutputMessage, Text

__all__ = ["agent_span"]


@contextmanager
def agent_span(
    handler: TelemetryHandler, name: str, model: str, prompt: str
) -> Iterator[Callable[[str], None]]:
    """util-genai's span of the agent ``name`` (on ``model``) run on ``prompt``, around the block; the block
    reports the agent's answers to the function it is given. An exception fails the span and goes on."""
    invocation = handler.invoke_local_agent(agent_name=name, request_model=model)
    invocation.input_messages = [InputMessage(role="user", parts=[Text(content=prompt)])]
    answers: list[str] = []
    try:
        yield answers.append
    except Exception as exc:
        invocation.fail(exc)
        raise
    invocation.output_messages = [
        OutputMessage(role="assistant", parts=[Text(content=a) for a in answers], finish_reason="stop")
    ]
    invocation.stop()
