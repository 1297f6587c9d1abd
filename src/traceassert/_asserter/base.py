"""What every asserter type shares: the selection value it is a face of, the records it holds, the
nesting choice, ``soft()``, and how a check's new selection becomes an asserter of the right type."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterable
from types import FunctionType
from typing import TYPE_CHECKING, Any, ClassVar, Literal, overload

from .._checks.examined import CURRENT
from .._checks.examining import Examining
from .._checks.selection import Selection, SelKind, selection_of
from .._model.records import AgentInvocation, ModelCall, ToolExecution
from .._model.span import Span
from .._trace import Trace
from .soft import Soft

if TYPE_CHECKING:
    from typing_extensions import Self

    from .._capture import Capture
    from .._checks.coverage import Coverage
    from .._receive import Receiver
    from .types import AgentSelection, ToolSelection, TraceAsserter

__all__ = ["AsserterBase"]


def _examined(method: Callable[..., Any]) -> Callable[..., Any]:
    """``method`` (a public method of a family) run as one check: what it examines is kept in the
    ledger (``_checks.examining``). A check called by another check is part of it."""
    name = method.__name__

    @functools.wraps(method)
    def check(self: AsserterBase, *args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True
        if CURRENT.get() is not None:
            return method(self, *args, **kwargs)

        def widened() -> object:
            return method(self.including_nested(), *args, **kwargs)

        with Examining(self._state, name, args, kwargs, sys._getframe(1), widened):
            return method(self, *args, **kwargs)

    return check


class AsserterBase:
    """A face over one frozen ``Selection``: each check reads it, and a selector or choice returns a
    new asserter over a new selection."""

    __slots__ = ("_state",)

    _state: Selection

    #: the asserter type of each kind of selection (filled in by ``types``)
    _kinds: ClassVar[dict[str, type[AsserterBase]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Every public method a family (or asserter type) defines runs as one check whose examined
        records are kept (``_examined``): a new check marks what it reads without doing anything."""
        super().__init_subclass__(**kwargs)
        for name, member in list(vars(cls).items()):
            if not name.startswith("_") and isinstance(member, FunctionType):
                setattr(cls, name, _examined(member))

    def __init__(self, source: Trace | Capture | Receiver | Iterable[Any]) -> None:
        if isinstance(source, AsserterBase):
            # a new asserter over the same source: the whole trace, no choices
            self._state = Selection(capture=source._state.capture, snapshot=source._state.snapshot)
        else:
            self._state = selection_of(source)

    @classmethod
    def _of(cls, state: Selection) -> Self:
        new = object.__new__(cls)
        new._state = state
        return new

    def _keep(self, state: Selection) -> Self:
        """The asserter for a check's result: this one when the selection did not change."""
        return self if state is self._state else type(self)._of(state)

    @overload
    def _narrowed(self, kind: Literal["spans"], state: Selection) -> TraceAsserter: ...
    @overload
    def _narrowed(self, kind: Literal["agents"], state: Selection) -> AgentSelection: ...
    @overload
    def _narrowed(self, kind: Literal["tools"], state: Selection) -> ToolSelection: ...
    def _narrowed(self, kind: SelKind, state: Selection) -> AsserterBase:
        """The asserter of a selector's result: the type that offers the checks of ``kind``."""
        return self._kinds[kind]._of(state)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._state.describe()})"

    # -- what is selected ----------------------------------------------------------------------------

    @property
    def trace(self) -> Trace:
        """The trace checked: for an unnarrowed asserter on a Capture, what was captured so far."""
        return self._state.trace

    @property
    def spans(self) -> list[Span]:
        """The same as ``selected_spans()``."""
        return self._state.selected_spans()

    @property
    def narrowed(self) -> bool:
        """True when the selection is not the whole trace (``top_level_only()`` narrows it too)."""
        return self._state.narrowed

    def selected_spans(self) -> list[Span]:
        """The spans in the selection, in start order (after ``top_level_only()``: without the spans
        of nested agents)."""
        return self._state.selected_spans()

    def selected_tools(self) -> list[ToolExecution]:
        """The tool executions in the selection, failed ones included (after ``called_tool``: those
        executions). The raw record list: no nesting choice is asked for, nothing is marked."""
        return self._state.selected_tools()

    def selected_model_calls(self) -> list[ModelCall]:
        """The model calls in the selection (after ``called_agent``: those the invocations made)."""
        return self._state.selected_model_calls()

    def selected_agents(self) -> list[AgentInvocation]:
        """The agent invocations in the selection (after ``called_agent``: those invocations)."""
        return self._state.selected_agents()

    # -- choices -------------------------------------------------------------------------------------

    def including_nested(self) -> Self:
        """A new asserter whose checks look at the whole tree: the invocation and every invocation it
        started, directly or not. Their tool executions, model calls, handoffs and sources add up.

        For the Monocle-style checks (``called_tool``, ``does_not_call_tool``, ``under_token_limit``,
        ...) this is the default; the invocation checks ask for a choice when nested agents exist."""
        return type(self)._of(self._state.choose(nested="nested"))

    def top_level_only(self) -> Self:
        """A new asserter whose checks look only at what the selection's invocations did themselves,
        not at the invocations they started: for the invocation checks and for the Monocle-style
        checks after it (tools, agents, handoffs, tokens, inputs/outputs, spans)."""
        return type(self)._of(self._state.choose(nested="top"))

    def accepting_unknown_outcomes(self) -> Self:
        """A new asserter whose checks accept tool calls of unknown outcome: calls the model asked for
        whose execution and result the trace does not record (a producer that writes no tool spans).
        Without it, a check such a call could change (``does_not_call_tool``,
        ``has_no_failed_tool_executions``, a count with an upper bound, ...) fails with "cannot tell";
        with it, the calls are left out, as if they never ran."""
        return type(self)._of(self._state.choose(unknown_outcomes="accept"))

    def coverage(self) -> Coverage:
        """What the checks made so far on this trace (through any asserter of it, or of its Capture)
        examined: the agents, tool executions, model calls and handoffs no check looked at, and the
        checks that passed vacuously (docs/coverage.md)."""
        from .._checks.coverage import coverage_of

        return coverage_of(self._state.trace)

    def soft(self) -> Soft[Self]:
        """Run many checks; raise one TraceAssertionError listing every failure at the end.

        ``with trace_asserter.soft() as a: a.has_tool_executed(...); a.has_succeeded()``
        """
        return Soft(self)
