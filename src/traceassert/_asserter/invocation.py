"""The invocation checks (LangChain4j style) of the selected agent invocations."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._checks.count import Count
from .._checks.invocation.args import ArgumentsCheck, Expectation
from .._checks.names import NameLike
from .._model.records import ToolExecution
from .base import AsserterBase

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["InvocationFamily"]


class InvocationToolFamily(AsserterBase):
    """Check the tool executions of the selected invocations (only successful ones count as executed)."""

    __slots__ = ()

    def has_tool_executed(
        self,
        tool_name: NameLike,
        *,
        count: int | None = None,
        min_count: int | None = None,
        max_count: int | None = None,
        message: str | None = None,
    ) -> Self:
        """The tool was executed successfully as many times as the count says (at least once without
        one); failed executions do not count. Marks its successful executions."""
        __tracebackhide__ = True
        from .._checks.invocation import tools as _tools

        wanted = Count.of(count, min_count, max_count)
        return self._keep(_tools.has_tool_executed(self._state, tool_name, count=wanted, message=message))

    def has_tool_executed_times(self, tool_name: NameLike, times: int, *, message: str | None = None) -> Self:
        """The tool was executed successfully exactly ``times`` times (0: never successfully).
        Marks its successful executions."""
        __tracebackhide__ = True
        from .._checks.invocation import tools as _tools

        return self._keep(_tools.has_tool_executed_times(self._state, tool_name, times, message=message))

    def has_tools_executed_in_order(self, *tool_names: Expectation, message: str | None = None) -> Self:
        """The tools were executed successfully in this order; others may run before, between and after.

        Each item is a tool name or a ``(tool name, arguments)`` pair (arguments as in
        ``has_tool_executed_with``). Calls the model asked for in one response (parallel calls) are in
        the order it listed them; across invocations (``including_nested()``), in start order. Marks
        the executions matched.
        """
        __tracebackhide__ = True
        from .._checks.invocation import order as _order

        return self._keep(_order.has_tools_executed_in_order(self._state, *tool_names, message=message))

    def has_tools_executed_exactly_in_any_order(
        self, *tool_names: Expectation, message: str | None = None
    ) -> Self:
        """Exactly these tools were executed successfully, in any order, and no others at all.

        A tool executed twice must be given twice; a tool not given must not have been executed, not
        even in a failed execution (failed executions of given tools do not count). Items may be
        ``(tool name, arguments)`` pairs; no execution satisfies two items. Marks every successful
        execution.
        """
        __tracebackhide__ = True
        from .._checks.invocation import order as _order

        return self._keep(
            _order.has_tools_executed_exactly_in_any_order(self._state, *tool_names, message=message)
        )

    def has_tool_executed_with(
        self, tool_name: NameLike, arguments: ArgumentsCheck, *, message: str | None = None
    ) -> Self:
        """The tool was executed successfully at least once with matching arguments.

        ``arguments`` is a mapping (its keys must be present with values matching as JSON; other keys
        are ignored; ``3`` matches ``3.0`` and ``"3"``; nested objects and arrays exactly; matcher
        objects such as dirty-equals or ``unittest.mock.ANY`` are honoured), a matcher object asked
        about the whole arguments dict, or a callable run once per successful execution with a copy of
        its arguments: an execution passes unless the callable raises AssertionError (or returns
        False); other exceptions propagate. Marks the executions that matched.
        """
        __tracebackhide__ = True
        from .._checks.invocation import tools as _tools

        return self._keep(_tools.has_tool_executed_with(self._state, tool_name, arguments, message=message))

    def has_tool_execution_failed(
        self, tool_name: NameLike, *, error_containing: str | None = None, message: str | None = None
    ) -> Self:
        """The tool was executed at least once and that execution failed (it raised, or its arguments
        were invalid); with ``error_containing``, a failed execution whose error type or message contains
        that text (case-sensitive). Marks every such execution of the tool."""
        __tracebackhide__ = True
        from .._checks.invocation import tools as _tools

        return self._keep(
            _tools.has_tool_execution_failed(
                self._state, tool_name, error_containing=error_containing, message=message
            )
        )

    def has_no_failed_tool_executions(self, *, message: str | None = None) -> Self:
        """No tool execution failed. Fails when the producer did not record whether executions failed."""
        __tracebackhide__ = True
        from .._checks.invocation import tools as _tools

        return self._keep(_tools.has_no_failed_tool_executions(self._state, message=message))

    def has_no_tool_executions(self, *, message: str | None = None) -> Self:
        """No tool was executed, not even in an execution that failed."""
        __tracebackhide__ = True
        from .._checks.invocation import tools as _tools

        return self._keep(_tools.has_no_tool_executions(self._state, message=message))

    def has_no_more_tool_executions(self, *, message: str | None = None) -> Self:
        """Every tool execution in scope was matched by an earlier tool check on the same Trace or
        Capture (also through another asserter), like Mockito's ``verifyNoMoreInteractions``."""
        __tracebackhide__ = True
        from .._checks.invocation import tools as _tools

        return self._keep(_tools.has_no_more_tool_executions(self._state, message=message))

    # -- the names of the naming rule (docs/asserter.md): one negative form, ``does_not_*`` ----------------

    def does_not_have_failed_tool_executions(self, *, message: str | None = None) -> Self:
        """No tool execution in scope failed; fails when the producer did not record whether executions
        failed. ``has_no_failed_tool_executions`` is the same check under its LangChain4j name."""
        __tracebackhide__ = True
        from .._checks.invocation import tools as _tools

        state = _tools.has_no_failed_tool_executions(
            self._state, message=message, as_called="does_not_have_failed_tool_executions"
        )
        return self._keep(state)

    def does_not_have_tool_executions(self, *, message: str | None = None) -> Self:
        """No tool was executed in scope, not even in an execution that failed.
        ``has_no_tool_executions`` is the same check under its LangChain4j name."""
        __tracebackhide__ = True
        from .._checks.invocation import tools as _tools

        state = _tools.has_no_tool_executions(
            self._state, message=message, as_called="does_not_have_tool_executions"
        )
        return self._keep(state)

    def does_not_have_unchecked_tool_executions(self, *, message: str | None = None) -> Self:
        """Every tool execution in scope, failed ones included, was matched by an earlier tool check on
        the same Trace or Capture. ``has_no_more_tool_executions`` is the same check under its
        LangChain4j name."""
        __tracebackhide__ = True
        from .._checks.invocation import tools as _tools

        state = _tools.has_no_more_tool_executions(
            self._state, message=message, as_called="does_not_have_unchecked_tool_executions"
        )
        return self._keep(state)


