"""Least privilege: the tools a run (or an agent) may call, and the agents it may hand off to.

- ``calls_only_tools(allowed, agent_name=None, denied=())``: every call inside the selection (by
  ``agent_name`` when given: the calls that agent made itself) is of a tool in ``allowed``, and none of
  a tool in ``denied`` (the deny-list wins over the allow-list). Names or patterns; failed calls count
  (the tool was called). A call the model asked for whose outcome the trace does not record, of a tool
  not allowed, cannot tell. A selection with no tool call cannot tell either.
- ``hands_off_only_to(agents)``: every handoff made inside the selection goes to one of ``agents``.
"""

from __future__ import annotations

from ..describe import agent_arg, call_text, names_arg
from ..fail import fail
from ..monocle.handoffs import describe_handoffs, hands_to
from ..names import NameLike, NamePattern, Names, NamesLike
from ..records_scope import agent_scope, handoff_scope
from ..selection import Selection
from ..unknown import cannot_tell, selection_unknowns
from .steps import Steps, agent_of, fail_steps, no_steps, steps_of

__all__ = ["calls_only_tools", "hands_off_only_to"]


def _names(value: NamesLike, what: str, check: str) -> Names:
    """The names of an allow-list; an empty list allows none."""
    if isinstance(value, list | tuple) and not value:
        return Names(())
    return names_arg(value, what, check)


def _allowed(name: str, allowed: Names, denied: Names | None) -> bool:
    return allowed.matches(name) and (denied is None or not denied.matches(name))


def calls_only_tools(
    sel: Selection,
    allowed: NamesLike,
    agent_name: NameLike | None = None,
    *,
    denied: NamesLike = (),
    message: str | None = None,
) -> Selection:
    """Every tool call inside the selection (by ``agent_name``) is of an allowed tool and of no
    denied one."""
    __tracebackhide__ = True
    allow = _names(allowed, "tool", "calls_only_tools")
    deny = names_arg(denied, "tool", "calls_only_tools") if denied not in ((), [], None) else None
    agent = agent_arg(agent_name, "calls_only_tools")
    check = call_text("calls_only_tools", allowed, agent_name, denied=denied if deny else None)
    expected = f"expected only calls of {allow.listed() or 'no tool'}" + (
        f" and none of {deny.listed()}" if deny else ""
    )
    if agent is not None:
        expected += f" by {_agent_text(agent)}"
    steps = steps_of(sel)
    if agent is not None:
        steps = Steps(
            [t for t in steps.tools if t.agent is not None and agent.matches(t.agent.name)], steps.top
        )
    if no_steps(sel, check, steps, expected, message):
        return sel
    bad = [j for j, t in enumerate(steps.tools) if not _allowed(t.name, allow, deny)]
    if bad:
        shown = "; ".join(f"{_why(steps.tools[j].name, deny)} {_at(steps, j)}" for j in bad[:5])
        more = f"; ... ({len(bad) - 5} more)" if len(bad) > 5 else ""
        names = ", ".join(dict.fromkeys(repr(steps.tools[j].name) for j in bad))
        problem = f"{expected}, found {len(bad)} other call(s) ({names}): {shown}{more}"
        fail_steps(sel, check, steps, problem, message, bad)
        return sel
    unknown = [r for r in selection_unknowns(sel, None, agent) if not _allowed(r.name, allow, deny)]
    if unknown:
        fail_steps(
            sel, check, steps, f"{expected}, found just that, but " + cannot_tell(sel, unknown, ""), message
        )
    return sel


def _agent_text(agent: NamePattern) -> str:
    return f"agent {agent.shown()}" if agent.is_name else f"agents matching {agent.shown()}"


def _why(name: str, deny: Names | None) -> str:
    return "denied:" if deny is not None and deny.matches(name) else "not allowed:"


def _at(steps: Steps, j: int) -> str:
    tool = steps.tools[j]
    return f"{tool.name!r} at step {j + 1} ({agent_of(tool)})"


def hands_off_only_to(sel: Selection, agents: NamesLike, *, message: str | None = None) -> Selection:
    """Every handoff made inside the selection goes to one of ``agents`` (names or patterns). Fails
    with "cannot tell" when the selection holds no agent invocation (nothing shows who ran)."""
    __tracebackhide__ = True
    names = _names(agents, "agent", "hands_off_only_to")
    check = call_text("hands_off_only_to", agents)
    expected = f"expected handoffs only to {names.listed()}" if len(names) else "expected no handoff"
    scope = handoff_scope(sel)
    bad = [h for h in scope.counted if not hands_to(h, names)]
    if bad:
        fail(
            sel,
            check,
            f"{expected}, found {len(bad)} to another agent: {describe_handoffs(bad)}",
            message=message,
            details=f"handoffs in the selection: {describe_handoffs(scope.counted)}",
        )
        return sel
    asked = [
        r
        for r in selection_unknowns(sel)
        if r.name.startswith(("transfer_to_", "handoff_to_"))
        and not names.matches(r.name.partition("_to_")[2])
    ]
    if asked:
        fail(sel, check, f"{expected}, found none other, but " + cannot_tell(sel, asked, ""), message=message)
        return sel
    if not scope.counted and not agent_scope(sel).counted:
        fail(
            sel,
            check,
            f"{expected}; cannot tell: the selection holds no agent invocation, so the trace does not show "
            "whether control passed between agents",
            message=message,
        )
    return sel
