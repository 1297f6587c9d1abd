"""A small HTTP agent service, for the receiver's tests: uvicorn serving a Pydantic AI agent on a scripted
``FunctionModel``, instrumented by Pydantic AI's own OpenTelemetry instrumentation, exporting with the
SDK's OTLP/HTTP exporter to where ``OTEL_EXPORTER_OTLP_*`` say (``Receiver.env(context=False)``). It is
started once and serves many tests: each request's spans join the trace its ``traceparent`` header names
(``Receiver.headers()``), taken with ``propagate.extract`` as ASGI instrumentation takes it::

    python -m instrumentation.agent_service [--port 0] [--together N]

It prints ``listening on http://127.0.0.1:PORT`` once bound; ``GET /health`` answers when it serves.
``POST /ask`` with ``{"city": "Paris"}``: the agent calls its ``get_weather`` tool for that city and
answers ``{"answer": ..., "together": ...}``. With ``--together N`` the tool waits (up to 20 s) until N
requests are inside it at once, and ``together`` says whether they were: a test can tell that its calls
overlapped.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import sys
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import propagate, trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.instrumented import InstrumentationSettings

__all__ = ["app", "main"]

#: requests that must be inside the tool at once (``--together``), and those inside it now
_TOGETHER = {"wanted": 1, "inside": 0}
_ALL_IN = asyncio.Event()
_WAIT = 20.0


def _script(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """First call: the weather tool for the city asked about; second: the answer from its result."""
    returned = [p for m in messages for p in getattr(m, "parts", ()) if isinstance(p, ToolReturnPart)]
    if returned:
        return ModelResponse(parts=[TextPart(f"The weather: {returned[-1].content}")])
    city = str(messages[-1].parts[-1].content)  # type: ignore[union-attr]
    return ModelResponse(parts=[ToolCallPart("get_weather", {"city": city}, tool_call_id="call_weather")])


agent = Agent(FunctionModel(_script, model_name="scripted-weather"), name="weather_agent")


@agent.tool_plain
async def get_weather(city: str) -> str:
    """The weather in a city (waits for the other requests of ``--together``)."""
    _TOGETHER["inside"] += 1
    if _TOGETHER["inside"] >= _TOGETHER["wanted"]:
        _ALL_IN.set()
    try:
        await asyncio.wait_for(_ALL_IN.wait(), _WAIT)
        together = True
    except TimeoutError:
        together = False
    finally:
        _TOGETHER["inside"] -= 1
    return json.dumps({"city": city, "sky": "sunny", "together": together})


async def _body(receive: Any) -> bytes:
    chunks = []
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(chunks)


async def _send(send: Any, status: int, doc: dict[str, Any]) -> None:
    body = json.dumps(doc).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The ASGI application."""
    if scope["type"] != "http":
        return
    if scope["method"] == "GET" and scope["path"] == "/health":
        await _send(send, 200, {"ok": True})
        return
    if scope["method"] != "POST" or scope["path"] != "/ask":
        await _send(send, 404, {"error": "POST /ask"})
        return
    headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
    token = otel_context.attach(propagate.extract(headers))  # the caller's trace, as ASGI instrumentation
    try:
        tracer = trace.get_tracer("agent_service")
        with tracer.start_as_current_span("POST /ask", kind=trace.SpanKind.SERVER) as span:
            city = json.loads(await _body(receive))["city"]
            span.set_attribute("http.request.method", "POST")
            result = await agent.run(city)
            tool = json.loads(result.output.removeprefix("The weather: "))
            await _send(send, 200, {"answer": result.output, "together": tool["together"]})
    finally:
        otel_context.detach(token)


def main(argv: list[str] | None = None) -> None:
    import uvicorn

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--together", type=int, default=1)
    args = parser.parse_args(argv)
    _TOGETHER["wanted"] = args.together

    provider = TracerProvider(resource=Resource.create({"service.name": "agent-service"}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    Agent.instrument_all(InstrumentationSettings(tracer_provider=provider, include_content=True))

    sock = socket.socket()
    sock.bind(("127.0.0.1", args.port))
    print(f"listening on http://127.0.0.1:{sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="off")
    try:
        uvicorn.Server(config).run(sockets=[sock])  # until SIGINT or SIGTERM
    finally:
        provider.shutdown()  # everything exported before the process ends
        sys.stdout.flush()


if __name__ == "__main__":
    main()
