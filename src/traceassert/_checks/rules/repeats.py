"""Retries and repeated calls over the run's steps (see ``steps``).

- ``has_retried_failed_tools(tool_name=None, changed_arguments=None)``: after every failed call (of
  ``tool_name`` when given), a later call of the same tool succeeds, or no step follows it (the run
  stopped). ``changed_arguments=True``: the successful retry must have other arguments than the failed
  call; ``False``: the same ones. A call that records no outcome may have failed: unless the run stopped
  there or a later call of it succeeded as asked, the check cannot tell.
- ``does_not_repeat_tool_calls(max_count=1)``: no identical call (name and arguments) is made more than
  ``max_count`` times in the run: loop detection.
- ``does_not_repeat_tool_calls_in_a_row()``: no step is the same call as the step before it.
"""

from __future__ import annotations

from collections import defaultdict

from ..describe import call_text
from ..names import NameLike, pattern_of
from ..selection import Selection
from .steps import (
    Steps,
    agent_of,
    call_head,
    call_key,
    fail_steps,
    no_steps,
    step,
    steps_of,
    unknown_steps,
)
from .temporal import at_steps

__all__ = ["does_not_repeat_tool_calls", "does_not_repeat_tool_calls_in_a_row", "has_retried_failed_tools"]


def has_retried_failed_tools(
    sel: Selection,
    tool_name: NameLike | None = None,
    *,
    changed_arguments: bool | None = None,
    message: str | None = None,
) -> Selection:
    """After every failed call (of ``tool_name``), a later call of the same tool succeeds (with other
    arguments when ``changed_arguments=True``, the same when ``False``), or the run stops there."""
    __tracebackhide__ = True
    if changed_arguments is not None and not isinstance(changed_arguments, bool):
        raise TypeError(f"changed_arguments must be True, False or None, got {changed_arguments!r}")
    pattern = None if tool_name is None else pattern_of(tool_name, "tool", "has_retried_failed_tools")
    check = call_text("has_retried_failed_tools", tool_name)
    if changed_arguments is not None:
        check = f"{check[:-1]}{', ' if tool_name is not None else ''}changed_arguments={changed_arguments})"
    what = "every failed call" if pattern is None else f"every failed call of {pattern.shown()}"
    how = {None: "", True: " with changed arguments", False: " with the same arguments"}[changed_arguments]
    expected = f"expected {what} to be retried until it succeeds{how}, or the run to stop there"
    steps = steps_of(sel)
    if no_steps(sel, check, steps, expected, message):
        return sel
    accept = sel.unknown_outcomes == "accept"
    undecided: int | None = None  # the first call that records no outcome and may have needed a retry
    for i, tool in enumerate(steps.tools):
        if tool.failed is False or (pattern is not None and not pattern.matches(tool.name)):
            continue
        problem = _not_retried(steps, i, changed_arguments, accept)
        if problem and tool.failed is None:
            if undecided is None and not accept:
                undecided = i
        elif problem:
            fail_steps(sel, check, steps, f"{expected}, found {step(steps, i)} failed{problem}", message, [i])
            return sel
    if undecided is not None:
        why = (
            f"found {step(steps, undecided)}, which records no outcome, and no later call of it is known to "
            f"have succeeded{how}: cannot tell whether it failed and needed a retry "
            "(accepting_unknown_outcomes() accepts it)"
        )
        fail_steps(sel, check, steps, f"{expected}, {why}", message, [undecided])
        return sel
    unknown_steps(sel, check, steps, expected, message)
    return sel


