"""Reconstructed records: what the agent did, independent of which instrumentation recorded it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from .lazy import lazy_fields
from .offered import ToolDefinition, offered_tools
from .span import Span
from .usage import usage_detail

__all__ = [
    "AgentInvocation",
    "Conversation",
    "ErrorInfo",
    "Handoff",
    "ModelCall",
    "Retrieval",
    "ToolExecution",
    "ToolRequest",
]


@dataclass(frozen=True, slots=True)
class ErrorInfo:
    """Why something failed: an exception type name (or ``error.type``) and a message.

    ``causes`` holds the chained causes when the producer recorded them (outermost first).
    """

    type: str | None
    message: str | None = None
    causes: tuple[ErrorInfo, ...] = ()

    def __str__(self) -> str:
        if self.type and self.message:
            return f"{self.type}: {self.message}"
        return self.type or self.message or "error"

    def chain(self) -> Iterator[ErrorInfo]:
        """This error, then its causes."""
        yield self
        yield from self.causes


@lazy_fields("arguments", "result")
@dataclass(eq=False, slots=True)
class ToolExecution:
    """One execution of a tool, recorded by a tool span (``source`` "span") or shown by the conversation
    (``source`` "conversation": a later model call's input holds the result of the call, and no tool
    span answers its request; ``span`` is then None).

    ``arguments`` is always a dict: what the tool received, parsed from whatever shape the producer
    recorded (``raw_arguments``). ``failed`` is None only while the tool's span is still open. A call
    known only from the model's request, with no result in the conversation, is a `ToolRequest`, never
    an execution.
    """

    name: str
    arguments: dict[str, Any]
    raw_arguments: Any = None
    result: Any = None
    call_id: str | None = None
    failed: bool | None = False
    error: ErrorInfo | None = None
    agent: AgentInvocation | None = None
    span: Span | None = None
    dialect: str | None = None
    #: position of this call in the model's request when known (for parallel calls)
    request_order: tuple[int, int] | None = None
    #: the model's request this execution carried out, when it was recorded
    request: ToolRequest | None = None
    #: what shows the execution: its tool span, or the result in a later model call's input
    source: Literal["span", "conversation"] = "span"

    @property
    def succeeded(self) -> bool:
        return self.failed is False

    @property
    def start_ns(self) -> int:
        """The span's start; for an execution shown by the conversation, just after the start of the
        model call that asked for it (its end may come late: a streamed response)."""
        if self.span is not None:
            return self.span.start_ns
        call = self.request.model_call if self.request is not None else None
        return call.start_ns + 1 if call is not None and call.span is not None else 0

    def __repr__(self) -> str:
        state = {True: "failed", False: "ok", None: "unknown"}[self.failed]
        return f"ToolExecution({self.name!r}, arguments={self.arguments!r}, {state})"


@lazy_fields("output")
@dataclass(eq=False, slots=True)
class ModelCall:
    """One logical model call (wrapper and provider spans of the same call are collapsed)."""

    operation: str | None
    model: str | None
    provider: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    finish_reasons: tuple[str, ...] = ()
    streamed: bool | None = None
    failed: bool = False
    error: ErrorInfo | None = None
    agent: AgentInvocation | None = None
    span: Span | None = None
    dialect: str | None = None
    output: Any = None
    #: every span that recorded this logical call (outermost first)
    spans: tuple[Span, ...] = ()
    #: every tool call the model asked for in its response, in its order, executed or not
    requested_tools: tuple[ToolRequest, ...] = ()
    #: the tools offered, read from the spans on first use of ``tool_definitions``
    _offered: dict[str, ToolDefinition] | None = field(default=None, init=False, repr=False)

    @property
    def start_ns(self) -> int:
        return self.span.start_ns if self.span is not None else 0

    @property
    def tool_definitions(self) -> dict[str, ToolDefinition]:
        """The tools this call offered the model, by name, as its spans record them (read on first use;
        empty when they record none). See ``_model.offered`` for the shapes read."""
        if self._offered is None:
            spans = self.spans or ((self.span,) if self.span is not None else ())
            self._offered = offered_tools(reversed(spans))
        return self._offered

    @property
    def cache_read_tokens(self) -> int | None:
        """Input tokens read from the prompt cache, where the producer records them (else None)."""
        return usage_detail(self.spans or ((self.span,) if self.span is not None else ()), "cache_read")

    @property
    def reasoning_tokens(self) -> int | None:
        """Reasoning (thinking) output tokens, where the producer records them (else None)."""
        return usage_detail(self.spans or ((self.span,) if self.span is not None else ()), "reasoning")

    def __repr__(self) -> str:
        return (
            f"ModelCall({self.operation!r}, model={self.model!r}, input_tokens={self.input_tokens}, "
            f"output_tokens={self.output_tokens})"
        )


@lazy_fields("arguments")
@dataclass(eq=False, slots=True)
class ToolRequest:
    """A tool call a model asked for in its response: what it asked, not what ran.

    ``execution`` is the `ToolExecution` that carried it out (from its tool span, or from its result in
    a later model call's input), ``handoff`` the `Handoff` it asked for
    (a ``transfer_to_*`` call, say), ``agent`` the nested `AgentInvocation` that carried it out when the
    framework runs an agent as the tool of that name with no tool span of its own (a smolagents managed
    agent); all None when the trace records none of them (``executed`` False).
    """

    name: str
    arguments: dict[str, Any]
    call_id: str | None = None
    raw_arguments: Any = None
    model_call: ModelCall | None = None
    execution: ToolExecution | None = None
    handoff: Handoff | None = None
    agent: AgentInvocation | None = None
    #: whether its producer is known to record tool executions: where it is not, a request that nothing
    #: carried out has an unknown outcome (``outcome_unknown``), not "not executed"
    executions_recorded: bool = True

    @property
    def executed(self) -> bool:
        """Whether a tool span, its result in the conversation, a handoff or a nested agent run shows
        that the call was carried out."""
        return self.execution is not None or self.handoff is not None or self.agent is not None

    @property
    def outcome_unknown(self) -> bool:
        """Not carried out as far as the trace shows, by a producer not known to record executions."""
        return not self.executions_recorded and not self.executed

    @property
    def start_ns(self) -> int:
        return self.model_call.start_ns if self.model_call is not None else 0

    def __repr__(self) -> str:
        state = (
            "executed"
            if self.executed
            else "not executed"
            if self.executions_recorded
            else "no execution recorded"
        )
        return f"ToolRequest({self.name!r}, arguments={self.arguments!r}, {state})"


@dataclass(eq=False, slots=True)
class Handoff:
    """Control passed from one agent to another (a handoff, a transfer, a delegation).

    ``from_agent`` and ``to_agent`` are agent names (None when the producer recorded none and it cannot
    be inferred); ``from_invocation`` is the invocation that handed off and ``to_invocation`` the one
    that took over, when the trace has it. ``span`` is the span that records the handoff (None when only
    the model's request, ``request``, shows it). ``arguments`` are what the handoff call carried (a
    message, the target's name).
    """

    from_agent: str | None
    to_agent: str | None
    call_id: str | None = None
    span: Span | None = None
    from_invocation: AgentInvocation | None = None
    to_invocation: AgentInvocation | None = None
    arguments: dict[str, Any] = field(default_factory=dict)
    request: ToolRequest | None = None
    dialect: str | None = None

    @property
    def start_ns(self) -> int:
        if self.span is not None:
            return self.span.start_ns
        return self.request.start_ns if self.request is not None else 0

    def __str__(self) -> str:
        return f"{self.from_agent or '?'} -> {self.to_agent or '?'}"

    def __repr__(self) -> str:
        return f"Handoff({self.from_agent!r} -> {self.to_agent!r})"


@dataclass(eq=False, slots=True)
class Retrieval:
    """A retrieval step: the query and the documents it returned (as text)."""

    query: str | None
    documents: tuple[str, ...] = ()
    agent: AgentInvocation | None = None
    span: Span | None = None
    dialect: str | None = None

    @property
    def start_ns(self) -> int:
        return self.span.start_ns if self.span is not None else 0


@lazy_fields("input", "output", "streamed_output")
@dataclass(eq=False, slots=True)
class AgentInvocation:
    """One run of an agent, with what it did itself and the agents it ran (``nested``)."""

    name: str
    span: Span
    parent: AgentInvocation | None = None
    nested: tuple[AgentInvocation, ...] = ()
    tool_executions: tuple[ToolExecution, ...] = ()
    model_calls: tuple[ModelCall, ...] = ()
    retrievals: tuple[Retrieval, ...] = ()
    input: Any = None
    output: Any = None
    status: str = "unknown"
    error: ErrorInfo | None = None
    finish_reason: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    dialect: str | None = None
    conversation_id: str | None = None
    #: every span that recorded this invocation (two instrumentation layers give two)
    spans: tuple[Span, ...] = field(default=())
    #: output assembled from streamed chunks when no final message was recorded
    streamed_output: str | None = None
    #: True for the stand-in invocation that holds work recorded outside any agent span
    implicit: bool = False
    #: the tool execution that started this invocation (an agent used as a tool), if any
    via_tool: ToolExecution | None = None
    #: the handoffs this invocation made, in start order
    handoffs: tuple[Handoff, ...] = ()
    #: the handoff that gave this invocation control, if any
    via_handoff: Handoff | None = None

    @property
    def duration_s(self) -> float | None:
        return self.span.duration_s

    @property
    def start_ns(self) -> int:
        return self.span.start_ns

    @property
    def failed(self) -> bool:
        return self.status == "failed"

    def walk(self) -> Iterator[AgentInvocation]:
        """This invocation and every nested one, depth first."""
        stack = [self]  # iterative: invocations may nest deeper than the recursion limit
        while stack:
            inv = stack.pop()
            yield inv
            stack.extend(reversed(inv.nested))

    def all_tool_executions(self) -> tuple[ToolExecution, ...]:
        """Tool executions of this invocation and of its nested invocations, in start order."""
        items = [t for inv in self.walk() for t in inv.tool_executions]
        items.sort(key=lambda t: t.start_ns)
        return tuple(items)

    def all_model_calls(self) -> tuple[ModelCall, ...]:
        """Model calls of this invocation and of its nested invocations, in start order."""
        items = [m for inv in self.walk() for m in inv.model_calls]
        items.sort(key=lambda m: m.start_ns)
        return tuple(items)

    def all_handoffs(self) -> tuple[Handoff, ...]:
        """Handoffs of this invocation and of its nested invocations, in start order."""
        items = [h for inv in self.walk() for h in inv.handoffs]
        items.sort(key=lambda h: h.start_ns)
        return tuple(items)

    def all_retrievals(self) -> tuple[Retrieval, ...]:
        items = [r for inv in self.walk() for r in inv.retrievals]
        items.sort(key=lambda r: r.start_ns)
        return tuple(items)

    def __repr__(self) -> str:
        return (
            f"AgentInvocation({self.name!r}, status={self.status!r}, tools={len(self.tool_executions)}, "
            f"model_calls={len(self.model_calls)}, nested={len(self.nested)})"
        )


@dataclass(eq=False, slots=True)
class Conversation:
    """The turns (top-level agent runs, in start order) that share one conversation id; ``id`` None
    holds the turns that record no conversation id."""

    id: str | None
    turns: tuple[AgentInvocation, ...] = ()

    def __repr__(self) -> str:
        return f"Conversation({self.id!r}, turns={len(self.turns)})"
