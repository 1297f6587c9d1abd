"""The optimal assignment of milestones to steps: as many milestones as possible, each to its own step,
every milestone after the milestones it must follow.

Greedy matching (each milestone taking the first step that fits) gets this wrong whenever a step fits
two milestones: ``search`` (any arguments) and ``search(query="x")`` against the steps
``search(query="x")``, ``search(query="y")`` match one milestone greedily and both optimally. The
search here is exact: a depth-first search over the milestones in topological order, each taking one
of its free fitting steps after all its predecessors' steps, or none (then its successors take none
either), cut by a bound (the milestones left cannot beat the best found) and by a dominance rule (of
the steps only one milestone can use, the earliest is always as good as any later one). It stops after
``budget`` nodes; the result then says it is not known to be the best (``exhaustive`` False).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

__all__ = ["Assignment", "best_assignment"]


@dataclass(frozen=True, slots=True)
class Assignment:
    """For each milestone, its step (a position) or None; ``exhaustive``: the search finished, so no
    assignment reaches more milestones."""

    steps: tuple[int | None, ...]
    exhaustive: bool

    @property
    def reached(self) -> int:
        return sum(1 for s in self.steps if s is not None)


def best_assignment(
    candidates: Sequence[Sequence[int]], preds: Sequence[Sequence[int]], budget: int = 200_000
) -> Assignment:
    """The assignment reaching the most milestones.

    ``candidates[i]``: the positions of the steps milestone ``i`` fits; ``preds[i]``: the milestones
    ``i`` must come after, each with an index below ``i`` (the milestones are in topological order).
    """
    n = len(candidates)
    cands = [sorted(set(c)) for c in candidates]
    users: dict[int, list[int]] = {}
    for i, cs in enumerate(cands):
        for c in cs:
            users.setdefault(c, []).append(i)
    # a step is exclusive to milestone i when no milestone after i can use it
    exclusive = [{c for c in cs if max(users[c]) == i} for i, cs in enumerate(cands)]
    # a milestone can be reached only if a step fits it and its predecessors can be reached
    possible: list[bool] = []
    for i in range(n):
        possible.append(bool(cands[i]) and all(possible[p] for p in preds[i]))
    left = [0] * (n + 1)  # how many milestones from i on can be reached at all: the bound
    for i in range(n - 1, -1, -1):
        left[i] = left[i + 1] + possible[i]
    state = _Search(n, cands, [list(p) for p in preds], exclusive, budget, left)
    state.run(0, [None] * n, set(), 0)
    return Assignment(tuple(state.best), state.nodes <= budget)


class _Search:
    """The depth-first search of ``best_assignment``."""

    __slots__ = ("best", "best_count", "budget", "cands", "exclusive", "left", "n", "nodes", "preds")

    def __init__(
        self,
        n: int,
        cands: list[list[int]],
        preds: list[list[int]],
        exclusive: list[set[int]],
        budget: int,
        left: list[int],
    ) -> None:
        self.n, self.cands, self.preds, self.exclusive, self.budget = n, cands, preds, exclusive, budget
        self.left = left
        self.best: list[int | None] = [None] * n
        self.best_count = 0
        self.nodes = 0

    def run(self, i: int, assigned: list[int | None], used: set[int], count: int) -> None:
        """Decide milestone ``i`` and the ones after it."""
        self.nodes += 1
        if self.nodes > self.budget or self.best_count == self.left[0]:
            return
        if count + self.left[i] <= self.best_count:
            return  # the milestones left cannot beat the best found
        if i == self.n:
            self.best, self.best_count = list(assigned), count
            return
        for c in self._options(i, assigned, used):
            if self.nodes > self.budget or self.best_count == self.left[0]:
                break
            assigned[i] = c
            used.add(c)
            self.run(i + 1, assigned, used, count + 1)
            used.discard(c)
        assigned[i] = None
        self.run(i + 1, assigned, used, count)

    def _options(self, i: int, assigned: list[int | None], used: set[int]) -> Iterator[int]:
        """The steps milestone ``i`` may take, earliest first: every free shared step after its
        predecessors' steps, and the earliest such step only it can use (made as the search asks, so
        that a long list costs nothing once the budget is spent)."""
        lower = -1
        for p in self.preds[i]:
            at = assigned[p]
            if at is None:
                return  # a milestone is reached only after all it must follow
            lower = max(lower, at)
        took_exclusive = False
        for c in self.cands[i][bisect.bisect_right(self.cands[i], lower) :]:
            if c in used:
                continue
            if c in self.exclusive[i]:
                if took_exclusive:
                    continue
                took_exclusive = True
            yield c
