"""Graded trajectory scores: the run's tool calls (its steps) against an expected sequence.

An expected step is a tool name (or pattern), a ``(name, arguments)`` pair, or a ``ta.milestone(name,
args=...)`` without ``after=``. The steps are matched to the expected steps one to one by a
maximum-weight assignment (``assign``): as many pairs as possible of a step and an expected step whose
name it matches, and among those, the most argument credit. A pair's credit is the share of the
expected arguments the step's arguments match (``{"city": "Paris", "days": 3}`` against
``city="Paris", days=2``: 0.5); 1 when no arguments are expected; 1 or 0 for a matcher or a callable.

With ``m`` pairs, their credits summing to ``W``, ``E`` expected steps, ``A`` steps and ``L`` the length
of a longest common subsequence (the expected steps matched in their order):

- ``precision = m / A``, ``recall = m / E``, ``f1 = 2 m / (E + A)`` (the tools by name, any order);
- ``order = 2 L / (E + A)`` (the F1 of the longest common subsequence: order-aware);
- ``arguments = 2 W / (E + A)`` (argument-aware, with partial credit).

``TrajectoryScore`` holds the pairs (with each one's credit and the arguments it missed), the missing
expected steps, the extra steps and the in-order pairs: every number can be recomputed from them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._checks.describe import as_python
from .._checks.invocation.args import arguments_kind, fits
from .._checks.matching import argument_mismatches
from .._checks.names import NamePattern, pattern_of
from .._checks.rules.milestones import Milestone
from .._checks.rules.steps import call_head, call_key
from .._model.records import ToolExecution
from .assign import max_weight_assignment

__all__ = ["METRICS", "ExpectedStep", "Pair", "TrajectoryScore", "expected_steps", "score_trajectory"]

#: the scores a ``TrajectoryScore`` gives, by name
METRICS = ("precision", "recall", "f1", "order", "arguments")


@dataclass(frozen=True, slots=True)
class ExpectedStep:
    """One step of the expected trajectory: a tool name or pattern, and what its arguments must fit."""

    tool: NamePattern
    args: Any = None

    def label(self) -> str:
        text = self.tool.shown()
        return text if self.args is None else f"{text} with {as_python(self.args)}"


@dataclass(frozen=True, slots=True)
class Pair:
    """An expected step (index) matched to a step of the run (index), with its argument credit and the
    expected arguments the step did not match."""

    expected: int
    step: int
    credit: float
    missed: tuple[str, ...] = ()


@dataclass(frozen=True)
class TrajectoryScore:
    """The scores of a run's steps against an expected trajectory, and what they are made of: the
    expected steps (as labels), the run's steps (``tools``; ``steps`` labels them), the pairs, the
    missing expected steps and extra steps (indices) and the pairs of a longest common subsequence."""

    expected: tuple[str, ...]
    tools: tuple[ToolExecution, ...] = field(repr=False)
    pairs: tuple[Pair, ...]
    missing: tuple[int, ...]
    extra: tuple[int, ...]
    in_order: tuple[tuple[int, int], ...]

    @property
    def steps(self) -> tuple[str, ...]:
        """The run's steps as calls (``name(arguments)``, redacted)."""
        return tuple(call_head(t) for t in self.tools)

    @property
    def precision(self) -> float:
        return len(self.pairs) / len(self.tools) if self.tools else 0.0

    @property
    def recall(self) -> float:
        return len(self.pairs) / len(self.expected) if self.expected else 0.0

    @property
    def f1(self) -> float:
        return _share(2 * len(self.pairs), len(self.expected) + len(self.tools))

    @property
    def order(self) -> float:
        return _share(2 * len(self.in_order), len(self.expected) + len(self.tools))

    @property
    def arguments(self) -> float:
        return _share(2 * sum(p.credit for p in self.pairs), len(self.expected) + len(self.tools))

    def value(self, metric: str) -> float:
        """The score named ``metric`` (one of ``METRICS``)."""
        if metric not in METRICS:
            raise ValueError(f"unknown trajectory metric {metric!r}; use one of {', '.join(METRICS)}")
        return float(getattr(self, metric))

    def scores(self) -> dict[str, float]:
        return {m: self.value(m) for m in METRICS}

    def explanation(self) -> str:
        """The pairs, the missing and extra steps and the in-order pairs, with the formula of each score."""
        e, a, m, n = len(self.expected), len(self.tools), len(self.pairs), len(self.in_order)
        w = sum(p.credit for p in self.pairs)
        lines = [
            f"expected {e} step(s), the run made {a}; matched {m}, argument credit {_num(w)}, in order {n}",
            f"precision = {m}/{a} = {_num(self.precision)}; recall = {m}/{e} = {_num(self.recall)}; "
            f"f1 = 2*{m}/({e}+{a}) = {_num(self.f1)}; order = 2*{n}/({e}+{a}) = {_num(self.order)}; "
            f"arguments = 2*{_num(w)}/({e}+{a}) = {_num(self.arguments)}",
            "matched:",
        ]
        for p in self.pairs:
            why = f" (missed: {'; '.join(p.missed)})" if p.missed else ""
            lines.append(
                f"  - expected {p.expected + 1} {self.expected[p.expected]} <- step {p.step + 1} "
                f"{call_head(self.tools[p.step])}: credit {_num(p.credit)}{why}"
            )
        if not self.pairs:
            lines.append("  (none)")
        lines.append("missing:")
        lines.extend(f"  - expected {i + 1} {self.expected[i]}" for i in self.missing)
        if not self.missing:
            lines.append("  (none)")
        lines.append("extra:")
        lines.extend(f"  - step {j + 1} {call_head(self.tools[j])}" for j in self.extra)
        if not self.extra:
            lines.append("  (none)")
        pairs = ", ".join(f"{i + 1}<-{j + 1}" for i, j in self.in_order)
        lines.append(f"in order (expected<-step): {pairs or 'none'}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """The parts of the scores, as plain values (the details of the recorded scores): the expected
        steps, how many steps the run made, the pairs (1-based), the missing and extra ones."""
        return {
            "expected": list(self.expected),
            "steps": len(self.tools),
            "matched": [
                {"expected": p.expected + 1, "step": p.step + 1, "credit": p.credit, "missed": list(p.missed)}
                for p in self.pairs
            ],
            "missing": [i + 1 for i in self.missing],
            "extra": [i + 1 for i in self.extra],
            "in_order": [[i + 1, j + 1] for i, j in self.in_order],
        }


def _share(top: float, bottom: int) -> float:
    return top / bottom if bottom else 0.0


def _num(value: float) -> str:
    return f"{value:.3f}".rstrip("0").rstrip(".") if value != int(value) else str(int(value))


def _is_name(value: Any) -> bool:
    return (isinstance(value, str) and bool(value)) or isinstance(value, NamePattern | re.Pattern)


def expected_steps(items: Sequence[Any], check: str) -> list[ExpectedStep]:
    """The expected trajectory: names or patterns, ``(name, arguments)`` pairs, ``ta.milestone``s."""
    if isinstance(items, str | bytes) or not isinstance(items, Sequence):
        raise TypeError(f"{check} takes a list of expected steps, got {items!r}")
    if not items:
        raise ValueError(f"{check} needs at least one expected step")
    out = []
    for item in items:
        if isinstance(item, Milestone):
            if item.after:
                raise ValueError(f"{check}: an expected step is a sequence position, not after= ({item!r})")
            out.append(ExpectedStep(item.tool, item.args))
        elif _is_name(item):
            out.append(ExpectedStep(pattern_of(item, "tool", check)))
        elif isinstance(item, tuple) and len(item) == 2 and _is_name(item[0]):
            arguments_kind(item[1])
            out.append(ExpectedStep(pattern_of(item[0], "tool", check), item[1]))
        else:
            raise TypeError(
                f"{check} takes tool names, (tool name, arguments) pairs or ta.milestone(...) values, "
                f"got {item!r}"
            )
    return out


def _credit(expected: ExpectedStep, tool: ToolExecution) -> tuple[float, tuple[str, ...]]:
    """The share of the expected arguments the step matches, and the mismatches."""
    args = expected.args
    if args is None:
        return 1.0, ()
    if isinstance(args, Mapping):
        if not args:
            return 1.0, ()
        missed: list[str] = []
        wrong = 0
        for key, value in args.items():
            why = argument_mismatches({key: value}, tool.arguments)
            wrong += bool(why)
            missed.extend(why)
        return (len(args) - wrong) / len(args), tuple(missed)
    ok = fits(args, tool)
    return (1.0 if ok else 0.0), (() if ok else (f"args do not fit {as_python(args)}",))


def _lcs(hit: Sequence[Sequence[bool]]) -> list[tuple[int, int]]:
    """A longest common subsequence of the expected steps and the steps (``hit[i][j]``: expected step i
    matches step j by name), as index pairs."""
    e = len(hit)
    a = len(hit[0]) if e else 0
    table = [[0] * (a + 1) for _ in range(e + 1)]
    for i in range(e - 1, -1, -1):
        row, below = table[i], table[i + 1]
        for j in range(a - 1, -1, -1):
            row[j] = below[j + 1] + 1 if hit[i][j] else max(below[j], row[j + 1])
    pairs = []
    i = j = 0
    while i < e and j < a:
        if hit[i][j] and table[i][j] == table[i + 1][j + 1] + 1:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs


def score_trajectory(expected: Sequence[ExpectedStep], tools: Sequence[ToolExecution]) -> TrajectoryScore:
    """Score the steps ``tools`` (in order) against ``expected`` (see the module docstring)."""
    hits = _hits(expected, tools)
    credits: dict[tuple[int, int], tuple[float, tuple[str, ...]]] = {}
    big = min(len(expected), len(tools)) + 1  # one more pair always outweighs any argument credit
    # steps with the same weights for every expected step are interchangeable: an assignment uses at most
    # len(expected) of them, so only the first that many of each kind are offered to it
    kinds: dict[tuple[float | None, ...], list[int]] = {}
    same_call: dict[tuple[int, tuple[str, str]], tuple[float, tuple[str, ...]]] = {}
    for j, tool in enumerate(tools):
        column: list[float | None] = []
        key = (
            call_key(tool) if any(hits[i][j] and s.args is not None for i, s in enumerate(expected)) else None
        )
        for i, step in enumerate(expected):
            if hits[i][j]:
                if step.args is None:
                    credits[i, j] = (1.0, ())
                elif key is not None and callable(step.args) and not isinstance(step.args, Mapping):
                    credits[i, j] = _credit(step, tool)  # a callable may look at more than the arguments
                else:
                    assert key is not None
                    credits[i, j] = same_call.get((i, key)) or same_call.setdefault(
                        (i, key), _credit(step, tool)
                    )
                column.append(big + credits[i, j][0])
            else:
                column.append(None)
        same = kinds.setdefault(tuple(column), [])
        if len(same) < len(expected) and any(w is not None for w in column):
            same.append(j)
    offered = sorted(j for same in kinds.values() for j in same)
    weights = [
        [big + credits[i, j][0] if hits[i][j] else None for j in offered] for i in range(len(expected))
    ]
    chosen = sorted((i, offered[k]) for i, k in max_weight_assignment(weights))  # by expected step
    pairs = tuple(Pair(i, j, *credits[i, j]) for i, j in chosen)
    used_e = {p.expected for p in pairs}
    used_a = {p.step for p in pairs}
    return TrajectoryScore(
        expected=tuple(s.label() for s in expected),
        tools=tuple(tools),
        pairs=pairs,
        missing=tuple(i for i in range(len(expected)) if i not in used_e),
        extra=tuple(j for j in range(len(tools)) if j not in used_a),
        in_order=tuple(_lcs(hits)),
    )


def _hits(expected: Sequence[ExpectedStep], tools: Sequence[ToolExecution]) -> list[list[bool]]:
    """Whether each expected step's name matches each step's (each name asked once per expected step)."""
    out = []
    for step in expected:
        known: dict[str, bool] = {}
        row = []
        for tool in tools:
            hit = known.get(tool.name)
            if hit is None:
                hit = known[tool.name] = step.tool.matches(tool.name)
            row.append(hit)
        out.append(row)
    return out
