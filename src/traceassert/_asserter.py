"""TraceAsserter: the fluent asserter, composed of its groups of checks."""

from __future__ import annotations

from collections.abc import Iterable
from contextvars import Token
from types import TracebackType
from typing import Any, Generic, TypeVar

from ._capture import Capture
from ._checks.agents import AgentCallChecks
from ._checks.budget import BudgetChecks
from ._checks.handoffs import HandoffChecks
from ._checks.invocations import InvocationChecks
from ._checks.io import IOChecks
from ._checks.messages import combine
from ._checks.scope import ScopeChecks
from ._checks.selection import SOFT_COLLECTOR
from ._checks.spans import SpanChecks
from ._checks.tools import ToolCallChecks
from ._checks.turns import TurnChecks
from ._errors import TraceAssertionError
from ._evaluation.checks import EvalChecks
from ._golden.check import GoldenChecks
from ._trace import Trace

__all__ = ["TraceAsserter", "assert_trace", "soft"]


class TraceAsserter(
    SpanChecks,
    ToolCallChecks,
    AgentCallChecks,
    HandoffChecks,
    TurnChecks,
    ScopeChecks,
    IOChecks,
    BudgetChecks,
    InvocationChecks,
    EvalChecks,
    GoldenChecks,
):
    """Fluent checks over a Trace, a Capture (read live), or an iterable of spans.

    Selectors (``where``, ``has_attribute``, ``has_event``, ``has_scope``..., ``called_agent``,
    ``called_tool``, ``handed_off_to``) return a new asserter narrowed to their matches; every other
    check returns an asserter so checks chain. ``including_nested()`` / ``top_level_only()`` choose, for
    the checks after them, whether nested agents' work counts. A failing check raises
    ``TraceAssertionError`` at once (inside ``soft()``: at the end of the block, all failures together).
    """

    __slots__ = ()

    def __init__(self, source: Trace | Capture | Iterable[Any]) -> None:
        super().__init__(source)

    def __repr__(self) -> str:
        return f"TraceAsserter({self._describe_selection()})"

    def soft(self) -> _Soft[TraceAsserter]:
        """Run many checks; raise one TraceAssertionError listing every failure at the end.

        ``with trace_asserter.soft() as a: a.has_tool_executed(...); a.has_succeeded()``
        """
        return _Soft(self)


def assert_trace(source: Trace | Capture | Iterable[Any]) -> TraceAsserter:
    """The same as ``TraceAsserter(source)``."""
    return TraceAsserter(source)


T = TypeVar("T")


class _Soft(Generic[T]):
    """The context manager of ``soft()``: a class, so that no contextlib frame shows in tracebacks."""

    __slots__ = ("_failures", "_outer", "_token", "_value")

    def __init__(self, value: T) -> None:
        self._value = value
        self._failures: list[TraceAssertionError] = []
        self._outer: list[TraceAssertionError] | None = None
        self._token: Token[list[TraceAssertionError] | None] | None = None

    def __enter__(self) -> T:
        self._outer = SOFT_COLLECTOR.get()
        self._failures = []
        self._token = SOFT_COLLECTOR.set(self._failures)
        return self._value

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        __tracebackhide__ = True
        if self._token is not None:
            SOFT_COLLECTOR.reset(self._token)
            self._token = None
        failures = self._failures
        if not failures:
            return
        combined = combine(failures)
        if exc is not None:
            # another exception ends the block: keep the collected failures visible on it
            if hasattr(exc, "add_note"):
                exc.add_note(f"traceassert soft(): before this, {combined}")
            return
        if self._outer is not None:
            self._outer.append(combined)
            return
        raise combined


def soft() -> _Soft[None]:
    """Collect the failures of every check in the block and raise them together, as one
    TraceAssertionError listing every failure, at its end (``with ta.soft(): ...``)."""
    return _Soft(None)
