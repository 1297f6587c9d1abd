"""Order properties of the run's steps (see ``steps``): after, directly after, never after, only after,
starts and ends with. Each name is a name or a pattern (``names``); failed calls are steps too.

- ``calls_tool_after(later, earlier)``: some call of ``later`` starts after some call of ``earlier``;
- ``calls_tool_directly_after(later, earlier)``: some call of ``earlier`` is followed, as the very next
  step, by a call of ``later``;
- ``does_not_call_tool_after(later, earlier)``: no call of ``later`` starts after a call of ``earlier``;
- ``calls_tool_only_after(later, earlier)``: every call of ``later`` has a successful call of ``earlier``
  before it (none at all passes);
- ``starts_with_tool(name)`` / ``ends_with_tool(name)``: the first / last step is a call of ``name``.

A selection with no step cannot tell; calls of unknown outcome (``unknown``) make a pass "cannot tell".
"""

from __future__ import annotations

from ..describe import call_text
from ..names import NameLike, NamePattern, pattern_of
from ..selection import Selection
from .steps import Steps, fail_steps, no_steps, step, steps_of, unknown_steps

__all__ = [
    "at_steps",
    "calls_tool_after",
    "calls_tool_directly_after",
    "calls_tool_only_after",
    "does_not_call_tool_after",
    "ends_with_tool",
    "positions",
    "starts_with_tool",
]


def positions(steps: Steps, name: NamePattern) -> list[int]:
    """The 0-based positions of the calls of ``name``."""
    return [i for i, t in enumerate(steps.tools) if name.matches(t.name)]


def at_steps(steps: Steps, where: list[int], limit: int = 5) -> str:
    """``'b' at step 1 (agent 'x'), 'b' at step 3 (agent 'x')``, the first ``limit`` of them."""
    text = ", ".join(step(steps, i) for i in where[:limit])
    return text + (f", ... ({len(where) - limit} more)" if len(where) > limit else "")


def _pair(later: NameLike, earlier: NameLike, check: str) -> tuple[NamePattern, NamePattern]:
    return pattern_of(later, "tool", check), pattern_of(earlier, "tool", check)


def calls_tool_after(
    sel: Selection, later: NameLike, earlier: NameLike, *, message: str | None = None
) -> Selection:
    """Some call of ``later`` starts after some call of ``earlier``."""
    __tracebackhide__ = True
    b, a = _pair(later, earlier, "calls_tool_after")
    check = call_text("calls_tool_after", later, earlier)
    expected = f"expected a call of {b.shown()} after a call of {a.shown()}"
    steps = steps_of(sel)
    if no_steps(sel, check, steps, expected, message):
        return sel
    at_a, at_b = positions(steps, a), positions(steps, b)
    if at_a and at_b and at_b[-1] > at_a[0]:
        unknown_steps(sel, check, steps, expected, message)
        return sel
    if not at_a or not at_b:
        missing = " nor ".join(p.shown() for p, at in ((a, at_a), (b, at_b)) if not at)
        found = f"found no call of {missing}"
    else:
        later_a = at_steps(steps, at_a)
        found = f"found {at_steps(steps, at_b)}, but every call of {a.shown()} came later: {later_a}"
    fail_steps(sel, check, steps, f"{expected}, {found}", message, [*at_b, *at_a])
    return sel


def calls_tool_directly_after(
    sel: Selection, later: NameLike, earlier: NameLike, *, message: str | None = None
) -> Selection:
    """Some call of ``earlier`` is followed, as the very next step, by a call of ``later``."""
    __tracebackhide__ = True
    b, a = _pair(later, earlier, "calls_tool_directly_after")
    check = call_text("calls_tool_directly_after", later, earlier)
    expected = f"expected a call of {b.shown()} as the step directly after a call of {a.shown()}"
    steps = steps_of(sel)
    if no_steps(sel, check, steps, expected, message):
        return sel
    at_a = positions(steps, a)
    if any(i + 1 < len(steps) and b.matches(steps.tools[i + 1].name) for i in at_a):
        unknown_steps(sel, check, steps, expected, message)
        return sel
    if not at_a:
        found = f"found no call of {a.shown()}"
    else:
        nexts = [
            f"after step {i + 1} came {step(steps, i + 1)}"
            if i + 1 < len(steps)
            else f"step {i + 1} was the last"
            for i in at_a[:5]
        ]
        found = f"found {len(at_a)} call(s) of {a.shown()}, none followed by it: " + "; ".join(nexts)
    nexts_at = [i + 1 for i in at_a if i + 1 < len(steps)]
    fail_steps(sel, check, steps, f"{expected}, {found}", message, [*at_a, *nexts_at])
    return sel