def _not_retried(steps: Steps, i: int, changed: bool | None, accept: bool) -> str:
    """Why the failed step ``i`` is not retried as asked (empty: it is, or the run stopped there)."""
    tools = steps.tools
    if i == len(tools) - 1:
        return ""  # the run stopped
    failed = tools[i]
    key = call_key(failed)
    retries = [j for j in range(i + 1, len(tools)) if tools[j].name == failed.name]
    fits = [j for j in retries if changed is None or (call_key(tools[j]) != key) == changed]
    if any(tools[j].failed is False for j in fits):
        return ""
    undecided = [j for j in fits if tools[j].failed is None]
    if undecided and not accept:
        return (
            f"; cannot tell whether its retry succeeded: {at_steps(steps, undecided)} record no outcome "
            "(accepting_unknown_outcomes() accepts it)"
        )
    if not retries:
        return f", and was not retried: the run went on with {step(steps, i + 1)}"
    ok = [j for j in retries if tools[j].failed is False]
    if ok and changed is not None:
        same = "the same" if changed else "other"
        return f"; its successful retries have {same} arguments: {at_steps(steps, ok)}"
    return f"; every retry failed too: {at_steps(steps, retries)}"


def does_not_repeat_tool_calls(
    sel: Selection, *, max_count: int = 1, message: str | None = None
) -> Selection:
    """No identical call (tool name and arguments) is made more than ``max_count`` times: loop
    detection. Failed calls count."""
    __tracebackhide__ = True
    if isinstance(max_count, bool) or not isinstance(max_count, int):
        raise TypeError(f"max_count must be an int, got {max_count!r}")
    if max_count < 1:
        raise ValueError(f"max_count must be >= 1, got {max_count}")
    check = call_text("does_not_repeat_tool_calls", max_count=None if max_count == 1 else max_count)
    expected = f"expected no identical call (name and arguments) more than {max_count} time(s)"
    steps = steps_of(sel)
    if no_steps(sel, check, steps, expected, message):
        return sel
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, tool in enumerate(steps.tools):
        groups[call_key(tool)].append(i)
    loops = [where for where in groups.values() if len(where) > max_count]
    if loops:
        loops.sort(key=lambda where: (-len(where), where[0]))
        parts = [_repeated(steps, where) for where in loops[:3]]
        more = f"; and {len(loops) - 3} more repeated call(s)" if len(loops) > 3 else ""
        involved = [j for where in loops[:3] for j in where]
        fail_steps(sel, check, steps, f"{expected}, found " + "; ".join(parts) + more, message, involved)
        return sel
    unknown_steps(sel, check, steps, expected, message)
    return sel


def does_not_repeat_tool_calls_in_a_row(sel: Selection, *, message: str | None = None) -> Selection:
    """No step is the same call (tool name and arguments) as the step right before it: no redundant
    call. Failed calls count (an identical retry of a failure is a repeat)."""
    __tracebackhide__ = True
    check = "does_not_repeat_tool_calls_in_a_row()"
    expected = "expected no step to repeat the call (name and arguments) of the step before it"
    steps = steps_of(sel)
    if no_steps(sel, check, steps, expected, message):
        return sel
    keys = [call_key(t) for t in steps.tools]
    repeats = [i for i in range(1, len(keys)) if keys[i] == keys[i - 1]]
    if repeats:
        i = repeats[0]
        more = f" ({len(repeats)} repeats in all)" if len(repeats) > 1 else ""
        fail_steps(
            sel,
            check,
            steps,
            f"{expected}, found {_call(steps, i)} at steps {i} and {i + 1} ({_agents(steps, i)}){more}",
            message,
            [i - 1, i],
        )
        return sel
    unknown_steps(sel, check, steps, expected, message)
    return sel


def _repeated(steps: Steps, where: list[int]) -> str:
    """``get_weather(city='Paris') 2 times, at steps 1, 3 (agent 'forecaster')``."""
    numbers = ", ".join(str(j + 1) for j in where[:10]) + ("" if len(where) <= 10 else ", ...")
    agents = ", ".join(dict.fromkeys(agent_of(steps.tools[j]) for j in where))
    return f"{_call(steps, where[0])} {len(where)} times, at steps {numbers} ({agents})"


def _call(steps: Steps, i: int) -> str:
    return call_head(steps.tools[i])


def _agents(steps: Steps, i: int) -> str:
    first, second = agent_of(steps.tools[i - 1]), agent_of(steps.tools[i])
    return first if first == second else f"{first}, then {second}"
