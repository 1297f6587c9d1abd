"""Budgets over the steps of a run: how many of each kind, and the share of failed tool calls.

- ``under_step_limits(tools=, model_calls=, agent_runs=, handoffs=, retries=)``: at most that many tool
  calls (the run's steps, failed ones included), model calls, agent runs (the invocations inside the
  selection, the selected ones included), handoffs, and retries (a retry is a tool call whose previous
  call of the same tool failed).
- ``under_tool_failure_rate(max_rate)``: at most ``max_rate`` (a share, 0.25 for 25%) of the run's tool
  calls failed.

Every count follows the nesting choice, as the other rules do. Where the trace does not show the answer,
the check fails with "cannot tell": a selection that records nothing, a limit on model calls or agent
runs where none is recorded (the producer records none, or not here), a limit on handoffs where no agent
run is recorded, a tool call of unknown outcome that could break the limit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..._model.records import ToolRequest
from ..monocle.handoffs import describe_handoffs
from ..records_scope import agent_scope, handoff_scope
from ..selection import Selection
from ..unknown import ABOVE_BOUND, cannot_tell, selection_unknowns
from .steps import Steps, fail_steps, no_steps, step, steps_of

__all__ = ["percent", "retries_of", "under_step_limits", "under_tool_failure_rate"]

_KINDS = ("tools", "model_calls", "agent_runs", "handoffs", "retries")
_WORDS = {
    "tools": "tool call(s)",
    "model_calls": "model call(s)",
    "agent_runs": "agent run(s)",
    "handoffs": "handoff(s)",
    "retries": "retry call(s)",
}


def _limit(value: Any, label: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{label} must be an int, got {value!r}")
    if value < 0:
        raise ValueError(f"{label} must be >= 0, got {value}")
    return value


def retries_of(steps: Steps) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(retry, failed call before it) pairs of step positions: those the trace shows, and those it may
    show (the previous call of the tool records no outcome)."""
    last: dict[str, int] = {}
    sure: list[tuple[int, int]] = []
    maybe: list[tuple[int, int]] = []
    for i, tool in enumerate(steps.tools):
        before = last.get(tool.name)
        if before is not None:
            outcome = steps.tools[before].failed
            if outcome is True:
                sure.append((i, before))
            elif outcome is None:
                maybe.append((i, before))
        last[tool.name] = i
    return sure, maybe


def under_step_limits(
    sel: Selection,
    *,
    tools: int | None = None,
    model_calls: int | None = None,
    agent_runs: int | None = None,
    handoffs: int | None = None,
    retries: int | None = None,
    message: str | None = None,
) -> Selection:
    """At most ``tools`` tool calls, ``model_calls`` model calls, ``agent_runs`` agent runs,
    ``handoffs`` handoffs and ``retries`` retries inside the selection (the limits given)."""
    __tracebackhide__ = True
    given = {
        k: _limit(v, k)
        for k, v in zip(_KINDS, (tools, model_calls, agent_runs, handoffs, retries), strict=True)
        if v is not None
    }
    if not given:
        raise ValueError("under_step_limits needs at least one limit: " + ", ".join(f"{k}=" for k in _KINDS))
    check = "under_step_limits(" + ", ".join(f"{k}={v}" for k, v in given.items()) + ")"
    expected = "expected " + " and ".join(f"at most {v} {_WORDS[k]}" for k, v in given.items())
    steps = steps_of(sel)
    calls = sel.selected_model_calls()
    agents = agent_scope(sel).counted
    if not steps.tools and not calls and not agents:
        no_steps(sel, check, steps, expected, message)
        return sel
    over: list[str] = []
    involved: list[int] = []
    unknown: list[str] = []
    requests = selection_unknowns(sel)
    requested = cannot_tell(sel, requests, ABOVE_BOUND).removeprefix("cannot tell: ") if requests else ""
    for kind, limit in given.items():
        if kind == "tools":
            shown = [step(steps, i) for i in range(len(steps))]
            _count(over, unknown, kind, limit, len(steps), shown, requests, requested)
            if len(steps) > limit:
                involved.extend(range(len(steps)))
        elif kind == "retries":
            sure, maybe = retries_of(steps)
            shown = [f"{step(steps, i)} after its failed call at step {j + 1}" for i, j in sure]
            _count(over, unknown, kind, limit, len(sure), shown, requests, requested)
            if len(sure) <= limit < len(sure) + len(maybe) and not requests:
                unknown.append(_maybe_retries(steps, maybe))
            if len(sure) > limit:
                involved.extend(i for i, _ in sure)
        elif kind == "model_calls":
            if not calls:
                unknown.append("the selection records no model call")
            _count(over, unknown, kind, limit, len(calls), [_call_text(c) for c in calls], ())
        elif kind == "agent_runs":
            if not agents:
                unknown.append("the selection records no agent run")
            _count(over, unknown, kind, limit, len(agents), [repr(a.name) for a in agents], ())
        else:
            moves = handoff_scope(sel).counted
            if not agents:
                unknown.append("the selection records no agent run")
            _count(over, unknown, kind, limit, len(moves), [describe_handoffs([h]) for h in moves], ())
    if over:
        fail_steps(sel, check, steps, f"{expected}, found {'; '.join(over)}", message, involved)
    elif unknown:
        problem = f"{expected}; found no more, but cannot tell: " + "; ".join(dict.fromkeys(unknown))
        fail_steps(sel, check, steps, problem, message)
    return sel


