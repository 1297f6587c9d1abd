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

from typing import TYPE_CHECKING

from .._model.records import ToolExecution
from .invocations_calls import CallChecks
from .invocations_handoffs import HandoffInvocationChecks
from .invocations_outcome import OutcomeChecks
from .invocations_tools import ToolInvocationChecks

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["InvocationChecks"]


class InvocationChecks(ToolInvocationChecks, OutcomeChecks, CallChecks, HandoffInvocationChecks):
    __slots__ = ()

    def including_nested(self) -> Self:
        """A new asserter whose checks look at the whole tree: the invocation and every invocation it
        started, directly or not. Their tool executions, model calls, handoffs and sources add up.

        For the Monocle-style checks (``called_tool``, ``does_not_call_tool``, ``under_token_limit``,
        ...) this is the default; the invocation checks ask for a choice when nested agents exist."""
        new = self._copy()
        new._nested = "nested"
        return new

    def top_level_only(self) -> Self:
        """A new asserter whose checks look only at what the selection's invocations did themselves,
        not at the invocations they started: for the invocation checks and for the Monocle-style
        checks after it (tools, agents, handoffs, tokens, inputs/outputs, spans)."""
        new = self._copy()
        new._nested = "top"
        return new

    def tool_executions(self) -> list[ToolExecution]:
        """The tool executions in scope as a plain list, failed ones included, in execution order.

        Parallel calls are in the order the model listed them; with ``including_nested()``, the nested
        invocations' executions are merged in by start time. Needs ``including_nested()`` or
        ``top_level_only()`` when an invocation started others. Not gated by failures: it is the record.
        """
        __tracebackhide__ = True
        return self._inv_tool_list("tool_executions()")

    def _inv_tool_list(self, check: str) -> list[ToolExecution]:
        __tracebackhide__ = True
        targets = self._inv_targets()
        if self._nested is None:
            parents = [t for t in targets if t.nested]
            if parents:
                nested = ", ".join(repr(n.name) for t in parents for n in t.walk() if n is not t)
                self._inv_raise(
                    check,
                    f"the invocation(s) started nested agent invocation(s) ({nested}): "
                    "call including_nested() "
                    "or top_level_only() first",
                    self._inv_scope_text(targets),
                )
        return self._inv_tools(targets)

    def executed_tool_names(self) -> list[str]:
        """The names of ``tool_executions()``, failed ones included, e.g. for
        ``assert ta.assert_trace(t).executed_tool_names() == ["get_weather", "book"]``."""
        __tracebackhide__ = True
        return [t.name for t in self._inv_tool_list("executed_tool_names()")]
