"""Milestones and minefields: a partial order of steps the run must reach, and steps it must never take.

``ta.milestone(tool, args=..., after=[...], id=...)`` is one expected step: a successful call of
``tool`` (a name or pattern) whose arguments fit ``args`` (a mapping, a matcher or a callable, as in
``has_tool_executed_with``), after the steps of the milestones named in ``after`` (their ids; a
milestone's id is its tool name unless given). The milestones form a small DAG: ``book`` after
``search`` and ``check_price``, those two in any order. ``has_milestones`` matches them to the run's
steps (``steps``) by an optimal assignment (``assignment``): each milestone its own step, the most
milestones reached; a milestone whose predecessor is not reached is not reached either. Minefields are
steps that must never happen: any call of the tool whose arguments fit, failed ones too.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..describe import as_python
from ..examined import note_patterns
from ..invocation.args import argument_mismatches, arguments_kind, fits, run_requirements
from ..names import NameLike, NamePattern, pattern_of
from ..selection import Selection
from ..unknown import cannot_tell, selection_unknowns
from .assignment import Assignment, best_assignment
from .steps import Steps, call_head, fail_steps, no_steps, step, steps_of
from .temporal import at_steps

__all__ = ["Milestone", "has_milestones", "milestone"]


@dataclass(frozen=True, eq=False)
class Milestone:
    """One expected step (see the module docstring); made by ``ta.milestone``."""

    tool: NamePattern
    args: Any = None
    after: tuple[str, ...] = ()
    id: str = ""
    #: the id was given (else it is the tool's name)
    named: bool = field(default=False, repr=False)
    #: where it was given among the milestones of a check (set by ``has_milestones``)
    position: int = field(default=0, repr=False)

    def label(self) -> str:
        """``'book'``, ``'search' (query='x')`` or the id given."""
        if self.named:
            return repr(self.id)
        text = self.tool.shown()
        return text if self.args is None else f"{text} with {as_python(self.args)}"

    def __repr__(self) -> str:
        parts = [self.tool.shown()]
        if self.args is not None:
            parts.append(f"args={as_python(self.args)}")
        if self.after:
            parts.append(f"after={list(self.after)!r}")
        if self.named:
            parts.append(f"id={self.id!r}")
        return f"milestone({', '.join(parts)})"


def milestone(
    tool: NameLike, *, args: Any = None, after: str | Sequence[str] = (), id: str | None = None
) -> Milestone:
    """One milestone: a successful call of ``tool`` (a name or pattern) with arguments fitting ``args``
    (a mapping of expected arguments, a matcher, or a callable raising AssertionError), after the
    milestones whose ids are in ``after``. Its id is ``id``, else the tool's name."""
    pattern = pattern_of(tool, "tool", "milestone")
    if args is not None:
        arguments_kind(args)
    befores = (after,) if isinstance(after, str) else tuple(after)
    if not all(isinstance(a, str) and a for a in befores):
        raise TypeError(f"milestone: after= takes milestone ids (str), got {after!r}")
    if id is not None and (not isinstance(id, str) or not id):
        raise TypeError(f"milestone: id must be a non-empty str, got {id!r}")
    return Milestone(pattern, args, befores, id or pattern.text, named=id is not None)


def _checked(milestones: Sequence[Any]) -> Sequence[Milestone]:
    """The milestones given; TypeError for anything else."""
    for m in milestones:
        if not isinstance(m, Milestone):
            raise TypeError(f"has_milestones takes ta.milestone(...) values, got {m!r}")
    return milestones


def _ordered(milestones: Sequence[Milestone]) -> tuple[list[Milestone], list[list[int]]]:
    """The milestones in a topological order (stable) and each one's predecessors (indices); ValueError
    for a repeated or unknown id, or a cycle."""
    by_id: dict[str, Milestone] = {}
    for m in milestones:
        if m.id in by_id:
            raise ValueError(f"has_milestones: two milestones have the id {m.id!r}; give one an id=")
        by_id[m.id] = m
    for m in milestones:
        unknown = [a for a in m.after if a not in by_id]
        if unknown:
            raise ValueError(f"has_milestones: milestone {m.id!r} comes after unknown id(s) {unknown!r}")
    order: list[Milestone] = []
    placed: set[str] = set()
    while len(order) < len(milestones):
        ready = [m for m in milestones if m.id not in placed and all(a in placed for a in m.after)]
        if not ready:
            cycle = sorted(m.id for m in milestones if m.id not in placed)
            raise ValueError(f"has_milestones: the order has a cycle among {cycle!r}")
        order.extend(ready)
        placed.update(m.id for m in ready)
    index = {m.id: i for i, m in enumerate(order)}
    return order, [[index[a] for a in m.after] for m in order]


def _fits(m: Milestone, tool: Any) -> bool:
    __tracebackhide__ = True
    return m.tool.matches(tool.name) and fits(m.args, tool)


