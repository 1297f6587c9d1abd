"""Estimators of a repeated test's pass probability: intervals, pass^k and pass@k (standard library only).

- `clopper_pearson`: the exact interval. Its coverage is at least the confidence asked for, at every
  true pass probability and every number of runs (it is conservative: often wider than needed). Its
  bounds are quantiles of beta distributions, found here by bisection on the regularized incomplete
  beta function (`betainc`, a continued fraction).
- `wilson`: the score interval: narrower, its coverage is near the confidence asked for on average but
  dips below it for some pass probabilities when runs are few.
- `pass_hat_k` (all of k runs pass) and `pass_at_k` (at least one of k passes): the unbiased estimators
  from n runs of which c passed, ``C(c, k) / C(n, k)`` and ``1 - C(n - c, k) / C(n, k)``: the chance
  that k runs drawn without replacement from the n all pass, or not all fail.

Nothing here raises on a count of zero runs: the functions that cannot tell return None.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from statistics import NormalDist

__all__ = [
    "INTERVALS",
    "beta_quantile",
    "betainc",
    "bound_text",
    "clopper_pearson",
    "interval",
    "pass_at_k",
    "pass_hat_k",
    "wilson",
]

#: the interval methods, by the name the repeat mark and the report use
INTERVALS = ("clopper-pearson", "wilson")

_TINY = 1e-300
_EPS = 1e-15


def _check_counts(passed: int, n: int) -> None:
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (passed, n)):
        raise TypeError(f"counts are ints, got passed={passed!r}, n={n!r}")
    if n < 0 or not 0 <= passed <= n:
        raise ValueError(f"need 0 <= passed <= n, got passed={passed}, n={n}")


def _check_confidence(confidence: float) -> None:
    if isinstance(confidence, bool) or not isinstance(confidence, int | float) or not 0 < confidence < 1:
        raise ValueError(f"confidence is a number strictly between 0 and 1, got {confidence!r}")


def _continued_fraction(x: float, a: float, b: float) -> float:
    """The continued fraction of I_x(a, b) (modified Lentz), good for x < (a + 1) / (a + b + 2)."""
    c = 1.0
    d = 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    value = d
    for m in range(1, 10_000):
        # the even step: m (b - m) x / ((a + 2m - 1)(a + 2m));
        # the odd one: -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1))
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + numerator / c
            c = c if abs(c) > _TINY else _TINY
            step = c * d
            value *= step
        if abs(step - 1.0) < _EPS:
            break
    return value


def betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b), for a, b > 0 and 0 <= x <= 1."""
    if not (a > 0 and b > 0) or not 0.0 <= x <= 1.0:
        raise ValueError(f"betainc needs a, b > 0 and 0 <= x <= 1, got a={a}, b={b}, x={x}")
    if x == 0.0 or x == 1.0:
        return x
    log_front = a * math.log(x) + b * math.log1p(-x) - (math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _continued_fraction(x, a, b) / a
    return 1.0 - math.exp(log_front) * _continued_fraction(1.0 - x, b, a) / b


def beta_quantile(q: float, a: float, b: float) -> float:
    """The x with I_x(a, b) = q (the q-quantile of a Beta(a, b) distribution): Newton steps on
    `betainc` kept inside a bracket that bisection narrows whenever a step would leave it."""
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"a quantile's level is in [0, 1], got {q}")
    if q in (0.0, 1.0):
        return q
    log_beta = math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
    low, high = 0.0, 1.0
    x = a / (a + b)  # the mean: a start inside the bracket
    for _ in range(200):
        error = betainc(a, b, x) - q
        if error == 0.0:
            return x
        if error < 0.0:
            low = x
        else:
            high = x
        if high - low <= 4e-16 * max(high, 1e-300):
            break
        density = math.exp((a - 1.0) * math.log(x) + (b - 1.0) * math.log1p(-x) - log_beta)
        step = x - error / density if density > 0.0 and math.isfinite(density) else math.nan
        # a Newton step that leaves the bracket (or goes nowhere) becomes a bisection
        if low < step < high:
            if abs(step - x) <= 1e-15 * x:  # converged: the step no longer moves it
                return step
            x = step
        else:
            x = (low + high) / 2.0
        if x in (low, high):
            break
    return (low + high) / 2.0 if high - low > 0 else x


