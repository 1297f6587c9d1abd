"""Tool results in a model call's input: evidence, left by any producer, that a tool call ran.

A model call's input holds the results of the tool calls the model asked for earlier, in the shape of
the provider's API or of the producer's conventions. Shapes read:

- OpenAI chat: a ``role: "tool"`` message with ``tool_call_id`` (and ``name``); OpenInference flattens
  it as ``llm.input_messages.N.message.role = tool`` / ``message.tool_call_id``; OpenLLMetry as
  ``gen_ai.prompt.N.role = tool`` / ``gen_ai.prompt.N.tool_call_id``;
- OpenAI Responses: a ``type: "function_call_output"`` item with ``call_id`` and ``output``;
- GenAI semantic conventions: a ``type: "tool_call_response"`` part with ``id`` and ``response``;
- Anthropic: a ``type: "tool_result"`` content block with ``tool_use_id``, ``content``, ``is_error``;
- Gemini / Google ADK: a ``function_response`` (``functionResponse``) part with ``id``, ``name``,
  ``response`` (an ``error`` key in the response marks a failure);
- Bedrock Converse (Strands): a ``toolResult`` block with ``toolUseId``, ``content``, ``status``;
- Vercel AI SDK: a ``type: "tool-result"`` part with ``toolCallId``, ``toolName``, ``output`` / ``result``;
- older GenAI events: a ``gen_ai.tool.message`` event on the model call's span (``id``, ``content``).

When several records of one input exist, the first that holds results gives them, and the others add
the failures they mark. A result without a call id or name takes those of the call the model asked for
in the same input (the assistant message before it, in order). A result is ``failed`` only where the
producer marks it (an ``is_error`` flag, an error status, an ``error`` field in the result), succeeded
where the shape would mark a failure and does not, and is of unknown outcome (None) elsewhere; ``new``
when it comes after the input's last assistant message (the answers to the model's latest request, not
the history before).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._model.span import Span
from . import _keys as k
from ._base import maybe_json
from ._indexed import has_key_under
from ._openinference_attrs import INPUT_MESSAGES, flattened_messages
from ._traceloop_payloads import flat_messages

__all__ = ["ToolCallResult", "tool_results"]


@dataclass(frozen=True, slots=True)
class ToolCallResult:
    """The result of one tool call, as a model call's input holds it."""

    call_id: str | None
    name: str | None
    result: Any = None
    #: True where the input marks the call failed, False where its shape says so and it does not, None
    #: where the shape cannot tell (an OpenAI ``role: tool`` message, a GenAI ``tool_call_response``
    #: part: a failed tool's error text reads like any result)
    failed: bool | None = None
    #: after the input's last assistant message (an answer to the latest request)
    new: bool = True


_ASSISTANT = frozenset({"assistant", "model", "ai", "bot"})
#: JSON attributes that hold a model call's input messages (or a request that holds them)
_MESSAGE_KEYS = (k.INPUT_MESSAGES, "gen_ai.prompt", "ai.prompt.messages", "gcp.vertex.agent.llm_request")
_DETAILS_EVENT = "gen_ai.client.inference.operation.details"
_TOOL_EVENT = "gen_ai.tool.message"


def tool_results(span: Span) -> tuple[ToolCallResult, ...]:
    """The tool results that ``span`` (a model call's span) records in its input, in input order."""
    primary: list[ToolCallResult] = []
    #: call id -> the outcome another record of the same input gives where the first cannot tell
    #: (OpenInference's flattened messages leave out ``is_error``; its raw request keeps it)
    outcomes: dict[str, bool] = {}
    for messages in _inputs(span):
        found = _from_messages(messages)
        if not primary:
            primary = found
            continue
        for r in found:
            if r.call_id and r.failed is not None and outcomes.get(r.call_id) is not True:
                outcomes[r.call_id] = r.failed

    if not primary:
        return tuple(_from_events(span))
    if outcomes:
        primary = [_outcome(r, outcomes.get(r.call_id or "")) for r in primary]
    return tuple(primary)


def _outcome(result: ToolCallResult, other: bool | None) -> ToolCallResult:
    """``result``, failed where the other record says so, known to succeed where only it can tell."""
    if other is None or result.failed is True or (result.failed is False and other is False):
        return result
    return ToolCallResult(result.call_id, result.name, result.result, other, result.new)