def has_milestones(
    sel: Selection,
    *milestones: Milestone,
    minefields: Sequence[Milestone | NameLike] = (),
    message: str | None = None,
) -> Selection:
    """Every milestone is reached in its order (an optimal assignment), and no step fits a minefield."""
    __tracebackhide__ = True
    if not milestones and not minefields:
        raise ValueError("has_milestones needs at least one milestone or minefield")
    order, preds = _ordered([dataclasses.replace(m, position=k) for k, m in enumerate(_checked(milestones))])
    note_patterns(m.tool for m in milestones)  # made by ta.milestone before the check ran
    mines = [m if isinstance(m, Milestone) else milestone(m) for m in minefields]
    if any(m.after for m in mines):
        raise ValueError("has_milestones: a minefield must never happen at all; it takes no after=")
    shown = [repr(m) for m in milestones] + ([f"minefields={mines!r}"] if mines else [])
    check = f"has_milestones({', '.join(shown)})"
    expected = f"expected {len(order)} milestone(s) reached in order" + (
        f" and no step on {len(mines)} minefield(s)" if mines else ""
    )
    steps = steps_of(sel)
    if no_steps(sel, check, steps, expected, message):
        return sel
    if _mined(sel, check, steps, mines, expected, message):
        return sel
    tools = steps.tools
    candidates = [[j for j, t in enumerate(tools) if t.failed is False and _fits(m, t)] for m in order]
    result = best_assignment(candidates, preds)
    if result.reached == len(order):
        return sel
    fail_steps(sel, check, steps, _shortfall(sel, steps, order, preds, candidates, result, expected), message)
    return sel


def _mined(
    sel: Selection, check: str, steps: Steps, mines: list[Milestone], expected: str, message: str | None
) -> bool:
    """Fail (and return True) when a step fits a minefield, or a call of unknown outcome may have."""
    __tracebackhide__ = True
    hits = [(m, j) for m in mines for j, t in enumerate(steps.tools) if _fits(m, t)]
    if hits:
        parts = [f"{m.label()}: {step(steps, j)}" for m, j in hits[:5]]
        more = f", ... ({len(hits) - 5} more)" if len(hits) > 5 else ""
        problem = f"{expected}, found a step on a minefield: {'; '.join(parts)}{more}"
        fail_steps(sel, check, steps, problem, message, [j for _, j in hits])
        return True
    unknown = [r for r in selection_unknowns(sel) if any(m.tool.matches(r.name) for m in mines)]
    if unknown:
        fail_steps(
            sel, check, steps, f"{expected}, found none, but " + cannot_tell(sel, unknown, ""), message
        )
        return True
    return False


def _shortfall(
    sel: Selection,
    steps: Steps,
    order: list[Milestone],
    preds: list[list[int]],
    candidates: list[list[int]],
    result: Assignment,
    expected: str,
) -> str:
    """The problem: what the best assignment reached, and why each other milestone was not."""
    given = sorted(range(len(order)), key=lambda i: order[i].position)  # the order they were given in
    reached = [f"{order[i].label()} at step {s + 1}" for i in given if (s := result.steps[i]) is not None]
    head = f"{expected}, reached {result.reached} of {len(order)}" + (
        f": {', '.join(reached)}" if reached else ""
    )
    why = [
        f"{order[i].label()}: {_why(sel, steps, i, order, preds, candidates, result)}"
        for i in given
        if result.steps[i] is None
    ]
    text = head + "; not reached: " + "; ".join(why)
    if not result.exhaustive:
        text += " (cannot tell whether another assignment reaches more: the search stopped at its budget)"
    return text


def _why(
    sel: Selection,
    steps: Steps,
    i: int,
    order: list[Milestone],
    preds: list[list[int]],
    candidates: list[list[int]],
    result: Assignment,
) -> str:
    """Why milestone ``i`` was not reached in the best assignment."""
    __tracebackhide__ = True
    m = order[i]
    if not candidates[i]:
        return _no_fit(sel, steps, m)
    missing = [order[p].label() for p in preds[i] if result.steps[p] is None]
    if missing:
        return f"it comes after {', '.join(missing)}, not reached"
    placed = [(s, order[p].label()) for p in preds[i] if (s := result.steps[p]) is not None]
    lower = max((s for s, _ in placed), default=-1)
    fitting = at_steps(steps, candidates[i])
    if all(c <= lower for c in candidates[i]):
        last = next(label for s, label in placed if s == lower)
        return (
            f"its fitting call(s) ({fitting}) come before step {lower + 1}, where {last} (which it follows) "
            "was reached"
        )
    taken = {c for c in candidates[i] if c > lower}
    owners = [order[k].label() for k, s in enumerate(result.steps) if s in taken]
    where = f" after step {lower + 1}" if lower >= 0 else ""
    return (
        f"its fitting call(s){where} ({fitting}) are each matched to another milestone: {', '.join(owners)}"
    )


def _no_fit(sel: Selection, steps: Steps, m: Milestone) -> str:
    """Why no step fits milestone ``m``: no call, no successful one, or none with fitting arguments."""
    __tracebackhide__ = True
    named = [j for j, t in enumerate(steps.tools) if m.tool.matches(t.name)]
    if not named:
        return f"no call of {m.tool.shown()}"
    ok = [j for j in named if steps.tools[j].failed is False]
    undecided = [j for j in named if steps.tools[j].failed is None]
    if not ok:
        if undecided and sel.unknown_outcomes != "accept":
            return f"cannot tell: {at_steps(steps, undecided)} record no outcome"
        failed = [j for j in named if steps.tools[j].failed is True]
        parts = [f"{at_steps(steps, failed)} failed"] if failed else []
        if undecided:
            parts.append(f"{at_steps(steps, undecided)} record no outcome")
        return "no successful call: " + "; ".join(parts)
    closest = min(ok, key=lambda j: len(_mismatches(m, steps.tools[j])))
    reasons = _mismatches(m, steps.tools[closest])
    return (
        f"no successful call with fitting arguments; closest: {call_head(steps.tools[closest])} at step "
        f"{closest + 1}: {'; '.join(reasons[:3])}"
    )


def _mismatches(m: Milestone, tool: Any) -> list[str]:
    __tracebackhide__ = True
    if arguments_kind(m.args) == "callable":
        why = run_requirements(m.args, tool)
        return [why] if why else []
    return argument_mismatches(m.args, tool.arguments)
