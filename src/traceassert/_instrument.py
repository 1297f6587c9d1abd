"""Instrumentation for home-grown agents: decorators that emit GenAI-convention spans.

``ta.instrument.agent(name)``, ``ta.instrument.tool(name=None)`` and ``ta.instrument.model_call(model=...,
provider=None)`` wrap plain or ``async`` functions. Each call opens a span through the OpenTelemetry API's
global tracer provider (looked up at every call, so a provider installed later is used):

- ``invoke_agent <name>``: ``gen_ai.operation.name``, ``gen_ai.agent.name``, the arguments as
  ``gen_ai.input.messages`` (a single string argument as the user's text) and the return value as
  ``gen_ai.output.messages``;
- ``execute_tool <name>``: ``gen_ai.tool.name``, a fresh ``gen_ai.tool.call.id``, the arguments the function
  received (bound to its signature, defaults applied) as JSON ``gen_ai.tool.call.arguments``, the return
  value as ``gen_ai.tool.call.result``;
- ``chat <model>`` (CLIENT): ``gen_ai.request.model``, ``gen_ai.provider.name``, a ``messages`` argument as
  ``gen_ai.input.messages``, and from the return value: token usage (``usage.input_tokens`` /
  ``output_tokens``, ``usage.prompt_tokens`` / ``completion_tokens``, as attributes or dict keys),
  ``gen_ai.response.model``, finish reasons (``choices[].finish_reason``, ``stop_reason``,
  ``finish_reason``) and the reply (OpenAI ``choices[].message`` or Anthropic ``content`` blocks, tool
  calls included) as ``gen_ai.output.messages``.

An exception marks the span ERROR (description: the message), sets ``error.type`` to the exception's
type and records an ``exception`` event; it is then re-raised unchanged. Generator functions are
refused: their span would end before the work does.
"""

from __future__ import annotations

import functools
import inspect
import json
import uuid
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, ParamSpec, TypeVar, cast, overload

from opentelemetry import trace

from ._dialects import _keys as k

__all__ = ["Instrument", "instrument"]

P = ParamSpec("P")
R = TypeVar("R")

_TRACER_NAME = "traceassert.instrument"
_SKIPPED_PARAMS = frozenset({"self", "cls"})