def _inputs(span: Span) -> Iterator[list[Any]]:
    """The input message lists ``span`` records, most specific first (each parsed only when reached);
    OpenInference's raw request (``input.value``) last: its flattened messages leave out ``is_error``."""
    attrs = span.attributes
    for key in _MESSAGE_KEYS:
        value = attrs.get(key)
        listed = _listed(maybe_json(value)) if value is not None else None
        if listed:
            yield listed
    for event in span.events:
        if event.name == _DETAILS_EVENT:
            listed = _listed(maybe_json(event.attributes.get(k.INPUT_MESSAGES)))
            if listed:
                yield listed
    if has_key_under(attrs, INPUT_MESSAGES):
        yield flattened_messages(attrs, INPUT_MESSAGES)
    if has_key_under(attrs, "gen_ai.prompt."):
        flat = flat_messages(attrs, "gen_ai.prompt")
        if flat:
            yield flat
    value = attrs.get("input.value")
    if value is not None:
        listed = _listed(maybe_json(value))
        if listed:
            yield listed


def _listed(value: Any) -> list[Any] | None:
    if isinstance(value, Mapping):
        for key in ("messages", "contents", "input"):
            inner = value.get(key)
            if isinstance(inner, list | tuple):
                return list(inner)
        return None
    return list(value) if isinstance(value, list | tuple) else None


def _from_events(span: Span) -> list[ToolCallResult]:
    out: list[ToolCallResult] = []
    for event in span.events:
        if event.name != _TOOL_EVENT:
            continue
        attrs = event.attributes
        content = maybe_json(attrs.get("content"))
        blocks = _from_messages([{"role": "user", "content": content}]) if isinstance(content, list) else []
        if blocks:
            out.extend(blocks)
        else:
            call_id = _text(attrs.get("id")) or _text(attrs.get("tool_call_id"))
            failed = True if _error_in(content) else None
            out.append(ToolCallResult(call_id, _text(attrs.get("name")), _value(content), failed))
    return out


class _Calls:
    """The tool calls asked for in the input so far, each answered at most once: a result with a call
    id answers that call (and takes its name), one with only a name the first open call of that name,
    one with neither the first open call."""

    def __init__(self) -> None:
        self.calls: list[tuple[str | None, str | None]] = []
        self.answered: list[bool] = []
        self.first = 0  # every call before it is answered
        self.by_id: dict[str, int] = {}
        self.by_name: dict[str, deque[int]] = {}

    def add(self, call_id: Any, name: Any) -> None:
        cid, nm = _text(call_id), _text(name)
        i = len(self.calls)
        self.calls.append((cid, nm))
        self.answered.append(False)
        if cid:
            self.by_id.setdefault(cid, i)
        if nm:
            self.by_name.setdefault(nm, deque()).append(i)

    def complete(self, call_id: str | None, name: str | None) -> tuple[str | None, str | None]:
        i: int | None = None
        if call_id is not None:
            i = self.by_id.get(call_id)
        elif name is not None:
            queue = self.by_name.get(name)
            while queue and self.answered[queue[0]]:
                queue.popleft()
            i = queue.popleft() if queue else None
        else:
            while self.first < len(self.calls) and self.answered[self.first]:
                self.first += 1
            i = self.first if self.first < len(self.calls) else None
        if i is None:
            return call_id, name
        if self.answered[i]:  # answered twice (a retried call): keep the name
            return call_id, name or self.calls[i][1]
        self.answered[i] = True
        cid, nm = self.calls[i]
        return call_id or cid, name or nm


def _from_messages(messages: Sequence[Any]) -> list[ToolCallResult]:
    out: list[ToolCallResult] = []
    calls = _Calls()
    last_assistant = -1  # results before this index in ``out`` are history
    for message in messages:
        if not isinstance(message, Mapping):
            continue
        kind = message.get("type")
        if kind == "function_call":  # OpenAI Responses input items
            calls.add(message.get("call_id"), message.get("name"))
            continue
        if kind == "function_call_output":
            _add(out, calls, message.get("call_id"), None, message.get("output"), None)
            continue
        role = message.get("role")
        if role in _ASSISTANT:
            last_assistant = len(out)
            _asked(message, calls)
            continue
        blocks = [*_seq(message.get("parts")), *_seq(message.get("content"))]
        before = len(out)
        for block in blocks:
            if isinstance(block, Mapping):
                _block(block, out, calls)
        if role in ("tool", "function", "ipython") and len(out) == before:
            call_id = message.get("tool_call_id") or message.get("id")
            _add(out, calls, call_id, message.get("name"), message.get("content"), None)
    if last_assistant > 0:
        out[:last_assistant] = [_old(r) for r in out[:last_assistant]]
    return out


