"""The asserter types: what each kind of selection offers.

- ``TraceAsserter``: the whole trace, or the spans a span selector kept. Every check.
- ``AgentSelection``: the agent invocations ``called_agent``, ``handed_off_to``, ``turn`` or
  ``conversation`` selected. Every check; the invocation checks look at these invocations.
- ``ToolSelection``: the tool executions ``called_tool`` selected. The Monocle-style checks of what
  ran inside them (inputs, outputs, tools, agents, handoffs, tokens, evaluations); not the invocation
  checks, which are about agent invocations.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._model.records import ToolExecution
from .base import AsserterBase
from .grading import ClaimFamily, TrajectoryFamily
from .invocation import InvocationFamily
from .io import IOFamily
from .more import BudgetFamily, EvalFamily, GoldenFamily
from .records import AgentFamily, HandoffFamily, ToolFamily, TurnFamily
from .rules import MilestoneFamily, OrderFamily, PrivilegeFamily, RunBudgetFamily
from .spans import ScopeFamily, SpanFamily

__all__ = ["AgentSelection", "SelectionChecks", "ToolSelection", "TraceAsserter"]


class SelectionChecks(
    SpanFamily,
    ScopeFamily,
    IOFamily,
    ToolFamily,
    AgentFamily,
    HandoffFamily,
    BudgetFamily,
    EvalFamily,
    GoldenFamily,
    OrderFamily,
    MilestoneFamily,
    PrivilegeFamily,
    RunBudgetFamily,
    TrajectoryFamily,
    ClaimFamily,
):
    """The checks every selection offers: the Monocle-style family, budgets, evaluations, goldens."""

    __slots__ = ()


#: what a tool selection refuses, and why (the invocation checks and the turns are about agents)
_AGENT_ONLY = frozenset(
    name for family in (InvocationFamily, TurnFamily) for name in dir(family) if not name.startswith("_")
).difference(dir(SelectionChecks))


class ToolSelection(SelectionChecks):
    """The tool executions ``called_tool(...)`` selected, failed ones included, and what ran inside
    them: check their inputs and outputs, the tools and agents they started, their tokens."""

    __slots__ = ()

    def tool_executions(self) -> list[ToolExecution]:
        """The selected tool executions, failed ones included, in start order: the list to assert on
        (on an agent selection or the whole trace, ``tool_executions()`` lists those in scope)."""
        return list(self._state.selected_tools())  # a copy: the ledger keeps the one examined

    if not TYPE_CHECKING:

        def __getattr__(self, name: str) -> Any:
            if name in _AGENT_ONLY:
                raise TypeError(
                    f"{name}() is an invocation check: invocation checks work on agent invocations, not "
                    "on the tool executions selected by called_tool(...): call them on the asserter "
                    "itself or after called_agent(...)"
                )
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


class TraceAsserter(SelectionChecks, TurnFamily, InvocationFamily):
    """Fluent checks over a Trace, a Capture (read live), or an iterable of spans.

    Selectors (``where``, ``with_attribute``, ``with_event``, ``with_scope``..., ``called_agent``,
    ``called_tool``, ``handed_off_to``, ``turn``, ``conversation``) return a new asserter narrowed to
    their matches, typed by what it holds (``AgentSelection``, ``ToolSelection``); every other check
    returns the asserter it was called on, so checks chain. ``including_nested()`` /
    ``top_level_only()`` choose, for the checks after them, whether nested agents' work counts. A
    failing check raises ``TraceAssertionError`` at once (inside ``soft()``: at the end of the block,
    all failures together). The naming rule is in docs/asserter.md.
    """

    __slots__ = ()


class AgentSelection(TraceAsserter):
    """The agent invocations ``called_agent``, ``handed_off_to``, ``turn`` or ``conversation``
    selected: the invocation checks look at them, the Monocle-style checks at what ran inside them."""

    __slots__ = ()


AsserterBase._kinds.update(spans=TraceAsserter, agents=AgentSelection, tools=ToolSelection)