class OutcomeFamily(AsserterBase):
    """Check how the selected invocations ended."""

    __slots__ = ()

    def has_succeeded(self, *, message: str | None = None) -> Self:
        """The invocation neither failed nor was cancelled (a nested invocation's handled failure does
        not count)."""
        __tracebackhide__ = True
        from .._checks.invocation import outcome as _outcome

        return self._keep(_outcome.has_succeeded(self._state, message=message))

    def has_failed(self, *, message: str | None = None) -> Self:
        """The invocation failed. Acknowledges the failure: the checks that follow look at what
        happened before it."""
        __tracebackhide__ = True
        from .._checks.invocation import outcome as _outcome

        return self._keep(_outcome.has_failed(self._state, message=message))

    def has_failed_with(self, error_type: type[BaseException] | str, *, message: str | None = None) -> Self:
        """The invocation failed with an error of ``error_type``, or with an error caused by one.

        A class matches its subclasses too (when the recorded class can be found among the modules
        already imported); a type name matches the recorded type's full name or last dotted segment
        (``"ValueError"``, ``"pydantic_ai.exceptions.UnexpectedModelBehavior"``). Acknowledges the
        failure.
        """
        __tracebackhide__ = True
        from .._checks.invocation import outcome as _outcome

        return self._keep(_outcome.has_failed_with(self._state, error_type, message=message))

    def has_failed_with_message_containing(self, text: str, *, message: str | None = None) -> Self:
        """The invocation failed with an error whose message, or a cause's, contains ``text``
        (case-sensitive). Acknowledges the failure."""
        __tracebackhide__ = True
        from .._checks.invocation import outcome as _outcome

        return self._keep(_outcome.has_failed_with_message_containing(self._state, text, message=message))


