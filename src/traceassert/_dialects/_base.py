"""The contract every dialect module fulfils, and helpers they share.

A dialect module exposes ``NAME`` (str) and ``classify(span) -> Operation | None``: None when the span is
not in that dialect. The reconstructor asks the dialects in registry order; the first answer wins.
A module may also expose ``refine(trace, operation_of) -> list[(span, Operation)]``: called once all
spans are classified, it returns the operations that the span tree changes (what a span is cannot
always be told from its own attributes).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from .._model.errorinfo import causes_from_stacktrace
from .._model.records import ErrorInfo
from .._model.span import Span

__all__ = [
    "OpKind",
    "Operation",
    "ToolCallRequest",
    "as_int",
    "as_str",
    "as_str_tuple",
    "error_info",
    "maybe_json",
]

OpKind = Literal["agent", "tool", "model", "retrieval", "workflow", "other"]


@dataclass(frozen=True, slots=True)
class ToolCallRequest:
    """A tool call the model asked for (from the model call's output)."""

    name: str
    arguments: Any = None
    call_id: str | None = None


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


def as_str(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return str(value)


def as_int(value: Any) -> int | None:
    """An integer token count from an int, float or numeric string; None otherwise."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value == value else None
    if isinstance(value, str):
        try:
            return int(float(value.strip()))
        except ValueError:
            return None
    return None


def maybe_json(value: Any) -> Any:
    """Parse a JSON string when it is one; anything else is returned as it is."""
    if isinstance(value, str):
        text = value.strip()
        if text[:1] in ("{", "[", '"') or text in ("true", "false", "null"):
            try:
                return json.loads(text)
            except ValueError:
                return value
    return value


def as_str_tuple(value: Any) -> tuple[str, ...]:
    """Finish reasons and similar: a sequence, a JSON-encoded list, or one string."""
    if value is None:
        return ()
    if type(value) is tuple and all(type(v) is str for v in value):
        return value
    value = maybe_json(value)
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list | tuple):
        return tuple(str(v) for v in value if v is not None)
    return (str(value),)


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
