"""The contract every dialect module fulfils, and helpers they share.

A dialect module exposes ``NAME`` (str) and ``classify(span) -> Operation | None``: None when the span is
not in that dialect. The reconstructor asks the dialects in registry order; the first answer wins.
A module may also expose ``refine(trace, operation_of) -> list[(span, Operation)]``: called once all
spans are classified (when some span is the dialect's), it returns the operations of its spans that
the span tree changes (what a span is cannot always be told from its own attributes).
``might_claim`` and ``scope_hint`` (the scope of a span that carries none, for files without scopes)
are described in the package's ``__init__``.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from .._common.jsonvalue import (
    MAX_JSON_DEPTH,
    NON_FINITE,
    as_int,
    as_str,
    as_str_tuple,
    loads_json,
    maybe_json,
    shallow_json,
)
from .._model.errorinfo import causes_from_stacktrace
from .._model.lazy import later, lazy_fields
from .._model.records import ErrorInfo
from .._model.span import Span

__all__ = [
    "MAX_JSON_DEPTH",
    "NON_FINITE",
    "Fact",
    "NotRecorded",
    "OpKind",
    "Operation",
    "ToolCallRequest",
    "agent_io_not_recorded",
    "as_int",
    "as_str",
    "as_str_tuple",
    "error_info",
    "failed_tool_result_not_recorded",
    "loads_json",
    "maybe_json",
    "model_op",
    "parsed_later",
    "shallow_json",
    "tool_call_request",
    "tool_op",
]

OpKind = Literal["agent", "tool", "model", "retrieval", "workflow", "handoff", "other"]


@dataclass(frozen=True, slots=True)
class ToolCallRequest:
    """A tool call the model asked for (from the model call's output)."""

    name: str
    arguments: Any = None
    call_id: str | None = None


_new = object.__new__
_slots: dict[str, Any] = dict(ToolCallRequest.__dict__)  # the slots' member descriptors
_set_name = _slots["name"].__set__
_set_arguments = _slots["arguments"].__set__
_set_call_id = _slots["call_id"].__set__


def tool_call_request(name: str, arguments: Any, call_id: str | None) -> ToolCallRequest:
    """``ToolCallRequest(name, arguments, call_id)``, its three slots set directly: a frozen dataclass's
    ``__init__`` sets each field through ``object.__setattr__``, twice the cost (one per tool call a
    model asked for)."""
    request: ToolCallRequest = _new(ToolCallRequest)
    _set_name(request, name)
    _set_arguments(request, arguments)
    _set_call_id(request, call_id)
    return request


@lazy_fields("input", "output", "result", "requested_tools")
@dataclass(slots=True)
class Operation:
    """What one span means, normalised across dialects.

    ``kind`` says which record it becomes. Fields that do not apply stay None / empty. Treat it as
    read-only once a dialect returned it (it is not frozen only because frozen dataclasses are slow to
    build, and one is built per span).
    """

    kind: OpKind
    dialect: str
    name: str | None = None
    input: Any = None
    output: Any = None
    # tools
    call_id: str | None = None
    arguments: Any = None
    result: Any = None
    # model calls
    operation: str | None = None
    model: str | None = None
    provider: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    finish_reasons: tuple[str, ...] = ()
    streamed: bool | None = None
    requested_tools: tuple[ToolCallRequest, ...] = ()
    # retrievals
    query: str | None = None
    documents: tuple[str, ...] = ()
    # agents
    conversation_id: str | None = None
    # handoffs (``name`` is the tool the model called to hand off, when a tool span records it)
    from_agent: str | None = None
    to_agent: str | None = None
    # outcome: failed None = not recorded
    failed: bool | None = None
    cancelled: bool = False
    error: ErrorInfo | None = None
    #: a wrapper span whose model call is recorded again by a provider span below it
    wrapper: bool = False
    # nesting the parent ids may not show (see ``_regroup``)
    #: the agent whose work this span records, when the producer names it on the span
    agent_hint: str | None = None
    #: an agent span the producer may have parented on a workflow root instead of on the tool or agent
    #: that ran it: nest it in the innermost tool or agent span that encloses it in time
    nest_by_time: bool = False


def model_op(
    *,
    dialect: str,
    operation: str | None,
    model: str | None,
    provider: str | None,
    input_tokens: int | None,
    output_tokens: int | None,
    total_tokens: int | None,
    finish_reasons: tuple[str, ...],
    input: Any,
    output: Any,
    requested_tools: tuple[ToolCallRequest, ...],
    failed: bool | None,
    error: ErrorInfo | None,
    streamed: bool | None = None,
    name: str | None = None,
) -> Operation:
    """``Operation(kind="model", ...)``, made with positional arguments: the build makes one per model
    call, and keywords matched against the 28 fields of `Operation` cost more than the rest of it."""
    return Operation(
        "model", dialect, name, input, output, None, None, None, operation, model, provider, input_tokens,
        output_tokens, total_tokens, finish_reasons, streamed, requested_tools, None, (), None, None, None,
        failed, False, error,
    )  # fmt: skip


def tool_op(
    *,
    dialect: str,
    name: str | None,
    call_id: str | None,
    arguments: Any,
    result: Any,
    input: Any,
    output: Any,
    failed: bool | None,
    error: ErrorInfo | None,
) -> Operation:
    """``Operation(kind="tool", ...)``, made with positional arguments (see `model_op`)."""
    return Operation(
        "tool", dialect, name, input, output, call_id, arguments, result, None, None, None, None, None, None,
        (), None, (), None, (), None, None, None, failed, False, error,
    )  # fmt: skip


_JSON_STARTS = frozenset('{["tfn \t\r\n')


def parsed_later(value: Any) -> Any:
    """``maybe_json(value)``, computed when first read (``_model.lazy``) where it may parse: text that
    cannot be JSON, and any other value, is returned as it is, now."""
    if value.__class__ is str and value[:1] in _JSON_STARTS:
        return later(maybe_json, value)
    return value


#: the facts a producer may leave out (the ``fact`` of a `NotRecorded`)
Fact = Literal[
    "agent.input",  # what the agent was asked
    "agent.output",  # the agent's final answer
    "tool.result_when_failed",  # what a failed tool returned
    "error.type",  # the exception type of a failure
    "model.streamed",  # whether a model call streamed
    "tool.executions",  # tool spans (only the model's requests are recorded)
    "content",  # message content and tool arguments
]


@dataclass(frozen=True, slots=True)
class NotRecorded:
    """A fact a producer never records, and where it lives instead (the support matrix's "What a
    producer does not record", as data).

    A dialect module lists its gaps in ``NOT_RECORDED: tuple[NotRecorded, ...]``; a check whose answer
    relies on a missing fact names the gap in its failure. An entry applies to a span of its dialect
    whose scope starts with ``scope`` (any scope when None) and, when ``attribute`` is given as
    ``(key pattern, value pattern)`` (shell-style, ``fnmatch``), that carries a matching attribute.
    ``producer`` names who does not record it, ``missing`` what, ``instead`` where the fact lives.
    """

    fact: Fact
    producer: str
    missing: str
    instead: str
    scope: str | None = None
    attribute: tuple[str, str] | None = None

    def applies_to(self, scope_name: str | None, attributes: Mapping[str, Any]) -> bool:
        if self.scope is not None and not (scope_name or "").startswith(self.scope):
            return False
        if self.attribute is None:
            return True
        key_pattern, value_pattern = self.attribute
        return any(
            fnmatch.fnmatchcase(key, key_pattern) and fnmatch.fnmatchcase(str(value), value_pattern)
            for key, value in attributes.items()
        )


def agent_io_not_recorded(producer: str, scope: str) -> tuple[NotRecorded, NotRecorded]:
    """The two gaps of the producers that record no agent input and output (their model calls do)."""
    first = "the input is on the agent's first model call"
    last = "the final answer is on the agent's last model call"
    return (
        NotRecorded("agent.input", producer, "agent input", first, scope),
        NotRecorded("agent.output", producer, "agent output", last, scope),
    )


def failed_tool_result_not_recorded(
    stack: str, *, scope: str | None = None, attribute: tuple[str, str] | None = None
) -> NotRecorded:
    """LangGraph's gap under ``stack`` (an instrumentation): a failed tool's result."""
    return NotRecorded(
        "tool.result_when_failed",
        f"LangGraph's instrumentation {stack}",
        "the result of a failed tool",
        "the failure and its message are recorded",
        scope,
        attribute,
    )


def _exception_events(span: Span) -> list[Mapping[str, Any]]:
    return [ev.attributes for ev in span.events if ev.name == "exception"]


def error_info(span: Span, *, error_type_key: str = "error.type") -> ErrorInfo | None:
    """The error a span records, from ``exception`` events, its status description or ``error.type``."""
    exceptions = _exception_events(span)
    status_desc = span.status.description if span.status.code == "ERROR" else None
    etype = as_str(span.attributes.get(error_type_key))
    if exceptions:
        infos = [
            ErrorInfo(
                as_str(ev.get("exception.type")) or etype,
                as_str(ev.get("exception.message")) or status_desc,
            )
            for ev in exceptions
        ]
        # the last exception event is the one that ended the span; earlier ones, and the chain its
        # stack trace shows (raise ... from ...), are its causes
        last = infos[-1]
        causes = list(reversed(infos[:-1]))
        stack = exceptions[-1].get("exception.stacktrace")
        if isinstance(stack, str) and "exception" in stack:
            causes.extend(c for c in causes_from_stacktrace(stack) if c not in causes)
        return ErrorInfo(last.type, last.message, tuple(causes))
    if status_desc or etype:
        message = status_desc
        if etype is None and status_desc and ":" in status_desc:
            head, _, tail = status_desc.partition(":")
            if head and " " not in head.strip():
                return ErrorInfo(head.strip(), tail.strip() or None)
        return ErrorInfo(etype, message)
    if span.status.code == "ERROR":
        return ErrorInfo(None, None)
    return None