def _old(result: ToolCallResult) -> ToolCallResult:
    return ToolCallResult(result.call_id, result.name, result.result, result.failed, new=False)


def _asked(message: Mapping[str, Any], calls: _Calls) -> None:
    """The tool calls an assistant message of the input asked for, in its order."""
    for call in _seq(message.get("tool_calls")):
        if isinstance(call, Mapping):
            fn = call.get("function")
            calls.add(call.get("id"), (fn if isinstance(fn, Mapping) else call).get("name"))
    for block in [*_seq(message.get("parts")), *_seq(message.get("content"))]:
        if not isinstance(block, Mapping):
            continue
        kind = block.get("type")
        if kind in ("tool_call", "tool_use", "tool-call"):
            calls.add(block.get("id") or block.get("toolCallId"), block.get("name") or block.get("toolName"))
            continue
        fn = block.get("function_call", block.get("functionCall"))
        if isinstance(fn, Mapping):
            calls.add(fn.get("id"), fn.get("name"))
        use = block.get("toolUse")
        if isinstance(use, Mapping):
            calls.add(use.get("toolUseId"), use.get("name"))


def _block(block: Mapping[str, Any], out: list[ToolCallResult], calls: _Calls) -> None:
    kind = block.get("type")
    if kind == "tool_call_response":
        result = block["response"] if "response" in block else block.get("result")
        _add(
            out,
            calls,
            block.get("id"),
            block.get("name"),
            result,
            True if block.get("is_error") is True else None,
        )
    elif kind == "tool_result":
        _add(out, calls, block.get("tool_use_id"), None, block.get("content"), block.get("is_error") is True)
    elif kind == "tool-result":
        output = block["output"] if "output" in block else block.get("result")
        typed = isinstance(output, Mapping) and "type" in output  # AI SDK 5: the output says its kind
        flagged = (
            True if block.get("isError") is True or _error_output(output) else (False if typed else None)
        )
        _add(out, calls, block.get("toolCallId"), block.get("toolName"), output, flagged)
    else:
        response = block.get("function_response", block.get("functionResponse"))
        if isinstance(response, Mapping):
            inner = response.get("response")
            said = isinstance(inner, Mapping) and ("output" in inner or "error" in inner)
            _add(out, calls, response.get("id"), response.get("name"), inner, False if said else None)
            return
        result = block.get("toolResult")
        if isinstance(result, Mapping):
            status = str(result.get("status", "")).lower()
            flagged = True if status == "error" else (False if status else None)
            _add(out, calls, result.get("toolUseId"), None, result.get("content"), flagged)


def _add(
    out: list[ToolCallResult], calls: _Calls, call_id: Any, name: Any, result: Any, flagged: bool | None
) -> None:
    """One result; ``flagged``: what its shape says of a failure (None: it cannot say)."""
    cid, nm = calls.complete(_text(call_id), _text(name))
    value = _value(result)
    out.append(ToolCallResult(cid, nm, value, True if _error_in(value) else flagged))


def _value(result: Any) -> Any:
    """The result as a tool span would record it: JSON parsed, a list of text blocks as its text."""
    result = maybe_json(result)
    if isinstance(result, list | tuple) and result:
        texts: list[str] = []
        for block in result:
            if isinstance(block, Mapping) and isinstance(block.get("text"), str):
                texts.append(block["text"])
            elif isinstance(block, Mapping) and "json" in block and len(result) == 1:
                return block["json"]
            else:
                return result
        return "\n".join(texts)
    if isinstance(result, Mapping) and set(result) == {"type", "value"}:  # Vercel AI's typed output
        return result["value"]
    return result


def _error_in(value: Any) -> bool:
    """An ``error`` field in a result (Gemini's ``{"error": ...}`` function response, say)."""
    return isinstance(value, Mapping) and bool(value.get("error"))


def _error_output(output: Any) -> bool:
    """Vercel AI's ``{"type": "error-text" | "error-json", "value"}`` output."""
    return isinstance(output, Mapping) and str(output.get("type", "")).startswith("error")


def _seq(value: Any) -> Sequence[Any]:
    return value if isinstance(value, list | tuple) else ()


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
