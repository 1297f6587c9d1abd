"""No vacuous verdicts: tool calls whose outcome the trace cannot tell.

A tool call the model asked for that no execution, handoff or nested agent answers is "not executed"
only where its producer records executions (``ToolRequest.executions_recorded``, see
``_reconstruct.recorded``). Elsewhere its outcome is unknown (``ToolRequest.outcome_unknown``): it may
have run, and failed. A check whose verdict such a call could change fails with "cannot tell" and
names the calls (`cannot_tell`), unless ``accepting_unknown_outcomes()`` accepted them
(``Selection.unknown_outcomes``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .._dialects._base import NotRecorded
from .._model.records import ModelCall, ToolRequest
from .._trace import Trace
from .count import Count
from .examined import quiet, withdraw
from .names import NamePattern, Names
from .selection import Selection
from .unrecorded import gap

__all__ = [
    "ABOVE_BOUND",
    "ACCEPT_HINT",
    "bound_unknowns",
    "cannot_tell",
    "has_unknown_outcomes",
    "requested_text",
    "selection_unknowns",
    "unknowns_of",
]

#: how to accept unknown outcomes on purpose, for the failure messages
ACCEPT_HINT = (
    "accepting_unknown_outcomes() (traceassert check --accept-unknown) accepts unknown outcomes on purpose"
)

#: what a call of unknown outcome could do to a count with an upper bound (``cannot_tell``'s ``could``)
ABOVE_BOUND = ", which would put the count above the bound"

_LISTED = 5


def _agent_name(call: ModelCall | None) -> str | None:
    agent = call.agent if call is not None else None
    return agent.name if agent is not None and not agent.implicit else None


def unknowns_of(
    sel: Selection,
    calls: Iterable[ModelCall],
    names: Names | None = None,
    agent_name: NamePattern | None = None,
) -> list[ToolRequest]:
    """The requests of ``calls`` (of ``names``, made by ``agent_name`` when given) whose outcome is
    unknown; none when the selection accepts unknown outcomes. ``calls`` were read for this only: the
    running check did not examine them (``examined.withdraw``)."""
    if isinstance(calls, list):
        withdraw(calls)
    if sel.unknown_outcomes == "accept":
        return []
    return [
        r
        for c in calls
        for r in c.requested_tools
        if r.outcome_unknown
        and (names is None or names.matches(r.name))
        and (agent_name is None or agent_name.matches(_agent_name(c)))
    ]


def has_unknown_outcomes(trace: Trace) -> bool:
    """Whether a tool call a model asked for in ``trace`` has an unknown outcome (found once per trace)."""
    found: bool | None = trace.memo.get("unknown_outcomes")
    if found is None:
        found = trace.memo["unknown_outcomes"] = any(r.outcome_unknown for r in trace.tool_requests)
    return found


def selection_unknowns(
    sel: Selection, names: Names | None = None, agent_name: NamePattern | None = None
) -> list[ToolRequest]:
    """``unknowns_of`` the model calls inside the selection (the Monocle-style scope: nested agents'
    calls count unless ``top_level_only()`` was called)."""
    if sel.unknown_outcomes == "accept":
        return []
    trace = sel.trace
    if not has_unknown_outcomes(trace):
        return []
    with quiet():  # read to look for calls of unknown outcome, not examined
        calls = sel.selected_model_calls() if sel.narrowed else trace.model_calls
    return unknowns_of(sel, calls, names, agent_name)


def bound_unknowns(count: Count, found: int, unknown: Sequence[ToolRequest]) -> bool:
    """Whether ``unknown`` calls could turn the passing count ``found`` into a failure: they could
    push it above an upper bound."""
    bound = count.exact if count.exact is not None else count.at_most
    return bool(unknown) and bound is not None and found + len(unknown) > bound


def _where(trace: Trace, req: ToolRequest, numbers: dict[int, int]) -> str:
    call = req.model_call
    number = numbers.get(id(call)) if call is not None else None
    where = f"model call {number}" if number is not None else "a model call"
    agent = _agent_name(call)
    return where + (f" (agent {agent!r})" if agent else "")


def _why(trace: Trace, requests: Sequence[ToolRequest]) -> str:
    """Who does not record the executions: the producer's declared gap, else the dialect and scope of
    the model calls that asked."""
    said: list[str] = []
    for req in requests:
        call = req.model_call
        if call is None:
            continue
        entry: NotRecorded | None = gap(trace, call, "tool.executions")
        if entry is not None:
            text = f"{entry.producer} does not record {entry.missing}"
        else:
            span = call.span
            scope = span.scope_name if span is not None else None
            where = f"{call.dialect or 'unknown'} spans" + (f" of scope {scope!r}" if scope else "")
            text = f"{where}: a producer not known to record tool executions, with no tool span in this trace"
        if text not in said:
            said.append(text)
    return "; ".join(said[:3])


def cannot_tell(sel: Selection, requests: Sequence[ToolRequest], could: str) -> str:
    """The problem text of a check that cannot tell: the requests (``tool 'x' was requested by model
    call 3 (agent 'a')``), why their outcome is unknown, what running could have done (``could``, after
    "it may have run": ``", and failed"``) and how to accept them."""
    trace = sel.trace
    numbers = {id(c): i for i, c in enumerate(trace.model_calls, 1)}
    listed = [f"tool {r.name!r} was requested by {_where(trace, r, numbers)}" for r in requests[:_LISTED]]
    if len(requests) > _LISTED:
        listed.append(f"... ({len(requests) - _LISTED} more)")
    one = len(requests) == 1
    its = "its" if one else "their"
    why = _why(trace, requests)
    return (
        f"cannot tell: {'; '.join(listed)}; this trace records neither {its} execution nor {its} result"
        + (f" ({why})" if why else "")
        + f"; {'it' if one else 'they'} may have run{could}. {ACCEPT_HINT}"
    )


def requested_text(never: int, unknown: int) -> str:
    """``(N more requested by the model but never executed)`` and the calls of unknown outcome, for a
    count that found too few executions; empty when there are none."""
    parts = []
    if never:
        parts.append(f"{never} more requested by the model but never executed")
    if unknown:
        parts.append(f"{unknown} more requested by the model with no execution recorded")
    return f" ({'; '.join(parts)})" if parts else ""
