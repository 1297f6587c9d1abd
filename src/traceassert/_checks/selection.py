"""The asserter's state: where its spans come from, what it has selected, and how checks fail."""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterable, Sequence
from os import PathLike
from typing import TYPE_CHECKING, Any, Literal

from .._capture import Capture
from .._common.gcpause import gc_paused
from .._common.redact import redact_text, redacting, shown
from .._errors import TraceAssertionError, TraceCaptureError
from .._model.records import AgentInvocation, ModelCall, ToolExecution
from .._model.span import Span
from .._render import describe_tool, render_lines
from .._trace import Trace
from .messages import KEEP_LISTED, compose
from .nesting import outermost, span_owners

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["SOFT_COLLECTOR", "SelectionBase", "check_counts"]

SelKind = Literal["spans", "agents", "tools"]

#: the failures collected by an active ``soft()`` block, or None outside one
SOFT_COLLECTOR: contextvars.ContextVar[list[TraceAssertionError] | None] = contextvars.ContextVar(
    "traceassert_soft", default=None
)


def check_counts(count: int | None, min_count: int | None, max_count: int | None) -> None:
    """Reject impossible count arguments at once: TypeError for a wrong type, ValueError for a
    negative count or an impossible combination."""
    for label, value in (("count", count), ("min_count", min_count), ("max_count", max_count)):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{label} must be an int, got {value!r}")
        if value < 0:
            raise ValueError(f"{label} must be >= 0, got {value}")
    if count is not None and (min_count is not None or max_count is not None):
        raise ValueError("give either count= or min_count=/max_count=, not both")
    if min_count is not None and max_count is not None and min_count > max_count:
        raise ValueError(f"min_count ({min_count}) is greater than max_count ({max_count})")


def count_ok(n: int, count: int | None, min_count: int | None, max_count: int | None) -> bool:
    if count is not None:
        return n == count
    if min_count is None and max_count is None:
        return n >= 1
    if min_count is not None and n < min_count:
        return False
    return not (max_count is not None and n > max_count)


def count_text(count: int | None, min_count: int | None, max_count: int | None) -> str:
    if count is not None:
        return f"exactly {count}"
    if min_count is not None and max_count is not None:
        return f"between {min_count} and {max_count}"
    if min_count is not None:
        return f"at least {min_count}"
    if max_count is not None:
        return f"at most {max_count}"
    return "at least 1"


