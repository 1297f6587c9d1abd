"""Whose work a record is: the nesting rules that both families of checks share.

A selection has *principal* invocations: after ``called_agent``, the invocations selected; after
``called_tool``, the agents that made those calls; after a span selector, the outermost agents whose
work the selected spans are; else the top-level invocations of the trace. A record (tool execution,
model call, handoff, span, agent invocation) is the principals' *own* when it belongs to one of them (or
to no agent at all), and *nested* when it belongs to an agent they started, directly or not.
``top_level_only()`` keeps the own records only; Monocle-style checks keep both by default, and say so
in their failure messages when the nested records decide the answer.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any, TypeVar
from weakref import WeakKeyDictionary

from .._model.records import AgentInvocation
from .._trace import Trace

#: the label of the line that says how nesting decided a failure
NOTE = "\nnesting: "

__all__ = [
    "NOTE",
    "nested_agents_text",
    "nested_records_text",
    "nested_tokens_note",
    "outermost",
    "own_hint",
    "principal_above",
    "record_agent",
    "span_owners",
    "split_agents",
    "split_records",
    "times",
]

R = TypeVar("R")

_OWNERS: WeakKeyDictionary[Trace, list[AgentInvocation | None]] = WeakKeyDictionary()


def span_owners(trace: Trace) -> list[AgentInvocation | None]:
    """For each span (by position), the agent invocation whose work it is: the invocation of the
    nearest agent span at or above it; None outside every agent span. Computed once per Trace."""
    owners = _OWNERS.get(trace)
    if owners is not None and len(owners) == len(trace.spans):
        return owners
    agent_of: dict[int, AgentInvocation] = {}
    for inv in trace.all_agents():
        if not inv.implicit:
            for span in inv.spans:
                agent_of[id(span)] = inv
    found: list[AgentInvocation | None] = [None] * len(trace.spans)
    stack: list[tuple[Any, AgentInvocation | None]] = [(root, None) for root in reversed(trace.roots)]
    while stack:
        span, owner = stack.pop()
        owner = agent_of.get(id(span), owner)
        found[trace._position_of(span)] = owner
        stack.extend((child, owner) for child in reversed(trace.children(span)))
    _OWNERS[trace] = found
    return found


def outermost(invocations: Iterable[AgentInvocation]) -> list[AgentInvocation]:
    """The invocations none of whose ancestors is among them, each once, in the order given."""
    unique = list({id(inv): inv for inv in invocations}.values())
    ids = {id(inv) for inv in unique}
    out = []
    for inv in unique:
        parent = inv.parent
        while parent is not None and id(parent) not in ids:
            parent = parent.parent
        if parent is None:
            out.append(inv)
    return out


def record_agent(rec: Any) -> AgentInvocation | None:
    """The invocation a record belongs to: its ``agent`` (a handoff's ``from_invocation``)."""
    if isinstance(rec, AgentInvocation):
        return rec
    if hasattr(rec, "agent"):
        return rec.agent  # type: ignore[no-any-return]
    return getattr(rec, "from_invocation", None)


def _is_own(agent: AgentInvocation | None, ids: set[int]) -> bool:
    return agent is None or agent.implicit or id(agent) in ids


def split_records(records: Iterable[R], principals: Sequence[AgentInvocation]) -> tuple[list[R], list[R]]:
    """(the principals' own records, the nested agents' records); a record's agent is its ``agent``
    (``from_invocation`` for a handoff)."""
    ids = {id(p) for p in principals}
    own: list[R] = []
    nested: list[R] = []
    for rec in records:
        (own if _is_own(record_agent(rec), ids) else nested).append(rec)
    return own, nested


def split_agents(
    agents: Iterable[AgentInvocation], principals: Sequence[AgentInvocation]
) -> tuple[list[AgentInvocation], list[AgentInvocation]]:
    """(the principals among ``agents``, the others: agents nested below them)."""
    ids = {id(p) for p in principals}
    own: list[AgentInvocation] = []
    nested: list[AgentInvocation] = []
    for inv in agents:
        (own if inv.implicit or id(inv) in ids else nested).append(inv)
    return own, nested


def principal_above(
    inv: AgentInvocation | None, principals: Sequence[AgentInvocation]
) -> AgentInvocation | None:
    """The nearest principal strictly above ``inv`` (None when none is)."""
    ids = {id(p) for p in principals}
    parent = inv.parent if inv is not None else None
    while parent is not None and id(parent) not in ids:
        parent = parent.parent
    return parent


def times(n: int) -> str:
    return {1: "once", 2: "twice"}.get(n, f"{n} times")


def _inside(inv: AgentInvocation | None, principals: Sequence[AgentInvocation]) -> str:
    above = principal_above(inv, principals)
    return f" inside {above.name!r}" if above is not None and not above.implicit else ""


def _some(names: Sequence[str], limit: int = 3) -> str:
    shown = ", ".join(repr(n) for n in names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _clauses(parts: list[str], limit: int = 3) -> str:
    text = "; ".join(parts[:limit])
    return text + (f"; and {len(parts) - limit} more" if len(parts) > limit else "")


def nested_records_text(records: Iterable[Any], principals: Sequence[AgentInvocation], verb: str) -> str:
    """``'issue_refund' was called once, by nested agent 'refunds' inside 'support_triage'``: one clause
    per name (tool name, or handoff) and principal, joined by ``; ``, a few at most."""
    groups: dict[tuple[str, str], tuple[list[int], dict[str, None]]] = {}
    for rec in records:
        agent = record_agent(rec)
        name = repr(rec.name) if hasattr(rec, "name") else f"handoff {rec}"
        counter, agents = groups.setdefault((name, _inside(agent, principals)), ([0], {}))
        counter[0] += 1
        agents[agent.name if agent is not None else "?"] = None
    parts = []
    for (name, inside), (counter, agents) in groups.items():
        names = list(agents)
        by = f"nested agent {names[0]!r}" if len(names) == 1 else f"nested agents {_some(names)}"
        parts.append(f"{name} was {verb} {times(counter[0])}, by {by}{inside}")
    return _clauses(parts)


def nested_agents_text(agents: Iterable[AgentInvocation], principals: Sequence[AgentInvocation]) -> str:
    """``'refunds' was invoked once, nested inside 'support_triage'``."""
    groups: Counter[tuple[str, str]] = Counter()
    for inv in agents:
        groups[(inv.name, _inside(inv, principals))] += 1
    return _clauses(
        [
            f"{name!r} was invoked {times(n)}, nested{inside or ' in another agent'}"
            for (name, inside), n in groups.items()
        ]
    )


def own_hint(nested: Iterable[Any], principals: Sequence[AgentInvocation]) -> str:
    """Whose own work ``top_level_only()`` would check: ``support_triage's``, or the top-level agents'."""
    names: dict[str, None] = {}
    for rec in nested:
        above = principal_above(record_agent(rec), principals)
        if above is not None and not above.implicit:
            names[above.name] = None
    if len(names) == 1:
        return f"{next(iter(names))}'s own"
    return "the top-level agents' own"


def nested_tokens_note(calls: Sequence[Any], principals: Sequence[AgentInvocation], top: bool) -> str:
    """``; 114 of them by nested agent 'refunds' inside 'support_triage' ...`` for a token total that
    nested agents' model calls are part of (empty after ``top_level_only()`` or when there are none)."""
    if top:
        return ""
    _, nested = split_records(calls, principals)
    if not nested:
        return ""
    tokens = sum(c.total_tokens or 0 for c in nested)
    agents = ", ".join(dict.fromkeys(f"{a.name!r}{_inside(a, principals)}" for c in nested if (a := c.agent)))
    return (
        f"{NOTE}{tokens} of them by nested agent {agents}; use top_level_only() to count "
        f"{own_hint(nested, principals)} model calls only"
    )
