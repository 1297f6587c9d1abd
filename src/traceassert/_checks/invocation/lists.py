"""Invocation checks with LangChain4j (``AiServiceInvocationAssert``) and AgentPrism semantics.

They look at the agent invocations in the selection (after ``called_agent``: those; else the top-level
invocations of the trace). The checks live in four groups: tools (``invocations_tools``), outcome
(``invocations_outcome``), model calls / finish reason / sources (``invocations_calls``), handoffs
(``invocations_handoffs``); the shared machinery is in ``invocations_base``.

- ``including_nested()`` / ``top_level_only()`` choose what tool, model-call, handoff and source checks
  see when an invocation started others; without a choice those checks fail on such an invocation. The
  same choice applies to the Monocle-style checks, which include nested agents when none was made.
- A failed invocation fails every other invocation check until a ``has_failed*`` check passed on the same
  Trace or Capture; a cancelled invocation fails every invocation check. The Monocle-compatible checks
  are never gated.
"""

from __future__ import annotations

from ..._model.records import ToolExecution
from ..fail import fail_now
from ..selection import Selection
from .gate import scope_text, targets_of, tools_of

__all__ = ["executed_tool_names", "tool_executions"]


def tool_executions(sel: Selection) -> list[ToolExecution]:
    """The tool executions in scope as a plain list, failed ones included, in execution order.

    Parallel calls are in the order the model listed them; with ``including_nested()``, the nested
    invocations' executions are merged in by start time. Needs ``including_nested()`` or
    ``top_level_only()`` when an invocation started others. Not gated by failures: it is the record.
    """
    __tracebackhide__ = True
    return list(_inv_tool_list(sel, "tool_executions()"))  # a copy: the ledger keeps the one examined


def _inv_tool_list(sel: Selection, check: str) -> list[ToolExecution]:
    __tracebackhide__ = True
    targets = targets_of(sel)
    if sel.nested is None:
        parents = [t for t in targets if t.nested]
        if parents:
            nested = ", ".join(repr(n.name) for t in parents for n in t.walk() if n is not t)
            fail_now(
                sel,
                check,
                f"the invocation(s) started nested agent invocation(s) ({nested}): "
                "call including_nested() "
                "or top_level_only() first",
                scope_text(sel, targets),
            )
    return tools_of(sel, targets)


def executed_tool_names(sel: Selection) -> list[str]:
    """The names of ``tool_executions()``, failed ones included, e.g. for
    ``assert ta.assert_trace(t).executed_tool_names() == ["get_weather", "book"]``."""
    __tracebackhide__ = True
    return [t.name for t in _inv_tool_list(sel, "executed_tool_names()")]