class CallFamily(AsserterBase):
    """Check the model calls, finish reasons and retrieved sources of the selected invocations."""

    __slots__ = ()

    def has_model_call_count(
        self, count: int, operation: str | None = None, *, message: str | None = None
    ) -> Self:
        """Exactly ``count`` model calls (of ``operation`` when given, e.g. ``"embeddings"``), failed ones
        included."""
        __tracebackhide__ = True
        from .._checks.invocation import calls as _calls

        return self._keep(_calls.has_model_call_count(self._state, count, operation, message=message))

    def has_own_model_call_count(self, count: int, *, message: str | None = None) -> Self:
        """Exactly ``count`` calls of the agent to its own chat model, failed ones included (with
        ``including_nested()``, the nested agents' own chat calls add up)."""
        __tracebackhide__ = True
        from .._checks.invocation import calls as _calls

        return self._keep(_calls.has_own_model_call_count(self._state, count, message=message))

    def has_own_model_call_count_at_most(self, count: int, *, message: str | None = None) -> Self:
        """At most ``count`` calls of the agent to its own chat model, failed ones included (for
        example, to check that the agent does not call tools in a loop)."""
        __tracebackhide__ = True
        from .._checks.invocation import calls as _calls

        return self._keep(_calls.has_own_model_call_count_at_most(self._state, count, message=message))

    def has_finish_reason(self, reason: str, *, message: str | None = None) -> Self:
        """The final model response of the invocation finished for ``reason`` (compared without regard
        to case: ``"stop"`` matches ``"STOP"``). Nested invocations are never checked."""
        __tracebackhide__ = True
        from .._checks.invocation import calls as _calls

        return self._keep(_calls.has_finish_reason(self._state, reason, message=message))

    def has_retrieved_source_containing(self, text: str, *, message: str | None = None) -> Self:
        """At least one retrieved source contains ``text`` (case-sensitive). Fails when no retrieval was
        recorded."""
        __tracebackhide__ = True
        from .._checks.invocation import calls as _calls

        return self._keep(_calls.has_retrieved_source_containing(self._state, text, message=message))

    def has_no_retrieved_sources(self, *, message: str | None = None) -> Self:
        """Retrieval ran and found no sources. Fails when no retrieval was recorded at all: then nothing
        shows that none were retrieved."""
        __tracebackhide__ = True
        from .._checks.invocation import calls as _calls

        return self._keep(_calls.has_no_retrieved_sources(self._state, message=message))

    # -- the names of the naming rule (docs/asserter.md): one way to count, one negative form -------------

    def has_model_calls(
        self,
        operation: str | None = None,
        *,
        count: int | None = None,
        min_count: int | None = None,
        max_count: int | None = None,
        message: str | None = None,
    ) -> Self:
        """As many model calls in scope as the count says (at least one without one), of
        ``operation`` when given (e.g. ``"embeddings"``), failed ones included."""
        __tracebackhide__ = True
        from .._checks.invocation import calls as _calls

        wanted = Count.of(count, min_count, max_count)
        return self._keep(_calls.has_model_calls(self._state, operation, count=wanted, message=message))

    def has_own_model_calls(
        self,
        *,
        count: int | None = None,
        min_count: int | None = None,
        max_count: int | None = None,
        message: str | None = None,
    ) -> Self:
        """As many calls of the agent to its own chat model as the count says (at least one without
        one), failed ones included (with ``including_nested()``, nested agents' own calls add up)."""
        __tracebackhide__ = True
        from .._checks.invocation import calls as _calls

        wanted = Count.of(count, min_count, max_count)
        return self._keep(_calls.has_own_model_calls(self._state, count=wanted, message=message))

    def does_not_have_retrieved_sources(self, *, message: str | None = None) -> Self:
        """No source was retrieved in scope. ``has_no_retrieved_sources`` is the same check under its
        LangChain4j name."""
        __tracebackhide__ = True
        from .._checks.invocation import calls as _calls

        state = _calls.has_no_retrieved_sources(
            self._state, message=message, as_called="does_not_have_retrieved_sources"
        )
        return self._keep(state)


class HandoffInvocationFamily(AsserterBase):
    """Check the handoffs the selected invocations made."""

    __slots__ = ()

    def has_handed_off_to(self, agent_name: NameLike, *, message: str | None = None) -> Self:
        """The invocation handed control to ``agent_name`` at least once (a handoff, never a tool
        execution)."""
        __tracebackhide__ = True
        from .._checks.invocation import handoffs as _handoffs

        return self._keep(_handoffs.has_handed_off_to(self._state, agent_name, message=message))

    def has_no_handoffs(self, *, message: str | None = None) -> Self:
        """The invocation handed control to no other agent."""
        __tracebackhide__ = True
        from .._checks.invocation import handoffs as _handoffs

        return self._keep(_handoffs.has_no_handoffs(self._state, message=message))

    def does_not_have_handoffs(self, *, message: str | None = None) -> Self:
        """The selected invocations handed off to no agent (gated, and asks for the nesting choice, as
        every invocation check). ``has_no_handoffs`` is the same check under its LangChain4j name;
        ``does_not_hand_off`` is the Monocle-style check of the handoffs inside the selection."""
        __tracebackhide__ = True
        from .._checks.invocation import handoffs as _handoffs

        state = _handoffs.has_no_handoffs(self._state, message=message, as_called="does_not_have_handoffs")
        return self._keep(state)


class InvocationListFamily(AsserterBase):
    """The tool executions of the selected invocations, as a list."""

    __slots__ = ()

    def tool_executions(self) -> list[ToolExecution]:
        """The tool executions in scope as a plain list, failed ones included, in execution order.

        Parallel calls are in the order the model listed them; with ``including_nested()``, the nested
        invocations' executions are merged in by start time. Needs ``including_nested()`` or
        ``top_level_only()`` when an invocation started others. Not gated by failures: it is the record.
        """
        __tracebackhide__ = True
        from .._checks.invocation import lists as _lists

        return _lists.tool_executions(self._state)

    def executed_tool_names(self) -> list[str]:
        """The names of ``tool_executions()``, failed ones included, e.g. for
        ``assert ta.assert_trace(t).executed_tool_names() == ["get_weather", "book"]``."""
        __tracebackhide__ = True
        from .._checks.invocation import lists as _lists

        return _lists.executed_tool_names(self._state)


class InvocationFamily(
    InvocationToolFamily, OutcomeFamily, CallFamily, HandoffInvocationFamily, InvocationListFamily
):
    """The invocation checks, gated: a failed invocation fails them until a ``has_failed*`` check
    acknowledged it, a cancelled one fails them all, and nested invocations need a nesting choice."""

    __slots__ = ()
