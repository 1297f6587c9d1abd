"""When a repeated test may stop before its last run: the settled verdict and Wald's sequential test.

A repeated test's verdict is a function of two counts: the runs that passed and the runs that counted
(skipped runs do not). `Rule` says how it is decided: by the pass rate (``passed / counted >=
min_pass_rate``, the default) or by the lower bound of the pass rate's interval (``interval``).

- `settled`: the verdict can no longer change, whatever the remaining runs do. The verdict only grows
  with passes and shrinks with failures, so it is enough to look at the two extreme endings (every
  remaining run passes, every one fails) and at the one where every remaining run is skipped. Stopping
  when it is settled gives the very verdict the full run gives: deterministic, with no error of its own.
- `Sprt`: Wald's sequential probability ratio test of "the pass probability is at most
  ``min_pass_rate - delta``" (a bad agent) against "it is at least ``min_pass_rate + delta``" (a good
  one). Each run adds ``log(p1 / p0)`` (a pass) or ``log((1 - p1) / (1 - p0))`` (a failure) to the log
  likelihood ratio; the test passes once it reaches ``log((1 - beta) / alpha)`` and fails once it falls
  to ``log(beta / (1 - alpha))``. Wald's bounds: a bad agent passes with probability at most about
  ``alpha / (1 - beta)``, a good one fails with probability at most about ``beta / (1 - alpha)``.
  Between the two hypotheses (the indifference zone) either verdict is acceptable. When the planned runs
  end before either boundary, the verdict falls back to the `Rule` (a truncated test).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from .binomial import INTERVALS, interval

__all__ = ["STOPS", "VERDICTS", "Decision", "Rule", "Sprt", "settled"]

#: the stop options of the repeat mark
STOPS = ("settled", "sprt")
#: the verdict options: the pass rate, or the interval's lower bound, against min_pass_rate
VERDICTS = ("rate", "interval")
_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Rule:
    """How a repeated test's verdict is decided from its counts."""

    min_pass_rate: float
    verdict: str = "rate"
    method: str = "clopper-pearson"
    confidence: float = 0.95

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict is one of {', '.join(VERDICTS)}, got {self.verdict!r}")
        if self.method not in INTERVALS:
            raise ValueError(f"interval is one of {', '.join(INTERVALS)}, got {self.method!r}")

    def ok(self, passed: int, counted: int) -> bool | None:
        """The verdict on ``passed`` of ``counted`` runs; None when no run counted."""
        if counted <= 0:
            return None
        if self.verdict == "rate":
            return passed >= self.min_pass_rate * counted - _TOLERANCE
        bounds = interval(self.method, passed, counted, self.confidence)
        return bounds is not None and bounds[0] >= self.min_pass_rate - _TOLERANCE


def settled(rule: Rule, passed: int, counted: int, remaining: int) -> bool | None:
    """The verdict when no outcome of the ``remaining`` runs can change it, else None."""
    now = rule.ok(passed, counted)
    if remaining <= 0:
        return now
    endings = (
        now,  # every remaining run skipped
        rule.ok(passed + remaining, counted + remaining),  # every one passes
        rule.ok(passed, counted + remaining),  # every one fails
    )
    first = endings[0]
    return first if first is not None and all(e == first for e in endings) else None


@dataclass(frozen=True)
class Decision:
    """Where a stop rule stopped: the verdict (None: it has not decided), after how many runs, and why."""

    ok: bool | None
    after: int
    reason: str


@dataclass(frozen=True)
class Sprt:
    """Wald's sequential probability ratio test around ``min_pass_rate`` (see the module docstring)."""

    min_pass_rate: float
    alpha: float = 0.05
    beta: float = 0.05
    delta: float = 0.1

    def __post_init__(self) -> None:
        for name in ("alpha", "beta", "delta"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 0.5:
                raise ValueError(f"{name} is a number strictly between 0 and 0.5, got {value!r}")

    @property
    def p0(self) -> float:
        """The pass probability of a bad agent (the test should fail)."""
        return max(self.min_pass_rate - self.delta, 0.0)

    @property
    def p1(self) -> float:
        """The pass probability of a good agent (the test should pass)."""
        return min(self.min_pass_rate + self.delta, 1.0)

    def steps(self) -> tuple[float, float]:
        """What a pass and what a failure add to the log likelihood ratio (infinite where one outcome
        is impossible under a hypothesis: a failure when p1 is 1 rules out a good agent at once)."""
        p0, p1 = self.p0, self.p1
        up = math.inf if p0 == 0.0 else math.log(p1 / p0)
        down = -math.inf if p1 == 1.0 else math.log((1.0 - p1) / (1.0 - p0))
        return up, down

    def bounds(self) -> tuple[float, float]:
        """The boundaries (fail at or below the first, pass at or above the second)."""
        return math.log(self.beta / (1.0 - self.alpha)), math.log((1.0 - self.beta) / self.alpha)

    def decide(self, outcomes: Iterable[bool | None]) -> Decision:
        """Run the test over outcomes in order (True passed, False failed, None skipped: not counted)."""
        up, down = self.steps()
        fail_at, pass_at = self.bounds()
        ratio = 0.0
        runs = 0
        for runs, outcome in enumerate(outcomes, 1):
            if outcome is None:
                continue
            ratio += up if outcome else down
            if ratio >= pass_at:
                return Decision(True, runs, self._reason("at least", self.p1))
            if ratio <= fail_at:
                return Decision(False, runs, self._reason("at most", self.p0))
        return Decision(None, runs, "")

    def _reason(self, side: str, p: float) -> str:
        return (
            f"sequential test (Wald SPRT, alpha {self.alpha:g}, beta {self.beta:g}): "
            f"the pass probability is {side} {p:.2f}"
        )
