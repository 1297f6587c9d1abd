"""Regression gates: a run's tokens, duration and scores against the history of the same test.

``@pytest.mark.traceassert_gate("tokens", "duration", "score:NAME", alpha=0.05, ...)`` fails a test only
on a significant change: the rank-sum test (`significance`) of the new run (or the runs of a repeated
test) against the passing runs of the same test in the history, one-sided in the direction that is a
regression (more tokens, a longer call, a lower score; ``directions`` changes it). Where the history is
too short for the test to ever reject, or a value was not recorded, the gate's answer is "cannot tell":
a warning and a line in the summary, or a failure with ``strict=True``. It never passes silently.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from statistics import median
from typing import Any

from .significance import history_needed, rank_sum_test

__all__ = ["GATE_MARK", "GateSpec", "gate_args", "judge", "run_value"]

GATE_MARK = "traceassert_gate"
#: which change of a metric fails the gate, unless ``directions`` says otherwise
DIRECTIONS = {"increase": "greater", "decrease": "less", "change": "two-sided"}
_WORDS = {"increase": "rose", "decrease": "fell", "change": "changed"}
_KNOWN = {"alpha", "min_history", "window", "strict", "directions"}


@dataclass(frozen=True)
class GateSpec:
    """A gate mark's arguments, checked."""

    metrics: tuple[str, ...]
    alpha: float = 0.05
    min_history: int = 5
    window: int = 50
    strict: bool = False
    directions: Mapping[str, str] = field(default_factory=dict)

    def direction(self, metric: str) -> str:
        given = self.directions.get(metric)
        if given is not None:
            return given
        return "decrease" if metric.startswith("score:") else "increase"


def _is_metric(metric: Any) -> bool:
    return isinstance(metric, str) and (
        metric in ("tokens", "duration") or (metric.startswith("score:") and len(metric) > 6)
    )


def gate_args(args: Sequence[Any], kwargs: Mapping[str, Any]) -> GateSpec:
    """The `GateSpec` of a ``traceassert_gate`` mark (TypeError / ValueError naming the bad argument)."""
    unknown = sorted(set(kwargs) - _KNOWN)
    if unknown:
        raise TypeError(f"{GATE_MARK} got unexpected argument(s) {', '.join(unknown)}")
    metrics = tuple(args)
    if not metrics or not all(_is_metric(m) for m in metrics):
        raise ValueError(
            f"{GATE_MARK} takes the metrics to gate: 'tokens', 'duration' or 'score:NAME', got {metrics!r}"
        )
    alpha = kwargs.get("alpha", 0.05)
    if isinstance(alpha, bool) or not isinstance(alpha, int | float) or not 0 < alpha < 1:
        raise ValueError(f"{GATE_MARK}: alpha must be a number strictly between 0 and 1, got {alpha!r}")
    sizes = {name: kwargs.get(name, default) for name, default in (("min_history", 5), ("window", 50))}
    for name, value in sizes.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{GATE_MARK}: {name} must be an int >= 1, got {value!r}")
    strict = kwargs.get("strict", False)
    if not isinstance(strict, bool):
        raise ValueError(f"{GATE_MARK}: strict must be True or False, got {strict!r}")
    directions = kwargs.get("directions", {})
    if not isinstance(directions, Mapping) or not all(
        k in metrics and v in DIRECTIONS for k, v in directions.items()
    ):
        raise ValueError(
            f"{GATE_MARK}: directions maps gated metrics to {', '.join(map(repr, DIRECTIONS))}, "
            f"got {directions!r}"
        )
    return GateSpec(metrics, float(alpha), sizes["min_history"], sizes["window"], strict, dict(directions))


def run_value(metric: str, run: Mapping[str, Any]) -> float | None:
    """A run's value of ``metric`` (None when the run did not record it): ``tokens`` (total), ``duration``
    (the call phase, seconds), ``score:NAME`` (the mean of the numeric values of that score)."""
    if metric == "tokens":
        tokens = run.get("tokens")
        value = tokens.get("total") if isinstance(tokens, Mapping) else tokens
    elif metric == "duration":
        value = run.get("call_s")
    else:
        name = metric[len("score:") :]
        values = [
            float(s["value"])
            for s in run.get("scores") or ()
            if s.get("name") == name and isinstance(s.get("value"), int | float)
        ]
        value = sum(values) / len(values) if values else None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def _num(metric: str, value: float) -> str:
    if metric == "duration":
        return f"{value:.3f} s"
    return f"{value:.4g}" if metric.startswith("score:") else f"{value:.0f}"


def judge(
    spec: GateSpec,
    metric: str,
    new: Sequence[float | None],
    history: Sequence[float] | None,
    missing: str = "",
) -> dict[str, Any]:
    """The gate's result on ``metric``: ``new`` (one value per new run; None where not recorded) against
    ``history`` (None: no history at all, ``missing`` says why)."""
    direction = spec.direction(metric)
    out: dict[str, Any] = {
        "metric": metric,
        "direction": direction,
        "alpha": spec.alpha,
        "test": None,
        "p_value": None,
        "new": list(new),
        "history_n": 0 if history is None else len(history),
    }

    def cannot_tell(why: str) -> dict[str, Any]:
        out.update(verdict="cannot tell", text=f"{metric}: cannot tell: {why}")
        return out

    values = [v for v in new if v is not None]
    if not values:
        return cannot_tell(f"the run recorded no {metric.replace('score:', 'score ')}")
    if history is None:
        return cannot_tell(missing or "no history")
    m = len(history)
    if m < spec.min_history:
        return cannot_tell(f"{m} run(s) of history, fewer than min_history={spec.min_history}")
    if len({*values, *history}) == 1:  # no test needed: nothing changed at all
        out.update(
            verdict="passed",
            text=f"{metric}: no change: each of the {len(values)} new and {m} past run(s) has "
            f"{_num(metric, values[0])}",
        )
        return out
    result = rank_sum_test(values, history, DIRECTIONS[direction])
    out.update(
        test=result.name,
        p_value=result.p_value,
        history_median=median(history),
        new_median=median(values),
    )
    where = (
        f"median {_num(metric, median(values))} of {len(values)} new run(s) against "
        f"{_num(metric, median(history))} in {m} run(s) of history"
    )
    if result.min_p_value > spec.alpha:
        needed = history_needed(len(values), spec.alpha, direction == "change")
        return cannot_tell(
            f"{where}: with this history the smallest p-value {result.name} can reach is "
            f"{result.min_p_value:.3g} > alpha {spec.alpha:g} (about {needed} runs of history needed)"
        )
    failed = result.p_value <= spec.alpha
    comparison = f"<= alpha {spec.alpha:g}" if failed else f"> alpha {spec.alpha:g}"
    head = f"{metric} {_WORDS[direction]}" if failed else metric
    out.update(
        verdict="failed" if failed else "passed",
        text=f"{head}: {where}; {result.name} p={result.p_value:.3g} {comparison}",
    )
    return out