def does_not_call_tool_after(
    sel: Selection, later: NameLike, earlier: NameLike, *, message: str | None = None
) -> Selection:
    """No call of ``later`` starts after a call of ``earlier``."""
    __tracebackhide__ = True
    b, a = _pair(later, earlier, "does_not_call_tool_after")
    check = call_text("does_not_call_tool_after", later, earlier)
    expected = f"expected no call of {b.shown()} after a call of {a.shown()}"
    steps = steps_of(sel)
    if no_steps(sel, check, steps, expected, message):
        return sel
    at_a = positions(steps, a)
    after = [i for i in positions(steps, b) if at_a and i > at_a[0]]
    if after:
        fail_steps(
            sel,
            check,
            steps,
            f"{expected}, found {at_steps(steps, after)}, after {step(steps, at_a[0])}",
            message,
            [*after, at_a[0]],
        )
        return sel
    unknown_steps(sel, check, steps, expected, message)
    return sel


def calls_tool_only_after(
    sel: Selection, later: NameLike, earlier: NameLike, *, message: str | None = None
) -> Selection:
    """Every call of ``later`` has a successful call of ``earlier`` before it (no call of ``later``
    passes)."""
    __tracebackhide__ = True
    b, a = _pair(later, earlier, "calls_tool_only_after")
    check = call_text("calls_tool_only_after", later, earlier)
    expected = f"expected every call of {b.shown()} to come after a successful call of {a.shown()}"
    steps = steps_of(sel)
    if no_steps(sel, check, steps, expected, message):
        return sel
    first_ok = next((i for i in positions(steps, a) if steps.tools[i].failed is False), None)
    early = [i for i in positions(steps, b) if first_ok is None or i < first_ok]
    if early:
        before = [j for j in positions(steps, a) if j < early[0]]
        undecided = [j for j in before if steps.tools[j].failed is None]
        if undecided and sel.unknown_outcomes != "accept":
            why = (
                f"found {step(steps, early[0])} after {at_steps(steps, undecided)}, whose outcome is not "
                "recorded: cannot tell whether it succeeded (accepting_unknown_outcomes() accepts it)"
            )
        else:
            how = "calls of it that failed or record no outcome" if undecided else "failed calls of it"
            what = f" after only {how}: {at_steps(steps, before)}" if before else " with none before it"
            why = f"found {at_steps(steps, early)}{what}"
            if first_ok is not None:
                why += f" (the first successful one is step {first_ok + 1})"
        fail_steps(sel, check, steps, f"{expected}, {why}", message, early)
        return sel
    unknown_steps(sel, check, steps, expected, message)
    return sel


def starts_with_tool(sel: Selection, tool_name: NameLike, *, message: str | None = None) -> Selection:
    """The first step is a call of ``tool_name``."""
    __tracebackhide__ = True
    return _at_end(sel, "starts_with_tool", tool_name, 0, message)


def ends_with_tool(sel: Selection, tool_name: NameLike, *, message: str | None = None) -> Selection:
    """The last step is a call of ``tool_name``: the run's last action."""
    __tracebackhide__ = True
    return _at_end(sel, "ends_with_tool", tool_name, -1, message)


def _at_end(sel: Selection, name: str, tool_name: NameLike, index: int, message: str | None) -> Selection:
    __tracebackhide__ = True
    pattern = pattern_of(tool_name, "tool", name)
    check = call_text(name, tool_name)
    which = "first" if index == 0 else "last"
    expected = f"expected the {which} step to be a call of {pattern.shown()}"
    steps = steps_of(sel)
    if no_steps(sel, check, steps, expected, message):
        return sel
    at = index % len(steps)
    if pattern.matches(steps.tools[at].name):
        unknown_steps(sel, check, steps, expected, message)
        return sel
    others = positions(steps, pattern)
    also = f"; {at_steps(steps, others)}" if others else f"; {pattern.shown()} was never called"
    fail_steps(sel, check, steps, f"{expected}, found {step(steps, at)}{also}", message, [at])
    return sel
