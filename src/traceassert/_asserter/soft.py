"""``soft()``: collect the failures of a block of checks and raise them together at its end."""

from __future__ import annotations

from contextvars import Token
from types import TracebackType
from typing import Generic, TypeVar

from .._checks.fail import SOFT_COLLECTOR
from .._checks.messages import combine
from .._errors import TraceAssertionError

__all__ = ["Soft", "soft"]

T = TypeVar("T")


class Soft(Generic[T]):
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


def soft() -> Soft[None]:
    """Collect the failures of every check in the block and raise them together, as one
    TraceAssertionError listing every failure, at its end (``with ta.soft(): ...``)."""
    return Soft(None)
