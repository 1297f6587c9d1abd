"""How many: one value for "exactly n", "at least n", "at most n" and "between a and b", with its text."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["AT_LEAST_ONE", "Count"]


@dataclass(frozen=True, slots=True)
class Count:
    """A count asked for. ``Count.of(count, min_count, max_count)`` validates the keyword triple the
    checks take (no bound at all: at least one)."""

    exact: int | None = None
    at_least: int | None = None
    at_most: int | None = None

    @classmethod
    def of(
        cls, count: int | None = None, min_count: int | None = None, max_count: int | None = None
    ) -> Count:
        """TypeError for a count that is not an int, ValueError for a negative count or an impossible
        combination."""
        for label, value in (("count", count), ("min_count", min_count), ("max_count", max_count)):
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"{label} must be an int, got {value!r}")
            if value < 0:
                raise ValueError(f"{label} must be >= 0, got {value}")
        if count is not None and (min_count is not None or max_count is not None):
            raise ValueError("give either count= or min_count=/max_count=, not both")
        if min_count is not None and max_count is not None and min_count > max_count:
            raise ValueError(f"min_count ({min_count}) is greater than max_count ({max_count})")
        return cls(count, min_count, max_count)

    def ok(self, n: int) -> bool:
        """True when ``n`` is as asked."""
        if self.exact is not None:
            return n == self.exact
        if self.at_least is None and self.at_most is None:
            return n >= 1
        if self.at_least is not None and n < self.at_least:
            return False
        return not (self.at_most is not None and n > self.at_most)

    def over(self, n: int) -> bool:
        """True when ``n`` is above the count asked for (nested records may be why)."""
        return (self.exact is not None and n > self.exact) or (self.at_most is not None and n > self.at_most)

    @property
    def bounded(self) -> bool:
        """True when the count has an upper bound (``count=`` or ``max_count=``)."""
        return self.exact is not None or self.at_most is not None

    @property
    def text(self) -> str:
        """``exactly 2``, ``at least 1``, ``between 1 and 3``, ..."""
        if self.exact is not None:
            return f"exactly {self.exact}"
        if self.at_least is not None and self.at_most is not None:
            return f"between {self.at_least} and {self.at_most}"
        if self.at_least is not None:
            return f"at least {self.at_least}"
        if self.at_most is not None:
            return f"at most {self.at_most}"
        return "at least 1"

    def keywords(self) -> dict[str, int | None]:
        """The keywords as written: ``count=``, ``min_count=``, ``max_count=`` (for the check's name)."""
        return {"count": self.exact, "min_count": self.at_least, "max_count": self.at_most}


#: no bound given: at least one
AT_LEAST_ONE = Count()