class SelectionBase:
    """State shared by every group of checks. Made by ``TraceAsserter(source)``."""

    __slots__ = (
        "_agents",
        "_capture",
        "_comparer",
        "_evaluation",
        "_kind",
        "_nested",
        "_positions",
        "_roots",
        "_snapshot",
        "_tools",
    )

    def __init__(self, source: Trace | Capture | Iterable[Any]) -> None:
        self._capture: Capture | None = None
        self._snapshot: Trace | None = None
        if isinstance(source, Capture):
            self._capture = source
        elif isinstance(source, Trace):
            self._snapshot = source
        elif isinstance(source, SelectionBase):
            self._capture = source._capture
            self._snapshot = source._snapshot
        elif isinstance(source, str | bytes | PathLike) or not isinstance(source, Iterable):
            hint = (
                " (to check a trace file, pass ta.load_trace(path))"
                if isinstance(source, str | PathLike)
                else ""
            )
            kind = type(source).__name__
            raise TypeError(
                f"TraceAsserter takes a Trace, a Capture or an iterable of spans, not {kind}{hint}"
            )
        else:
            self._snapshot = Trace(source)
        self._kind: SelKind = "spans"
        #: positions of the selected spans in trace.spans; None = every span (or: not computed yet)
        self._positions: tuple[int, ...] | None = None
        #: when set, the selection is these spans' subtrees (positions computed on first need)
        self._roots: tuple[Span, ...] | None = None
        self._agents: tuple[AgentInvocation, ...] | None = None
        self._tools: tuple[ToolExecution, ...] | None = None
        self._comparer: Any = None
        self._evaluation: Any = None
        #: None (not chosen), "nested" or "top"
        self._nested: str | None = None

    # -- source ------------------------------------------------------------------------------------

    @property
    def trace(self) -> Trace:
        """The trace checked: for an unnarrowed asserter on a Capture, what was captured so far."""
        if self._snapshot is not None:
            return self._snapshot
        assert self._capture is not None
        replaced = self._capture.check_provider()
        if replaced is not None:
            # spans sent to the new provider are lost: say so instead of checking an incomplete trace
            raise TraceCaptureError(replaced)
        return self._capture.trace()

    def _derive(
        self,
        kind: SelKind,
        positions: tuple[int, ...] | None,
        agents: tuple[AgentInvocation, ...] | None = None,
        tools: tuple[ToolExecution, ...] | None = None,
        roots: tuple[Span, ...] | None = None,
    ) -> Self:
        new = object.__new__(type(self))
        new._capture = self._capture
        new._snapshot = self.trace  # a narrowed selection keeps the trace it was made from
        new._kind = kind
        new._positions = positions
        new._roots = roots
        new._agents = agents
        new._tools = tools
        new._comparer = self._comparer
        new._evaluation = self._evaluation
        new._nested = self._nested
        return new

    def _copy(self) -> Self:
        new = self._derive(self._kind, self._positions, self._agents, self._tools, self._roots)
        new._snapshot = self._snapshot
        return new

    def _selected_positions(self) -> tuple[int, ...] | None:
        """Positions of the selected spans (None: every span)."""
        if self._positions is None and self._roots is not None:
            self._positions = self._subtree_positions(self._roots)
        return self._positions

    # -- what is selected ----------------------------------------------------------------------------

    def selected_spans(self) -> list[Span]:
        """The spans in the selection, in start order (after ``top_level_only()``: without the spans
        of nested agents)."""
        trace = self.trace
        positions = self._top_positions() if self._nested == "top" else self._selected_positions()
        if positions is None:
            return list(trace.spans)
        spans = trace.spans
        return [spans[i] for i in positions]

    @property
    def spans(self) -> list[Span]:
        return self.selected_spans()

    def _position_set(self) -> frozenset[int] | None:
        positions = self._top_positions() if self._nested == "top" else self._selected_positions()
        return None if positions is None else frozenset(positions)

    @property
    def narrowed(self) -> bool:
        """True when the selection is not the whole trace (``top_level_only()`` narrows it too)."""
        return (
            self._kind != "spans"
            or self._positions is not None
            or self._roots is not None
            or self._nested == "top"
        )

    # -- nesting -------------------------------------------------------------------------------------

    def _principals(self) -> list[AgentInvocation]:
        """The invocations whose own work ``top_level_only()`` keeps: after ``called_agent``, those
        selected; after ``called_tool``, the agents that made the calls; after a span selector, the
        outermost agents whose work the spans are; else the top-level invocations."""
        if self._agents is not None:
            return list(self._agents)
        if self._tools is not None:
            return list({id(t.agent): t.agent for t in self._tools if t.agent is not None}.values())
        trace = self.trace
        positions = self._selected_positions()
        if positions is None:
            return list(trace.agents)
        owners = span_owners(trace)
        return outermost(inv for i in positions if (inv := owners[i]) is not None)

    def _top_positions(self) -> tuple[int, ...]:
        """The selected positions without the spans of agents nested below the principals."""
        trace = self.trace
        owners = span_owners(trace)
        ids = {id(p) for p in self._principals()}
        positions = self._selected_positions()
        candidates = range(len(trace.spans)) if positions is None else positions
        return tuple(i for i in candidates if (inv := owners[i]) is None or id(inv) in ids)

    def _with_nested(self) -> Self:
        """This selection with nested agents included, whatever ``top_level_only()`` said."""
        if self._nested != "top":
            return self
        new = self._copy()
        new._nested = None
        return new

    def selected_tools(self) -> list[ToolExecution]:
        """Tool executions in the selection (after ``called_tool``: those executions)."""
        if self._tools is not None:
            return list(self._tools)
        trace = self.trace
        if self._agents is not None:
            out: list[ToolExecution] = []
            for inv in self._agents:
                out.extend(inv.tool_executions if self._nested == "top" else inv.all_tool_executions())
            return out
        return self._in_selection(trace.tool_executions)

    def selected_model_calls(self) -> list[ModelCall]:
        if self._agents is not None:
            seen: dict[int, ModelCall] = {}
            for inv in self._agents:
                for call in inv.model_calls if self._nested == "top" else inv.all_model_calls():
                    seen.setdefault(id(call), call)
            return list(seen.values())
        return self._in_selection(self.trace.model_calls)

    def selected_agents(self) -> list[AgentInvocation]:
        """Agent invocations in the selection (after ``called_agent``: those invocations)."""
        if self._agents is not None:
            return list(self._agents)
        agents = self.trace.all_agents()
        return [a for a in self._in_selection(agents) if not a.implicit]

    def _in_selection(self, records: Sequence[Any]) -> list[Any]:
        pos = self._position_set()
        if pos is None:
            return list(records)
        trace = self.trace
        out = []
        for rec in records:
            spans = getattr(rec, "spans", None) or (rec.span,)
            for s in spans:
                if s is not None and trace.contains(s) and trace._position_of(s) in pos:
                    out.append(rec)
                    break
        return out

    def _subtree_positions(self, roots: Iterable[Span]) -> tuple[int, ...]:
        trace = self.trace
        pos: set[int] = set()
        for root in roots:
            if not trace.contains(root):
                continue
            pos.add(trace._position_of(root))
            pos.update(trace._position_of(s) for s in trace.descendants(root))
        return tuple(sorted(pos))

    # -- failing -------------------------------------------------------------------------------------

    def _describe_selection(self) -> str:
        if self._kind == "tools":
            return f"the {len(self._tools or ())} selected tool execution(s)"
        if self._kind == "agents":
            names = sorted({a.name for a in self._agents or ()})
            return f"the selected agent invocation(s) {', '.join(names)}"
        positions = self._selected_positions()
        if positions is None:
            return "the whole trace"
        return f"the {len(positions)} selected span(s)"

    def _fail(self, check: str, problem: str, *, message: str | None = None, details: str = "") -> None:
        """Raise (or, inside ``soft()``, record) a TraceAssertionError with the full story."""
        __tracebackhide__ = True
        trace = self.trace
        parts: list[str] = []
        if message:
            parts.append(message)
        if redacting():
            # what the checks list of the trace (values, inputs, attributes) is shown like the tree:
            # secrets redacted; the user's own ``message`` is theirs
            problem, details = redact_text(problem), redact_text(details)
        parts.append(f"{check}: {problem}")
        parts.append(f"checked: {self._describe_selection()}")
        if details:
            parts.append(details.rstrip())
        hint = self._capture.diagnosis() if self._capture is not None and not trace.spans else None
        if hint:
            parts.append(f"hint: {hint}")
        open_spans = trace.unfinished
        note = ""
        if open_spans:
            names = ", ".join(repr(shown(s.name)) for s in open_spans[:10])
            note = f"note: {len(open_spans)} span(s) had not ended when checked: {names}"

        def head(limit: int | None) -> list[str]:
            return [*parts, _tool_listing(trace, limit), *([note] if note else [])]

        # the short text lists the first tools and shows part of the tree: neither is made whole for it
        with gc_paused():  # one small object a record: the collector would walk the heap again and again
            err = compose(head(KEEP_LISTED), render_lines(trace), full_head=lambda: head(None))
        collector = SOFT_COLLECTOR.get()
        if collector is not None:
            collector.append(err)
            return
        raise err


def _tool_listing(trace: Trace, limit: int | None = None) -> str:
    """Every tool execution, one a line; after ``limit`` of them, the rest as a count."""
    tools = trace.tool_executions
    if not tools:
        return "tool executions: none recorded"
    lines = [f"tool executions ({len(tools)}):"]
    for i, tool in enumerate(tools[:limit], 1):
        agent = f" [agent {tool.agent.name}]" if tool.agent is not None and not tool.agent.implicit else ""
        lines.append(f"  {i}. {describe_tool(tool)}{agent}")
    if limit is not None and len(tools) > limit:
        lines.append(f"  ... {len(tools) - limit} more")
    return "\n".join(lines)


Predicate = Callable[[Span], bool]
