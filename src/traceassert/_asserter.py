"""TraceAsserter: the fluent asserter, composed of its groups of checks."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from ._capture import Capture
from ._checks_budget import BudgetChecks
from ._checks_eval import EvalChecks
from ._checks_invocations import InvocationChecks
from ._checks_io import IOChecks
from ._checks_spans import SpanChecks
from ._errors import TraceAssertionError
from ._selection import SOFT_COLLECTOR
from ._trace import Trace

__all__ = ["TraceAsserter", "assert_trace", "soft"]


class TraceAsserter(SpanChecks, IOChecks, BudgetChecks, InvocationChecks, EvalChecks):
    """Fluent checks over a Trace, a Capture (read live), or an iterable of spans.

    Selectors (``where``, ``has_attribute``, ``has_event``, ``has_scope``..., ``called_agent``,
    ``called_tool``) return a new asserter narrowed to their matches; every other check returns an
    asserter so checks chain. A failing check raises ``TraceAssertionError`` at once (inside
    ``soft()``: at the end of the block, all failures together).
    """

    __slots__ = ()

    def __init__(self, source: Trace | Capture | Iterable[Any]) -> None:
        super().__init__(source)

    def __repr__(self) -> str:
        return f"TraceAsserter({self._describe_selection()})"

    @contextmanager
    def soft(self) -> Iterator[TraceAsserter]:
        """Run many checks; raise one TraceAssertionError listing every failure at the end."""
        with soft():
            yield self


def assert_trace(source: Trace | Capture | Iterable[Any]) -> TraceAsserter:
    """The same as ``TraceAsserter(source)``."""
    return TraceAsserter(source)


@contextmanager
def soft() -> Iterator[None]:
    """Collect the failures of every check in the block and raise them together at its end."""
    __tracebackhide__ = True
    outer = SOFT_COLLECTOR.get()
    failures: list[TraceAssertionError] = []
    token = SOFT_COLLECTOR.set(failures)
    try:
        yield
    finally:
        SOFT_COLLECTOR.reset(token)
    if not failures:
        return
    if len(failures) == 1:
        combined = failures[0]
    else:
        parts = [f"{len(failures)} checks failed:"]
        for i, err in enumerate(failures, 1):
            text = str(err)
            head, sep, _tree = text.partition("\ninvocation tree:\n")
            parts.append(f"--- failure {i} ---\n{head if sep else text}")
        tree = str(failures[-1]).partition("\ninvocation tree:\n")[2]
        if tree:
            parts.append("invocation tree:\n" + tree)
        combined = TraceAssertionError("\n".join(parts))
    if outer is not None:
        outer.append(combined)
        return
    raise combined
