"""Handoff checks on agent invocations: ``has_handed_off_to`` and ``has_no_handoffs``.

Like the tool checks, they look at the handoffs the invocations in scope made (with
``including_nested()``, their nested invocations' too; an invocation that started others needs that
choice first), and they are gated by an unacknowledged failure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..._model.records import AgentInvocation, Handoff
from ..describe import one_name, python_call
from ..examined import note_candidates
from ..monocle.handoffs import describe_handoffs, hands_to
from ..names import NameLike, Names
from ..selection import Selection
from .gate import fail_on, gate, invocation_check, model_calls_of, walk
from .records import merge_records

if TYPE_CHECKING:
    from collections.abc import Sequence


__all__ = ["handoffs_of", "has_handed_off_to", "has_no_handoffs"]


def handoffs_of(sel: Selection, targets: Sequence[AgentInvocation]) -> list[Handoff]:
    """The handoffs made in scope; handed to the running check (``examined``)."""
    handoffs = merge_records(inv.handoffs for group in walk(sel, targets) for inv in group)
    note_candidates(handoffs)
    return handoffs


@invocation_check
def has_handed_off_to(sel: Selection, agent_name: NameLike, *, message: str | None = None) -> Selection:
    """The invocation handed control to ``agent_name`` at least once (a handoff, never a tool
    execution)."""
    __tracebackhide__ = True
    name = one_name(agent_name, "agent_name")
    check = python_call("has_handed_off_to", agent_name)
    targets = gate(sel, check, message, scoped=True)
    handoffs = handoffs_of(sel, targets)
    if not any(hands_to(h, Names([name])) for h in handoffs):
        asked = [
            r.name
            for c in model_calls_of(sel, targets)
            for r in c.requested_tools
            if not r.executed
            and r.name.startswith(("transfer_to_", "handoff_to_"))
            and name.matches(r.name.partition("_to_")[2])
        ]
        also = f" (the model asked for {asked[0]!r} {len(asked)} time(s); never carried out)" if asked else ""
        fail_on(
            sel,
            check,
            targets,
            f"expected a handoff to {name.shown()}, found "
            + (f"handoffs to others only: {describe_handoffs(handoffs)}" if handoffs else "no handoff")
            + also,
            message=message,
        )
    return sel


@invocation_check
def has_no_handoffs(
    sel: Selection, *, message: str | None = None, as_called: str = "has_no_handoffs"
) -> Selection:
    """The invocation handed control to no other agent."""
    __tracebackhide__ = True
    check = f"{as_called}()"
    targets = gate(sel, check, message, scoped=True)
    handoffs = handoffs_of(sel, targets)
    if handoffs:
        fail_on(
            sel,
            check,
            targets,
            f"expected no handoff, found {len(handoffs)}: {describe_handoffs(handoffs)}",
            message=message,
        )
    return sel