def _json(value: Any) -> str:
    """JSON text for an attribute; a string is kept as it is, anything unserialisable becomes its str()."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, default=_plain, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)


def _plain(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump()
    if hasattr(value, "__dict__"):
        return {key: val for key, val in vars(value).items() if not key.startswith("_")}
    return str(value)


def _bound_arguments(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    """The arguments ``fn`` receives, by parameter name, defaults applied (``self`` / ``cls`` left out)."""
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs)
    except (TypeError, ValueError):
        return {**{str(i): a for i, a in enumerate(args)}, **kwargs}
    bound.apply_defaults()
    out: dict[str, Any] = {}
    for name, value in bound.arguments.items():
        if name in _SKIPPED_PARAMS:
            continue
        kind = bound.signature.parameters[name].kind
        if kind is inspect.Parameter.VAR_KEYWORD and isinstance(value, Mapping):
            out.update(value)
        else:
            out[name] = value
    return out


def _text_message(role: str, value: Any, finish_reason: str | None = None) -> str:
    message: dict[str, Any] = {"role": role, "parts": [{"type": "text", "content": _json(value)}]}
    if finish_reason is not None:
        message["finish_reason"] = finish_reason
    return json.dumps([message], ensure_ascii=False)


def _get(obj: Any, key: str) -> Any:
    """``obj[key]`` for a mapping, ``obj.key`` otherwise; None when absent."""
    if isinstance(obj, Mapping):
        return obj.get(key)
    return getattr(obj, key, None)


# -- reading a model's return value ------------------------------------------------------------------


def _usage(result: Any) -> dict[str, int]:
    usage = _get(result, "usage")
    source = usage if usage is not None else result
    attrs: dict[str, int] = {}
    for key, names in (
        (k.USAGE_INPUT_TOKENS, ("input_tokens", "prompt_tokens")),
        (k.USAGE_OUTPUT_TOKENS, ("output_tokens", "completion_tokens")),
    ):
        for name in names:
            value = _get(source, name)
            if isinstance(value, int) and not isinstance(value, bool):
                attrs[key] = value
                break
    return attrs


def _choices(result: Any) -> list[Any]:
    choices = _get(result, "choices")
    return list(choices) if isinstance(choices, list | tuple) else []


def _finish_reasons(result: Any) -> list[str]:
    reasons = [_get(choice, "finish_reason") for choice in _choices(result)]
    reasons.append(_get(result, "stop_reason"))
    reasons.append(_get(result, "finish_reason"))
    return [str(r) for r in reasons if isinstance(r, str) and r]


def _tool_call_part(call: Any) -> dict[str, Any] | None:
    fn = _get(call, "function")
    name = _get(fn, "name") if fn is not None else _get(call, "name")
    if not isinstance(name, str):
        return None
    arguments = _get(fn, "arguments") if fn is not None else _get(call, "input")
    return {"type": "tool_call", "id": _get(call, "id"), "name": name, "arguments": arguments}


def _output_messages(result: Any, reasons: list[str]) -> str | None:
    """The reply as GenAI output messages (OpenAI chat completions, Anthropic messages); None if neither."""
    parts: list[dict[str, Any]] = []
    for choice in _choices(result):
        message = _get(choice, "message")
        content = _get(message, "content")
        if isinstance(content, str) and content:
            parts.append({"type": "text", "content": content})
        for call in _get(message, "tool_calls") or ():
            part = _tool_call_part(call)
            if part is not None:
                parts.append(part)
    blocks = _get(result, "content")
    if isinstance(blocks, list | tuple):
        for block in blocks:
            kind = _get(block, "type")
            if kind == "text" and isinstance(_get(block, "text"), str):
                parts.append({"type": "text", "content": _get(block, "text")})
            elif kind == "tool_use":
                part = _tool_call_part(block)
                if part is not None:
                    parts.append(part)
    if not parts:
        return None
    reply: dict[str, Any] = {"role": "assistant", "parts": parts}
    if reasons:
        reply["finish_reason"] = reasons[-1]
    return _json([reply])


# -- the decorators ----------------------------------------------------------------------------------


class _Kind:
    """What one decorator records: the span's name and kind, and its attributes before and after."""

    span_kind = trace.SpanKind.INTERNAL

    def span_name(self, fn: Callable[..., Any]) -> str:
        raise NotImplementedError

    def start(self, fn: Callable[..., Any], arguments: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def finish(self, result: Any) -> dict[str, Any]:
        raise NotImplementedError


class _AgentKind(_Kind):
    def __init__(self, name: str) -> None:
        self.name = name

    def span_name(self, fn: Callable[..., Any]) -> str:
        return f"{k.OP_INVOKE_AGENT} {self.name}"

    def start(self, fn: Callable[..., Any], arguments: dict[str, Any]) -> dict[str, Any]:
        values = list(arguments.values())
        given: Any = values[0] if len(values) == 1 and isinstance(values[0], str) else arguments
        return {
            k.OPERATION_NAME: k.OP_INVOKE_AGENT,
            k.AGENT_NAME: self.name,
            k.INPUT_MESSAGES: _text_message("user", given),
        }

    def finish(self, result: Any) -> dict[str, Any]:
        return {k.OUTPUT_MESSAGES: _text_message("assistant", result, "stop")} if result is not None else {}


class _ToolKind(_Kind):
    def __init__(self, name: str | None) -> None:
        self.name = name

    def _name(self, fn: Callable[..., Any]) -> str:
        return self.name or str(getattr(fn, "__name__", "tool"))

    def span_name(self, fn: Callable[..., Any]) -> str:
        return f"{k.OP_EXECUTE_TOOL} {self._name(fn)}"

    def start(self, fn: Callable[..., Any], arguments: dict[str, Any]) -> dict[str, Any]:
        return {
            k.OPERATION_NAME: k.OP_EXECUTE_TOOL,
            k.TOOL_NAME: self._name(fn),
            k.TOOL_CALL_ID: f"call_{uuid.uuid4().hex[:24]}",
            k.TOOL_CALL_ARGUMENTS: _json(arguments),
        }

    def finish(self, result: Any) -> dict[str, Any]:
        return {k.TOOL_CALL_RESULT: _json(result)} if result is not None else {}


class _ModelKind(_Kind):
    span_kind = trace.SpanKind.CLIENT

    def __init__(self, model: str, provider: str | None) -> None:
        self.model = model
        self.provider = provider

    def span_name(self, fn: Callable[..., Any]) -> str:
        return f"chat {self.model}"

    def start(self, fn: Callable[..., Any], arguments: dict[str, Any]) -> dict[str, Any]:
        attrs: dict[str, Any] = {k.OPERATION_NAME: "chat", k.REQUEST_MODEL: self.model}
        if self.provider is not None:
            attrs[k.PROVIDER_NAME] = self.provider
        messages = arguments.get("messages")
        if isinstance(messages, list | tuple):
            attrs[k.INPUT_MESSAGES] = _json(list(messages))
        return attrs

    def finish(self, result: Any) -> dict[str, Any]:
        attrs: dict[str, Any] = dict(_usage(result))
        model = _get(result, "model")
        if isinstance(model, str) and model:
            attrs[k.RESPONSE_MODEL] = model
        reasons = _finish_reasons(result)
        if reasons:
            attrs[k.RESPONSE_FINISH_REASONS] = reasons
        output = _output_messages(result, reasons)
        if output is not None:
            attrs[k.OUTPUT_MESSAGES] = output
        return attrs


def _fail(span: trace.Span, exc: BaseException) -> None:
    span.set_attribute(k.ERROR_TYPE, type(exc).__qualname__)
    span.record_exception(exc)
    span.set_status(trace.Status(trace.StatusCode.ERROR, str(exc) or type(exc).__name__))


def _decorate(kind: _Kind, fn: Callable[P, R]) -> Callable[P, R]:
    if inspect.isgeneratorfunction(fn) or inspect.isasyncgenfunction(fn):
        raise TypeError(f"traceassert.instrument cannot wrap generator function {fn!r}")
    span_name = kind.span_name(fn)

    def start(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        tracer = trace.get_tracer(_TRACER_NAME)
        return tracer.start_as_current_span(
            span_name,
            kind=kind.span_kind,
            attributes=kind.start(fn, _bound_arguments(fn, args, kwargs)),
            record_exception=False,
            set_status_on_exception=False,
        )

    if inspect.iscoroutinefunction(fn):
        async_fn = cast(Callable[..., Awaitable[Any]], fn)

        @functools.wraps(fn)
        async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
            with start(args, kwargs) as span:
                try:
                    result = await async_fn(*args, **kwargs)
                except BaseException as exc:
                    _fail(span, exc)
                    raise
                span.set_attributes(kind.finish(result))
                return result

        return cast(Callable[P, R], async_wrapper)

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with start(args, kwargs) as span:
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:
                _fail(span, exc)
                raise
            span.set_attributes(kind.finish(result))
            return result

    return wrapper


class Instrument:
    """The decorator factories behind ``ta.instrument`` (one shared instance)."""

    def agent(self, name: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
        """Record each call as an agent invocation ``name`` (``invoke_agent <name>``)."""

        def decorator(fn: Callable[P, R]) -> Callable[P, R]:
            return _decorate(_AgentKind(name), fn)

        return decorator

    @overload
    def tool(self, name: Callable[P, R], /) -> Callable[P, R]: ...

    @overload
    def tool(self, name: str | None = None) -> Callable[[Callable[P, R]], Callable[P, R]]: ...

    def tool(self, name: Any = None) -> Any:
        """Record each call as a tool execution (``execute_tool <name>``; the function's name by default).

        Use as ``@ta.instrument.tool``, ``@ta.instrument.tool()``, ``@ta.instrument.tool("name")`` or
        ``@ta.instrument.tool(name="name")``.
        """
        if callable(name):
            return _decorate(_ToolKind(None), name)

        def decorator(fn: Callable[P, R]) -> Callable[P, R]:
            return _decorate(_ToolKind(name), fn)

        return decorator

    def model_call(
        self, *, model: str, provider: str | None = None
    ) -> Callable[[Callable[P, R]], Callable[P, R]]:
        """Record each call as a model call ``chat <model>``, with usage read from the return value."""

        def decorator(fn: Callable[P, R]) -> Callable[P, R]:
            return _decorate(_ModelKind(model, provider), fn)

        return decorator

    def __repr__(self) -> str:
        return "traceassert.instrument"


#: ``ta.instrument``: ``agent(name)``, ``tool(name=None)``, ``model_call(model=..., provider=None)``
instrument = Instrument()
