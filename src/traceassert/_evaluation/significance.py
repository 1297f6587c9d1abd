"""Is a new run different from its history? The rank-sum test (Mann-Whitney U), exact where it can be.

The test compares the new values (one run, or the runs of a repeated test) with the history's values
through their ranks only, so it assumes nothing about their distribution (token counts and durations
are skewed and often tied). Under "no change" every way of picking which of the pooled values are the
new ones is equally likely; the p-value is the share of those ways whose rank sum is at least as
extreme as the one observed.

- Exact: the rank-sum distribution is counted over every choice (ties get their mean rank, so the
  test is exact given the ties). With one new value this is the plain rank test against the history,
  ``p = (1 + #history >= new) / (history + 1)``.
- Large samples (where counting would be slow): the normal approximation with the tie correction and a
  continuity correction.

A test this honest cannot reject with too little history: with k new values and m runs of history the
smallest p-value it can give is 1 / C(m + k, k) (1/8 for one new value and 7 past ones; twice that when
two-sided). `rank_sum_test` says what it is, so a gate can answer "cannot tell" instead of passing
silently.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

__all__ = ["ALTERNATIVES", "RankSumResult", "history_needed", "rank_sum_test"]

#: which change the test looks for: new values larger, smaller, or either
ALTERNATIVES = ("greater", "less", "two-sided")
#: counting the exact distribution costs about (values x new values x rank sums); above this, approximate
_EXACT_BUDGET = 3_000_000


@dataclass(frozen=True)
class RankSumResult:
    """The outcome of `rank_sum_test`."""

    p_value: float
    #: the smallest p-value this test can give with these sample sizes (every new value beyond every past
    #: one): when it is above the level, the test cannot reject whatever the values
    min_p_value: float
    #: the U statistic of the new values (pairs new > history, ties counted one half)
    u: float
    exact: bool

    @property
    def name(self) -> str:
        return f"Mann-Whitney U ({'exact' if self.exact else 'normal approximation'})"


def _midranks(values: Sequence[float]) -> list[float]:
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return ranks


def _rank_sum_counts(doubled: Sequence[int], k: int) -> list[int]:
    """``counts[s]``: the number of ways to choose k of the (doubled) ranks with sum s."""
    top = sum(sorted(doubled)[-k:]) if k else 0
    rows = [[1] + [0] * top] + [[0] * (top + 1) for _ in range(k)]
    for i, rank in enumerate(doubled):
        for chosen in range(min(i + 1, k), 0, -1):
            below = rows[chosen - 1]
            row = rows[chosen]
            rows[chosen] = row[:rank] + [a + b for a, b in zip(row[rank:], below, strict=False)]
    return rows[k]


def _tails(counts: list[int], observed: int) -> tuple[float, float]:
    """P(sum >= observed), P(sum <= observed)."""
    total = sum(counts)
    return sum(counts[observed:]) / total, sum(counts[: observed + 1]) / total


def rank_sum_test(
    new: Sequence[float], history: Sequence[float], alternative: str = "greater"
) -> RankSumResult:
    """The rank-sum test of ``new`` against ``history``; ``alternative`` is the change looked for
    (``greater``: the new values are larger). ValueError on empty samples or non-finite values."""
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative is one of {', '.join(ALTERNATIVES)}, got {alternative!r}")
    if not new or not history:
        raise ValueError("the rank-sum test needs at least one new value and one value of history")
    pooled = [float(v) for v in [*new, *history]]
    if not all(math.isfinite(v) for v in pooled):
        raise ValueError("the rank-sum test needs finite values")
    k, m = len(new), len(history)
    ranks = _midranks(pooled)
    rank_sum = sum(ranks[:k])
    u = rank_sum - k * (k + 1) / 2.0
    doubled = [round(2 * r) for r in ranks]
    exact = 2 * (k + m) ** 2 * k * k <= _EXACT_BUDGET
    if exact:
        upper, lower = _tails(_rank_sum_counts(doubled, k), round(2 * rank_sum))
    else:
        upper, lower = _normal_tails(ranks, k, m, rank_sum)
    # the most extreme result these sizes allow: every new value beyond every past one
    reach = 1.0 / math.comb(k + m, k)
    if alternative == "greater":
        p = upper
    elif alternative == "less":
        p = lower
    else:
        p, reach = 2.0 * min(upper, lower), 2.0 * reach
    return RankSumResult(min(p, 1.0), min(reach, 1.0), u, exact)


def _normal_tails(ranks: Sequence[float], k: int, m: int, rank_sum: float) -> tuple[float, float]:
    n = k + m
    mean = k * (n + 1) / 2.0
    ties: dict[float, int] = {}
    for r in ranks:
        ties[r] = ties.get(r, 0) + 1
    correction = sum(t**3 - t for t in ties.values()) / (n * (n - 1)) if n > 1 else 0.0
    variance = k * m / 12.0 * ((n + 1) - correction)
    if variance <= 0:  # every value the same: no change can be seen
        return 1.0, 1.0
    sd = math.sqrt(variance)
    normal = NormalDist()
    return 1.0 - normal.cdf((rank_sum - mean - 0.5) / sd), normal.cdf((rank_sum - mean + 0.5) / sd)


def history_needed(new: int, alpha: float, two_sided: bool = False) -> int:
    """The fewest runs of history (without ties) with which ``new`` new values can reach a p-value at
    or below ``alpha``: the smallest m with 1 / C(m + new, new) <= alpha (halved when two-sided)."""
    level = alpha / 2.0 if two_sided else alpha
    m = 1
    while 1.0 / math.comb(m + new, new) > level:
        m += 1
    return m
