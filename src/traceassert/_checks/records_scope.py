"""What the Monocle-style tool, agent and handoff checks count: the records *inside* the selection.

Chains read as "inside", at any depth and through nested agents: after ``called_agent(A)``, A and every
invocation below it; after ``called_tool(X)``, the executions X and everything that ran below them (the
agents they started, those agents' tools, ...); after a span selector, the records of the selected
spans; else the whole trace. Each scope is split into the principals' own records and the nested
agents' (see ``nesting``): ``top_level_only()`` counts the own ones only, the default counts both.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .._model.records import AgentInvocation, Handoff, ToolExecution
from .examined import handing_out
from .names import Names
from .nesting import split_agents, split_records
from .selection import Selection

__all__ = ["Scoped", "agent_scope", "below_tools_agents", "handoff_scope", "tool_scope"]


class Scoped:
    """Records in scope: ``counted`` (what the check counts), ``own`` / ``nested`` (split by the
        principals; ``counted`` is ``own`` after ``top_level_only()``, else both), ``principals``.

    The scope functions hand ``counted`` to the running check (``examined.handing_out``): it is what the check
    examined, and ``left_out`` what the nesting choice kept from it."""

    __slots__ = ("_split", "counted", "principals", "records", "top")

    def __init__(self, records: Sequence[Any], principals: Sequence[AgentInvocation], top: bool) -> None:
        self.principals = list(principals)
        self.records = records
        self.top = top
        #: (own, nested), made on first use: a passing check that counts both never needs it
        self._split: tuple[list[Any], list[Any]] | None = None
        self.counted: list[Any] = self.own if top else list(records)

    def _own_and_nested(self) -> tuple[list[Any], list[Any]]:
        if self._split is None:
            records = self.records
            if records and isinstance(records[0], AgentInvocation):
                self._split = split_agents(records, self.principals)
            else:
                self._split = split_records(records, self.principals)
        return self._split

    @property
    def own(self) -> list[Any]:
        return self._own_and_nested()[0]

    @property
    def nested(self) -> list[Any]:
        return self._own_and_nested()[1]

    @property
    def left_out(self) -> list[Any]:
        """What ``top_level_only()`` left out (empty without it)."""
        return self.nested if self.top else []


def _unique(records: Iterable[Any]) -> list[Any]:
    return list({id(r): r for r in records}.values())


def below_tools_agents(sel: Selection) -> list[AgentInvocation]:
    """After ``called_tool``: the agents those executions started that the spans do not show below
    them (linked only by ``via_tool``), with their nested agents."""
    ids = {id(t) for t in sel.tools or ()}
    if not ids:
        return []
    return [
        sub
        for inv in sel.trace.all_agents()
        if inv.via_tool is not None and id(inv.via_tool) in ids
        for sub in inv.walk()
    ]


@handing_out
def tool_scope(sel: Selection, names: Names | None = None) -> Scoped:
    """The tool executions inside the selection (of ``names`` when given), failed ones too."""
    trace = sel.trace
    wide = sel.with_nested()
    wanted = names
    exact = None if names is None else names.exact_names
    tools: list[ToolExecution]
    if not wide.narrowed:
        if exact is not None and len(exact) == 1:
            tools = list(trace.reconstruction.tools_by_name.get(exact[0], ()))
            wanted = None  # all of that name already
        else:
            tools = list(trace.tool_executions)
    elif sel.kind == "tools":
        tools = wide.in_selection(trace.tool_executions)
        extra = [t for inv in below_tools_agents(sel) for t in inv.tool_executions]
        if extra:
            tools = sorted(_unique([*tools, *extra]), key=lambda t: t.start_ns)
    else:
        tools = wide.selected_tools()
    if wanted is not None:
        tools = [t for t in tools if wanted.matches(t.name)]
    return Scoped(tools, sel.principals(), sel.nested == "top")


@handing_out
def agent_scope(sel: Selection) -> Scoped:
    """The agent invocations inside the selection (the selected ones included), implicit ones not."""
    if sel.agents is not None:
        agents = _unique(sub for inv in sel.agents for sub in inv.walk())
    else:
        agents = sel.with_nested().selected_agents()
        extra = below_tools_agents(sel)
        if extra:
            agents = sorted(_unique([*agents, *extra]), key=lambda a: a.start_ns)
    agents = [a for a in agents if not a.implicit]
    return Scoped(agents, sel.principals(), sel.nested == "top")


@handing_out
def handoff_scope(sel: Selection) -> Scoped:
    """The handoffs made inside the selection."""
    trace = sel.trace
    wide = sel.with_nested()
    handoffs: list[Handoff]
    if not wide.narrowed:
        handoffs = list(trace.handoffs)
    else:
        agents = agent_scope(sel)
        made = [h for inv in [*agents.own, *agents.nested] for h in inv.handoffs]
        spanned = [] if sel.agents is not None else wide.in_selection(trace.handoffs)
        handoffs = sorted(_unique([*made, *spanned]), key=lambda h: h.start_ns)
    return Scoped(handoffs, sel.principals(), sel.nested == "top")
