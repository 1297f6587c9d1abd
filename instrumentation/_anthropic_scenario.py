"""The scenario on the Anthropic SDK: a hand-written tool loop over the Messages API, answered by the
script through a fake HTTP transport (``httpx2.MockTransport``: anthropic 2.x is built on ``httpx2``; no
sockets, no key). The client's own spans (anthropic 2.x traces every API call) go where the stack's
``open_telemetry`` option (`client_telemetry`) sends them.

The instrumentations of the ``anthropic`` client record model calls only. The loop records its agents
and tool executions itself, through a `Recorder` that each stack module supplies (OpenInference's own
tracer for the OpenInference stack, util-genai's ``TelemetryHandler`` for the OpenLLMetry stack); with
`NO_RECORDER` it records nothing and only the model calls are traced.

A tool that raises is caught by the loop: the failure goes back to the model as a ``tool_result`` with
``is_error: true`` and text ``"Error: <message>"``, and the run goes on (the recorder has seen the
exception first, to mark its tool span failed).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

import httpx2 as httpx
from anthropic import Anthropic, AsyncAnthropic
from opentelemetry.trace import TracerProvider

from ._routing import RoutingTracerProvider
from ._scenario import (
    EXPLODE_MESSAGE,
    HELPER_INSTRUCTIONS,
    HELPER_MODEL,
    ORCHESTRATOR_INSTRUCTIONS,
    ORCHESTRATOR_MODEL,
    PROMPT,
    SCRIPTS,
    Turn,
)
from ._scenario import get_weather as _weather

__all__ = [
    "NO_RECORDER",
    "PROMPT",
    "LoopState",
    "Recorder",
    "RemoteTools",
    "SetResult",
    "Telemetry",
    "client_telemetry",
    "make_async_client",
    "make_client",
    "run",
    "run_async",
    "run_helper_async",
]

#: hands the recorder the result (a tool's) or the answer (an agent's) when the work succeeded
SetResult = Callable[[str], None]


class Recorder(Protocol):
    """Records the loop's own work. Each context manager sees the exception of failed work (and must let
    it through); on success the loop calls the `SetResult` it yields before the block ends."""

    def agent(self, name: str, model: str, prompt: str) -> AbstractContextManager[SetResult]: ...

    def tool(
        self, name: str, call_id: str, arguments: Mapping[str, Any]
    ) -> AbstractContextManager[SetResult]: ...


class _NoRecorder:
    @contextmanager
    def agent(self, name: str, model: str, prompt: str) -> Iterator[SetResult]:
        yield lambda _: None

    @contextmanager
    def tool(self, name: str, call_id: str, arguments: Mapping[str, Any]) -> Iterator[SetResult]:
        yield lambda _: None


#: records nothing: the trace holds the instrumentation's model-call spans only
NO_RECORDER: Recorder = _NoRecorder()


# --------------------------------------------------------------------------------------------------
# The scripted Messages API
# --------------------------------------------------------------------------------------------------


def _tool_use_id(turn: Turn, index: int) -> str:
    return f"toolu_{index}_{turn.tool}"


def _message(turn: Turn, index: int, model: str) -> dict[str, Any]:
    """The Messages API response (JSON) for ``turn``."""
    content: list[dict[str, Any]]
    if turn.tool is not None:
        content = [
            {"type": "tool_use", "id": _tool_use_id(turn, index), "name": turn.tool, "input": dict(turn.args)}
        ]
        stop = "tool_use"
    else:
        content = [{"type": "text", "text": turn.text}]
        stop = "end_turn"
    return {
        "id": f"msg_{model}_{index}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": turn.input_tokens, "output_tokens": turn.output_tokens},
    }


def _respond(request: httpx.Request) -> httpx.Response:
    """The fake endpoint: the turn is the number of tool results sent so far, per model."""
    body = json.loads(request.content)
    model = body["model"]
    turns = SCRIPTS.get(model)
    if turns is None:
        error = {"type": "not_found_error", "message": f"no script for model {model!r}"}
        return httpx.Response(404, json={"type": "error", "error": error})
    index = sum(
        1
        for message in body["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    )
    if index >= len(turns):
        error = {"type": "api_error", "message": f"the script has only {len(turns)} calls"}
        return httpx.Response(500, json={"type": "error", "error": error})
    return httpx.Response(200, json=_message(turns[index], index, model))


_BASE_URL = "https://scripted.invalid"


#: the ``open_telemetry`` option of the client (None: the SDK's default, from its environment variables)
Telemetry = Mapping[str, Any] | None


def _options(telemetry: Telemetry) -> dict[str, Any]:
    options: dict[str, Any] = {"api_key": "test", "base_url": _BASE_URL, "max_retries": 0}
    if telemetry is not None:
        options["open_telemetry"] = dict(telemetry)
    return options


def make_client(telemetry: Telemetry = None) -> Anthropic:
    """An Anthropic client answered by the script (``httpx.MockTransport``)."""
    http_client = httpx.Client(transport=httpx.MockTransport(_respond))
    return Anthropic(http_client=http_client, **_options(telemetry))


async def _respond_async(request: httpx.Request) -> httpx.Response:
    await request.aread()
    return _respond(request)


def make_async_client(telemetry: Telemetry = None) -> AsyncAnthropic:
    """An async Anthropic client answered by the script."""
    http_client = httpx.AsyncClient(transport=httpx.MockTransport(_respond_async))
    return AsyncAnthropic(http_client=http_client, **_options(telemetry))


def client_telemetry(provider: TracerProvider | None, sdk_spans: bool) -> Telemetry:
    """The client's ``open_telemetry`` option in a stack instrumented for ``provider``: its own spans go
    there too (None: the global provider as each span starts), or, without ``sdk_spans``, nowhere."""
    if not sdk_spans:
        return {"traces": False}
    return {"tracer_provider": RoutingTracerProvider(provider)}


# --------------------------------------------------------------------------------------------------
# The agents: a plain tool loop over messages.create
# --------------------------------------------------------------------------------------------------


def _tool_spec(name: str, params: Sequence[str], description: str) -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "input_schema": {
            "type": "object",
            "properties": {p: {"type": "string"} for p in params},
            "required": list(params),
        },
    }


@dataclass(frozen=True)
class _Agent:
    name: str
    model: str
    system: str
    specs: tuple[dict[str, Any], ...] = ()


_ORCHESTRATOR = _Agent(
    "orchestrator",
    ORCHESTRATOR_MODEL,
    ORCHESTRATOR_INSTRUCTIONS,
    (
        _tool_spec("get_weather", ["city"], "Current weather in a city."),
        _tool_spec("explode", [], "A tool that always fails."),
        _tool_spec("ask_helper", ["question"], "Ask the helper agent for advice."),
    ),
)
_HELPER = _Agent("helper", HELPER_MODEL, HELPER_INSTRUCTIONS)


#: runs a tool elsewhere (an async run only): ``(name, arguments) -> result``, raising when it failed
RemoteTools = Callable[[str, Mapping[str, Any]], Awaitable[str]]


@dataclass
class _Run:
    """One run of the scenario: its client (sync or async) and its recorder; in an async run, the tools
    may run elsewhere (``remote``, e.g. on an MCP server)."""

    client: Anthropic | AsyncAnthropic
    recorder: Recorder
    remote: RemoteTools | None = None

    # the tools: a result, or (async run) an awaitable one

    def get_weather(self, city: str) -> str:
        return _weather(city)

    def explode(self) -> str:
        raise RuntimeError(EXPLODE_MESSAGE)

    def ask_helper(self, question: str) -> str | Awaitable[str]:
        if isinstance(self.client, AsyncAnthropic):
            return self.agent_async(_HELPER, question)
        return self.agent(_HELPER, question)

    def _request(self, agent: _Agent, messages: list[dict[str, Any]]) -> dict[str, Any]:
        request: dict[str, Any] = {
            "model": agent.model,
            "max_tokens": 1024,
            "system": agent.system,
            "messages": messages,
        }
        if agent.specs:
            request["tools"] = list(agent.specs)
        return request

    def _tool_uses(self, agent: _Agent, messages: list[dict[str, Any]], reply: Any) -> list[Any] | str:
        """The reply's tool calls (appending the reply to ``messages``), or its text when it has none."""
        uses = [block for block in reply.content if block.type == "tool_use"]
        if not uses:
            return "".join(block.text for block in reply.content if block.type == "text")
        messages.append(
            {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in reply.content]}
        )
        return uses

    def agent(self, agent: _Agent, prompt: str) -> str:
        assert isinstance(self.client, Anthropic)
        with self.recorder.agent(agent.name, agent.model, prompt) as answered:
            messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
            while True:
                reply = self.client.messages.create(**self._request(agent, messages))
                uses = self._tool_uses(agent, messages, reply)
                if isinstance(uses, str):
                    answered(uses)
                    return uses
                results = []
                for use in uses:
                    results.append(_tool_result(use.id, *self._execute(use.name, use.id, use.input)))
                messages.append({"role": "user", "content": results})

    async def agent_async(self, agent: _Agent, prompt: str) -> str:
        assert isinstance(self.client, AsyncAnthropic)
        with self.recorder.agent(agent.name, agent.model, prompt) as answered:
            messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
            while True:
                reply = await self.client.messages.create(**self._request(agent, messages))
                uses = self._tool_uses(agent, messages, reply)
                if isinstance(uses, str):
                    answered(uses)
                    return uses
                results = []
                for use in uses:
                    result = await self._execute_async(use.name, use.id, use.input)
                    results.append(_tool_result(use.id, *result))
                messages.append({"role": "user", "content": results})

    def _execute(self, name: str, call_id: str, arguments: Mapping[str, Any]) -> tuple[str, bool]:
        """Run tool ``name`` under its recorder span: ``(result text, failed)``."""
        try:
            with self.recorder.tool(name, call_id, arguments) as succeeded:
                result = getattr(self, name)(**arguments)
                if not isinstance(result, str):
                    raise TypeError(f"tool {name} gave {result!r} in a sync run")
                succeeded(result)
        except Exception as exc:
            return f"Error: {exc}", True
        return result, False

    async def _execute_async(self, name: str, call_id: str, arguments: Mapping[str, Any]) -> tuple[str, bool]:
        """`_execute` in an async run (a tool may give an awaitable)."""
        try:
            with self.recorder.tool(name, call_id, arguments) as succeeded:
                result: str
                if self.remote is not None:
                    result = await self.remote(name, arguments)
                else:
                    local = getattr(self, name)(**arguments)
                    result = await local if inspect.isawaitable(local) else local
                succeeded(result)
        except Exception as exc:
            return f"Error: {exc}", True
        return result, False


