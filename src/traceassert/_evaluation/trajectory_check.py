"""Trajectory scores of a selection (``trajectory``), recorded and checked.

``trajectory_score(expected)`` scores the selection's steps (its tool calls in start order, as the rules
over a run read them) and records every score (``trajectory:precision``, ``:recall``, ``:f1``,
``:order``, ``:arguments``, with the pairs, missing and extra steps as details) on the running test: they
reach the report, the terminal summary and the runs of ``traceassert_repeat``. ``has_trajectory_score``
records them too, and fails when the score of ``metric`` is below ``min_score``, with the explanation.
A selection with no step cannot tell.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from .._checks.describe import as_python
from .._checks.fail import fail, fail_now
from .._checks.rules.steps import no_steps, steps_of
from .._checks.selection import Selection
from .results import record_score
from .trajectory import METRICS, TrajectoryScore, expected_steps, score_trajectory

__all__ = ["has_trajectory_score", "trajectory_score"]


def _record(score: TrajectoryScore, checked: str | None = None, passed: bool | None = None) -> None:
    details = score.to_dict()
    for metric in METRICS:
        record_score(
            f"trajectory:{metric}",
            score.value(metric),
            passed=passed if metric == checked else None,
            **details,
        )


def _text(expected: Sequence[Any]) -> str:
    return as_python(list(expected))


def trajectory_score(sel: Selection, expected: Sequence[Any]) -> TrajectoryScore:
    """The scores of the selection's steps against ``expected``, recorded on the running test."""
    __tracebackhide__ = True
    wanted = expected_steps(expected, "trajectory_score")
    steps = steps_of(sel)
    if not steps.tools:
        check = f"trajectory_score({_text(expected)})"
        fail_now(
            sel,
            check,
            "cannot score: the selection records no tool execution, so the run's steps are not in the trace",
        )
    score = score_trajectory(wanted, steps.tools)
    _record(score)
    return score


def has_trajectory_score(
    sel: Selection,
    expected: Sequence[Any],
    *,
    metric: str = "f1",
    min_score: float = 1.0,
    message: str | None = None,
) -> Selection:
    """The ``metric`` score of the selection's steps against ``expected`` is at least ``min_score``."""
    __tracebackhide__ = True
    if metric not in METRICS:
        raise ValueError(f"unknown trajectory metric {metric!r}; use one of {', '.join(METRICS)}")
    if isinstance(min_score, bool) or not isinstance(min_score, int | float) or not 0 <= min_score <= 1:
        raise ValueError(f"min_score must be a number between 0 and 1, got {min_score!r}")
    wanted = expected_steps(expected, "has_trajectory_score")
    options = [f"metric={metric!r}"] if metric != "f1" else []
    if min_score != 1.0:
        options.append(f"min_score={min_score}")
    check = f"has_trajectory_score({', '.join([_text(expected), *options])})"
    expected_text = f"expected a trajectory {metric} score of at least {min_score}"
    steps = steps_of(sel)
    if no_steps(sel, check, steps, expected_text, message):
        return sel
    score = score_trajectory(wanted, steps.tools)
    value = score.value(metric)
    ok = value >= min_score or math.isclose(value, min_score)
    _record(score, metric, ok)
    if not ok:
        lines = score.explanation().splitlines()
        fail(
            sel,
            check,
            f"{expected_text}, found {value:.3f}; {lines[0]}",
            message=message,
            details="\n".join(lines[1:]),
        )
    return sel