def clopper_pearson(passed: int, n: int, confidence: float = 0.95) -> tuple[float, float] | None:
    """The exact (Clopper-Pearson) interval of the pass probability after ``passed`` of ``n`` runs
    passed; None when no run counted."""
    _check_counts(passed, n)
    _check_confidence(confidence)
    return _clopper_pearson(passed, n, float(confidence))


@functools.lru_cache(maxsize=4096)  # a stop rule asks for the same counts again and again
def _clopper_pearson(passed: int, n: int, confidence: float) -> tuple[float, float] | None:
    if n == 0:
        return None
    tail = (1.0 - confidence) / 2.0
    low = 0.0 if passed == 0 else beta_quantile(tail, passed, n - passed + 1)
    high = 1.0 if passed == n else beta_quantile(1.0 - tail, passed + 1, n - passed)
    return low, high


def wilson(passed: int, n: int, confidence: float = 0.95) -> tuple[float, float] | None:
    """The Wilson score interval of the pass probability; None when no run counted."""
    _check_counts(passed, n)
    _check_confidence(confidence)
    return _wilson(passed, n, float(confidence))


@functools.lru_cache(maxsize=4096)
def _wilson(passed: int, n: int, confidence: float) -> tuple[float, float] | None:
    if n == 0:
        return None
    z = NormalDist().inv_cdf(1.0 - (1.0 - confidence) / 2.0)
    rate = passed / n
    scale = 1.0 + z * z / n
    centre = (rate + z * z / (2 * n)) / scale
    half = z / scale * math.sqrt(rate * (1.0 - rate) / n + z * z / (4 * n * n))
    # exact at the ends: no pass means a lower bound of 0, every pass an upper bound of 1
    low = 0.0 if passed == 0 else max(0.0, centre - half)
    high = 1.0 if passed == n else min(1.0, centre + half)
    return low, high


def interval(method: str, passed: int, n: int, confidence: float = 0.95) -> tuple[float, float] | None:
    """The interval of ``method`` (one of `INTERVALS`)."""
    if method == "clopper-pearson":
        return clopper_pearson(passed, n, confidence)
    if method == "wilson":
        return wilson(passed, n, confidence)
    raise ValueError(f"the interval is one of {', '.join(INTERVALS)}, got {method!r}")


def _k_ratio(top: int, n: int, k: int) -> Fraction:
    return Fraction(math.comb(top, k), math.comb(n, k))


def _check_k(passed: int, n: int, k: int) -> None:
    _check_counts(passed, n)
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k is an int >= 1, got {k!r}")


def pass_hat_k(passed: int, n: int, k: int) -> float | None:
    """pass^k: the unbiased estimate of the chance that k runs all pass, ``C(passed, k) / C(n, k)``;
    None when fewer than k runs counted."""
    _check_k(passed, n, k)
    return None if k > n else float(_k_ratio(passed, n, k))


def pass_at_k(passed: int, n: int, k: int) -> float | None:
    """pass@k: the unbiased estimate of the chance that at least one of k runs passes,
    ``1 - C(n - passed, k) / C(n, k)``; None when fewer than k runs counted."""
    _check_k(passed, n, k)
    return None if k > n else float(1 - _k_ratio(n - passed, n, k))


def bound_text(value: float, places: int = 2) -> str:
    """A bound or an estimate in [0, 1] with ``places`` decimals, or more where fewer would round it to
    0 or 1 when it is not (an upper bound of 0.9998 is 0.9998, not 1.00)."""
    if value <= 0.0 or value >= 1.0:
        return f"{min(max(value, 0.0), 1.0):.{places}f}"
    for digits in range(places, places + 16):
        text = f"{value:.{digits}f}"
        if 0.0 < float(text) < 1.0:
            return text
    return repr(value)  # pragma: no cover - closer to 0 or 1 than 16 more decimals show
