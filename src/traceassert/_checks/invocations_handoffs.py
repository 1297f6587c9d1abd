"""Handoff checks on agent invocations: ``has_handed_off_to`` and ``has_no_handoffs``.

Like the tool checks, they look at the handoffs the invocations in scope made (with
``including_nested()``, their nested invocations' too; an invocation that started others needs that
choice first), and they are gated by an unacknowledged failure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._model.records import AgentInvocation, Handoff
from .handoffs import describe_handoffs, hands_to
from .invocations_args import call_text, check_name
from .invocations_base import InvocationBase, merge_records, who

if TYPE_CHECKING:
    from collections.abc import Sequence

    from typing_extensions import Self

__all__ = ["HandoffInvocationChecks"]


class HandoffInvocationChecks(InvocationBase):
    __slots__ = ()

    def _inv_handoffs(self, targets: Sequence[AgentInvocation]) -> list[Handoff]:
        return merge_records(inv.handoffs for group in self._inv_walk(targets) for inv in group)

    def has_handed_off_to(self, agent_name: str, *, message: str | None = None) -> Self:
        """The invocation handed control to ``agent_name`` at least once (a handoff, never a tool
        execution)."""
        __tracebackhide__ = True
        name = check_name(agent_name, "agent_name")
        check = call_text("has_handed_off_to", name)
        targets = self._inv_begin(check, message, scoped=True)
        if targets is None:
            return self
        handoffs = self._inv_handoffs(targets)
        if not any(hands_to(h, (name,)) for h in handoffs):
            asked = [
                r.name
                for c in self._inv_model_calls(targets)
                for r in c.requested_tools
                if not r.executed and r.name in (f"transfer_to_{name}", f"handoff_to_{name}")
            ]
            also = (
                f" (the model asked for {asked[0]!r} {len(asked)} time(s); never carried out)"
                if asked
                else ""
            )
            self._fail(
                f"{check} on {who(targets)}",
                f"expected a handoff to {name!r}, found "
                + (f"handoffs to others only: {describe_handoffs(handoffs)}" if handoffs else "no handoff")
                + also,
                message=message,
                details=self._inv_scope_text(targets),
            )
        return self

    def has_no_handoffs(self, *, message: str | None = None) -> Self:
        """The invocation handed control to no other agent."""
        __tracebackhide__ = True
        check = "has_no_handoffs()"
        targets = self._inv_begin(check, message, scoped=True)
        if targets is None:
            return self
        handoffs = self._inv_handoffs(targets)
        if handoffs:
            self._fail(
                f"{check} on {who(targets)}",
                f"expected no handoff, found {len(handoffs)}: {describe_handoffs(handoffs)}",
                message=message,
                details=self._inv_scope_text(targets),
            )
        return self