def _tool_result(call_id: str, text: str, failed: bool) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id, "content": text}
    if failed:
        block["is_error"] = True
    return block


def run(recorder: Recorder = NO_RECORDER, telemetry: Telemetry = None) -> str:
    """Run the scenario on a sync client (its ``open_telemetry`` option: ``telemetry``); the answer."""
    with make_client(telemetry) as client:
        return _Run(client, recorder).agent(_ORCHESTRATOR, PROMPT)


async def run_async(
    recorder: Recorder = NO_RECORDER, telemetry: Telemetry = None, remote: RemoteTools | None = None
) -> str:
    """`run` on an async client; with ``remote``, the orchestrator's tools run there."""
    async with make_async_client(telemetry) as client:
        return await _Run(client, recorder, remote).agent_async(_ORCHESTRATOR, PROMPT)


async def run_helper_async(
    question: str, recorder: Recorder = NO_RECORDER, telemetry: Telemetry = None
) -> str:
    """The ``helper`` agent alone (what ``ask_helper`` runs), on an async client of its own."""
    async with make_async_client(telemetry) as client:
        return await _Run(client, recorder).agent_async(_HELPER, question)


@dataclass
class LoopState:
    """What a stack runs the loop with: the recorder of the loop's own spans (None: the stack is switched
    off) and the client's ``open_telemetry`` option (None: the SDK's default)."""

    recorder: Recorder | None = None
    telemetry: Telemetry = None

    def options(self, agent_spans: bool = True) -> tuple[Recorder, Telemetry]:
        """The recorder (`NO_RECORDER` when off, or without ``agent_spans``) and the client's option."""
        recorder = self.recorder if self.recorder is not None and agent_spans else NO_RECORDER
        return recorder, self.telemetry

    def run(self, agent_spans: bool = True) -> str:
        """`run` with these `options`."""
        return run(*self.options(agent_spans))

    async def run_async(self, agent_spans: bool = True) -> str:
        """`run_async` with these `options`."""
        return await run_async(*self.options(agent_spans))
