"""A maximum-weight assignment (the Hungarian method): pairs of rows and columns, each used at most once,
with the largest total weight.

Greedy matching (each row taking its best free column in turn) is not optimal: rows ``a`` and ``b``,
``a`` fitting columns 1 and 2 equally, ``b`` only column 1; greedy gives 1 to ``a`` and leaves ``b``
without one. The method here is exact, in O(n² m) for n rows and m columns (n <= m, else transposed):
the expected steps of a trajectory are few, the run's steps may be many.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["max_weight_assignment"]


def max_weight_assignment(weights: Sequence[Sequence[float | None]]) -> list[tuple[int, int]]:
    """The (row, column) pairs of a maximum-weight matching; ``None`` marks a pair that may not be
    matched. Weights are >= 0; a pair of weight 0 is left out."""
    rows = len(weights)
    cols = len(weights[0]) if rows else 0
    if not rows or not cols:
        return []
    if rows > cols:
        flipped = [[weights[r][c] for r in range(rows)] for c in range(cols)]
        return [(r, c) for c, r in max_weight_assignment(flipped)]
    top = max((w for row in weights for w in row if w is not None), default=0.0)
    # the minimum-cost assignment of every row, with cost top - weight (a forbidden pair costs top,
    # as much as leaving the row out): the rows then take distinct columns, and pairs of weight 0 or
    # forbidden ones are dropped afterwards
    cost = [[top - (w if w is not None else 0.0) for w in row] for row in weights]
    inf = float("inf")
    u = [0.0] * (rows + 1)
    v = [0.0] * (cols + 1)
    owner = [0] * (cols + 1)  # owner[j]: the row (1-based) holding column j; 0: free
    way = [0] * (cols + 1)
    for i in range(1, rows + 1):
        owner[0] = i
        j0 = 0
        least = [inf] * (cols + 1)
        used = [False] * (cols + 1)
        while True:
            used[j0] = True
            i0 = owner[j0]
            delta = inf
            j1 = 0
            row = cost[i0 - 1]
            for j in range(1, cols + 1):
                if used[j]:
                    continue
                reduced = row[j - 1] - u[i0] - v[j]
                if reduced < least[j]:
                    least[j] = reduced
                    way[j] = j0
                if least[j] < delta:
                    delta = least[j]
                    j1 = j
            for j in range(cols + 1):
                if used[j]:
                    u[owner[j]] += delta
                    v[j] -= delta
                else:
                    least[j] -= delta
            j0 = j1
            if owner[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            owner[j0] = owner[j1]
            j0 = j1
    pairs = []
    for j in range(1, cols + 1):
        i = owner[j]
        if i:
            w = weights[i - 1][j - 1]
            if w is not None and w > 0:
                pairs.append((i - 1, j - 1))
    pairs.sort()
    return pairs
