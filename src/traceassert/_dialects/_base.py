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

import contextvars
import fnmatch
import json
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from .._model.errorinfo import causes_from_stacktrace
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
    "shallow_json",
]

OpKind = Literal["agent", "tool", "model", "retrieval", "workflow", "handoff", "other"]


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


def as_str(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return str(value)


#: JSON text nested deeper than this stays text (parsing it, and every later walk of the value, would
#: recurse that deep)
MAX_JSON_DEPTH = 100

#: while set to a list, ``as_int`` adds to it every NaN or infinite number it meets (the reconstruction
#: sets it, to name the spans that record such a count)
NON_FINITE: contextvars.ContextVar[list[Any] | None] = contextvars.ContextVar(
    "traceassert_non_finite", default=None
)


def as_int(value: Any) -> int | None:
    """An integer count from an int, float or numeric string; None otherwise.

    NaN and infinities (``float("inf")``, ``"Infinity"``, ``"1e400"``) are not counts: None, and the
    value is noted in the active ``NON_FINITE`` collector so that the reader can warn.
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        number = value
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
    else:
        return None
    if math.isfinite(number):
        return int(number)
    notes = NON_FINITE.get()
    if notes is not None:
        notes.append(value)
    return None


def loads_json(text: str) -> tuple[bool, Any]:
    """``(True, value)`` for JSON text nested at most ``MAX_JSON_DEPTH`` levels, else ``(False, None)``.

    Deeper JSON is refused, not parsed: a value thousands of levels deep would overflow the stack of the
    parser and of everything that walks the value later (rendering, matching, comparing).
    """
    if text.count("[") + text.count("{") > MAX_JSON_DEPTH and not shallow_json(text):
        return False, None
    if _fast_decode is not None:
        try:
            return True, _fast_decode(text)
        except _FAST_ERRORS:
            pass  # what msgspec refuses (NaN, 1e400, lone surrogates, ...) the stdlib may read
    try:
        return True, json.loads(text)
    except (ValueError, RecursionError):
        return False, None


def _msgspec_decode() -> tuple[Any, tuple[type[BaseException], ...]]:
    """msgspec's JSON decoder (the optional accelerator; ``TRACEASSERT_JSON=stdlib`` turns it off): where
    it reads a text, it gives what ``json.loads`` gives, several times faster."""
    if os.environ.get("TRACEASSERT_JSON", "").lower() in ("stdlib", "json"):
        return None, ()
    try:
        import msgspec
    except ImportError:
        return None, ()
    return msgspec.json.decode, (msgspec.MsgspecError, ValueError, RecursionError)


_fast_decode, _FAST_ERRORS = _msgspec_decode()


_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"')
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_INNERMOST = re.compile(r"\[\]|\{\}")


def shallow_json(text: str) -> bool:
    """True when the brackets of ``text`` (outside double-quoted strings) nest at most
    ``MAX_JSON_DEPTH`` deep: JSON (or a Python literal) that is safe to parse and to walk.

    Each pass removes the innermost pairs (in C, by the regex engine), so the cost is one pass per
    level, not one Python step per bracket.
    """
    rest = _NOT_BRACKETS.sub("", _STRINGS.sub("", text))
    for _ in range(MAX_JSON_DEPTH):
        if not rest:
            return True
        rest, removed = _INNERMOST.subn("", rest)
        if not removed:
            return True  # unbalanced: not JSON, which the parser will say
    return not rest


def maybe_json(value: Any) -> Any:
    """Parse a JSON string when it is one; anything else (and JSON nested deeper than
    ``MAX_JSON_DEPTH``) is returned as it is."""
    if isinstance(value, str):
        text = value.strip()
        if text[:1] in ("{", "[", '"') or text in ("true", "false", "null"):
            ok, parsed = loads_json(text)
            return parsed if ok else value
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
