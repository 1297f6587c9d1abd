"""Monocle-style handoff checks: ``handed_off_to`` (a selector) and ``does_not_hand_off``.

They look at the handoffs made inside the selection (see ``records_scope``; nested agents' handoffs
count unless ``top_level_only()`` was called). A handoff is control passed from one agent to another; it
is never a tool execution (see ``ta.Handoff``).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..._model.records import Handoff
from ..describe import call_text, names_arg, quoted
from ..fail import fail
from ..names import Names, NamesLike
from ..nesting import NOTE, nested_records_text
from ..records_scope import handoff_scope
from ..selection import Selection

__all__ = ["describe_handoffs", "does_not_hand_off", "handed_off_to", "hands_to"]


def hands_to(handoff: Handoff, names: Names | None) -> bool:
    """True when ``handoff`` went to one of ``names`` (any agent when None)."""
    if names is None:
        return True
    target = handoff.to_agent
    if target is None and handoff.to_invocation is not None:
        target = handoff.to_invocation.name
    return names.matches(target)


def describe_handoffs(handoffs: Sequence[Handoff], limit: int = 10) -> str:
    if not handoffs:
        return "none"
    text = ", ".join(str(h) for h in handoffs[:limit])
    return text + (f", ... ({len(handoffs) - limit} more)" if len(handoffs) > limit else "")


def handed_off_to(sel: Selection, agent_name: NamesLike, *, message: str | None = None) -> Selection:
    """The check of ``handed_off_to`` (its docstring on the asserter says what it does)."""
    __tracebackhide__ = True
    names = names_arg(agent_name, "agent", "handed_off_to")
    check = call_text("handed_off_to", agent_name)
    scope = handoff_scope(sel)
    found = [h for h in scope.counted if hands_to(h, names)]
    details = f"handoffs in the selection: {describe_handoffs(scope.counted)}"
    if not found:
        left = [h for h in scope.left_out if hands_to(h, names)]
        note = (
            f"{NOTE}top_level_only() left out: {nested_records_text(left, scope.principals, 'made')} "
            "(without top_level_only(), nested agents' handoffs count)"
            if left
            else ""
        )
        fail(
            sel,
            check,
            f"expected a handoff to {quoted(names, 'agent')}, found none{note}",
            message=message,
            details=details,
        )
        return sel
    taken = list(
        {id(h.to_invocation): h.to_invocation for h in found if h.to_invocation is not None}.values()
    )
    if not taken:
        fail(
            sel,
            check,
            f"found {len(found)} handoff(s) to {quoted(names, 'agent')} ({describe_handoffs(found)}), "
            "but "
            "the trace does not record the run of the agent handed to, so there is nothing to select",
            message=message,
            details=details,
        )
        return sel
    taken.sort(key=lambda inv: inv.start_ns)
    spans = tuple(s for inv in taken for s in inv.spans)
    return sel.narrow("agents", None, agents=tuple(taken), roots=spans)


def does_not_hand_off(
    sel: Selection, to: NamesLike | None = None, *, message: str | None = None
) -> Selection:
    """Fail when a handoff was made inside the selection (to ``to``, one agent name or several,
    when given)."""
    __tracebackhide__ = True
    names = None if to is None else names_arg(to, "agent", "does_not_hand_off")
    scope = handoff_scope(sel)
    found = [h for h in scope.counted if hands_to(h, names)]
    if found:
        target = "" if names is None else f" to {quoted(names, 'agent')}"
        nested_ids = {id(h) for h in scope.nested}
        nested = [h for h in found if id(h) in nested_ids]
        note = (
            f"{NOTE}of these, {nested_records_text(nested, scope.principals, 'made')} (top_level_only() "
            "leaves nested agents' handoffs out)"
            if nested
            else ""
        )
        fail(
            sel,
            call_text("does_not_hand_off", to),
            f"expected no handoff{target}, found {len(found)}: {describe_handoffs(found)}{note}",
            message=message,
        )
    return sel
