"""A mergeable quantile sketch: p50 / p95 of token counts and durations over any number of traces.

Values >= 0 fall into log-spaced buckets: bucket ``i`` holds the values in ``(g**(i-1), g**i]`` with
``g = (1 + e) / (1 - e)``, and a quantile is answered with the bucket's midpoint ``2 * g**i / (g + 1)``,
which is within a relative error ``e`` (1% by default) of every value in the bucket. Zero has a bucket of
its own. The count, the sum and the exact minimum and maximum are kept beside the buckets.

Merging adds the bucket counts, so it is associative and commutative: the partial sketches of files
checked on different workers, merged in any order and any grouping, give the sketch of a single pass.
NaN, infinities and negative values are not measurements: they are counted in ``invalid`` and left out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

__all__ = ["RELATIVE_ERROR", "Sketch"]

#: the default bound on the relative error of a quantile
RELATIVE_ERROR = 0.01


@dataclass
class Sketch:
    """Counts of values in log-spaced buckets; see the module docstring for the error bound."""

    relative_error: float = RELATIVE_ERROR
    count: int = 0
    zeros: int = 0
    invalid: int = 0
    total: float = 0.0
    min: float | None = None
    max: float | None = None
    buckets: dict[int, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not 0 < self.relative_error < 1:
            raise ValueError(f"relative_error must be in (0, 1), got {self.relative_error!r}")
        self._log_gamma = math.log((1 + self.relative_error) / (1 - self.relative_error))

    def add(self, value: float) -> None:
        if not math.isfinite(value) or value < 0:
            self.invalid += 1
            return
        self.count += 1
        self.total += value
        self.min = value if self.min is None else min(self.min, value)
        self.max = value if self.max is None else max(self.max, value)
        if value == 0:
            self.zeros += 1
            return
        index = math.ceil(math.log(value) / self._log_gamma)
        self.buckets[index] = self.buckets.get(index, 0) + 1

    def merge(self, other: Sketch) -> Sketch:
        """A new sketch of the values of both (neither is changed)."""
        if other.relative_error != self.relative_error:
            raise ValueError(
                f"cannot merge sketches of different precision ({self.relative_error} and "
                f"{other.relative_error})"
            )
        out = Sketch(self.relative_error)
        out.update(self)
        out.update(other)
        return out

    def update(self, other: Sketch) -> None:
        """Add the values of ``other`` to this sketch (in place)."""
        if other.relative_error != self.relative_error:
            raise ValueError("cannot merge sketches of different precision")
        self.count += other.count
        self.zeros += other.zeros
        self.invalid += other.invalid
        self.total += other.total
        for bound in (other.min, other.max):
            if bound is not None:
                self.min = bound if self.min is None else min(self.min, bound)
                self.max = bound if self.max is None else max(self.max, bound)
        for index, n in other.buckets.items():
            self.buckets[index] = self.buckets.get(index, 0) + n

    def quantile(self, q: float) -> float | None:
        """The value at quantile ``q`` (0..1), within the relative error; None when the sketch is empty.

        The rank is ``q * (count - 1)`` (the lower of two middle values for an even count); 0 gives the
        exact minimum and 1 the exact maximum.
        """
        if not 0 <= q <= 1:
            raise ValueError(f"q must be in [0, 1], got {q!r}")
        if not self.count or self.min is None or self.max is None:
            return None
        if q == 1:
            return self.max
        rank = math.floor(q * (self.count - 1))
        if rank == 0:
            return self.min
        seen = self.zeros
        if rank < seen:
            return 0.0
        gamma = math.exp(self._log_gamma)
        for index in sorted(self.buckets):
            seen += self.buckets[index]
            if rank < seen:
                estimate = 2 * math.exp(index * self._log_gamma) / (gamma + 1)
                return min(max(estimate, self.min), self.max)
        return self.max

    def to_json(self) -> dict[str, Any]:
        return {
            "relative_error": self.relative_error,
            "count": self.count,
            "zeros": self.zeros,
            "invalid": self.invalid,
            "sum": self.total,
            "min": self.min,
            "max": self.max,
            "buckets": {str(k): v for k, v in sorted(self.buckets.items())},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Sketch:
        out = cls(float(data["relative_error"]))
        out.count = int(data["count"])
        out.zeros = int(data["zeros"])
        out.invalid = int(data.get("invalid", 0))
        out.total = float(data["sum"])
        out.min = None if data["min"] is None else float(data["min"])
        out.max = None if data["max"] is None else float(data["max"])
        out.buckets = {int(k): int(v) for k, v in data["buckets"].items()}
        return out
