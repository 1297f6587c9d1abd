"""Graded trajectory scores and what the agent says against what it did (docs/properties.md,
docs/evaluation.md). Every selection offers them."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from .._checks.names import NameLike
from .base import AsserterBase

if TYPE_CHECKING:
    from typing_extensions import Self

    from .._evaluation.trajectory import TrajectoryScore


__all__ = ["ClaimFamily", "TrajectoryFamily"]


class TrajectoryFamily(AsserterBase):
    """The run's tool calls scored against an expected trajectory; the scores are recorded on the test."""

    __slots__ = ()

    def trajectory_score(self, expected: Sequence[Any]) -> TrajectoryScore:
        """The scores (precision, recall, f1, order, arguments) of the selection's steps against
        ``expected`` (tool names or patterns, ``(name, arguments)`` pairs, ``ta.milestone``s), with the
        matched, missing and extra steps; each score is recorded (``trajectory:<metric>``)."""
        __tracebackhide__ = True
        from .._evaluation import trajectory_check as _trajectory

        return _trajectory.trajectory_score(self._state, expected)

    def has_trajectory_score(
        self,
        expected: Sequence[Any],
        *,
        metric: str = "f1",
        min_score: float = 1.0,
        message: str | None = None,
    ) -> Self:
        """The ``metric`` score (``"precision"``, ``"recall"``, ``"f1"``, ``"order"``, ``"arguments"``)
        of the selection's steps against ``expected`` is at least ``min_score``; every score is
        recorded, and a failure explains the number."""
        __tracebackhide__ = True
        from .._evaluation import trajectory_check as _trajectory

        return self._keep(
            _trajectory.has_trajectory_score(
                self._state, expected, metric=metric, min_score=min_score, message=message
            )
        )


class ClaimFamily(AsserterBase):
    """The final output against the trace: claims backed by tool calls, citations by tool results."""

    __slots__ = ()

    def has_claim_backed_by_tool(
        self,
        pattern: str | re.Pattern[str],
        tool_name: NameLike,
        args: Any = None,
        *,
        min_count: int = 1,
        message: str | None = None,
    ) -> Self:
        """Every match of ``pattern`` in the final output (at least ``min_count``) is backed by a
        successful call of ``tool_name`` whose arguments hold each named group's text under its name
        (``r"booked flight (?P<flight>\\w+)"`` needs ``flight``) and fit ``args``."""
        __tracebackhide__ = True
        from .._evaluation import claims as _claims

        return self._keep(
            _claims.has_claim_backed_by_tool(
                self._state, pattern, tool_name, args, min_count=min_count, message=message
            )
        )

    def has_output_backed_by_tool_results(
        self,
        *,
        numbers: bool = True,
        quotes: bool = True,
        ignore: Iterable[Any] = (),
        include_input: bool = False,
        message: str | None = None,
    ) -> Self:
        """Every number and quotation the final output cites appears in the result of a successful
        tool call (or a retrieved document) inside the selection, or with ``include_input=True`` in the
        run's input (the question); ``ignore`` lists values to skip."""
        __tracebackhide__ = True
        from .._evaluation import claims as _claims

        return self._keep(
            _claims.has_output_backed_by_tool_results(
                self._state,
                numbers=numbers,
                quotes=quotes,
                ignore=ignore,
                include_input=include_input,
                message=message,
            )
        )