def _count(
    over: list[str],
    unknown: list[str],
    kind: str,
    limit: int,
    found: int,
    shown: Sequence[str],
    requests: Sequence[ToolRequest],
    requested: str = "",
) -> None:
    if found > limit:
        listed = ", ".join(shown[:6]) + (f", ... ({len(shown) - 6} more)" if len(shown) > 6 else "")
        over.append(f"{found} {_WORDS[kind]}: {listed}")
    elif requests and kind in ("tools", "retries") and found + len(requests) > limit:
        unknown.append(requested)


def _maybe_retries(steps: Steps, maybe: list[tuple[int, int]]) -> str:
    first, before = maybe[0]
    return (
        f"{step(steps, first)} may be a retry: the call of {steps.tools[first].name!r} before it (step "
        f"{before + 1}) records no outcome"
    )


def _call_text(call: Any) -> str:
    agent = call.agent
    who = f" (agent {agent.name!r})" if agent is not None and not agent.implicit else ""
    return f"{call.operation or 'call'} {call.model or ''}".rstrip() + who


def percent(share: float) -> str:
    """``0.25`` as ``25%``, ``1/3`` as ``33.3%``."""
    return f"{share * 100:.1f}".rstrip("0").rstrip(".") + "%"


def under_tool_failure_rate(sel: Selection, max_rate: float, *, message: str | None = None) -> Selection:
    """At most ``max_rate`` (a share between 0 and 1) of the tool calls inside the selection failed."""
    __tracebackhide__ = True
    if isinstance(max_rate, bool) or not isinstance(max_rate, int | float):
        raise TypeError(f"max_rate must be a number between 0 and 1, got {max_rate!r}")
    if not 0 <= max_rate <= 1:  # also NaN
        raise ValueError(f"max_rate is a share between 0 and 1 (0.25 for 25%), got {max_rate}")
    check = f"under_tool_failure_rate({max_rate})"
    expected = f"expected at most {percent(max_rate)} of the tool calls to fail"
    steps = steps_of(sel)
    if no_steps(sel, check, steps, expected, message):
        return sel
    failed = [i for i, t in enumerate(steps.tools) if t.failed is True]
    open_ = [i for i, t in enumerate(steps.tools) if t.failed is None]
    requests = selection_unknowns(sel)
    total = len(steps) + len(requests)
    found = f"found {len(failed)} of {len(steps)} failed ({percent(len(failed) / len(steps))})"
    listed = _failed_text(steps, failed, lambda i: step(steps, i))
    if len(failed) / total > max_rate:
        fail_steps(sel, check, steps, f"{expected}, {found}{listed}", message, failed)
        return sel
    if (len(failed) + len(open_) + len(requests)) / total > max_rate:
        why = []
        if open_:
            why.append(f"cannot tell: {len(open_)} call(s) record no outcome ({step(steps, open_[0])}, ...)")
        if requests:
            why.append(cannot_tell(sel, requests, ", and failed"))
        problem = f"{expected}, {found}{listed}; but " + "; ".join(why)
        fail_steps(sel, check, steps, problem, message, open_)
    return sel


def _failed_text(steps: Steps, failed: list[int], text: Callable[[int], str]) -> str:
    if not failed:
        return ""
    return (
        ": "
        + ", ".join(text(i) for i in failed[:6])
        + (f", ... ({len(failed) - 6} more)" if len(failed) > 6 else "")
    )
