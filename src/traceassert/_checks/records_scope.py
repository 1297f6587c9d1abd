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

from .._common.text import short
from .._model.records import AgentInvocation, Handoff, ToolExecution
from .nesting import split_agents, split_records
from .selection import SelectionBase

__all__ = ["RecordScope", "Scoped", "agent_arg", "check_call", "names_arg", "over_bound", "quoted"]


class Scoped:
    """Records in scope: ``counted`` (what the check counts), ``own`` / ``nested`` (split by the
    principals; ``counted`` is ``own`` after ``top_level_only()``, else both), ``principals``."""

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


def names_arg(value: Any, what: str, check: str) -> tuple[str, ...]:
    """One name or several (any of them) as a tuple without repeats; TypeError for a wrong type,
    ValueError for no name at all."""
    if isinstance(value, str):
        items: list[Any] = [value]
    elif isinstance(value, Iterable) and not isinstance(value, bytes | dict):
        items = list(value)
    else:
        raise TypeError(f"{check} takes a {what} name (str) or a list of them, got {value!r}")
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"{check}: a {what} name must be a str, got {item!r}")
        if not item:
            raise ValueError(f"{check}: a {what} name must not be empty")
    if not items:
        raise ValueError(f"{check} needs at least one {what} name")
    return tuple(dict.fromkeys(items))


def agent_arg(value: Any, check: str) -> str | None:
    """``agent_name=``: an agent name or None (TypeError otherwise)."""
    if value is not None and (not isinstance(value, str) or not value):
        raise TypeError(f"{check}: agent_name must be a non-empty str or None, got {value!r}")
    return value


def over_bound(n: int, count: int | None, max_count: int | None) -> bool:
    """True when ``n`` is above the count asked for (nested records may be why)."""
    return (count is not None and n > count) or (max_count is not None and n > max_count)


def quoted(names: Sequence[str], what: str) -> str:
    """``tool 'a'`` or ``any of the tools 'a', 'b'``."""
    if len(names) == 1:
        return f"{what} {names[0]!r}"
    return f"any of the {what}s " + ", ".join(repr(n) for n in names)


def check_call(name: str, *args: Any, **kwargs: Any) -> str:
    """``called_tool('x', count=2)``: the call as written (trailing None arguments left out)."""
    items = list(args)
    while items and items[-1] is None:
        items.pop()

    def show(v: Any) -> str:
        if isinstance(v, list | tuple) and all(isinstance(x, str) for x in v):
            return repr(list(v))
        return short(v, 60)

    parts = [show(a) for a in items]
    parts.extend(f"{k}={show(v)}" for k, v in kwargs.items() if v is not None)
    return f"{name}({', '.join(parts)})"


def _unique(records: Iterable[Any]) -> list[Any]:
    return list({id(r): r for r in records}.values())


class RecordScope(SelectionBase):
    __slots__ = ()

    def _below_tools_agents(self) -> list[AgentInvocation]:
        """After ``called_tool``: the agents those executions started that the spans do not show below
        them (linked only by ``via_tool``), with their nested agents."""
        ids = {id(t) for t in self._tools or ()}
        if not ids:
            return []
        return [
            sub
            for inv in self.trace.all_agents()
            if inv.via_tool is not None and id(inv.via_tool) in ids
            for sub in inv.walk()
        ]

    def _tool_scope(self, names: Sequence[str] | None = None) -> Scoped:
        """The tool executions inside the selection (of ``names`` when given), failed ones too."""
        trace = self.trace
        wide = self._with_nested()
        wanted = None if names is None else set(names)
        tools: list[ToolExecution]
        if not wide.narrowed:
            if names is not None and len(names) == 1:
                tools = list(trace.reconstruction.tools_by_name.get(names[0], ()))
                wanted = None  # all of that name already
            else:
                tools = list(trace.tool_executions)
        elif self._kind == "tools":
            tools = wide._in_selection(trace.tool_executions)
            extra = [t for inv in self._below_tools_agents() for t in inv.tool_executions]
            if extra:
                tools = sorted(_unique([*tools, *extra]), key=lambda t: t.start_ns)
        else:
            tools = wide.selected_tools()
        if wanted is not None:
            tools = [t for t in tools if t.name in wanted]
        return Scoped(tools, self._principals(), self._nested == "top")

    def _agent_scope(self) -> Scoped:
        """The agent invocations inside the selection (the selected ones included), implicit ones not."""
        if self._agents is not None:
            agents = _unique(sub for inv in self._agents for sub in inv.walk())
        else:
            agents = self._with_nested().selected_agents()
            extra = self._below_tools_agents()
            if extra:
                agents = sorted(_unique([*agents, *extra]), key=lambda a: a.start_ns)
        agents = [a for a in agents if not a.implicit]
        return Scoped(agents, self._principals(), self._nested == "top")

    def _handoff_scope(self) -> Scoped:
        """The handoffs made inside the selection."""
        trace = self.trace
        wide = self._with_nested()
        handoffs: list[Handoff]
        if not wide.narrowed:
            handoffs = list(trace.handoffs)
        else:
            agents = self._agent_scope()
            made = [h for inv in [*agents.own, *agents.nested] for h in inv.handoffs]
            spanned = [] if self._agents is not None else wide._in_selection(trace.handoffs)
            handoffs = sorted(_unique([*made, *spanned]), key=lambda h: h.start_ns)
        return Scoped(handoffs, self._principals(), self._nested == "top")
